// A service's health as its own working loops see it, answered on
// /healthz (http_endpoint.h) for Kubernetes' readiness and liveness
// probes: 200 "ok" with each check's state, or 503 naming the checks that
// fail and why. Each check watches one loop that does the service's
// essential work (the coordinator's database ticks, the replay tables'
// checkpoints, each learner job's training, a worker's heartbeats): the
// loop reports each round's success or failure, and the check fails when
// the last report was a failure, or when no success came for longer than
// the check allows (a stuck loop, a database that blocks, a disk that
// fails every write). A process has one set (ProcessHealth); tests make
// their own.
#ifndef MMAPZERO_COMMON_METRICS_HEALTH_CHECKS_H_
#define MMAPZERO_COMMON_METRICS_HEALTH_CHECKS_H_

#include <map>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/metrics/http_endpoint.h"

namespace mmapzero::metrics {

class HealthChecks {
 public:
  // Starts watching `name` (again, if it was removed): healthy until
  // `max_silence` passes without a success.
  void Add(const std::string& name, absl::Duration max_silence,
           absl::Time now = absl::Now()) ABSL_LOCKS_EXCLUDED(mu_);
  // A round of `name`'s loop went well / failed with `reason`. Reports for
  // a name not added are ignored.
  void Succeeded(const std::string& name, absl::Time now = absl::Now())
      ABSL_LOCKS_EXCLUDED(mu_);
  void Failed(const std::string& name, const std::string& reason)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Stops watching `name` (a finished job).
  void Remove(const std::string& name) ABSL_LOCKS_EXCLUDED(mu_);

  struct Report {
    bool healthy = true;
    std::string text;  // one line per check: "NAME ok|FAILING: why"
  };
  Report Evaluate(absl::Time now = absl::Now()) const ABSL_LOCKS_EXCLUDED(mu_);

  // The /healthz page: 200 or 503 with the report's text.
  HttpResponse Page() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Check {
    absl::Duration max_silence;
    absl::Time last_success;
    std::string failure = {};  // "" after a success
  };
  mutable absl::Mutex mu_;
  std::map<std::string, Check> checks_ ABSL_GUARDED_BY(mu_);
};

// The process's checks, served on every metrics endpoint's /healthz.
HealthChecks& ProcessHealth();

}  // namespace mmapzero::metrics

#endif  // MMAPZERO_COMMON_METRICS_HEALTH_CHECKS_H_
