#include "common/training/actor_threads.h"

#include <optional>
#include <stop_token>
#include <utility>

#include "absl/strings/str_cat.h"

namespace mmapzero::training {

ActorThreads::ActorThreads(std::vector<std::unique_ptr<SelfPlay>> actors,
                           const PublishedParameters* parameters,
                           agent::SelfPlayResults* results)
    : actors_(std::move(actors)) {
  for (size_t i = 0; i < actors_.size(); ++i) {
    threads_.emplace_back([this, i, parameters, results](std::stop_token stop) {
      SelfPlay& actor = *actors_[i];
      int64_t best_seen = 0;
      while (!stop.stop_requested() && !results->LimitReached()) {
        actor.SyncParameters(*parameters);
        // Every actor starts games from the best of all of them.
        if (std::optional<Solution> best = results->BestIfNewer(&best_seen)) {
          actor.OfferStart(*best);
        }
        actor.Step();
        results->SetCounters(static_cast<int>(i), actor.counters());
      }
    });
  }
}

void ActorThreads::Stop() {
  for (std::jthread& thread : threads_) thread.request_stop();
  for (std::jthread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

std::string ActorThreads::Versions() const {
  std::string versions;
  for (const auto& actor : actors_) {
    absl::StrAppend(&versions, versions.empty() ? "" : ",",
                    actor->parameter_version());
  }
  return versions;
}

}  // namespace mmapzero::training
