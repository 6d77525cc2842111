#include "cli/commands.h"

namespace mmapzero::cli {

// Placeholder until this command lands; replaced by its real implementation.
absl::Status RunGenerate(const Args& args) {
  return absl::UnimplementedError("generate: not implemented yet");
}

}  // namespace mmapzero::cli
