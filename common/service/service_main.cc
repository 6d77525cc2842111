#include "common/rpc/service_main.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "common/base/malloc_tuning.h"
#include "common/rpc/log_line.h"
#include "common/rpc/transport_security_flags.h"

ABSL_FLAG(bool, check_flags, false,
          "check the command line's flags and exit (0: they would start) "
          "without starting the service or reading the files they name");

namespace mmapzero::rpc {

sigset_t BlockShutdownSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

std::string WaitForShutdownSignal(const sigset_t& signals) {
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  return strsignal(signal_number);
}

std::string HostName(const std::string& fallback) {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') {
    return fallback;
  }
  return name;
}

std::vector<char*> UnderscoreFlagNames(int argc, char** argv,
                                       std::vector<std::string>* storage) {
  storage->assign(argv, argv + argc);
  std::vector<char*> pointers;
  for (std::string& arg : *storage) {
    if (arg.rfind("--", 0) == 0) {
      const size_t end = std::min(arg.find('='), arg.size());
      std::replace(arg.begin() + 2, arg.begin() + end, '-', '_');
    }
    pointers.push_back(arg.data());
  }
  return pointers;
}

int RunServiceMain(int argc, char** argv, const std::string& component,
                   const std::string& usage, CheckServiceFlags check,
                   StartService start) {
  KeepFreedMemoryForReuse();  // before any thread; LibTorch's steps reuse it
  SetLogComponent(component);
  absl::SetProgramUsageMessage(usage);
  const sigset_t signals = BlockShutdownSignals();
  std::vector<std::string> storage;
  std::vector<char*> args = UnderscoreFlagNames(argc, argv, &storage);
  const std::vector<char*> positional =
      absl::ParseCommandLine(static_cast<int>(args.size()), args.data());
  if (positional.size() > 1) {  // [0] is the program
    std::cerr << "mmapzero-" << component << ": unexpected argument '"
              << positional[1] << "' (every setting is a --flag)\n";
    return 1;
  }
  if (absl::GetFlag(FLAGS_check_flags)) {
    absl::Status checked = CheckTransportSecurityFlags();
    if (checked.ok()) checked = check();
    if (!checked.ok()) {
      std::cerr << "mmapzero-" << component << ": " << checked.message()
                << "\n";
      return 1;
    }
    std::cout << "mmapzero-" << component << ": flags ok\n";
    return 0;
  }
  const absl::Status security = ApplyTransportSecurityFlags();
  absl::StatusOr<StopService> stop =
      security.ok() ? start() : absl::StatusOr<StopService>(security);
  if (!stop.ok()) {
    std::cerr << "mmapzero-" << component << ": " << stop.status().message()
              << "\n";
    return 1;
  }
  LogLine("info", "shutting_down",
          {{"signal", WaitForShutdownSignal(signals)}});
  StopService stop_service = *std::move(stop);
  std::move(stop_service)();
  return 0;
}

}  // namespace mmapzero::rpc
