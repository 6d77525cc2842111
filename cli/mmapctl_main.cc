// mmapctl: the command-line client of mmapzero. See `mmapctl help`.
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/base/malloc_tuning.h"
#ifdef MMAPZERO_WITH_TORCH
#include "cli/training/training_commands.h"
#include "common/training/register_training_solvers.h"
#endif

namespace {

void PrintHelp(std::ostream& out) {
  out << "usage: mmapctl COMMAND [ARGS]\n\ncommands:\n";
  for (const auto& command : mmapzero::cli::AllCommands()) {
    out << "  " << command.usage << "\n      " << command.summary << "\n";
  }
  out << "\nsubmit, list, status, watch, best and cancel find the coordinator "
         "at\n--coordinator HOST:PORT, else $MMAPZERO_COORDINATOR, else "
         "<data dir>/coordinator.addr\n(written by `mmapctl local up`); the "
         "data dir is --data-dir, else\n$MMAPZERO_DATA_DIR, else ~/.mmapzero. "
         "--timeout 30s bounds each call.\n";
}

}  // namespace

int main(int argc, char** argv) {
  // `solve` runs LibTorch and the search in this process.
  mmapzero::KeepFreedMemoryForReuse();
#ifdef MMAPZERO_WITH_TORCH
  // The LibTorch solvers (`muzero`), by explicit registration.
  mmapzero::training::RegisterTrainingSolvers();
  mmapzero::cli::AddTrainingCommands();  // `imitate`
#endif
  if (argc < 2 || std::string(argv[1]) == "help" ||
      std::string(argv[1]) == "--help") {
    PrintHelp(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? 2 : 0;
  }
  const std::string name = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& command : mmapzero::cli::AllCommands()) {
    if (name != command.name) continue;
    const absl::Status status = command.run(args);
    if (!status.ok()) {
      std::cerr << "mmapctl " << name << ": " << status.message() << "\n";
      return 1;
    }
    return 0;
  }
  std::cerr << "mmapctl: unknown command '" << name << "'\n";
  PrintHelp(std::cerr);
  return 2;
}
