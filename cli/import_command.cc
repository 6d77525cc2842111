#include "cli/commands.h"

namespace mmapzero::cli {

// Placeholder until the HLO importer lands; replaced by the real command.
absl::Status RunImport(const Args& args) {
  return absl::UnimplementedError("import: not available yet");
}

}  // namespace mmapzero::cli
