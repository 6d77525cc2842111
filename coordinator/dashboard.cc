#include "coordinator/dashboard.h"

#include <algorithm>
#include <map>

#include "absl/time/clock.h"
#include "common/rpc/enum_names.h"
#include "nlohmann/json.hpp"

namespace mmapzero::coordinator {
std::string DashboardJson(const std::vector<v1::JobStatus>& jobs,
                          const JobHistory& history,
                          const std::vector<WorkerView>& workers,
                          int64_t now_unix_ms) {
  nlohmann::json document = {{"now_unix_ms", now_unix_ms},
                             {"jobs", nlohmann::json::array()},
                             {"workers", nlohmann::json::array()}};
  std::map<std::string, int64_t> learner_versions;
  for (const v1::JobStatus& job : jobs) {
    learner_versions[job.job_id()] = job.parameter_version();
    nlohmann::json samples = nlohmann::json::array();
    for (const JobSample& s : history.Samples(job.job_id())) {
      samples.push_back({s.unix_ms, s.best_normalised_return, s.learner_step,
                         s.games, s.moves, s.best_latency_us});
    }
    document["jobs"].push_back({
        {"job_id", job.job_id()},
        {"name", job.name()},
        {"state", rpc::JobStateName(job.state())},
        {"workload", job.workload_name()},
        {"buffers", job.num_buffers()},
        {"preset", job.preset()},
        {"budget_seconds", job.budget().wall_seconds()},
        {"created_unix_ms", job.created_unix_ms()},
        {"started_unix_ms", job.started_unix_ms()},
        {"finished_unix_ms", job.finished_unix_ms()},
        {"best_normalised_return", job.best_normalised_return()},
        {"heuristic_normalised_return", job.heuristic_normalised_return()},
        {"best_latency_us", job.best_latency_us()},
        {"heuristic_latency_us", job.heuristic_latency_us()},
        {"best_solver", job.best_solver()},
        {"learner_step", job.learner_step()},
        {"parameter_version", job.parameter_version()},
        {"games", job.games()},
        {"moves", job.moves()},
        {"actors", job.actors()},
        {"reanalysers", job.reanalysers()},
        {"error", job.error()},
        {"history", std::move(samples)},
    });
  }
  for (const WorkerView& worker : workers) {
    // Only actors and reanalysers act with the learner's parameters.
    const bool acts = worker.role == v1::WORKER_ROLE_ACTOR ||
                      worker.role == v1::WORKER_ROLE_REANALYSE;
    nlohmann::json worker_jobs = nlohmann::json::array();
    for (const auto& [job_id, version] : worker.parameter_versions) {
      auto learner = learner_versions.find(job_id);
      nlohmann::json lag = nullptr;
      if (acts) {
        lag = learner == learner_versions.end()
                  ? 0
                  : std::max<int64_t>(0, learner->second - version);
      }
      worker_jobs.push_back({{"job_id", job_id},
                             {"parameter_version", version},
                             {"lag", std::move(lag)}});
    }
    document["workers"].push_back(
        {{"worker_id", worker.worker_id},
         {"name", worker.name},
         {"role", rpc::WorkerRoleName(worker.role)},
         {"last_heartbeat_unix_ms", worker.last_heartbeat_unix_ms},
         {"jobs", std::move(worker_jobs)}});
  }
  return document.dump();
}

void AddDashboardPages(metrics::HttpEndpoint& http, Coordinator* coordinator,
                       const JobHistory* history) {
  http.AddPage("/", [] {
    return metrics::HttpResponse{.status = 200,
                                 .content_type = "text/html; charset=utf-8",
                                 .body = kDashboardHtml};
  });
  http.AddPage("/api/dashboard", [coordinator, history] {
    absl::StatusOr<std::vector<v1::JobStatus>> jobs = coordinator->AllJobs();
    if (!jobs.ok()) {
      return metrics::HttpResponse{
          .status = 503,
          .content_type = "text/plain; charset=utf-8",
          .body = std::string(jobs.status().message()) + "\n"};
    }
    return metrics::HttpResponse{
        .status = 200,
        .content_type = "application/json",
        .body = DashboardJson(*jobs, *history, coordinator->LiveWorkers(),
                              absl::ToUnixMillis(absl::Now()))};
  });
}

}  // namespace mmapzero::coordinator
