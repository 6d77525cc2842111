// The coordinator's web dashboard, on its metrics port next to /metrics
// and /healthz: "/" is one page (no outside scripts, styles or fonts) that
// lists the jobs and draws the selected job's best normalised return,
// learner steps, games and moves per second over time, and each live
// worker's parameter lag; "/api/dashboard" is the JSON it redraws from
// every two seconds. The numbers are the ones the metrics carry
// (coordinator_metrics.h), plus the history of job_history.h. Read-only,
// plain HTTP, like /metrics: bind the metrics port to loopback (the
// default) or keep it inside the cluster network.
#ifndef MMAPZERO_COORDINATOR_DASHBOARD_H_
#define MMAPZERO_COORDINATOR_DASHBOARD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/metrics/http_endpoint.h"
#include "coordinator/coordinator.h"
#include "coordinator/job_history.h"
#include "proto/job.pb.h"

namespace mmapzero::coordinator {

// Adds "/" and "/api/dashboard" to `http`. `coordinator` and `history`
// must outlive it.
void AddDashboardPages(metrics::HttpEndpoint& http, Coordinator* coordinator,
                       const JobHistory* history);

// The /api/dashboard document: {"now_unix_ms", "jobs": [status fields and
// "history": [[unix_ms, best, learner_step, games, moves], ...]],
// "workers": [{"worker_id", "name", "role", "jobs": [{"job_id",
// "parameter_version", "lag"}]}]}; lag is the job's parameter version
// (the learner's) less the worker's, for actors and reanalysers (null for
// the learner and replay, which do not act with parameters).
std::string DashboardJson(const std::vector<v1::JobStatus>& jobs,
                          const JobHistory& history,
                          const std::vector<WorkerView>& workers,
                          int64_t now_unix_ms);

// The page served at "/".
extern const char kDashboardHtml[];

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_DASHBOARD_H_
