#include "common/training/training_loop.h"

#include <optional>
#include <utility>

#include "absl/time/clock.h"

namespace mmapzero::training {

TrainingLoop::TrainingLoop(TrainingLoopOptions options, Learner* learner,
                           agent::BatchSource* source,
                           Demonstrations* demonstrations, TrainingSinks sinks,
                           TrainingObserver* observer)
    : options_(std::move(options)),
      learner_(learner),
      source_(source),
      demonstrations_(demonstrations),
      sinks_(std::move(sinks)),
      observer_(observer != nullptr ? observer : &no_observer_),
      saved_step_(options_.saved_step) {
  const int64_t step = learner_->step();
  progress_.Update(
      [step](TrainingProgress& progress) { progress.step = step; });
}

bool TrainingLoop::MaxStepsReached() const {
  return options_.max_steps > 0 && learner_->step() >= options_.max_steps;
}

void TrainingLoop::Run(std::stop_token stop) {
  absl::Time wait_start = absl::Now();  // since the last step
  while (!stop.stop_requested() && !MaxStepsReached() && !fenced_) {
    Round(&wait_start);
  }
  Finish();
}

void TrainingLoop::Round(absl::Time* wait_start) {
  if (sinks_.may_step && !sinks_.may_step()) {
    observer_->OnWait(absl::UnavailableError("paused: no step may be taken"));
    absl::SleepFor(options_.batch_poll);
    return;
  }
  TakeDemonstration();
  absl::StatusOr<agent::Batch> batch = source_->Next(options_.batch_poll);
  if (!batch.ok()) {
    observer_->OnWait(batch.status());
    progress_.Update([&batch](TrainingProgress& progress) {
      progress.batch_error = batch.status().ToString();
    });
    return;
  }
  const absl::Duration waited = absl::Now() - *wait_start;
  demonstrations_->Mix(&*batch);
  absl::StatusOr<LearnerStats> stats = learner_->Step(*batch);
  *wait_start = absl::Now();
  if (!stats.ok()) {
    observer_->OnRefused(stats.status());
    progress_.Update([&stats](TrainingProgress& progress) {
      ++progress.skipped_batches;
      progress.batch_error = stats.status().ToString();
    });
    return;
  }
  observer_->OnStep(*stats, waited);
  if (stats->step % options_.publish_interval == 0) Publish();
  if (options_.checkpoint_interval > 0 &&
      stats->step % options_.checkpoint_interval == 0) {
    Checkpoint();
  }
  progress_.Update([&stats](TrainingProgress& progress) {
    progress.step = stats->step;
    progress.losses = {{"total", stats->total},
                       {"value", stats->value},
                       {"reward", stats->reward},
                       {"policy", stats->policy}};
    progress.batch_error.clear();
  });
}

void TrainingLoop::TakeDemonstration() {
  const std::optional<DemonstrationReplay> replay =
      demonstrations_->TakeDue(learner_->step());
  if (replay.has_value()) observer_->OnDemonstration(*replay);
}

void TrainingLoop::Publish() {
  const int64_t step = learner_->step();
  if (sinks_.publish) sinks_.publish(learner_->network(), step);
  observer_->OnPublished(step);
  progress_.Update([step](TrainingProgress& progress) {
    progress.parameter_version = step;
  });
}

void TrainingLoop::Checkpoint() {
  const int64_t step = learner_->step();
  if (!sinks_.checkpoint || step == saved_step_ || fenced_) return;
  const absl::Status saved = sinks_.checkpoint(*learner_);
  observer_->OnCheckpoint(step, saved);
  if (absl::IsAborted(saved)) {  // another learner holds the job now
    fenced_ = true;
    progress_.Update([&saved](TrainingProgress& progress) {
      progress.fenced = std::string(saved.message());
    });
    return;
  }
  if (!saved.ok()) {
    progress_.Update([&saved](TrainingProgress& progress) {
      progress.checkpoint_error = saved.ToString();
    });
    return;
  }
  saved_step_ = step;
  progress_.Update([](TrainingProgress& progress) {
    ++progress.checkpoints;
    progress.checkpoint_error.clear();
  });
}

void TrainingLoop::Finish() {
  if (options_.checkpoint_at_end) Checkpoint();
  const int64_t published =
      progress_.Read([](const TrainingProgress& progress) {
        return progress.parameter_version;
      });
  if (published != learner_->step() && !fenced_) Publish();
  const bool finished = MaxStepsReached();
  const int64_t step = progress_.Update([finished](TrainingProgress& progress) {
    progress.finished = finished;
    progress.stopped = true;
    return progress.step;
  });
  observer_->OnStopped(step, finished ? "budget" : fenced_ ? "fenced" : "stop");
}

TrainingProgress TrainingLoop::progress() const {
  TrainingProgress progress = progress_.Get();
  progress.demonstrations = demonstrations_->stats();  // offers come any time
  return progress;
}

bool TrainingLoop::AwaitStopped(absl::Duration timeout) const {
  return progress_.AwaitWithTimeout(
      [](const TrainingProgress& progress) { return progress.stopped; },
      timeout);
}

}  // namespace mmapzero::training
