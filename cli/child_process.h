// The processes mmapctl starts and stops for a local cluster
// (local_cluster.h), apart from what they are: each is spawned in a session
// of its own with its output appended to a log, may run nicer than
// mmapctl, is recognised by its program (so a stale pid file whose number
// was reused is never signalled) and is stopped with SIGTERM, then SIGKILL.
#ifndef MMAPZERO_CLI_CHILD_PROCESS_H_
#define MMAPZERO_CLI_CHILD_PROCESS_H_

#include <sys/types.h>

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace mmapzero::cli {

// Starts `binary` with `args` in a session of its own (a Ctrl-C at
// mmapctl's terminal does not reach it), stdin from /dev/null, stdout and
// stderr appended to `log`. posix_spawn, not fork: mmapctl has gRPC
// threads by then.
absl::StatusOr<pid_t> SpawnInSession(const std::string& binary,
                                     const std::vector<std::string>& args,
                                     const std::string& log);

// Makes `pid` `by` nicer than this process: every thread (threads it
// starts later inherit it) and its session's scheduling group. With
// Linux's autogroups each session is a group (at nice 0 when new), and
// groups share the CPU by the group's niceness alone. Best effort.
void Renice(pid_t pid, int by);

// Whether `pid` is a live (not zombie) process whose program is `program`
// (the file name of its argv[0]).
bool ProcessRuns(int pid, const std::string& program);

// The pid in a pid file; 0 when missing or not a positive number.
int ReadPidFile(const std::string& path);

// One process to stop, by its name for humans and its program.
struct ChildProcess {
  std::string name;
  int pid = 0;
  std::string program;
};

// SIGTERM to every process of `group`, SIGKILL to those still running
// after `timeout`; a line per process to `out` ("stopped NAME (pid P) in
// T"). A child of this process is reaped.
void StopProcesses(const std::vector<ChildProcess>& group,
                   absl::Duration timeout, std::ostream& out);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_CHILD_PROCESS_H_
