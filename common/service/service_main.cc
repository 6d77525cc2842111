#include "common/service/service_main.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <iostream>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "common/base/malloc_tuning.h"
#include "common/base/status_macros.h"
#include "common/service/log_line.h"
#include "common/service/service_config.h"
#include "common/service/service_flags.h"
#include "common/service/transport_security_config.h"
#include "common/workload/proto_io.h"
#include "proto/service_config.pb.h"

namespace mmapzero::service {
namespace {

// How often a running service gives its freed memory back to the kernel
// (common/base/malloc_tuning.h): often enough that RSS follows what the
// service uses, seldom enough that re-faulting a step's tensors costs
// nothing measurable.
constexpr absl::Duration kMemoryReleaseInterval = absl::Minutes(1);

// The config's `security` field as the files to load.
absl::StatusOr<security::TransportSecurityFiles> SecurityFiles(
    const google::protobuf::Message& config) {
  const google::protobuf::FieldDescriptor* field =
      config.GetDescriptor()->FindFieldByName("security");
  if (field == nullptr ||
      field->message_type() != TransportSecurityConfig::descriptor()) {
    return absl::InternalError(absl::StrCat(
        config.GetTypeName(), " has no TransportSecurityConfig security"));
  }
  return TransportSecurityFilesFromConfig(
      static_cast<const TransportSecurityConfig&>(
          config.GetReflection()->GetMessage(config, field)));
}

// The effective config, checked: what --check-flags and --print-config
// report and what the service starts from.
absl::Status ReadAndCheck(google::protobuf::Message* config,
                          const ServiceHooks& hooks,
                          security::TransportSecurityFiles* security) {
  RETURN_IF_ERROR(ReadServiceConfig(config));
  hooks.apply_defaults(config);
  ASSIGN_OR_RETURN(*security, SecurityFiles(*config));
  RETURN_IF_ERROR(security::CheckTransportSecurityFiles(*security));
  return hooks.check(*config);
}

int Fail(const std::string& component, const absl::Status& status) {
  std::cerr << "mmapzero-" << component << ": " << status.message() << "\n";
  return 1;
}

}  // namespace

namespace {

// Set once RunService has blocked the shutdown signals it waits for.
std::atomic<bool> service_waits{false};
// What RunService returns after a stop RequestShutdown asked for.
std::atomic<int> requested_exit{0};

}  // namespace

bool RequestShutdown(int exit_code) {
  if (!service_waits.load()) return false;
  requested_exit.store(exit_code);
  // Blocked in every thread, so it waits for RunService's sigwait.
  return kill(getpid(), SIGTERM) == 0;
}

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

int RunService(int argc, char** argv, google::protobuf::Message* config,
               const ServiceHooks& hooks) {
  KeepFreedMemoryForReuse();  // before any thread; LibTorch's steps reuse it
  service::SetLogComponent(hooks.component);
  absl::SetProgramUsageMessage(hooks.usage);
  const sigset_t signals = BlockShutdownSignals();
  service_waits.store(true);
  std::vector<std::string> storage;
  std::vector<char*> args = UnderscoreFlagNames(argc, argv, &storage);
  const std::vector<char*> positional =
      absl::ParseCommandLine(static_cast<int>(args.size()), args.data());
  if (positional.size() > 1) {  // [0] is the program
    return Fail(hooks.component, absl::InvalidArgumentError(absl::StrCat(
                                     "unexpected argument '", positional[1],
                                     "' (every setting is a --flag)")));
  }
  security::TransportSecurityFiles security;
  const absl::Status checked = ReadAndCheck(config, hooks, &security);
  if (absl::GetFlag(FLAGS_print_config)) {
    if (!checked.ok()) return Fail(hooks.component, checked);
    std::cout << ToJson(*config) << "\n";
    return 0;
  }
  if (!checked.ok()) return Fail(hooks.component, checked);
  if (absl::GetFlag(FLAGS_check_flags)) {
    std::cout << "mmapzero-" << hooks.component << ": flags ok\n";
    return 0;
  }
  absl::StatusOr<security::TransportSecurity> loaded =
      security::LoadTransportSecurity(security);
  if (!loaded.ok()) return Fail(hooks.component, loaded.status());
  security::SetProcessTransportSecurity(*std::move(loaded));
  absl::StatusOr<StopService> stop = hooks.start(*config);
  if (!stop.ok()) return Fail(hooks.component, stop.status());
  const PeriodicMemoryRelease release(kMemoryReleaseInterval);
  service::LogLine("info", "shutting_down",
                   {{"signal", WaitForShutdownSignal(signals)}});
  StopService stop_service = *std::move(stop);
  std::move(stop_service)();
  return requested_exit.load();
}

}  // namespace mmapzero::service
