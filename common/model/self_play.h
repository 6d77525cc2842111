// MMap-MuZero self-play (paper 4.3; MuZero's actor, MiniZero's ActorGroup):
// one SelfPlay plays `search.batch_games` games of one workload at once.
// Each Step() observes every live game, runs one BatchedSearch over all of
// them (one evaluator call per simulation round), applies the chosen
// actions to the real games and records one agent::TrajectoryStep per
// ApplyAction — including a move that led to an infeasible state and was
// rolled back by Drop-backup (MMAPGAME.md 4.5): its reward is the engine's
// transition reward, r - gain, so the trajectory's rewards always sum to the
// game's return. A finished game's Trajectory goes to the sink, its
// solution is kept when it is the best so far (callers validate it before
// writing it out), and a new game starts in its slot.
//
// Parameters (the protocol between the learner and the actors): the
// learner owns its training network and, every N learner steps, calls
// PublishedParameters::Publish(network, learner_step), which deep-copies
// the parameters under a mutex. Each actor owns a private copy of the
// network (so the learner's optimiser never writes under a running
// forward); between moves it calls SyncParameters(), which copies the
// newest published version into that private network when it is newer than
// the one it acts with. The version is the learner step: it sets the
// visit-count temperature (VisitTemperature) and is recorded as
// Trajectory.parameter_version.
//
// Determinism: game k (k-th game started by this actor) searches move m
// with seed MixSeed(seed, k, m), so with fixed parameters and one intra-op
// thread a run is reproducible from its seed.
//
// Thread-safety: a SelfPlay is used by one thread; PublishedParameters is
// thread-safe.
#ifndef MMAPZERO_COMMON_MODEL_SELF_PLAY_H_
#define MMAPZERO_COMMON_MODEL_SELF_PLAY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/agent/trajectory.h"
#include "common/features/observation.h"
#include "common/game/mmap_game.h"
#include "common/game/program.h"
#include "common/model/network_evaluator.h"
#include "common/model/networks.h"
#include "common/search/batched_search.h"
#include "common/search/observed_evaluator.h"
#include "proto/muzero.pb.h"
#include "proto/solution.pb.h"

namespace mmapzero::model {

// The latest parameters the learner published, with their version (the
// learner step). Thread-safe.
class PublishedParameters {
 public:
  // Deep-copies `network`'s parameters and buffers as `version`.
  void Publish(const MuZeroNetwork& network, int64_t version)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Copies the published parameters into `network` when their version is
  // newer than *version (then updates it); false when nothing newer.
  bool CopyIfNewer(MuZeroNetwork& network, int64_t* version) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // -1 before the first Publish.
  int64_t version() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  mutable absl::Mutex mu_;
  std::vector<torch::Tensor> tensors_ ABSL_GUARDED_BY(mu_);
  int64_t version_ ABSL_GUARDED_BY(mu_) = -1;
};

// The ObservationShape of a FeatureConfig.
ObservationShape ShapeOf(const FeatureConfig& config);

struct SelfPlayCounters {
  int64_t games = 0;  // complete games emitted
  int64_t moves = 0;  // ApplyAction calls (trajectory steps)
  int64_t simulations = 0;
  int64_t drop_backups = 0;
};

class SelfPlay {
 public:
  // Called with each finished game (terminal; its ToSolution() is the
  // solution it found unless infeasible()) and its trajectory.
  using TrajectorySink =
      std::function<void(const game::MMapGame& game, agent::Trajectory)>;

  struct Options {
    MuZeroConfig config;
    uint64_t seed = 1;
    game::GameOptions game_options;
    // Receives every finished game; may be empty.
    TrajectorySink sink;
  };

  // `network` becomes this actor's private network (pass a fresh one, or
  // share one deliberately in single-threaded use). InvalidArgument when its
  // shape does not match config.features.
  static absl::StatusOr<std::unique_ptr<SelfPlay>> Create(
      std::shared_ptr<const game::Program> program, MuZeroNetwork network,
      Options options);

  // Plays one move in every game, emitting (and replacing) the games that
  // end.
  void Step();
  // Steps until at least `games` more games have been emitted.
  void PlayGames(int64_t games);

  // Told each network call's batch size and latency from now on (metrics);
  // empty: nobody.
  void set_inference_observer(search::InferenceObserver observer) {
    observed_.set_observer(std::move(observer));
  }

  // Adopts newer published parameters; call between moves.
  bool SyncParameters(const PublishedParameters& parameters);
  // Learner step of the acting parameters (temperature, parameter_version).
  int64_t parameter_version() const { return parameter_version_; }
  void set_parameter_version(int64_t version) { parameter_version_ = version; }

  const SelfPlayCounters& counters() const { return counters_; }
  // The best complete game's solution so far (highest return).
  const std::optional<Solution>& best_solution() const { return best_; }

 private:
  struct Live {
    std::unique_ptr<game::MMapGame> game;
    agent::Trajectory trajectory;
    uint64_t game_index = 0;
  };

  SelfPlay(std::shared_ptr<const game::Program> program, MuZeroNetwork network,
           Options options);
  void StartGame(Live* live);
  void FinishGame(Live* live);

  std::shared_ptr<const game::Program> program_;
  MuZeroNetwork network_;
  Options options_;
  NetworkEvaluator evaluator_;
  search::ObservedEvaluator observed_;  // evaluator_ + an observer
  search::BatchedSearch search_;
  std::vector<Live> live_;
  uint64_t games_started_ = 0;
  int64_t parameter_version_ = 0;
  SelfPlayCounters counters_;
  std::optional<Solution> best_;

  // Per-Step scratch, reused.
  features::Observation observation_;
  std::vector<const game::MMapGame*> game_ptrs_;
  std::vector<uint64_t> seeds_;
  std::vector<search::SearchResult> results_;
};

}  // namespace mmapzero::model

#endif  // MMAPZERO_COMMON_MODEL_SELF_PLAY_H_
