// The running figures of one job on an actor (ActorJob::stats), in their
// own header so that the actor's worker, config and main need not include
// LibTorch through actor_job.h.
#ifndef MMAPZERO_ACTOR_ACTOR_JOB_STATS_H_
#define MMAPZERO_ACTOR_ACTOR_JOB_STATS_H_

#include <cstdint>

#include "worker/job_outbox.h"

namespace mmapzero::actor {

struct ActorJobStats {
  int64_t games = 0;
  int64_t moves = 0;
  int64_t simulations = 0;
  // How its games used the best game (agent::SelfPlayCounters).
  int64_t best_starts = 0;
  int64_t followed_moves = 0;
  int64_t rejoined = 0;
  int64_t parameter_version = 0;  // acting with
  int64_t learner_version = 0;    // the learner's latest seen
  worker::OutboxStats outbox;
};

}  // namespace mmapzero::actor

#endif  // MMAPZERO_ACTOR_ACTOR_JOB_STATS_H_
