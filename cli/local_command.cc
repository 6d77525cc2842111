// `mmapctl local up|down|status`: a whole cluster as child processes on
// loopback (cli/local_cluster.h), its files in the data dir (--data-dir,
// $MMAPZERO_DATA_DIR or ~/.mmapzero, as for the client commands, so a
// later `mmapctl submit` finds the coordinator by itself).
//   local up [--actors 1] [--reanalyse 1] [--learner-jobs 1]
//            [--only coordinator,replay,...]
//            [--bin-dir DIR] [--config-dir DIR] [--wait 60s] [--prometheus]
//   local down [--stop-timeout 10s]
//   local status [--json]
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/job_client.h"
#include "cli/local_cluster.h"
#include "common/base/status_macros.h"
#include "nlohmann/json.hpp"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "local up|down|status [--data-dir DIR] [--actors N] [--reanalyse N] "
    "[--learner-jobs N] "
    "[--only coordinator,replay,learner,actor,reanalyse] [--bin-dir DIR] "
    "[--config-dir DIR] [--wait 60s] [--stop-timeout 10s] [--prometheus] "
    "[--json]";
constexpr int kMaxWorkers = 64;

absl::StatusOr<int> GetCount(const CommandLine& line, const std::string& flag,
                             int fallback) {
  ASSIGN_OR_RETURN(const int64_t count, line.GetInt(flag, fallback));
  if (count < 0 || count > kMaxWorkers) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", flag, ": must be in [0, ", kMaxWorkers, "], got ", count));
  }
  return static_cast<int>(count);
}

// The first executable `name` in $PATH's folders; "" when none.
std::string ProgramOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  for (const absl::string_view dir : absl::StrSplit(
           path != nullptr ? path : "/usr/bin:/bin", ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/", name);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

absl::StatusOr<LocalClusterOptions> OptionsFrom(const CommandLine& line) {
  LocalClusterOptions options;
  options.data_dir = DataDir(line);
  options.restart_dead = true;  // `local up` starts what died
  ASSIGN_OR_RETURN(options.actors, GetCount(line, "actors", 1));
  ASSIGN_OR_RETURN(options.reanalysers, GetCount(line, "reanalyse", 1));
  ASSIGN_OR_RETURN(options.learner_jobs, GetCount(line, "learner-jobs", 1));
  if (options.learner_jobs < 1) {
    return absl::InvalidArgumentError("--learner-jobs: must be >= 1, got 0");
  }
  if (line.Has("only")) {
    for (const absl::string_view name :
         absl::StrSplit(line.GetString("only", ""), ',', absl::SkipEmpty())) {
      const std::optional<LocalRole> role = RoleNamed(name);
      if (!role || *role == LocalRole::kPrometheus) {
        std::vector<std::string> names;
        for (const LocalRole known : LocalRoles()) {
          names.push_back(RoleName(known));
        }
        return absl::InvalidArgumentError(
            absl::StrCat("--only: unknown service '", name, "' (",
                         absl::StrJoin(names, ", "), ")"));
      }
      options.only.insert(*role);
    }
  }
  if (line.Has("bin-dir")) {
    options.bin_dir = line.GetString("bin-dir", "");
  } else {
    ASSIGN_OR_RETURN(options.bin_dir, ExecutableDir());
  }
  if (line.Has("config-dir")) {
    options.config_dir = line.GetString("config-dir", "");
    std::error_code error;
    if (!std::filesystem::is_directory(options.config_dir, error)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--config-dir: '", options.config_dir, "' is not a folder"));
    }
  }
  if (line.Has("wait")) {
    ASSIGN_OR_RETURN(options.start_timeout,
                     ParseDurationFlag("wait", line.GetString("wait", "")));
  }
  if (line.Has("prometheus")) {
    options.prometheus_binary = ProgramOnPath("prometheus");
    if (options.prometheus_binary.empty()) {
      return absl::FailedPreconditionError(
          "--prometheus: no prometheus on PATH (Debian: apt-get install "
          "prometheus)");
    }
  }
  if (line.Has("stop-timeout")) {
    ASSIGN_OR_RETURN(
        options.stop_timeout,
        ParseDurationFlag("stop-timeout", line.GetString("stop-timeout", "")));
  }
  return options;
}

// "12.3 MB" (decimal megabytes, as du -h --si writes them).
std::string Megabytes(int64_t bytes) {
  return absl::StrFormat("%.1f MB", static_cast<double>(bytes) / 1e6);
}

absl::Status PrintStatus(const std::string& data_dir, bool json) {
  // Generous: a healthy service answers in milliseconds, but a loaded
  // machine (sanitized services, a job training) can take a second.
  const std::vector<LocalService> services =
      LocalStatus(data_dir, absl::Seconds(5));
  int down = 0;
  for (const LocalService& service : services) {
    down +=
        !service.alive || (service.serves_grpc && service.health != "SERVING");
  }
  if (json) {
    nlohmann::json array = nlohmann::json::array();
    for (const LocalService& service : services) {
      array.push_back({{"service", service.name},
                       {"pid", service.pid},
                       {"alive", service.alive},
                       {"address", service.address},
                       {"metrics", service.metrics_address},
                       {"health", service.health},
                       {"disk_bytes", service.disk_bytes}});
    }
    std::cout << nlohmann::json{{"data_dir", data_dir},
                                {"disk_bytes", DiskBytes(data_dir)},
                                {"services", array}}
                     .dump(2)
              << "\n";
  } else if (services.empty()) {
    std::cout << "no local cluster in " << data_dir << "\n";
  } else {
    constexpr char kRow[] = "%-13s %8s %-6s %-22s %-22s %-11s %s\n";
    std::cout << absl::StrFormat(kRow, "SERVICE", "PID", "ALIVE", "ADDRESS",
                                 "METRICS", "HEALTH", "DISK");
    for (const LocalService& service : services) {
      std::cout << absl::StrFormat(
          kRow, service.name, absl::StrCat(service.pid),
          service.alive ? "yes" : "no",
          service.address.empty() ? "-" : service.address,
          service.metrics_address.empty() ? "-" : service.metrics_address,
          service.health, Megabytes(service.disk_bytes));
    }
    std::cout << "disk: " << Megabytes(DiskBytes(data_dir)) << " in "
              << data_dir << " (every service's folder and log, the "
              << "certificates and configs)\n";
  }
  if (down > 0) {
    return absl::UnavailableError(
        absl::StrCat(down, " of ", services.size(), " services in ", data_dir,
                     " are not running or not serving; see their logs there"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunLocal(const Args& args) {
  ASSIGN_OR_RETURN(const CommandLine line,
                   CommandLine::Parse(args,
                                      {"data-dir", "actors", "reanalyse",
                                       "learner-jobs", "only", "bin-dir",
                                       "config-dir", "wait", "stop-timeout"},
                                      {"json", "prometheus"}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  const std::string& action = line.positional()[0];
  ASSIGN_OR_RETURN(const LocalClusterOptions options, OptionsFrom(line));
  if (action == "up") {
    std::cerr << "starting a local cluster in " << options.data_dir
              << " (binaries from " << options.bin_dir << ")\n";
    RETURN_IF_ERROR(LocalUp(options, std::cout));
    std::cout << "coordinator address in " << options.data_dir
              << "/coordinator.addr; logs in " << options.data_dir << "\n";
    return absl::OkStatus();
  }
  if (action == "down") return LocalDown(options, std::cout);
  if (action == "status") {
    RETURN_IF_ERROR(UseClientTransportSecurity(line));
    return PrintStatus(options.data_dir, line.Has("json"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown action '", action,
                   "' (up, down, status); usage: mmapctl ", kUsage));
}

}  // namespace mmapzero::cli
