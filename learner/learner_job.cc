#include "learner/learner_job.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/agent/demonstration.h"
#include "common/base/lease_fence.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/model/network_checkpoint.h"
#include "common/model/networks.h"
#include "common/model/self_play.h"
#include "common/rpc/crash_guard.h"
#include "common/rpc/health_checks.h"
#include "common/rpc/log_line.h"

namespace mmapzero::learner {

using rpc::LogLine;

namespace {

// How long a job's training loop may go without a round before /healthz
// fails: one step of the `paper` network on a 16,500-buffer program takes
// up to about 100 s on two cores.
constexpr absl::Duration kMaxSilence = absl::Minutes(10);

std::string HealthCheckName(const std::string& job_id) {
  return absl::StrCat("learner_job_", job_id);
}

// The job's config checked, a bare preset reference ({preset: "cpu"})
// expanded first (features/config_presets.h).
absl::StatusOr<MuZeroConfig> Resolved(const MuZeroConfig& config) {
  MuZeroConfig resolved = config;
  if (!config.has_network() && !config.preset().empty()) {
    ASSIGN_OR_RETURN(resolved, features::LoadMuZeroConfig(config.preset(), {}));
  }
  RETURN_IF_ERROR(features::CheckMuZeroConfig(resolved));
  return resolved;
}

bool HasCheckpoint(const std::string& dir) {
  std::error_code error;
  return !dir.empty() && (std::filesystem::exists(dir, error) ||
                          std::filesystem::exists(dir + ".old", error));
}

}  // namespace

absl::StatusOr<std::unique_ptr<LearnerJob>> LearnerJob::Start(
    LearnerJobOptions options, std::unique_ptr<worker::BatchSource> source,
    worker::ParameterStore* parameters, LearnerMetrics* metrics) {
  if (options.publish_interval < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "publish_interval: must be >= 1, got ", options.publish_interval));
  }
  absl::StatusOr<MuZeroConfig> config = Resolved(options.config);
  if (!config.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "job ", options.job_id, ": config: ", config.status().message()));
  }
  options.config = *std::move(config);
  std::unique_ptr<LearnerJob> job(new LearnerJob(
      std::move(options), std::move(source), parameters, metrics));
  const LearnerJobOptions& o = job->options_;
  const std::string what = absl::StrCat("job ", o.job_id);
  torch::manual_seed(o.config.training().seed());
  absl::StatusOr<model::MuZeroNetwork> network = model::CreateNetwork(
      o.config.network(), model::ShapeOf(o.config.features()), o.device);
  if (!network.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": config.network: ", network.status().message()));
  }
  absl::StatusOr<std::unique_ptr<model::Learner>> learner =
      model::Learner::Create(o.config.training(), o.config.search().discount(),
                             *std::move(network), /*replay=*/nullptr);
  if (!learner.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": config: ", learner.status().message()));
  }
  job->learner_ = *std::move(learner);
  job->demonstrations_ = std::make_unique<agent::ReplayBuffer>(
      agent::kDemonstrationsKept, o.config.training().seed() ^ 0xde0);
  if (!o.checkpoint_dir.empty()) {
    // Claimed before reading: a predecessor's late save is refused from
    // now on, so what is loaded below is its last word.
    const absl::Status claimed =
        ClaimLeaseFence(o.checkpoint_dir, o.lease_epoch);
    if (!claimed.ok()) {
      return absl::Status(claimed.code(),
                          absl::StrCat(what, ": ", claimed.message()));
    }
  }
  if (HasCheckpoint(o.checkpoint_dir)) {
    std::string note;
    int64_t written_epoch = 0;
    const absl::Status loaded =
        job->learner_->Load(o.checkpoint_dir, &note, &written_epoch);
    if (!loaded.ok()) {
      return absl::Status(
          loaded.code(),
          absl::StrCat(what, ": cannot resume from ", o.checkpoint_dir, ": ",
                       loaded.message()));
    }
    if (o.lease_epoch > 0 && written_epoch > o.lease_epoch) {
      return absl::AbortedError(absl::StrCat(
          what, ": the checkpoint in ", o.checkpoint_dir,
          " was written under lease epoch ", written_epoch,
          ", newer than this learner's ", o.lease_epoch));
    }
    if (!note.empty()) {
      LogLine("warning", "checkpoint_fallback",
              {{"job", o.job_id}, {"reason", note}});
    }
  }
  const int64_t step = job->learner_->step();
  job->saved_step_ = HasCheckpoint(o.checkpoint_dir) ? step : -1;
  job->checkpoint_interval_ = o.checkpoint_interval > 0
                                  ? o.checkpoint_interval
                                  : o.config.training().checkpoint_interval();
  job->progress_.Update([step](LearnerProgress& progress) {
    progress.step = step;
    progress.resumed_step = step;
  });
  job->Publish();
  LogLine("info", "job_started",
          {{"job", o.job_id},
           {"step", absl::StrCat(step)},
           {"resumed", step > 0 ? "true" : "false"},
           {"device", o.device.str()},
           {"budget", absl::StrCat(o.steps_budget)},
           {"checkpoint_dir", o.checkpoint_dir}});
  LearnerJob* raw = job.get();
  job->thread_ = std::jthread([raw](std::stop_token stop) {
    const std::string crash =
        rpc::RunCatchingCrash(raw->options_.job_id, [&] { raw->Run(stop); });
    if (crash.empty()) return;
    // The job failed (its heartbeat says so); the process serves on.
    rpc::ProcessHealth().Remove(HealthCheckName(raw->options_.job_id));
    raw->progress_.Update([&crash](LearnerProgress& progress) {
      progress.fatal_error = crash;
      progress.stopped = true;
    });
  });
  return job;
}

LearnerJob::LearnerJob(LearnerJobOptions options,
                       std::unique_ptr<worker::BatchSource> source,
                       worker::ParameterStore* parameters,
                       LearnerMetrics* metrics)
    : options_(std::move(options)),
      source_(std::move(source)),
      parameters_(parameters),
      metrics_(metrics) {}

LearnerJob::~LearnerJob() { Stop(); }

void LearnerJob::Stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

bool LearnerJob::BudgetReached() const {
  return options_.steps_budget > 0 && learner_->step() >= options_.steps_budget;
}

void LearnerJob::Run(std::stop_token stop) {
  // /healthz: this loop goes round. Waiting for batches counts (a replay
  // that is away is its own check's failure); refused steps fail it until
  // a step succeeds.
  const std::string health = HealthCheckName(options_.job_id);
  rpc::ProcessHealth().Add(health, kMaxSilence);
  absl::Time wait_start = absl::Now();  // since the last step
  const auto leased = [this] {
    return !options_.lease_live || options_.lease_live();
  };
  while (!stop.stop_requested() && !BudgetReached() && !fenced_) {
    if (!leased()) {  // paused past the lease: no step until it is renewed
      rpc::ProcessHealth().Succeeded(health);
      absl::SleepFor(options_.batch_poll);
      continue;
    }
    TakeDemonstration();
    absl::StatusOr<worker::Batch> batch = source_->Next(options_.batch_poll);
    if (!batch.ok()) {
      rpc::ProcessHealth().Succeeded(health);
      progress_.Update([&batch](LearnerProgress& progress) {
        progress.batch_error = batch.status().ToString();
      });
      continue;
    }
    const absl::Duration waited = absl::Now() - wait_start;
    MixDemonstrations(&*batch);
    absl::StatusOr<model::LearnerStats> stats = learner_->Step(*batch);
    wait_start = absl::Now();
    if (!stats.ok()) {
      LogLine("warning", "batch_refused",
              {{"job", options_.job_id},
               {"message", std::string(stats.status().message())}});
      rpc::ProcessHealth().Failed(
          health, absl::StrCat("step refused its batch: ", stats.status().message()));
      progress_.Update([&stats](LearnerProgress& progress) {
        ++progress.skipped_batches;
        progress.batch_error = stats.status().ToString();
      });
      continue;
    }
    rpc::ProcessHealth().Succeeded(health);
    if (metrics_ != nullptr) metrics_->OnStep(options_.job_id, *stats, waited);
    // Published and saved before the progress shows the step, so that a
    // heartbeat never reports a step without its parameter version.
    if (stats->step % options_.publish_interval == 0) Publish();
    if (checkpoint_interval_ > 0 && stats->step % checkpoint_interval_ == 0) {
      Checkpoint();
    }
    progress_.Update([&stats](LearnerProgress& progress) {
      progress.step = stats->step;
      progress.losses = {{"total", stats->total},
                         {"value", stats->value},
                         {"reward", stats->reward},
                         {"policy", stats->policy}};
      progress.batch_error.clear();
    });
  }
  // The end: budget, SIGTERM or lease lost. Leave nothing unsaved.
  rpc::ProcessHealth().Remove(health);
  Checkpoint();
  const int64_t published = progress_.Read(
      [](const LearnerProgress& progress) { return progress.parameter_version; });
  if (published != learner_->step() && !fenced_) Publish();
  const bool finished = BudgetReached();
  const int64_t step = progress_.Update([finished](LearnerProgress& progress) {
    progress.finished = finished;
    progress.stopped = true;
    return progress.step;
  });
  LogLine("info", "job_stopped",
          {{"job", options_.job_id},
           {"step", absl::StrCat(step)},
           {"reason", finished ? "budget" : fenced_ ? "fenced" : "stop"}});
}

void LearnerJob::Publish() {
  const int64_t step = learner_->step();
  absl::StatusOr<std::string> bytes =
      model::SerializeNetworkParameters(learner_->network());
  if (!bytes.ok()) {
    LogLine("error", "publish_failed",
            {{"job", options_.job_id},
             {"message", std::string(bytes.status().message())}});
    return;
  }
  if (parameters_ != nullptr) {
    parameters_->Publish(options_.job_id, step, *std::move(bytes),
                         model::kNetworkParametersFormat);
  }
  if (metrics_ != nullptr) metrics_->OnPublish(options_.job_id, step);
  progress_.Update(
      [step](LearnerProgress& progress) { progress.parameter_version = step; });
}

void LearnerJob::Checkpoint() {
  const int64_t step = learner_->step();
  if (options_.checkpoint_dir.empty() || step == saved_step_ || fenced_) {
    return;
  }
  const absl::Status saved = WriteUnderLeaseFence(
      options_.checkpoint_dir, options_.lease_epoch, [&] {
        return learner_->Save(options_.checkpoint_dir, options_.lease_epoch);
      });
  if (absl::IsAborted(saved)) {
    // Another learner holds the job now: stop, save nothing.
    fenced_ = true;
    progress_.Update([&saved](LearnerProgress& progress) {
      progress.fenced = std::string(saved.message());
    });
    LogLine("warning", "fenced",
            {{"job", options_.job_id},
             {"step", absl::StrCat(step)},
             {"message", std::string(saved.message())}});
    return;
  }
  if (!saved.ok()) {
    progress_.Update([&saved](LearnerProgress& progress) {
      progress.checkpoint_error = saved.ToString();
    });
    LogLine(
        "error", "checkpoint_failed",
        {{"job", options_.job_id}, {"message", std::string(saved.message())}});
    return;
  }
  saved_step_ = step;
  progress_.Update([](LearnerProgress& progress) {
    ++progress.checkpoints;
    progress.checkpoint_error.clear();
  });
  if (metrics_ != nullptr) metrics_->OnCheckpoint(options_.job_id);
}

LearnerProgress LearnerJob::progress() const { return progress_.Get(); }

void LearnerJob::OfferDemonstration(const Solution& solution) {
  const double offered = solution.normalised_return();
  const bool better = offered_.Update([&](Offer& offer) {
    if (offered <= offer.best) return false;
    offer.best = offered;
    offer.pending = solution;
    return true;
  });
  if (!better) return;
  progress_.Update([offered](LearnerProgress& progress) {
    progress.demonstrated_return =
        std::max(progress.demonstrated_return, offered);
  });
}

void LearnerJob::TakeDemonstration() {
  if (absl::Now() - last_demonstration_ < options_.demonstration_interval) {
    return;  // the offer waits (a newer one replaces it)
  }
  std::optional<Solution> solution = offered_.Update(
      [](Offer& offer) { return std::exchange(offer.pending, std::nullopt); });
  if (!solution.has_value() || options_.program == nullptr ||
      learner_->demonstrations_per_batch() == 0) {
    return;
  }
  const absl::Time start = absl::Now();
  last_demonstration_ = start;
  absl::StatusOr<agent::Trajectory> shown = agent::DemonstrationFromSolution(
      options_.program, *solution, options_.config);
  if (!shown.ok()) {
    LogLine("warning", "demonstration_refused",
            {{"job", options_.job_id},
             {"message", std::string(shown.status().message())}});
    progress_.Update([&shown](LearnerProgress& progress) {
      progress.demonstration_error = shown.status().ToString();
    });
    return;
  }
  const int64_t steps = static_cast<int64_t>(shown->steps.size());
  demonstrations_->Insert(*std::move(shown));
  const int64_t count = progress_.Update([](LearnerProgress& progress) {
    progress.demonstration_error.clear();
    return ++progress.demonstrations;
  });
  LogLine("info", "demonstration_added",
          {{"job", options_.job_id},
           {"normalised_return", absl::StrCat(solution->normalised_return())},
           {"solver", solution->solver().name()},
           {"steps", absl::StrCat(steps)},
           {"replay_ms",
            absl::StrCat(absl::ToInt64Milliseconds(absl::Now() - start))},
           {"demonstrations", absl::StrCat(count)}});
}

void LearnerJob::MixDemonstrations(worker::Batch* batch) {
  if (demonstrations_->size() == 0) return;
  const size_t shown =
      std::min<size_t>(learner_->demonstrations_per_batch(), batch->size());
  if (shown == 0) return;
  batch->resize(batch->size() - shown);
  std::vector<agent::SampledPosition> positions =
      demonstrations_->Sample(static_cast<int>(shown));
  std::move(positions.begin(), positions.end(), std::back_inserter(*batch));
  progress_.Update([shown](LearnerProgress& progress) {
    progress.demonstrated_positions += static_cast<int64_t>(shown);
  });
}

bool LearnerJob::AwaitStopped(absl::Duration timeout) const {
  return progress_.AwaitWithTimeout(
      [](const LearnerProgress& progress) { return progress.stopped; },
      timeout);
}

}  // namespace mmapzero::learner
