#include "cli/commands.h"

namespace mmapzero::cli {

// Placeholder until this command lands; replaced by its real implementation.
absl::Status RunInspect(const Args& args) {
  return absl::UnimplementedError("inspect: not implemented yet");
}

}  // namespace mmapzero::cli
