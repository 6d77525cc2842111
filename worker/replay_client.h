// A worker's client of one job's replay server (ReplayService), shared by
// the actor's outbox (InsertTrajectories), the learner's sampler
// (SampleBatch) and the reanalyser (SampleForReanalyse, UpdateTargets).
// The server follows the job's assignment: SetAddress on every assignment
// update, a new channel only when the address changes. Every call carries
// a deadline and comes back as an absl::Status whose code is gRPC's and
// whose message names the server ("replay 10.0.0.7:50052: ..."); with no
// address yet, Unavailable "no replay server yet".
//
// Thread-safety: thread-safe; calls run outside the lock, so a slow call
// never holds up SetAddress or another call.
#ifndef MMAPZERO_WORKER_REPLAY_CLIENT_H_
#define MMAPZERO_WORKER_REPLAY_CLIENT_H_

#include <grpcpp/client_context.h>

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "proto/replay.grpc.pb.h"

namespace mmapzero::worker {

class ReplayClient {
 public:
  // `job_id` names the job in errors; `address` may be "" (none yet).
  explicit ReplayClient(std::string job_id, const std::string& address = "");

  // Follows the job's replay server; "" forgets it.
  void SetAddress(const std::string& address) ABSL_LOCKS_EXCLUDED(mu_);
  std::string address() const ABSL_LOCKS_EXCLUDED(mu_);
  bool has_address() const ABSL_LOCKS_EXCLUDED(mu_);

  absl::StatusOr<v1::InsertTrajectoriesResponse> InsertTrajectories(
      const v1::InsertTrajectoriesRequest& request, absl::Duration deadline)
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::SampleBatchResponse> SampleBatch(
      const v1::SampleBatchRequest& request, absl::Duration deadline)
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::SampleForReanalyseResponse> SampleForReanalyse(
      const v1::SampleForReanalyseRequest& request, absl::Duration deadline)
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::UpdateTargetsResponse> UpdateTargets(
      const v1::UpdateTargetsRequest& request, absl::Duration deadline)
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  template <typename Request, typename Response>
  using Method = grpc::Status (v1::ReplayService::Stub::*)(grpc::ClientContext*,
                                                           const Request&,
                                                           Response*);

  // One call of `method` on the current server, under `deadline`.
  template <typename Request, typename Response>
  absl::StatusOr<Response> Call(Method<Request, Response> method,
                                const Request& request, absl::Duration deadline)
      ABSL_LOCKS_EXCLUDED(mu_);

  const std::string job_id_;
  mutable absl::Mutex mu_;
  std::string address_ ABSL_GUARDED_BY(mu_);
  // Shared with calls in flight, so SetAddress never waits for them.
  std::shared_ptr<v1::ReplayService::Stub> stub_ ABSL_GUARDED_BY(mu_);
};

}  // namespace mmapzero::worker

#endif  // MMAPZERO_WORKER_REPLAY_CLIENT_H_
