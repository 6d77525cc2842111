#include "cli/commands.h"

namespace mmapzero::cli {

// Placeholder until this command lands; replaced by its real implementation.
absl::Status RunPlay(const Args& args) {
  return absl::UnimplementedError("play: not implemented yet");
}

}  // namespace mmapzero::cli
