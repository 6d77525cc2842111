#include "cli/local_cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "cli/alert_rules.h"
#include "cli/child_process.h"
#include "cli/health_check.h"
#include "cli/loopback_port.h"
#include "cli/service_configs.h"
#include "common/base/address_file.h"
#include "common/base/atomic_file.h"
#include "common/base/read_file.h"
#include "common/base/status_macros.h"
#include "common/metrics/loopback_http.h"
#include "common/security/local_certificates.h"
#include "common/security/transport_security.h"

extern char** environ;

namespace mmapzero::cli {
namespace {

namespace fs = std::filesystem;

constexpr absl::Duration kPollInterval = absl::Milliseconds(50);
constexpr absl::Duration kHealthDeadline = absl::Seconds(1);
constexpr int kLogTailLines = 15;
constexpr char kRegisteredEvent[] = " event=registered";
// What a service prints when it cannot bind its metrics port
// (common/metrics/http_endpoint.cc).
constexpr char kMetricsPortTaken[] = "cannot serve HTTP (/metrics, /healthz)";
// `up --prometheus`'s extra service (not among LocalRoles(): never
// planned, started last by LocalUp itself); its name is its role's.
const std::string& PrometheusName() {
  static const auto* name = new std::string(RoleName(LocalRole::kPrometheus));
  return *name;
}

// One service to start: its name, role and binary; `instance` numbers
// actors and reanalysers.
struct Planned {
  std::string name;
  LocalRole role = LocalRole::kCoordinator;
  std::string binary;
  int instance = 0;
  // A gRPC service's --listen, and its metrics port (0: a free one). A
  // service started again beside running ones gets the ports it had, so
  // that they still reach it.
  std::string listen = "127.0.0.1:0";
  int metrics_port = 0;
};

// A service `up` started and owns until it is known ready.
struct Started {
  Planned service;
  pid_t pid = 0;
  std::uintmax_t log_offset = 0;  // the log's size before it started
};

std::string PathOf(const std::string& dir, const std::string& name,
                   const std::string& suffix) {
  return absl::StrCat(dir, "/", name, suffix);
}

// Names of services with a pid file in `dir`, in start order.
std::vector<std::string> ServicesWithPidFiles(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string file = entry.path().filename().string();
    if (file.size() <= 4 || file.substr(file.size() - 4) != ".pid") continue;
    const std::string name = file.substr(0, file.size() - 4);
    if (RoleOfService(name).has_value()) names.push_back(name);
  }
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) {
    return StartOrder(a) < StartOrder(b);
  });
  return names;
}

std::string LogTail(const std::string& path) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (static_cast<int>(lines.size()) > kLogTailLines) lines.pop_front();
  }
  if (lines.empty()) return absl::StrCat("(", path, " is empty)");
  return absl::StrCat("last lines of ", path, ":\n  ",
                      absl::StrJoin(lines, "\n  "));
}

std::vector<Planned> Plan(const LocalClusterOptions& options) {
  std::vector<Planned> plan;
  const auto wanted = [&options](LocalRole role) {
    return options.only.empty() || options.only.count(role) > 0;
  };
  for (const LocalRole role : LocalRoles()) {
    if (!wanted(role)) continue;
    int count = 1;
    if (role == LocalRole::kActor) count = options.actors;
    if (role == LocalRole::kReanalyse) count = options.reanalysers;
    for (int i = 0; i < count; ++i) {
      const std::string name = Numbered(role)
                                   ? absl::StrCat(RoleName(role), "-", i)
                                   : RoleName(role);
      plan.push_back(
          {name, role, absl::StrCat(options.bin_dir, "/", ProgramOf(role)), i});
    }
  }
  return plan;
}

absl::Status CheckBinaries(const std::vector<Planned>& plan,
                           const std::string& bin_dir) {
  std::set<std::string> missing;
  for (const Planned& service : plan) {
    if (access(service.binary.c_str(), X_OK) != 0) {
      missing.insert(fs::path(service.binary).filename().string());
    }
  }
  if (missing.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "not built (no executable in ", bin_dir,
      "): ", absl::StrJoin(missing, ", "),
      "; build them, or start only what exists, e.g. --only coordinator"));
}

// DATA_DIR/config/<role>.json: the file the role's service reads.
std::string ServiceConfigPath(const std::string& data_dir, LocalRole role) {
  return absl::StrCat(data_dir, "/config/", RoleName(role), ".json");
}

// The config file of every planned role, written afresh at each `up`:
// <config_dir>/<role>.json when there is one, else the built-in one
// (service_configs.h), so that the cluster runs with the files of this
// mmapctl's version unless told otherwise. The service checks the file
// when it starts; a bad one is named in its error.
absl::Status WriteServiceConfigs(const std::string& data_dir,
                                 const std::string& config_dir,
                                 const std::vector<Planned>& plan) {
  std::error_code error;
  fs::create_directories(data_dir + "/config", error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat(data_dir, "/config: ", error.message()));
  }
  std::set<LocalRole> written;  // actor-0 and actor-1 share actor.json
  for (const Planned& service : plan) {
    if (!written.insert(service.role).second) continue;
    std::string contents = ServiceConfigJson(service.role);
    const std::string own =
        absl::StrCat(config_dir, "/", RoleName(service.role), ".json");
    if (!config_dir.empty() && fs::exists(own, error)) {
      ASSIGN_OR_RETURN(contents, ReadWholeFile(own));
    }
    RETURN_IF_ERROR(WriteFileAtomically(
        ServiceConfigPath(data_dir, service.role), contents));
  }
  return absl::OkStatus();
}

std::vector<std::string> ServiceArgs(const LocalClusterOptions& options,
                                     const Planned& service,
                                     const std::string& coordinator,
                                     int metrics_port) {
  const std::string& dir = options.data_dir;
  const std::string tls = LocalCertificateDir(dir);
  // Every service is a worker under the cluster's own CA (mutual TLS).
  std::vector<std::string> args = {
      "--config",       ServiceConfigPath(dir, service.role),
      "--metrics-port", absl::StrCat(metrics_port),
      "--tls-ca",       tls + "/ca.pem",
      "--tls-cert",     tls + "/worker.pem",
      "--tls-key",      tls + "/worker.key"};
  if (ServesGrpc(service.role)) {
    args.insert(args.end(), {"--listen", service.listen, "--address-file",
                             PathOf(dir, service.name, ".addr"), "--data-dir",
                             PathOf(dir, service.name, "")});
  }
  if (WorkerRoleOf(service.role).has_value()) {  // registers with it
    args.insert(args.end(),
                {"--coordinator", coordinator, "--name", service.name});
  }
  if (service.role == LocalRole::kLearner && options.learner_jobs != 1) {
    args.insert(args.end(), {"--capacity", absl::StrCat(options.learner_jobs)});
  }
  if (Numbered(service.role)) {
    // Each its own games: the seed is mixed with the job id, not the worker.
    args.insert(args.end(), {"--seed", absl::StrCat(options.first_seed +
                                                    service.instance)});
  }
  return args;
}

absl::StatusOr<Started> StartService(const LocalClusterOptions& options,
                                     const Planned& service,
                                     const std::string& coordinator) {
  const std::string& dir = options.data_dir;
  std::error_code error;
  fs::create_directories(PathOf(dir, service.name, ""), error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat(PathOf(dir, service.name, ""), ": ", error.message()));
  }
  std::remove(PathOf(dir, service.name, ".addr").c_str());
  const std::string log = PathOf(dir, service.name, ".log");
  const std::uintmax_t log_offset =
      fs::exists(log, error) ? fs::file_size(log, error) : 0;
  int metrics_port = service.metrics_port;
  if (metrics_port == 0) {
    ASSIGN_OR_RETURN(metrics_port, FreeLoopbackPort());
  }
  RETURN_IF_ERROR(
      WriteFileAtomically(PathOf(dir, service.name, ".metrics"),
                          absl::StrCat("127.0.0.1:", metrics_port, "\n")));
  ASSIGN_OR_RETURN(
      const pid_t pid,
      SpawnInSession(service.binary,
                     ServiceArgs(options, service, coordinator, metrics_port),
                     PathOf(dir, service.name, ".log")));
  if (options.trainer_nice != 0 && (service.role == LocalRole::kLearner ||
                                    service.role == LocalRole::kReplay ||
                                    service.role == LocalRole::kReanalyse)) {
    Renice(pid, options.trainer_nice);
  }
  Started started{service, pid, error ? 0 : log_offset};
  RETURN_IF_ERROR(WriteFileAtomically(PathOf(dir, service.name, ".pid"),
                                      absl::StrCat(pid, "\n")));
  return started;
}

// Whether `needle` occurs in `path` after its first `offset` bytes.
bool LogHasSince(const std::string& path, std::uintmax_t offset,
                 const std::string& needle) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) return true;
  }
  return false;
}

// Waits until the service is ready: a gRPC service answers SERVING at the
// address it wrote (returned); Prometheus answers /-/ready with 200 on its
// web address (returned); an actor or reanalyser has logged that it
// registered with the coordinator (worker/worker_session.cc; returns
// "-"). Fails with the log's tail when it exits first or the timeout
// passes.
absl::StatusOr<std::string> AwaitHealthy(const LocalClusterOptions& options,
                                         const Started& started) {
  const std::string& name = started.service.name;
  const std::string log = PathOf(options.data_dir, name, ".log");
  const absl::Time deadline = absl::Now() + options.start_timeout;
  std::string last_health = "no address file yet";
  while (true) {
    int wait_status = 0;
    if (waitpid(started.pid, &wait_status, WNOHANG) == started.pid) {
      const std::string how =
          WIFEXITED(wait_status)
              ? absl::StrCat("exited with status ", WEXITSTATUS(wait_status))
              : absl::StrCat("was killed by signal ", WTERMSIG(wait_status));
      return absl::UnavailableError(absl::StrCat(name, " (pid ", started.pid,
                                                 ") ", how, " before serving; ",
                                                 LogTail(log)));
    }
    if (started.service.role == LocalRole::kPrometheus) {
      const std::string address =
          ReadAddressFile(PathOf(options.data_dir, name, ".metrics"))
              .value_or("");
      int port = 0;
      if (!absl::SimpleAtoi(address.substr(address.rfind(':') + 1), &port)) {
        port = 0;
      }
      const std::string reply = metrics::LoopbackHttpGet(port, "/-/ready");
      last_health = absl::StrCat(
          address, "/-/ready: ", reply.substr(0, reply.find('\r')));
      if (absl::StrContains(last_health, " 200 ")) return address;
    } else if (!ServesGrpc(started.service.role)) {
      last_health = "not registered with the coordinator yet";
      if (LogHasSince(log, started.log_offset, kRegisteredEvent)) return "-";
    } else if (absl::StatusOr<std::string> address =
                   ReadAddressFile(PathOf(options.data_dir, name, ".addr"));
               address.ok()) {
      const HealthResult health = CheckHealth(*address, kHealthDeadline);
      if (health.serving) return *address;
      last_health = absl::StrCat(*address, ": ", health.text);
    }
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat(name, " (pid ", started.pid, ") not healthy after ",
                       absl::FormatDuration(options.start_timeout), " (",
                       last_health, "); ", LogTail(log)));
    }
    absl::SleepFor(kPollInterval);
  }
}

// AwaitHealthy, and when the service could not bind the metrics port
// FreeLoopbackPort chose for it (another process took it in between),
// starts it again on another one, at most kPortAttempts times in all.
// `started` becomes the running one. A port the service had before (a
// restart beside running services) is not changed.
absl::StatusOr<std::string> AwaitHealthyOnAFreePort(
    const LocalClusterOptions& options, const std::string& coordinator,
    Started& started, std::ostream& out) {
  constexpr int kPortAttempts = 3;
  for (int attempt = 1;; ++attempt) {
    absl::StatusOr<std::string> address = AwaitHealthy(options, started);
    if (address.ok() || started.service.metrics_port != 0 ||
        attempt == kPortAttempts ||
        !LogHasSince(PathOf(options.data_dir, started.service.name, ".log"),
                     started.log_offset, kMetricsPortTaken)) {
      return address;
    }
    out << started.service.name << ": its metrics port was taken before it "
        << "started; starting it on another one\n";
    ASSIGN_OR_RETURN(started,
                     StartService(options, started.service, coordinator));
  }
}

// Stops `names` (services of the data dir) in three waves: actors and
// reanalysers first (they drain their trajectories and targets into a
// replay that is still up), then learner and replay (checkpoints), then
// the coordinator; removes their pid and address files.
void StopServices(const std::string& dir, const std::vector<std::string>& names,
                  absl::Duration timeout, std::ostream& out) {
  std::vector<ChildProcess> waves[3];
  for (const std::string& name : names) {
    const std::optional<LocalRole> role = RoleOfService(name);
    if (!role) continue;
    const ChildProcess process{.name = name,
                               .pid = ReadPidFile(PathOf(dir, name, ".pid")),
                               .program = ProgramOf(*role)};
    if (!ProcessRuns(process.pid, process.program)) continue;
    const int wave =
        *role == LocalRole::kCoordinator                              ? 2
        : *role == LocalRole::kLearner || *role == LocalRole::kReplay ? 1
                                                                      : 0;
    waves[wave].push_back(process);
  }
  for (const auto& wave : waves) StopProcesses(wave, timeout, out);
  for (const std::string& name : names) {
    std::remove(PathOf(dir, name, ".pid").c_str());
    std::remove(PathOf(dir, name, ".addr").c_str());
    std::remove(PathOf(dir, name, ".metrics").c_str());
  }
}

absl::Status CheckOptions(const LocalClusterOptions& options) {
  if (options.data_dir.empty()) {
    return absl::InvalidArgumentError("--data-dir: empty");
  }
  if (options.only.count(LocalRole::kPrometheus) > 0) {
    return absl::InvalidArgumentError(
        "--only: prometheus is no service of --only (--prometheus starts it)");
  }
  if (!options.only.empty() &&
      options.only.count(LocalRole::kCoordinator) == 0) {
    return absl::InvalidArgumentError(
        "--only: must include coordinator (the others register with it)");
  }
  if (!options.prometheus_binary.empty() &&
      access(options.prometheus_binary.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--prometheus: no Prometheus at ", options.prometheus_binary,
        " (apt-get install prometheus)"));
  }
  return absl::OkStatus();
}

// <data dir>/prometheus/prometheus.yml: every started service's metrics
// port (its .metrics file) as a target labelled with the service's name,
// every 5 s, with the alert rules beside it.
absl::Status WritePrometheusConfig(const std::string& dir,
                                   const std::vector<std::string>& names) {
  const std::string folder = PathOf(dir, PrometheusName(), "");
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat(folder, ": ", error.message()));
  }
  RETURN_IF_ERROR(WriteFileAtomically(folder + "/rules.yml", kAlertRules));
  std::string config = absl::StrCat(
      "# Written by `mmapctl local up --prometheus`; rewritten at each up.\n"
      "global:\n  scrape_interval: 5s\n  evaluation_interval: 5s\n"
      "rule_files:\n  - ",
      folder,
      "/rules.yml\n"
      "scrape_configs:\n  - job_name: mmapzero\n    honor_labels: true\n"
      "    static_configs:\n");
  for (const std::string& name : names) {
    absl::StatusOr<std::string> address =
        ReadAddressFile(PathOf(dir, name, ".metrics"));
    if (!address.ok()) continue;
    absl::StrAppend(
        &config, "      - targets: [\"", *address,
        "\"]\n        labels: {service: \"",
        RoleName(RoleOfService(name).value_or(LocalRole::kPrometheus)),
        "\", pod: \"", name, "\"}\n");
  }
  return WriteFileAtomically(folder + "/prometheus.yml", config);
}

// Starts Prometheus on the started services and waits until it answers
// /-/ready; returns its web address.
absl::StatusOr<std::string> StartPrometheus(
    const LocalClusterOptions& options, const std::vector<std::string>& names,
    std::ostream& out) {
  const std::string& dir = options.data_dir;
  RETURN_IF_ERROR(WritePrometheusConfig(dir, names));
  ASSIGN_OR_RETURN(const int port, FreeLoopbackPort());
  const std::string address = absl::StrCat("127.0.0.1:", port);
  RETURN_IF_ERROR(WriteFileAtomically(PathOf(dir, PrometheusName(), ".metrics"),
                                      address + "\n"));
  Started started{.service = {.name = PrometheusName(),
                              .role = LocalRole::kPrometheus,
                              .binary = options.prometheus_binary}};
  ASSIGN_OR_RETURN(
      started.pid,
      SpawnInSession(
          options.prometheus_binary,
          {absl::StrCat("--config.file=", dir, "/prometheus/prometheus.yml"),
           absl::StrCat("--storage.tsdb.path=", dir, "/prometheus/data"),
           absl::StrCat("--web.listen-address=", address)},
          PathOf(dir, PrometheusName(), ".log")));
  RETURN_IF_ERROR(WriteFileAtomically(PathOf(dir, PrometheusName(), ".pid"),
                                      absl::StrCat(started.pid, "\n")));
  RETURN_IF_ERROR(AwaitHealthy(options, started).status());
  out << "started prometheus (pid " << started.pid << "): http://" << address
      << "/ (config " << dir << "/prometheus/prometheus.yml)\n";
  return address;
}

// The addresses a service that is no longer running had.
struct FormerPorts {
  std::string address;  // its .addr: host:port; "" when it wrote none
  int metrics_port = 0;  // from its .metrics; 0 when none
};

// The services whose pid file in `dir` names a live process of their
// role. The files of the others are removed, what their .addr and
// .metrics said kept in `former`.
std::set<std::string> LiveServices(const std::string& dir,
                                   std::map<std::string, FormerPorts>* former) {
  std::set<std::string> live;
  for (const std::string& name : ServicesWithPidFiles(dir)) {
    const int pid = ReadPidFile(PathOf(dir, name, ".pid"));
    if (ProcessRuns(pid, ProgramOf(*RoleOfService(name)))) {
      live.insert(name);
      continue;
    }
    FormerPorts& ports = (*former)[name];
    ports.address = ReadAddressFile(PathOf(dir, name, ".addr")).value_or("");
    const std::string metrics =
        ReadAddressFile(PathOf(dir, name, ".metrics")).value_or("");
    if (!absl::SimpleAtoi(metrics.substr(metrics.rfind(':') + 1),
                          &ports.metrics_port)) {
      ports.metrics_port = 0;
    }
    std::remove(PathOf(dir, name, ".pid").c_str());
    std::remove(PathOf(dir, name, ".addr").c_str());
    std::remove(PathOf(dir, name, ".metrics").c_str());
  }
  return live;
}

}  // namespace

absl::StatusOr<std::string> ExecutableDir() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("/proc/self/exe: ", error.message()));
  }
  return self.parent_path().string();
}

std::string LocalCertificateDir(const std::string& data_dir) {
  return data_dir + "/tls";
}

absl::Status LocalUp(const LocalClusterOptions& options, std::ostream& out) {
  RETURN_IF_ERROR(CheckOptions(options));
  const std::vector<Planned> plan = Plan(options);
  RETURN_IF_ERROR(CheckBinaries(plan, options.bin_dir));
  std::error_code error;
  fs::create_directories(options.data_dir, error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat(options.data_dir, ": ", error.message()));
  }
  // The cluster's CA and certificates, made once per data dir; mmapctl
  // itself speaks as the client (health checks, then the job's calls),
  // also to a cluster that already runs there.
  // The CA's key is kept apart, in <data dir>/ca, out of the folder every
  // service is given.
  const std::string tls = LocalCertificateDir(options.data_dir);
  const std::string ca_keys = security::LocalCaKeyDir(options.data_dir);
  if (!fs::exists(tls + "/ca.pem")) {
    security::LocalCertificatesOptions certificates;
    certificates.dir = tls;
    certificates.ca_key_dir = ca_keys;
    RETURN_IF_ERROR(security::WriteLocalCertificates(certificates));
    out << "made a CA and certificates in " << tls << " (the CA's key in "
        << ca_keys << ")\n";
  } else if (fs::exists(tls + "/ca.key")) {
    RETURN_IF_ERROR(security::MoveCaKey(tls, ca_keys));
    out << "moved the CA's key out of " << tls << " to " << ca_keys << "\n";
  }
  ASSIGN_OR_RETURN(security::TransportSecurity client,
                   security::SecurityFromCertificateDir(tls, "client"));
  security::SetProcessTransportSecurity(std::move(client));
  // A cluster of which some services run: start only the others (those
  // that died), on the ports they had.
  std::map<std::string, FormerPorts> former;
  const std::set<std::string> live = LiveServices(options.data_dir, &former);
  std::vector<Planned> to_start;
  for (Planned service : plan) {
    if (live.count(service.name) > 0) continue;
    if (const auto ports = former.find(service.name);
        !live.empty() && ports != former.end()) {
      if (!ports->second.address.empty()) {
        service.listen = ports->second.address;
      }
      service.metrics_port = ports->second.metrics_port;
    }
    to_start.push_back(std::move(service));
  }
  const bool prometheus_wanted = !options.prometheus_binary.empty() &&
                                 live.count(PrometheusName()) == 0;
  if (!live.empty() &&
      (!options.restart_dead || (to_start.empty() && !prometheus_wanted))) {
    return absl::AlreadyExistsError(absl::StrCat(
        "a local cluster already runs in ", options.data_dir, " (",
        absl::StrJoin(live, ", "), "); `mmapctl local down --data-dir ",
        options.data_dir, "` first"));
  }
  if (!live.empty()) {
    std::vector<std::string> names;
    for (const Planned& service : to_start) names.push_back(service.name);
    if (prometheus_wanted) names.push_back(PrometheusName());
    out << "a local cluster runs in " << options.data_dir << " ("
        << absl::StrJoin(live, ", ") << "); starting what is not running: "
        << absl::StrJoin(names, ", ") << "\n";
  }
  RETURN_IF_ERROR(
      WriteServiceConfigs(options.data_dir, options.config_dir, plan));

  std::vector<std::string> started_names;
  const auto roll_back = [&](const absl::Status& status) {
    StopServices(options.data_dir, started_names, options.stop_timeout, out);
    return status;
  };
  // The coordinator first: every other service needs its address.
  std::string coordinator;
  if (live.count(RoleName(LocalRole::kCoordinator)) > 0) {
    ASSIGN_OR_RETURN(coordinator,
                     ReadAddressFile(PathOf(options.data_dir,
                                            RoleName(LocalRole::kCoordinator),
                                            ".addr")));
  }
  std::vector<Started> waiting;
  for (const Planned& service : to_start) {
    absl::StatusOr<Started> started =
        StartService(options, service, coordinator);
    if (!started.ok()) return roll_back(started.status());
    started_names.push_back(service.name);
    if (service.role != LocalRole::kCoordinator) {
      waiting.push_back(*std::move(started));
      continue;
    }
    absl::StatusOr<std::string> address =
        AwaitHealthyOnAFreePort(options, coordinator, *started, out);
    if (!address.ok()) return roll_back(address.status());
    coordinator = *address;
    out << (live.empty() ? "started" : "restarted") << " coordinator (pid "
        << started->pid << ") at " << coordinator
        << "\n";
    if (absl::StatusOr<std::string> metrics =
            ReadAddressFile(PathOf(options.data_dir, service.name, ".metrics"));
        metrics.ok()) {
      out << "dashboard: http://" << *metrics << "/ (metrics: /metrics)\n";
    }
  }
  for (Started& started : waiting) {
    absl::StatusOr<std::string> address =
        AwaitHealthyOnAFreePort(options, coordinator, started, out);
    if (!address.ok()) return roll_back(address.status());
    out << (live.empty() ? "started " : "restarted ") << started.service.name
        << " (pid " << started.pid << ")";
    if (*address != "-") out << " at " << *address;
    out << "\n";
  }
  if (prometheus_wanted) {
    std::vector<std::string> scraped;
    for (const Planned& service : plan) scraped.push_back(service.name);
    started_names.push_back(PrometheusName());
    absl::StatusOr<std::string> prometheus =
        StartPrometheus(options, scraped, out);
    if (!prometheus.ok()) return roll_back(prometheus.status());
  }
  return absl::OkStatus();
}

absl::Status LocalDown(const LocalClusterOptions& options, std::ostream& out) {
  if (options.data_dir.empty()) {
    return absl::InvalidArgumentError("--data-dir: empty");
  }
  const std::vector<std::string> names = ServicesWithPidFiles(options.data_dir);
  if (names.empty()) {
    out << "no local cluster in " << options.data_dir << "\n";
    return absl::OkStatus();
  }
  StopServices(options.data_dir, names, options.stop_timeout, out);
  return absl::OkStatus();
}

int64_t DiskBytes(const std::string& path) {
  std::error_code error;
  if (fs::is_regular_file(path, error)) {
    const std::uintmax_t size = fs::file_size(path, error);
    return error ? 0 : static_cast<int64_t>(size);
  }
  int64_t bytes = 0;
  for (fs::recursive_directory_iterator it(path, error), end;
       !error && it != end; it.increment(error)) {
    std::error_code file_error;
    if (!it->is_regular_file(file_error) || file_error) continue;
    const std::uintmax_t size = it->file_size(file_error);
    if (!file_error) bytes += static_cast<int64_t>(size);
  }
  return bytes;
}

std::vector<LocalService> LocalStatus(const std::string& data_dir,
                                      absl::Duration health_deadline) {
  std::vector<LocalService> services;
  for (const std::string& name : ServicesWithPidFiles(data_dir)) {
    LocalService service;
    service.name = name;
    const LocalRole role = *RoleOfService(name);
    service.pid = ReadPidFile(PathOf(data_dir, name, ".pid"));
    service.alive = ProcessRuns(service.pid, ProgramOf(role));
    absl::StatusOr<std::string> address =
        ReadAddressFile(PathOf(data_dir, name, ".addr"));
    if (address.ok()) service.address = *address;
    absl::StatusOr<std::string> metrics =
        ReadAddressFile(PathOf(data_dir, name, ".metrics"));
    if (metrics.ok()) service.metrics_address = *metrics;
    service.serves_grpc = ServesGrpc(role);
    service.health = "-";
    service.disk_bytes = DiskBytes(PathOf(data_dir, name, "")) +
                         DiskBytes(PathOf(data_dir, name, ".log"));
    services.push_back(std::move(service));
  }
  // Every service at once: on a loaded machine one TLS handshake may take
  // most of a second, and the status should wait for the slowest, not
  // their sum. Each thread writes only its own element.
  std::vector<std::jthread> probes;
  for (LocalService& service : services) {
    if (service.alive && service.serves_grpc && !service.address.empty()) {
      probes.emplace_back([&service, health_deadline] {
        service.health = CheckHealth(service.address, health_deadline).text;
      });
    }
  }
  probes.clear();  // joins
  return services;
}

}  // namespace mmapzero::cli
