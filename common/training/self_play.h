// MMap-MuZero self-play (paper 4.3; MuZero's actor, MiniZero's ActorGroup):
// one SelfPlay plays `search.batch_games` games of one workload at once, in
// lock-step. Each Step():
//  1. plays every move that has one legal action without the network (a
//     forced move) and folds its reward into the previous recorded step:
//     trajectories hold decisions only, and a recorded step's reward is that
//     of the transition into the next decision (forced moves at a game's
//     very start, before any recorded step, are searched like any other);
//  2. draws for each game whether this move is searched or, with
//     probability search.fast_move_fraction, played from the prior alone
//     (KataGo's playout-cap randomisation: one initial inference for all
//     fast moves, a draw from the masked prior at the visit-count
//     temperature, VisitTemperature; the step is marked fast_move and its
//     policy, the prior itself, is no training target);
//  3. runs one BatchedSearch over the searched games (one evaluator call
//     per simulation round), reusing the search's root observations;
//  4. applies the actions and records one agent::TrajectoryStep per
//     decision, including a move that led to an infeasible state and was
//     rolled back by Drop-backup (docs/game-engine.md): its reward is the
//     engine's transition reward, r - gain.
// Starts from the best game (best_game_starts.h, Go-Explore): a fraction
// of new games replays a prefix of the best complete game this actor knows
// (its own best, or a better one given to OfferStart) and plays a local
// variation of it; a game past its variation's window follows the best
// game's decisions like forced moves (no network call, reward folded into
// the last step), except that each is the agent's decision after all with
// probability search.best_start_deviation_rate. Its trajectory holds the
// agent's decisions only, its episode_return is the whole game's. A
// variation that rejoins the best game ends there; one that beat the game
// it followed after a newer best replaced it is rebased onto the newer one
// and, when that beats it, goes to the solution sink. With
// search.best_start_rules the actor first plays the fast-first and
// copy-first greedy rules' games; the faster, when it beats the given
// start, is the first best game and goes to the solution sink at the first
// Step() (on some programs a greedy rule beats the heuristic's plan, and
// variations of the heuristic's plan may never reach it).
// Rewards are recorded (and searched) in target units, the engine's times
// agent::TargetScale: a trajectory's rewards sum to its episode_return
// (microseconds) times that scale. A finished game's Trajectory goes to the
// sink, its solution is kept when it is the best so far (callers validate
// it before writing it out), and a new game starts in its slot.
//
// Parameters (the protocol between the learner and the actors): the
// learner owns its training network and, every N learner steps, calls
// PublishedParameters::Publish(network, learner_step), which deep-copies
// the parameters under a mutex. Each actor owns a private copy of the
// network (so the learner's optimiser never writes under a running
// forward); between moves it calls SyncParameters(), which copies the
// newest published version into that private network when it is newer than
// the one it acts with, or, while it acts with the network it was created
// with, whatever version is published (a learner's version 0 is the job's
// starting network). The version is the learner step: it sets the
// visit-count temperature (VisitTemperature) and is recorded as
// Trajectory.parameter_version.
//
// Determinism: game k (k-th game started by this actor) searches move m
// with seed MixSeed(seed, k, m), so with fixed parameters and one intra-op
// thread a run is reproducible from its seed.
//
// Thread-safety: a SelfPlay is used by one thread; PublishedParameters is
// thread-safe.
#ifndef MMAPZERO_COMMON_TRAINING_SELF_PLAY_H_
#define MMAPZERO_COMMON_TRAINING_SELF_PLAY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "common/agent/self_play_counters.h"
#include "common/agent/trajectory.h"
#include "common/base/guarded.h"
#include "common/features/observation.h"
#include "common/game/mmap_game.h"
#include "common/game/program.h"
#include "common/model/network_evaluator.h"
#include "common/model/networks.h"
#include "common/search/batched_search.h"
#include "common/search/observed_evaluator.h"
#include "common/training/best_game_starts.h"
#include "common/training/published_parameters.h"
#include "proto/muzero.pb.h"
#include "proto/solution.pb.h"

namespace mmapzero::training {

using agent::SelfPlayCounters;  // common/agent/self_play_counters.h

class SelfPlay {
 public:
  // Called with each finished game (terminal; its ToSolution() is the
  // solution it found unless infeasible()) and its trajectory.
  using TrajectorySink =
      std::function<void(const game::MMapGame& game, agent::Trajectory)>;
  // Called with a complete game that is no self-play game of its own and
  // beats every game this actor knew: a variation rebased onto a newer
  // best (below).
  using SolutionSink = std::function<void(const game::MMapGame& game)>;

  struct Options {
    MuZeroConfig config;
    uint64_t seed = 1;
    game::GameOptions game_options;
    // Receives every finished game; may be empty.
    TrajectorySink sink;
    // A first solution games may start from (OfferStart), e.g. the
    // heuristic's plan; none: only this actor's own games.
    std::optional<Solution> start;
    // A game's trajectory goes to the sink in segments of this many
    // positions while it is played, so that a long game fits a message
    // and reaches the learner before it ends; all but the last piece
    // `continue` and carry K + n context steps after their positions (the
    // next segment's first ones), so that every position's targets are
    // the whole game's. 0: whole games only.
    int32_t max_segment_steps = 0;
    // Receives rebased variations that became the best; may be empty.
    SolutionSink solution_sink;
  };

  // Segment positions such that a segment with its context takes about
  // `max_bytes` serialised, at most `max_positions` and at least 16.
  static int32_t SegmentStepsFor(const MuZeroConfig& config, int64_t max_bytes,
                                 int32_t max_positions);

  // `network` becomes this actor's private network (pass a fresh one, or
  // share one deliberately in single-threaded use). InvalidArgument when its
  // shape does not match config.features.
  static absl::StatusOr<std::unique_ptr<SelfPlay>> Create(
      std::shared_ptr<const game::Program> program,
      model::MuZeroNetwork network, Options options);

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

  // Adopts newer published parameters (the first time, any published
  // version: the file comment); call between moves.
  bool SyncParameters(const PublishedParameters& parameters);
  // Learner step of the acting parameters (temperature, parameter_version).
  int64_t parameter_version() const { return parameter_version_; }
  // The network it was created with is that version's (set by a caller
  // that copied the published parameters itself).
  void set_parameter_version(int64_t version) {
    parameter_version_ = version;
    synced_ = true;
  }

  // Games may start from `solution` (best_start_fraction) when its return
  // beats the start solution's so far; a solution that does not cover
  // every buffer or does not replay as a whole game is ignored. Call
  // between moves.
  void OfferStart(const Solution& solution);

  const SelfPlayCounters& counters() const { return counters_; }
  // The return of the best complete game so far (its own games and rebased
  // ones); none before the first. Its solution went to the sinks.
  const std::optional<double>& best_return_us() const {
    return best_return_us_;
  }

 private:
  struct Live {
    std::unique_ptr<game::MMapGame> game;
    agent::Trajectory trajectory;
    uint64_t game_index = 0;
    // A best-start game's variation (follow is null for the others).
    Variation variation;
    int64_t segmented_steps = 0;  // decisions already sent as segments
    bool rejoined = false;        // ended early; its return is the estimate
  };

  SelfPlay(std::shared_ptr<const game::Program> program,
           model::MuZeroNetwork network, Options options);
  // A move of one live game waiting for the network, with its seed.
  struct Pending {
    int slot;
    uint64_t seed;
  };
  // Plays, without the network or a trajectory step of their own, the
  // forced moves and (past its window) the followed moves of live's game;
  // their rewards go to the last recorded step.
  void PlayUnrecordedMoves(Live* live);
  // Past the window: this followed move is the agent's decision after all
  // (search.best_start_deviation_rate; a hashed draw per game and depth).
  bool Deviates(const Live& live) const;
  void StartGame(Live* live);
  // search.best_start_rules: plays the greedy rules' games and adopts the
  // faster when it beats the start (rule_start_).
  void PlayRuleStarts();
  void FinishGame(Live* live);
  // `return_us` over the program's largest possible saving.
  double NormalisedReturn(double return_us) const;
  void SearchMoves();
  void FastMoves();
  // Sends live's first max_segment_steps steps to the sink as a segment
  // that continues, with the `context` steps after them; keeps those.
  void EmitSegment(Live* live, int32_t context);
  // Applies `action` to live's game and appends its trajectory step.
  void Record(Live* live, const features::Observation& observation,
              game::Action action, uint8_t legal_mask, float root_value,
              const std::array<float, game::kNumActions>& policy,
              bool fast_move);

  std::shared_ptr<const game::Program> program_;
  model::MuZeroNetwork network_;
  Options options_;
  model::NetworkEvaluator evaluator_;
  search::ObservedEvaluator observed_;  // evaluator_ + an observer
  search::BatchedSearch search_;
  double reward_scale_;   // agent::TargetScale
  game::MMapGame fresh_;  // a game at its start, copied into new games
  std::vector<Live> live_;
  uint64_t games_started_ = 0;
  int64_t parameter_version_ = 0;
  // Whether the acting parameters are a published version (adopted, or
  // set_parameter_version) rather than the network it was created with.
  bool synced_ = false;
  SelfPlayCounters counters_;
  std::optional<double> best_return_us_;
  BestGameStarts starts_;  // after fresh_ and counters_, which it uses
  // The greedy rule's game that beat the start, until the first Step()
  // hands it to the solution sink (not the constructor: a sink may call
  // back into the SelfPlay its owner has not received yet).
  std::unique_ptr<game::MMapGame> rule_start_;

  // Per-Step scratch, reused.
  std::vector<Pending> searched_;
  std::vector<Pending> fast_;
  std::vector<features::Observation> fast_observations_;
  std::vector<const features::Observation*> fast_observation_ptrs_;
  std::vector<search::Inference> fast_inferences_;
  std::vector<game::MMapGame*> game_ptrs_;
  std::vector<uint64_t> seeds_;
  std::vector<search::SearchResult> results_;
};

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_SELF_PLAY_H_
