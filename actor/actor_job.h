// One job on an actor (docs/protocols.md): the job's
// workload compiled into a game::Program, a network built from the job's
// MuZeroConfig, and a play thread that runs SelfPlay (common/model/
// self_play.h: search.batch_games games at once, one batched network call
// per simulation round) and between moves adopts the newest parameters the
// ParameterPoller fetched from the job's learner, beginning with its
// version 0, the job's starting network (pretrained, registered or fresh;
// the only version of a job without learning). Each finished game goes
// to the JobOutbox: its trajectory (tagged with the acting parameter
// version) to replay, its solution to the coordinator when it beats this
// actor's best for the job. The running totals (games, moves, simulations,
// how the games used the best game, parameter version) go to the
// coordinator with every heartbeat (WorkerSession::SetCounters).
//
// Stop(drain) ends the play thread after its current move, then gives the
// outbox `drain` to send what is queued.
//
// Thread-safety: thread-safe.
#ifndef MMAPZERO_ACTOR_ACTOR_JOB_H_
#define MMAPZERO_ACTOR_ACTOR_JOB_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "actor/actor_job_stats.h"
#include "actor/actor_metrics.h"
#include "common/base/guarded.h"
#include "common/training/self_play.h"
#include "proto/worker.pb.h"
#include "worker/job_outbox.h"
#include "worker/job_supervisor.h"
#include "worker/networks/parameter_poller.h"
#include "worker/worker_session.h"

namespace mmapzero::actor {

struct ActorJobOptions {
  uint64_t seed = 1;
  absl::Duration parameter_poll = absl::Seconds(1);
  absl::Duration rpc_deadline = absl::Seconds(5);
  int trajectory_batch = 8;
  int max_queued_trajectories = 256;
  worker::WorkerSession* session = nullptr;  // not owned; required
  ActorMetrics* metrics = nullptr;           // not owned; may be null
};

class ActorJob final : public worker::SupervisedJob {
 public:
  // InvalidArgument naming the field for a workload or config that does
  // not compile (nothing started then).
  static absl::StatusOr<std::shared_ptr<ActorJob>> Start(
      const v1::Assignment& assignment, const ActorJobOptions& options);
  ~ActorJob() override;  // Stop(0)

  void Update(const v1::Assignment& assignment) override;
  void Stop(absl::Duration drain) override;

  ActorJobStats stats() const;

 private:
  ActorJob(std::string job_id, const ActorJobOptions& options,
           std::unique_ptr<worker::ParameterPoller> poller);
  void Play(std::stop_token stop);
  // The SelfPlay sink: one finished game.
  void OnGame(const game::MMapGame& game, agent::Trajectory trajectory);
  // Reports a complete game's solution to the coordinator (through the
  // outbox, when it beats what this job offered before).
  void OfferSolution(const game::MMapGame& game);
  void Publish();

  const std::string job_id_;
  const ActorJobOptions options_;
  std::unique_ptr<worker::ParameterPoller> poller_;
  worker::JobOutbox outbox_;
  std::unique_ptr<training::SelfPlay> self_play_;  // the play thread's
  // The highest return offered so far (the play thread's): only a game
  // above it is made into a Solution.
  double offered_return_us_ = -1;

  Guarded<ActorJobStats> stats_;      // written by the play thread
  std::atomic<bool> stopped_{false};  // Stop ran (or runs)
  std::jthread thread_;               // last
};

}  // namespace mmapzero::actor

#endif  // MMAPZERO_ACTOR_ACTOR_JOB_H_
