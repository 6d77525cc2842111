#include "reanalyse/reanalyse_job.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/agent/trajectory_proto.h"
#include "common/rpc/backoff.h"
#include "common/service/log_line.h"
#include "common/solvers/search_budget.h"
#include "common/training/self_play.h"
#include "worker/networks/job_networks.h"

namespace mmapzero::reanalyse {
namespace {

// The wait when there is nothing to do yet (no learner parameters, no
// replay, an empty table).
constexpr absl::Duration kIdleWait = absl::Milliseconds(500);

}  // namespace

absl::StatusOr<std::shared_ptr<ReanalyseJob>> ReanalyseJob::Start(
    const v1::Assignment& assignment, const ReanalyseJobOptions& options) {
  const std::string& job_id = assignment.job_id();
  if (options.session == nullptr) {
    return absl::InvalidArgumentError("reanalyse job: no worker session");
  }
  const MuZeroConfig& config = assignment.config();
  absl::StatusOr<worker::JobNetworks> networks =
      worker::CreateJobNetworks(job_id, config, options.parameter_poll);
  if (!networks.ok()) return networks.status();
  std::shared_ptr<ReanalyseJob> job(
      new ReanalyseJob(job_id, options, config, std::move(networks->network),
                       std::move(networks->poller)));
  job->Update(assignment);
  job->thread_ = std::jthread([raw = job.get()] {
    raw->RunGuarded(raw->job_id_, [raw] { raw->Run(); });
  });
  return job;
}

ReanalyseJob::ReanalyseJob(std::string job_id,
                           const ReanalyseJobOptions& options,
                           const MuZeroConfig& config,
                           model::MuZeroNetwork network,
                           std::unique_ptr<worker::ParameterPoller> poller)
    : job_id_(std::move(job_id)),
      options_(options),
      network_(std::move(network)),
      search_(config.search(), network_),
      poller_(std::move(poller)),
      replay_(job_id_) {}

ReanalyseJob::~ReanalyseJob() { Stop(absl::ZeroDuration()); }

void ReanalyseJob::Update(const v1::Assignment& assignment) {
  poller_->SetAddress(assignment.parameter_address());
  replay_.SetAddress(assignment.replay_address());
}

void ReanalyseJob::Stop(absl::Duration drain) {
  stopping_.Update([](bool& stopping) { stopping = true; });
  if (thread_.joinable()) thread_.join();
  if (options_.metrics != nullptr) options_.metrics->ForgetJob(job_id_);
}

ReanalyseJobStats ReanalyseJob::stats() const { return stats_.Get(); }

bool ReanalyseJob::Wait(absl::Duration wait) {
  return !stopping_.AwaitWithTimeout(
      [](const bool& stopping) { return stopping; }, wait);
}

void ReanalyseJob::Run() {
  rpc::Backoff backoff;
  Publish();
  while (true) {
    absl::Duration wait = absl::ZeroDuration();
    switch (Round()) {
      case RoundResult::kWorked:
        backoff.Reset();
        break;
      case RoundResult::kIdle:
        backoff.Reset();
        wait = kIdleWait;
        break;
      case RoundResult::kFailed:
        wait = backoff.Next();
        break;
    }
    if (!Wait(wait)) return;
  }
}

ReanalyseJob::RoundResult ReanalyseJob::Round() {
  if (poller_->published().CopyIfNewer(network_, &version_)) {
    service::LogLine("info", "parameters_adopted",
                     {{"job", job_id_}, {"version", absl::StrCat(version_)}});
    Publish();
  }
  // Nothing to refresh targets with before the learner's first version.
  if (!replay_.has_address() || version_ <= 0) return RoundResult::kIdle;
  v1::SampleForReanalyseRequest sample;
  sample.set_job_id(job_id_);
  sample.set_count(options_.trajectories_per_round);
  sample.set_seed(solvers::MixSeed(options_.seed, round_++, 0x4ea7));
  const absl::StatusOr<v1::SampleForReanalyseResponse> sampled =
      replay_.SampleForReanalyse(sample, options_.rpc_deadline);
  if (absl::IsFailedPrecondition(sampled.status()) ||
      (sampled.ok() && sampled->trajectories().empty())) {
    return RoundResult::kIdle;
  }
  if (!sampled.ok()) return Failed("sample_failed", sampled.status());
  v1::UpdateTargetsRequest update;
  update.set_job_id(job_id_);
  int64_t steps = 0;
  for (const v1::Trajectory& trajectory : sampled->trajectories()) {
    v1::TargetUpdate target;
    if (Refresh(trajectory, &target)) {
      steps += target.root_values_size();
      *update.add_updates() = std::move(target);
    }
  }
  if (update.updates().empty()) return RoundResult::kFailed;
  *update.mutable_lease_ticket() = options_.session->LeaseTicket(job_id_);
  const absl::StatusOr<v1::UpdateTargetsResponse> result =
      replay_.UpdateTargets(update, options_.rpc_deadline);
  if (!result.ok()) return Failed("update_targets_failed", result.status());
  const v1::UpdateTargetsResponse& updated = *result;
  stats_.Update([&](ReanalyseJobStats& stats) {
    ++stats.rounds;
    stats.reanalysed += updated.updated();
    stats.steps += steps;
    stats.gone += updated.gone();
  });
  if (options_.metrics != nullptr) {
    options_.metrics->AddRound(job_id_, updated.updated(), steps,
                               updated.gone());
  }
  Publish();
  return RoundResult::kWorked;
}

ReanalyseJob::RoundResult ReanalyseJob::Failed(const char* event,
                                               const absl::Status& status) {
  service::LogLine("warning", event,
                   {{"job", job_id_},
                    {"code", absl::StatusCodeToString(status.code())},
                    {"message", std::string(status.message())}});
  stats_.Update([](ReanalyseJobStats& stats) { ++stats.failures; });
  return RoundResult::kFailed;
}

bool ReanalyseJob::Refresh(const v1::Trajectory& proto,
                           v1::TargetUpdate* update) {
  absl::StatusOr<agent::Trajectory> trajectory =
      agent::TrajectoryFromProto(proto, "trajectories[]");
  absl::StatusOr<std::vector<agent::StepTargets>> targets =
      trajectory.ok()
          ? search_.Search(*trajectory, 0,
                           static_cast<int>(trajectory->steps.size()),
                           solvers::MixSeed(options_.seed,
                                            proto.trajectory_id(), version_))
          : absl::StatusOr<std::vector<agent::StepTargets>>(
                trajectory.status());
  if (!targets.ok()) {
    service::LogLine("warning", "reanalyse_failed",
                     {{"job", job_id_},
                      {"trajectory", absl::StrCat(proto.trajectory_id())},
                      {"error", targets.status().ToString()}});
    stats_.Update([](ReanalyseJobStats& stats) { ++stats.failures; });
    return false;
  }
  update->set_trajectory_id(proto.trajectory_id());
  update->set_first_step(0);
  update->set_parameter_version(version_);
  for (const agent::StepTargets& step : *targets) {
    update->add_root_values(step.root_value);
    for (float p : step.policy) update->add_policies(p);
  }
  return true;
}

void ReanalyseJob::Publish() {
  v1::JobCounters counters;
  counters.set_job_id(job_id_);
  counters.set_reanalysed(stats_.Update([&](ReanalyseJobStats& stats) {
    stats.parameter_version = version_;
    return stats.reanalysed;
  }));
  counters.set_parameter_version(version_);
  options_.session->SetCounters(counters);
  if (options_.metrics != nullptr) {
    options_.metrics->SetParameters(job_id_, version_,
                                    poller_->latest_version());
  }
}

}  // namespace mmapzero::reanalyse
