#include "coordinator/seed_queue.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace mmapzero::coordinator {

SeedQueue::SeedQueue(int solvers, int max_waiting, SeedFunction seed)
    : max_waiting_(std::max(1, max_waiting)), seed_(std::move(seed)) {
  const int threads = std::max(1, solvers);
  threads_.reserve(threads);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

SeedQueue::~SeedQueue() { Stop(); }

absl::Status SeedQueue::CheckRoomLocked() const {
  if (stopping_) {
    return absl::UnavailableError("the coordinator is shutting down");
  }
  if (static_cast<int>(queue_.size()) >= max_waiting_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        queue_.size(), " submitted jobs wait for their seed solve (at most ",
        max_waiting_, "); submit again later"));
  }
  return absl::OkStatus();
}

absl::Status SeedQueue::CheckRoom() const {
  absl::MutexLock lock(&mu_);
  return CheckRoomLocked();
}

absl::Status SeedQueue::Add(int64_t job_id, bool force) {
  absl::MutexLock lock(&mu_);
  if (const absl::Status room = CheckRoomLocked();
      !room.ok() && !(force && absl::IsResourceExhausted(room))) {
    return room;
  }
  queue_.push_back(job_id);
  return absl::OkStatus();
}

void SeedQueue::Run() {
  while (true) {
    int64_t job_id = 0;
    {
      absl::MutexLock lock(&mu_);
      const auto ready = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
        return stopping_ || !queue_.empty();
      };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) return;
      job_id = queue_.front();
      queue_.pop_front();
      running_[job_id] = false;
    }
    seed_(job_id, [this, job_id] { return StopAsked(job_id); });
    absl::MutexLock lock(&mu_);
    running_.erase(job_id);
  }
}

bool SeedQueue::StopAsked(int64_t job_id) const {
  absl::MutexLock lock(&mu_);
  if (stopping_) return true;
  const auto it = running_.find(job_id);
  return it != running_.end() && it->second;
}

void SeedQueue::Cancel(int64_t job_id) {
  absl::MutexLock lock(&mu_);
  std::erase(queue_, job_id);
  if (auto it = running_.find(job_id); it != running_.end()) it->second = true;
}

void SeedQueue::RequestStop() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
  queue_.clear();
}

void SeedQueue::Stop() {
  RequestStop();
  for (std::jthread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

int SeedQueue::waiting() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(queue_.size());
}

int SeedQueue::running() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(running_.size());
}

bool SeedQueue::AwaitIdle(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  const auto idle = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return queue_.empty() && running_.empty();
  };
  return mu_.AwaitWithTimeout(absl::Condition(&idle), timeout);
}

}  // namespace mmapzero::coordinator
