#include "cli/commands.h"

namespace mmapzero::cli {

// Placeholder until this command lands; replaced by its real implementation.
absl::Status RunRender(const Args& args) {
  return absl::UnimplementedError("render: not implemented yet");
}

}  // namespace mmapzero::cli
