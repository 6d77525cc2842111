#include "cli/commands.h"

namespace mmapzero::cli {

// Placeholder until this command lands; replaced by its real implementation.
absl::Status RunValidate(const Args& args) {
  return absl::UnimplementedError("validate: not implemented yet");
}

}  // namespace mmapzero::cli
