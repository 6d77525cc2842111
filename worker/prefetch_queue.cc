#include "worker/prefetch_queue.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/rpc/backoff.h"

namespace mmapzero::worker {

PrefetchQueue::PrefetchQueue(Sampler sampler, PrefetchOptions options)
    : sampler_(std::move(sampler)), options_([&options] {
        options.capacity = std::max(1, options.capacity);
        return options;
      }()) {
  thread_ = std::jthread([this] { Run(); });
}

PrefetchQueue::~PrefetchQueue() { Stop(); }

void PrefetchQueue::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void PrefetchQueue::Run() {
  rpc::Backoff backoff(options_.backoff_initial, options_.backoff_cap);
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      auto room = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || static_cast<int>(queue_.size()) < options_.capacity;
      };
      mu_.Await(absl::Condition(&room));
      if (stopping_) return;
    }
    absl::StatusOr<agent::Batch> batch = sampler_();
    absl::Duration wait = absl::ZeroDuration();
    {
      absl::MutexLock lock(&mu_);
      if (batch.ok() && !batch->empty()) {
        queue_.push_back(*std::move(batch));
        ++stats_.fetched;
        stats_.last_error.clear();
        backoff.Reset();
        continue;
      }
      const absl::Status status =
          batch.ok() ? absl::UnavailableError("the replay sent an empty batch")
                     : batch.status();
      stats_.last_error = status.ToString();
      if (absl::IsFailedPrecondition(status)) {
        ++stats_.not_ready;
        wait = options_.not_ready_wait;
      } else {
        ++stats_.failures;
        wait = backoff.Next();
      }
    }
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), wait);
    if (stopping_) return;
  }
}

absl::StatusOr<agent::Batch> PrefetchQueue::Next(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopping_ || !queue_.empty();
  };
  mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
  if (queue_.empty()) {
    return absl::DeadlineExceededError(absl::StrCat(
        "no batch within ", absl::FormatDuration(timeout),
        stopping_ ? " (stopped)" : "",
        stats_.last_error.empty() ? "" : "; the replay's last answer: ",
        stats_.last_error));
  }
  agent::Batch batch = std::move(queue_.front());
  queue_.pop_front();
  return batch;
}

PrefetchStats PrefetchQueue::stats() const {
  absl::MutexLock lock(&mu_);
  PrefetchStats stats = stats_;
  stats.queued = static_cast<int>(queue_.size());
  return stats;
}

bool PrefetchQueue::AwaitQueued(int queued, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto enough = [this, queued]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return static_cast<int>(queue_.size()) >= queued;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
}

}  // namespace mmapzero::worker
