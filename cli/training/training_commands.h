// The mmapctl commands that run LibTorch (`imitate`), kept out of the
// mmapzero_cli library so that it builds without LibTorch; mmapctl's main
// adds them when it is built with LibTorch.
#ifndef MMAPZERO_CLI_TRAINING_TRAINING_COMMANDS_H_
#define MMAPZERO_CLI_TRAINING_TRAINING_COMMANDS_H_

#include "cli/commands.h"

namespace mmapzero::cli {

// Adds every command of this folder (cli::AddCommand).
void AddTrainingCommands();

absl::Status RunImitate(const Args& args);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_TRAINING_TRAINING_COMMANDS_H_
