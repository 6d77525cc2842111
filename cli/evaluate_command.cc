#include "cli/commands.h"

namespace mmapzero::cli {

// Placeholder until this command lands; replaced by its real implementation.
absl::Status RunEvaluate(const Args& args) {
  return absl::UnimplementedError("evaluate: not implemented yet");
}

}  // namespace mmapzero::cli
