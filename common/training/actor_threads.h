// The in-process solver's actors: one thread per SelfPlay, each stepping
// its games until stopped or the run's game limit is reached, adopting
// newer published parameters between moves and starting games from the
// best game any of them found (SelfPlayResults). The destructor stops and
// joins them.
#ifndef MMAPZERO_COMMON_TRAINING_ACTOR_THREADS_H_
#define MMAPZERO_COMMON_TRAINING_ACTOR_THREADS_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/agent/self_play_results.h"
#include "common/training/published_parameters.h"
#include "common/training/self_play.h"

namespace mmapzero::training {

class ActorThreads {
 public:
  // `parameters` and `results` are not owned and outlive the threads.
  ActorThreads(std::vector<std::unique_ptr<SelfPlay>> actors,
               const PublishedParameters* parameters,
               agent::SelfPlayResults* results);
  ~ActorThreads() { Stop(); }

  // Stops and joins every thread; idempotent.
  void Stop();
  // Each actor's parameter version, "v0,v1,..."; after Stop().
  std::string Versions() const;

 private:
  std::vector<std::unique_ptr<SelfPlay>> actors_;
  std::vector<std::jthread> threads_;  // last: joined before actors_ go
};

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_ACTOR_THREADS_H_
