// Test-only: an in-test ReplayService on a loopback port, without
// LibTorch. Records inserts; hands stored trajectories to reanalyse;
// records target updates. set_available(false) answers UNAVAILABLE
// (replay away). Used by the outbox's tests and by test_cluster.h.
#ifndef MMAPZERO_WORKER_FAKE_REPLAY_SERVICE_H_
#define MMAPZERO_WORKER_FAKE_REPLAY_SERVICE_H_

#include <grpcpp/server_context.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "proto/replay.grpc.pb.h"

namespace mmapzero::worker {

class FakeReplayService final : public v1::ReplayService::Service {
 public:
  grpc::Status InsertTrajectories(
      grpc::ServerContext*, const v1::InsertTrajectoriesRequest* request,
      v1::InsertTrajectoriesResponse* response) override {
    absl::MutexLock lock(&mu_);
    if (!available_) return grpc::Status(grpc::UNAVAILABLE, "away");
    for (const v1::Trajectory& trajectory : request->trajectories()) {
      stored_.push_back(trajectory);
      stored_.back().set_trajectory_id(stored_.size());
      response->add_trajectory_ids(stored_.size());
    }
    inserts_.push_back(*request);
    response->set_table_size(static_cast<int64_t>(stored_.size()));
    return grpc::Status::OK;
  }
  grpc::Status SampleForReanalyse(
      grpc::ServerContext*, const v1::SampleForReanalyseRequest* request,
      v1::SampleForReanalyseResponse* response) override {
    absl::MutexLock lock(&mu_);
    if (!available_) return grpc::Status(grpc::UNAVAILABLE, "away");
    if (stored_.empty()) {
      return grpc::Status(grpc::FAILED_PRECONDITION, "empty table");
    }
    for (int i = 0; i < request->count(); ++i) {
      *response->add_trajectories() = stored_[i % stored_.size()];
    }
    return grpc::Status::OK;
  }
  grpc::Status UpdateTargets(grpc::ServerContext*,
                             const v1::UpdateTargetsRequest* request,
                             v1::UpdateTargetsResponse* response) override {
    absl::MutexLock lock(&mu_);
    updates_.push_back(*request);
    response->set_updated(request->updates_size());
    return grpc::Status::OK;
  }

  void set_available(bool available) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    available_ = available;
  }
  void Store(v1::Trajectory trajectory) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    stored_.push_back(std::move(trajectory));
    stored_.back().set_trajectory_id(stored_.size());
  }
  std::vector<v1::InsertTrajectoriesRequest> inserts() const
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return inserts_;
  }
  std::vector<v1::UpdateTargetsRequest> updates() const
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return updates_;
  }
  int64_t inserted() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    int64_t n = 0;
    for (const auto& insert : inserts_) n += insert.trajectories_size();
    return n;
  }

 private:
  mutable absl::Mutex mu_;
  bool available_ ABSL_GUARDED_BY(mu_) = true;
  std::vector<v1::Trajectory> stored_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::InsertTrajectoriesRequest> inserts_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::UpdateTargetsRequest> updates_ ABSL_GUARDED_BY(mu_);
};

}  // namespace mmapzero::worker

#endif  // MMAPZERO_WORKER_FAKE_REPLAY_SERVICE_H_
