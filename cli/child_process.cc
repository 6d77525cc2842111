#include "cli/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

extern char** environ;

namespace mmapzero::cli {
namespace {

namespace fs = std::filesystem;

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

absl::StatusOr<pid_t> SpawnInSession(const std::string& binary,
                                     const std::vector<std::string>& args,
                                     const std::string& log) {
  std::vector<std::string> argv_storage = {binary};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  // Nothing else of ours (a test runner's pipes) leaks into the service.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID |
                                            POSIX_SPAWN_SETSIGMASK |
                                            POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, binary.c_str(), &actions, &attributes,
                                argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    return absl::InternalError(
        absl::StrCat("cannot start ", binary, ": ", strerror(error)));
  }
  return pid;
}

void Renice(pid_t pid, int by) {
  std::ofstream(absl::StrCat("/proc/", pid, "/autogroup")) << by << "\n";
  const int nice = std::min(19, getpriority(PRIO_PROCESS, 0) + by);
  std::error_code error;
  for (const fs::directory_entry& task :
       fs::directory_iterator(absl::StrCat("/proc/", pid, "/task"), error)) {
    int tid = 0;
    if (absl::SimpleAtoi(task.path().filename().string(), &tid)) {
      setpriority(PRIO_PROCESS, static_cast<id_t>(tid), nice);
    }
  }
  if (error) setpriority(PRIO_PROCESS, static_cast<id_t>(pid), nice);
}

int ReadPidFile(const std::string& path) {
  int pid = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadSmallFile(path)),
                        &pid) ||
      pid <= 0) {
    return 0;
  }
  return pid;
}

bool ProcessRuns(int pid, const std::string& program) {
  if (pid <= 0) return false;
  const std::string proc = absl::StrCat("/proc/", pid);
  const std::string stat = ReadSmallFile(proc + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return false;
  const char state = stat[paren + 2];
  if (state == 'Z' || state == 'X') return false;
  const std::string cmdline = ReadSmallFile(proc + "/cmdline");
  const std::string argv0 = cmdline.substr(0, cmdline.find('\0'));
  return fs::path(argv0).filename().string() == program;
}

void StopProcesses(const std::vector<ChildProcess>& group,
                   absl::Duration timeout, std::ostream& out) {
  const absl::Time start = absl::Now();
  for (const ChildProcess& process : group) kill(process.pid, SIGTERM);
  std::vector<ChildProcess> running = group;
  bool killed = false;
  while (!running.empty()) {
    auto stopped = std::stable_partition(
        running.begin(), running.end(), [](const ChildProcess& process) {
          // Our own child (a service `up` is rolling back, or one `solve`
          // started) runs until we reap it; another's until /proc says so.
          const pid_t waited = waitpid(process.pid, nullptr, WNOHANG);
          if (waited == process.pid) return false;
          if (waited == 0) return true;
          return ProcessRuns(process.pid, process.program);
        });
    for (auto it = stopped; it != running.end(); ++it) {
      out << "stopped " << it->name << " (pid " << it->pid << ") in "
          << absl::FormatDuration(
                 absl::Trunc(absl::Now() - start, absl::Milliseconds(10)))
          << (killed ? " (SIGKILL)" : "") << "\n";
    }
    running.erase(stopped, running.end());
    if (running.empty()) break;
    if (!killed && absl::Now() - start >= timeout) {
      for (const ChildProcess& process : running) kill(process.pid, SIGKILL);
      killed = true;
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
}

}  // namespace mmapzero::cli
