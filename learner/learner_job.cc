#include "learner/learner_job.h"

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/base/lease_fence.h"
#include "common/base/set_aside.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/metrics/health_checks.h"
#include "common/model/network_checkpoint.h"
#include "common/model/networks.h"
#include "common/service/crash_guard.h"
#include "common/service/log_line.h"
#include "common/training/initial_network.h"

namespace mmapzero::learner {

using service::LogLine;

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

// The job's budget or the config's training.training_steps, whichever
// ends first; 0 (either): the other; both 0: no limit.
int64_t StepLimit(int64_t job_budget, int64_t training_steps) {
  if (job_budget <= 0) return std::max<int64_t>(0, training_steps);
  if (training_steps <= 0) return job_budget;
  return std::min(job_budget, training_steps);
}

bool HasCheckpoint(const std::string& dir) {
  std::error_code error;
  return !dir.empty() && (std::filesystem::exists(dir, error) ||
                          std::filesystem::exists(dir + ".old", error));
}

// Blocks until `stop` is requested.
void AwaitStop(std::stop_token stop) {
  std::mutex mu;
  std::condition_variable_any stopped;
  std::unique_lock<std::mutex> lock(mu);
  stopped.wait(lock, stop, [] { return false; });
}

}  // namespace

// The loop's rounds as the service shows them: /healthz (the loop goes
// round; waiting for batches counts, a replay that is away is its own
// check's failure; refused steps fail it until a step succeeds), the
// job's metrics and its log lines.
class LearnerJob::Observer final : public training::TrainingObserver {
 public:
  Observer(std::string job_id, LearnerMetrics* metrics)
      : job_id_(std::move(job_id)),
        health_(HealthCheckName(job_id_)),
        metrics_(metrics) {
    metrics::ProcessHealth().Add(health_, kMaxSilence);
  }
  ~Observer() override { metrics::ProcessHealth().Remove(health_); }

  void OnWait(const absl::Status& /*why*/) override {
    metrics::ProcessHealth().Succeeded(health_);
  }
  void OnStep(const training::LearnerStats& stats,
              absl::Duration waited) override {
    metrics::ProcessHealth().Succeeded(health_);
    if (metrics_ != nullptr) metrics_->OnStep(job_id_, stats, waited);
    window_.total += stats.total;
    window_.value += stats.value;
    window_.reward += stats.reward;
    window_.policy += stats.policy;
    ++window_steps_;
  }
  void OnRefused(const absl::Status& status) override {
    LogLine("warning", "batch_refused",
            {{"job", job_id_}, {"message", std::string(status.message())}});
    metrics::ProcessHealth().Failed(
        health_, absl::StrCat("step refused its batch: ", status.message()));
  }
  void OnPublished(int64_t version) override {
    if (metrics_ != nullptr) metrics_->OnPublish(job_id_, version);
  }
  void OnCheckpoint(int64_t step, const absl::Status& saved) override {
    if (absl::IsAborted(saved)) {  // another learner holds the job now
      LogLine("warning", "fenced",
              {{"job", job_id_},
               {"step", absl::StrCat(step)},
               {"message", std::string(saved.message())}});
    } else if (!saved.ok()) {
      LogLine("error", "checkpoint_failed",
              {{"job", job_id_}, {"message", std::string(saved.message())}});
    } else if (metrics_ != nullptr) {
      metrics_->OnCheckpoint(job_id_);
    }
    LogLosses("training_progress", step, {});
  }
  void OnDemonstration(const training::DemonstrationReplay& replay) override {
    if (!replay.status.ok()) {
      LogLine("warning", "demonstration_refused",
              {{"job", job_id_},
               {"message", std::string(replay.status.message())}});
      return;
    }
    LogLine("info", "demonstration_added",
            {{"job", job_id_},
             {"normalised_return", absl::StrCat(replay.normalised_return)},
             {"solver", replay.solver},
             {"steps", absl::StrCat(replay.steps)},
             {"replay_ms",
              absl::StrCat(absl::ToInt64Milliseconds(replay.replay_time))},
             {"demonstrations", absl::StrCat(replay.kept)}});
  }
  void OnStopped(int64_t step, const std::string& reason) override {
    metrics::ProcessHealth().Remove(health_);
    LogLosses("job_stopped", step, {"reason", reason});
  }

 private:
  // Logs `event` with the step, `extra` and the mean losses of the steps
  // since the last such line (a user's view of training: one line per
  // checkpoint), then starts a new window.
  void LogLosses(const char* event, int64_t step,
                 std::pair<std::string, std::string> extra) {
    service::LogFields fields = {
        {"job", job_id_}, {"step", absl::StrCat(step)}};
    if (!extra.first.empty()) fields.push_back(std::move(extra));
    if (window_steps_ > 0) {
      const double n = static_cast<double>(window_steps_);
      fields.push_back({"steps_averaged", absl::StrCat(window_steps_)});
      fields.push_back({"loss", absl::StrFormat("%.5g", window_.total / n)});
      fields.push_back(
          {"value_loss", absl::StrFormat("%.5g", window_.value / n)});
      fields.push_back(
          {"reward_loss", absl::StrFormat("%.5g", window_.reward / n)});
      fields.push_back(
          {"policy_loss", absl::StrFormat("%.5g", window_.policy / n)});
    }
    LogLine("info", event, fields);
    window_ = {};
    window_steps_ = 0;
  }

  const std::string job_id_;
  const std::string health_;
  LearnerMetrics* const metrics_;
  // The loss sums since the last LogLosses (the loop's thread only).
  training::LearnerStats window_;
  int64_t window_steps_ = 0;
};

absl::StatusOr<std::unique_ptr<LearnerJob>> LearnerJob::Start(
    LearnerJobOptions options, std::unique_ptr<agent::BatchSource> source,
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
  ASSIGN_OR_RETURN(const int64_t saved_step, job->BuildLearner());
  job->observer_ = std::make_unique<Observer>(job->options_.job_id, metrics);
  job->BuildLoop(saved_step);
  job->loop_->Publish();
  const LearnerJobOptions& o = job->options_;
  LogLine("info", "job_started",
          {{"job", o.job_id},
           {"step", absl::StrCat(job->resumed_step_)},
           {"resumed", job->resumed_step_ > 0 ? "true" : "false"},
           {"device", o.device.str()},
           {"budget", absl::StrCat(o.steps_budget)},
           {"learn", o.config.training().no_learning() ? "false" : "true"},
           {"initial_network", job->initial_network_},
           {"checkpoint_dir", o.checkpoint_dir}});
  LearnerJob* raw = job.get();
  job->thread_ = std::jthread([raw](std::stop_token stop) {
    const std::string crash =
        service::RunCatchingCrash(raw->options_.job_id, [&] {
          if (raw->options_.config.training().no_learning()) {
            AwaitStop(stop);  // version `step`, published above, is all
          } else {
            raw->loop_->Run(stop);
          }
        });
    // A crash fails the job (its heartbeat says so); the process serves on.
    if (!crash.empty()) {
      metrics::ProcessHealth().Remove(HealthCheckName(raw->options_.job_id));
    }
    raw->ended_.Update([&crash](Ended& ended) {
      ended.ended = true;
      ended.fatal_error = crash;
    });
  });
  return job;
}

LearnerJob::LearnerJob(LearnerJobOptions options,
                       std::unique_ptr<agent::BatchSource> source,
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
  if (metrics_ != nullptr) metrics_->ForgetJob(options_.job_id);
}

absl::StatusOr<int64_t> LearnerJob::BuildLearner() {
  const LearnerJobOptions& o = options_;
  const std::string what = absl::StrCat("job ", o.job_id);
  torch::manual_seed(o.config.training().seed());
  absl::StatusOr<model::MuZeroNetwork> network = model::CreateNetwork(
      o.config.network(), model::ShapeOf(o.config.features()), o.device);
  if (!network.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": config.network: ", network.status().message()));
  }
  // The shipped default or a warm start; a checkpoint of the job's own
  // (below) overrides it.
  absl::StatusOr<std::string> initial = training::LoadInitialNetwork(
      o.config.training(), *network, o.initial_network_bytes);
  if (!initial.ok()) {
    return absl::Status(initial.status().code(),
                        absl::StrCat(what, ": ", initial.status().message()));
  }
  initial_network_ = *std::move(initial);
  absl::StatusOr<std::unique_ptr<training::Learner>> learner =
      training::Learner::Create(o.config.training(),
                                o.config.search().discount(),
                                *std::move(network));
  if (!learner.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": config: ", learner.status().message()));
  }
  learner_ = *std::move(learner);
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
  if (!HasCheckpoint(o.checkpoint_dir)) return -1;
  std::string note;
  int64_t written_epoch = 0;
  const absl::Status loaded = learner_->Load(
      o.checkpoint_dir, /*replay=*/nullptr, &note, &written_epoch);
  if (absl::IsDataLoss(loaded)) {
    // No good copy left (the newest and the previous damaged): both are
    // set aside, never deleted, and the job's learner starts afresh from
    // its starting network, rebuilt since a failed load may have filled
    // part of it. The job keeps its best; a checkpoint of another size or
    // config (InvalidArgument) is still refused below.
    std::vector<std::string> aside;
    for (const std::string& path :
         {o.checkpoint_dir, o.checkpoint_dir + ".old"}) {
      const absl::StatusOr<std::string> moved = SetAsideDamaged(path);
      if (!moved.ok()) {
        return absl::Status(moved.status().code(),
                            absl::StrCat(what, ": ", moved.status().message()));
      }
      if (!moved->empty()) aside.push_back(*moved);
    }
    LogLine("error", "checkpoint_damaged",
            {{"job", o.job_id},
             {"moved_to", absl::StrJoin(aside, ",")},
             {"message", std::string(loaded.message())}});
    ASSIGN_OR_RETURN(const int64_t fresh, BuildLearner());
    checkpoint_fallback_ = absl::StrCat(
        "no good learner checkpoint (", loaded.message(), "); set aside as ",
        absl::StrJoin(aside, ", "),
        "; the learner started afresh from the job's starting network");
    if (metrics_ != nullptr) metrics_->OnCheckpointFallback();
    return fresh;
  }
  if (!loaded.ok()) {
    return absl::Status(loaded.code(),
                        absl::StrCat(what, ": cannot resume from ",
                                     o.checkpoint_dir, ": ", loaded.message()));
  }
  if (o.lease_epoch > 0 && written_epoch > o.lease_epoch) {
    return absl::AbortedError(
        absl::StrCat(what, ": the checkpoint in ", o.checkpoint_dir,
                     " was written under lease epoch ", written_epoch,
                     ", newer than this learner's ", o.lease_epoch));
  }
  if (!note.empty()) {
    LogLine("warning", "checkpoint_fallback",
            {{"job", o.job_id}, {"reason", note}});
    checkpoint_fallback_ = note;
    if (metrics_ != nullptr) metrics_->OnCheckpointFallback();
  }
  resumed_step_ = learner_->step();
  return resumed_step_;
}

void LearnerJob::BuildLoop(int64_t saved_step) {
  const LearnerJobOptions& o = options_;
  demonstrations_ = std::make_unique<training::Demonstrations>(
      o.program, o.config, o.config.training().seed() ^ 0xde0);
  const int64_t checkpoint_interval =
      o.checkpoint_interval > 0 ? o.checkpoint_interval
                                : o.config.training().checkpoint_interval();
  training::TrainingSinks sinks{
      .publish = [this](const model::MuZeroNetwork& network,
                        int64_t step) { PublishParameters(network, step); },
      .checkpoint = nullptr,
      .may_step = o.lease_live};
  if (!o.checkpoint_dir.empty()) {
    sinks.checkpoint = [this](const training::Learner& learner) {
      return SaveCheckpoint(learner);
    };
  }
  loop_ = std::make_unique<training::TrainingLoop>(
      training::TrainingLoopOptions{
          .max_steps =
              StepLimit(o.steps_budget, o.config.training().training_steps()),
          .publish_interval = o.publish_interval,
          .checkpoint_interval = checkpoint_interval,
          .saved_step = saved_step,
          .batch_poll = o.batch_poll},
      learner_.get(), source_.get(), demonstrations_.get(), std::move(sinks),
      observer_.get());
}

void LearnerJob::PublishParameters(const model::MuZeroNetwork& network,
                                   int64_t step) {
  absl::StatusOr<std::string> bytes =
      model::SerializeNetworkParameters(network);
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
}

absl::Status LearnerJob::SaveCheckpoint(const training::Learner& learner) {
  RETURN_IF_ERROR(WriteUnderLeaseFence(
      options_.checkpoint_dir, options_.lease_epoch, [&] {
        return learner.Save(options_.checkpoint_dir, /*replay=*/nullptr,
                            options_.lease_epoch);
      }));
  if (options_.network_saved != nullptr) {
    absl::StatusOr<std::string> bytes =
        model::SerializeNetworkParameters(learner.network());
    if (!bytes.ok()) return bytes.status();
    options_.network_saved(learner.step(), *bytes);
  }
  return absl::OkStatus();
}

LearnerProgress LearnerJob::progress() const {
  LearnerProgress progress;
  static_cast<training::TrainingProgress&>(progress) = loop_->progress();
  progress.resumed_step = resumed_step_;
  progress.checkpoint_fallback = checkpoint_fallback_;
  const Ended ended = ended_.Get();
  progress.fatal_error = ended.fatal_error;
  if (ended.ended) progress.stopped = true;
  return progress;
}

void LearnerJob::OfferDemonstration(const Solution& solution) {
  demonstrations_->Offer(solution);
}

bool LearnerJob::AwaitStopped(absl::Duration timeout) const {
  return ended_.AwaitWithTimeout([](const Ended& ended) { return ended.ended; },
                                 timeout);
}

}  // namespace mmapzero::learner
