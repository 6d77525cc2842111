#include "common/rpc/service_main.h"

#include <pthread.h>

#include <algorithm>
#include <cstring>

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

}  // namespace mmapzero::rpc
