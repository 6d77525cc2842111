#include "cli/training/training_commands.h"

namespace mmapzero::cli {

void AddTrainingCommands() {
  AddCommand({"imitate",
              "imitate WORKLOAD... --out NETWORK.pt [--solutions DIR] "
              "[--network none|default|FILE] [--config cpu|FILE] "
              "[--steps 2000] [--seed S] [--threads N]",
              "pretrain a network to play as the heuristic (or better "
              "solutions) plays each workload",
              RunImitate});
}

}  // namespace mmapzero::cli
