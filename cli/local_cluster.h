// A whole mmapzero cluster as child processes on one machine, for
// `mmapctl local up|down|status`. The gRPC services (coordinator, replay,
// learner) listen on 127.0.0.1 with a port of their own choosing (--listen
// 127.0.0.1:0) and write the address they bound to
// <data dir>/<service>.addr (--address-file); the workers get the
// coordinator's address from there. Each service's output goes to
// <data dir>/<service>.log, its pid to <data dir>/<service>.pid, its own
// files to <data dir>/<service>/.
//
// Every service also gets --config DATA_DIR/config/<role>.json, the
// built-in config file of its role (service_configs.h: the files a
// Kubernetes cluster's ConfigMap holds, written afresh at each `up`), and
// --tls-ca, --tls-cert and --tls-key of the worker certificate in
// LocalCertificateDir (below).
//
// Services, in start order: coordinator, replay, learner, actor-0..N-1,
// reanalyse-0..M-1; binaries mmapzero-<role> from one folder (by default
// the one mmapctl itself lives in). When asked for, prometheus last, once
// the others are ready (its config, <data dir>/prometheus/prometheus.yml,
// lists their metrics ports). The command lines they get, which their
// mains accept:
//   coordinator       --listen 127.0.0.1:0 --address-file F --data-dir D
//                     --metrics-port P
//   replay, learner   the same, plus --coordinator HOST:PORT --name NAME
//                     (learner: --capacity learner_jobs when not 1)
//   actor, reanalyse  --metrics-port P --coordinator HOST:PORT --name NAME
//                     --seed first_seed+I
// `up` waits until each is ready: a gRPC service answers a health check
// with SERVING; an actor or reanalyser (no server of its own) logs
// `event=registered`, i.e. it registered with the coordinator. If one
// exits or is not ready within the timeout, `up` stops what it started and
// fails with the last lines of that service's log. `up` on a cluster of
// which some services died starts those again (LocalUp). `down` stops workers
// first (SIGTERM, SIGKILL after the stop timeout), then the coordinator.
// This file is the cluster's plan and its start and stop order; the roles
// are local_role.h's, and starting, renicing, recognising and stopping a
// process is child_process.h's.
#ifndef MMAPZERO_CLI_LOCAL_CLUSTER_H_
#define MMAPZERO_CLI_LOCAL_CLUSTER_H_

#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cli/local_role.h"

namespace mmapzero::cli {

struct LocalClusterOptions {
  std::string data_dir;
  std::string bin_dir;  // where mmapzero-<role> binaries are
  // A folder of service config files (<role>.json, as in
  // deploy/k8s/base/config) used instead of the built-in ones for the
  // roles it has a file for; "" for the built-in ones. Written into
  // <data dir>/config at this `up`: give it again at every `up`.
  std::string config_dir;
  int actors = 1;
  int reanalysers = 1;
  int learner_jobs = 1;     // jobs the learner trains at once (its --capacity)
  uint64_t first_seed = 1;  // worker I of a role gets --seed first_seed+I
  // How much nicer than mmapctl the learner, replay and reanalyse workers
  // run (0: as mmapctl). On a machine with few cores the actors, whose games
  // are the job's solutions, then get a core of their own and the services that
  // train share the rest, as the in-process solver's threads do.
  int trainer_nice = 10;
  std::set<LocalRole> only;  // roles to start; empty: every role
  // Also start Prometheus (Debian's `prometheus` at this path) scraping
  // every service's metrics port every 5 s with deploy/prometheus's alert
  // rules, its web UI on a free loopback port; "" for none.
  std::string prometheus_binary;
  // When part of the cluster runs: start the planned services that do not
  // (`mmapctl local up`); false: AlreadyExists, leaving it as it is (a
  // `solve` that uses a running cluster).
  bool restart_dead = false;
  absl::Duration start_timeout = absl::Seconds(60);  // per service
  absl::Duration stop_timeout = absl::Seconds(10);   // before SIGKILL
};

// One service of a local cluster, as `status` sees it.
struct LocalService {
  std::string name;     // "coordinator", "actor-0"
  int pid = 0;          // from <name>.pid
  bool alive = false;   // that pid runs mmapzero-<role>
  std::string address;  // from <name>.addr; "" when absent
  // From <name>.metrics: the HTTP port of /metrics and /healthz (and, for
  // the coordinator, the dashboard "/"); "" when absent.
  std::string metrics_address;
  bool serves_grpc = false;  // coordinator, replay, learner
  std::string health;  // CheckHealth's text; "-" when not alive or no gRPC
  // Bytes of its folder (<data dir>/<name>/: database, checkpoints,
  // tables) and its log.
  int64_t disk_bytes = 0;
};

// Bytes of the regular files under `path` (a file or a folder); 0 when it
// does not exist.
int64_t DiskBytes(const std::string& path);

// <data dir>/tls: the cluster's CA and certificates
// (common/security/local_certificates.h), which `up` makes when missing. Every
// service runs with mutual TLS as a worker; mmapctl, finding the folder,
// speaks as the client (job_client.h).
std::string LocalCertificateDir(const std::string& data_dir);

// The folder of the running executable (/proc/self/exe).
absl::StatusOr<std::string> ExecutableDir();

// Progress lines ("started coordinator (pid 123) at 127.0.0.1:41234") go to
// `out`. When part of a cluster runs in the data dir (services died or
// were killed) and options.restart_dead, starts only the services it plans
// that do not run, each on the gRPC and metrics ports it had, so that the
// running ones still reach it ("restarted replay (pid 456) at ...");
// AlreadyExists when every one runs, or any does without restart_dead.
// FailedPrecondition naming the binaries that are missing.
// Afterwards (and after AlreadyExists) this process's transport security
// is the client certificate of the data dir's cluster.
absl::Status LocalUp(const LocalClusterOptions& options, std::ostream& out);

// Stops every service with a pid file in the data dir; OK when none runs.
absl::Status LocalDown(const LocalClusterOptions& options, std::ostream& out);

// Every service with a pid file, in start order; their health checks run
// at the same time and take at most `health_deadline` together.
std::vector<LocalService> LocalStatus(const std::string& data_dir,
                                      absl::Duration health_deadline);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_LOCAL_CLUSTER_H_
