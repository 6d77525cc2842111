#include "cli/commands.h"

namespace mmapzero::cli {

// Placeholder until this command lands; replaced by its real implementation.
absl::Status RunSolve(const Args& args) {
  return absl::UnimplementedError("solve: not implemented yet");
}

}  // namespace mmapzero::cli
