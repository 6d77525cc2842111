// The subcommands of mmapctl. Each takes the arguments after its name,
// prints its result to stdout (a table, or JSON with --json) and returns an
// error status for bad input; main() prints the status and exits non-zero.
// One command per file, cli/<name>_command.cc; the table in commands.cc lists
// them explicitly.
#ifndef MMAPZERO_CLI_COMMANDS_H_
#define MMAPZERO_CLI_COMMANDS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace mmapzero::cli {

using Args = std::vector<std::string>;

struct Command {
  const char* name;
  const char* usage;    // arguments, e.g. "validate WORKLOAD SOLUTION"
  const char* summary;  // one line for `mmapctl help`
  absl::Status (*run)(const Args& args);
};

// Every command, in the order `mmapctl help` lists them.
const std::vector<Command>& AllCommands();

// Adds a command defined outside this library: the LibTorch ones
// (cli/training/), which mmapctl adds when it is built with LibTorch, so
// that this library stays free of it. Call before AllCommands is read
// from more than one thread (mmapctl's main does, first thing).
void AddCommand(const Command& command);

absl::Status RunGenerate(const Args& args);
absl::Status RunInspect(const Args& args);
absl::Status RunBound(const Args& args);
absl::Status RunPlay(const Args& args);
absl::Status RunSolve(const Args& args);
absl::Status RunValidate(const Args& args);
absl::Status RunEvaluate(const Args& args);
absl::Status RunRender(const Args& args);
absl::Status RunImport(const Args& args);
absl::Status RunExport(const Args& args);
// The service's client (cli/job_client.h) and the local cluster.
absl::Status RunSubmit(const Args& args);
absl::Status RunList(const Args& args);
absl::Status RunStatus(const Args& args);
absl::Status RunWatch(const Args& args);
absl::Status RunBest(const Args& args);
absl::Status RunCancel(const Args& args);
absl::Status RunDelete(const Args& args);
absl::Status RunExtend(const Args& args);
absl::Status RunResume(const Args& args);
absl::Status RunArchive(const Args& args);
absl::Status RunNetworks(const Args& args);
absl::Status RunLocal(const Args& args);
absl::Status RunCerts(const Args& args);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_COMMANDS_H_
