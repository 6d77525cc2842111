// Search on tiny games with deterministic fake evaluators: known best lines,
// golden visit counts, batching invariance, the root mask, call counts.
#include "common/search/batched_search.h"

#include <memory>
#include <numeric>
#include <vector>

#include "common/game/mmap_game.h"
#include "common/game/program.h"
#include "gtest/gtest.h"

namespace mmapzero::search {
namespace {

using game::Action;
using game::MMapGame;

// A "perfect model" of a hand-made 2-move game, as hidden = {depth, on_line}:
// move 1 rewards Copy 0, NoCopy 1, Drop 0.5; move 2 rewards 10 for Copy
// after Copy, else 0; then nothing. The best line is Copy, Copy (10); the
// greedy one is NoCopy (1). Values are 0 and the policy is `logits`
// everywhere (uniform by default), so only looking ahead finds the line.
// Counts its calls.
class ToyModelEvaluator : public Evaluator {
 public:
  explicit ToyModelEvaluator(std::array<float, 3> logits = {0, 0, 0})
      : logits_(logits) {}
  void InitialInference(
      absl::Span<const features::Observation* const> observations,
      std::vector<Inference>* out) override {
    ++initial_calls;
    batch_sizes.push_back(static_cast<int>(observations.size()));
    out->resize(observations.size());
    for (Inference& inference : *out) inference = Make({0, 1}, 0);
  }
  void RecurrentInference(absl::Span<const std::vector<float>* const> hidden,
                          absl::Span<const int> actions,
                          std::vector<Inference>* out) override {
    ++recurrent_calls;
    batch_sizes.push_back(static_cast<int>(hidden.size()));
    out->resize(hidden.size());
    for (size_t i = 0; i < hidden.size(); ++i) {
      const float depth = (*hidden[i])[0];
      const bool on_line = (*hidden[i])[1] > 0 && actions[i] == 0;
      float reward = 0;
      constexpr float kFirstMove[3] = {0.0f, 1.0f, 0.5f};
      if (depth == 0) reward = kFirstMove[actions[i]];
      if (depth == 1 && on_line) reward = 10;
      (*out)[i] = Make({depth + 1, on_line ? 1.0f : 0.0f}, reward);
    }
  }
  int initial_calls = 0;
  int recurrent_calls = 0;
  std::vector<int> batch_sizes;

 private:
  Inference Make(std::vector<float> hidden, float reward) const {
    Inference inference;
    inference.hidden = std::move(hidden);
    inference.reward = reward;
    inference.value = 0;
    inference.policy_logits = logits_;
    return inference;
  }
  std::array<float, 3> logits_;
};

// For REAL_GAME: value 0, uniform policy, whatever the observation.
class UniformEvaluator : public ToyModelEvaluator {
 public:
  void InitialInference(
      absl::Span<const features::Observation* const> observations,
      std::vector<Inference>* out) override {
    ++initial_calls;
    batch_sizes.push_back(static_cast<int>(observations.size()));
    out->resize(observations.size());
    for (Inference& inference : *out) {
      inference.hidden = {0};
      inference.value = 0;
      inference.reward = 0;
      inference.policy_logits = {0, 0, 0};
    }
  }
};

void FakeObserve(const MMapGame& game, features::Observation* out) {
  out->vector.assign(1, static_cast<float>(game.depth()));
  out->occupancy.clear();
}

Buffer* AddBuffer(Workload* w, int target, bool output, int64_t size,
                  int tensor, double benefit) {
  Buffer* b = w->add_buffers();
  b->set_id(w->buffers_size() - 1);
  b->set_target_time(target);
  b->set_is_output(output);
  b->set_size(size);
  b->set_tensor_id(tensor);
  b->mutable_live_range()->set_start(0);
  b->mutable_live_range()->set_end(1);
  b->set_demand_us(1);
  b->set_benefit_us(benefit);
  return b;
}

MMapGame MakeGame(const Workload& workload) {
  auto program = game::Program::Create(workload);
  EXPECT_TRUE(program.ok()) << program.status();
  return MMapGame(*program);
}

Workload TwoSteps() {
  Workload w;
  w.set_name("search-test");
  w.set_memory_size(100);
  w.add_instructions()->set_supply_us(10);
  w.add_instructions()->set_supply_us(10);
  return w;
}

// One output written at step 0: Copy (write-back over step 1), NoCopy and
// Drop are all legal.
MMapGame AllLegalRoot() {
  Workload w = TwoSteps();
  AddBuffer(&w, 0, /*output=*/true, 10, 0, 1);
  return MakeGame(w);
}

// Two operands at step 1 of 60 bytes each in 100 bytes of fast memory:
// Copy the first (benefit 3) and the second (benefit 5) no longer fits.
// Best line: Drop, Copy (return 5); greedy: Copy, Drop (return 3).
MMapGame KnapsackGame() {
  Workload w = TwoSteps();
  AddBuffer(&w, 1, false, 60, 0, 3);
  AddBuffer(&w, 1, false, 60, 1, 5);
  return MakeGame(w);
}

SearchConfig Config(SearchConfig::Mode mode, int simulations) {
  SearchConfig config;
  config.set_mode(mode);
  config.set_simulations(simulations);
  config.set_discount(0.9999);
  config.set_pb_c_base(19652);
  config.set_pb_c_init(1.25);
  config.set_root_dirichlet_alpha(0.25);
  config.set_root_exploration_fraction(0.0);
  config.set_gumbel_considered_actions(3);
  return config;
}

std::vector<SearchResult> RunSearch(const SearchConfig& config,
                                    Evaluator* evaluator,
                                    const std::vector<const MMapGame*>& games,
                                    const std::vector<uint64_t>& seeds,
                                    double temperature) {
  BatchedSearch search(config, evaluator, FakeObserve);
  std::vector<SearchResult> results;
  search.Run(games, seeds, temperature, &results);
  return results;
}

TEST(BatchedSearchTest, LearnedModelFindsTheBestLine) {
  MMapGame root = AllLegalRoot();
  ASSERT_EQ(root.LegalActionMask(), 0b111);
  ToyModelEvaluator evaluator;
  const auto results = RunSearch(Config(SearchConfig::LEARNED_MODEL, 64),
                                 &evaluator, {&root}, {1}, 0.0);
  EXPECT_EQ(results[0].action, Action::kCopy);
  EXPECT_GT(results[0].visits[0], results[0].visits[1]);
  EXPECT_GT(results[0].visits[0], results[0].visits[2]);
  // Above the greedy line's return of 1.
  EXPECT_GT(results[0].root_value, 1.0f);
}

TEST(BatchedSearchTest, RealGameFindsTheBestLine) {
  MMapGame game = KnapsackGame();
  UniformEvaluator evaluator;
  const SearchConfig config = Config(SearchConfig::REAL_GAME, 32);
  auto results = RunSearch(config, &evaluator, {&game}, {1}, 0.0);
  EXPECT_EQ(results[0].action, Action::kDrop);
  game.ApplyAction(results[0].action);
  results = RunSearch(config, &evaluator, {&game}, {1}, 0.0);
  EXPECT_EQ(results[0].action, Action::kCopy);
  game.ApplyAction(results[0].action);
  EXPECT_DOUBLE_EQ(game.Return(), 5.0);
}

TEST(BatchedSearchTest, GumbelRealGameFindsTheBestLine) {
  MMapGame game = KnapsackGame();
  UniformEvaluator evaluator;
  const SearchConfig config = Config(SearchConfig::GUMBEL_REAL_GAME, 32);
  auto results = RunSearch(config, &evaluator, {&game}, {1}, 1.0);
  EXPECT_EQ(results[0].action, Action::kDrop);
  EXPECT_GT(results[0].policy[2], results[0].policy[0]);
  game.ApplyAction(results[0].action);
  results = RunSearch(config, &evaluator, {&game}, {1}, 1.0);
  EXPECT_EQ(results[0].action, Action::kCopy);
  game.ApplyAction(results[0].action);
  EXPECT_DOUBLE_EQ(game.Return(), 5.0);
}

TEST(BatchedSearchTest, GumbelRealGameWithOneSimulationPerActionIsGreedy) {
  // Two simulations, one per legal action: Copy's reward 3 against Drop's
  // 0 with every child valued 0: the one-step lookahead copies.
  MMapGame game = KnapsackGame();
  UniformEvaluator evaluator;
  const auto r = RunSearch(Config(SearchConfig::GUMBEL_REAL_GAME, 2),
                           &evaluator, {&game}, {4}, 1.0);
  EXPECT_EQ(r[0].visits[0], 1);
  EXPECT_EQ(r[0].visits[2], 1);
  EXPECT_EQ(r[0].action, Action::kCopy);
}

TEST(BatchedSearchTest, RealGameRewardsAreScaled) {
  UniformEvaluator evaluator;
  const SearchConfig config = Config(SearchConfig::REAL_GAME, 32);
  MMapGame game = KnapsackGame();
  const auto plain = RunSearch(config, &evaluator, {&game}, {1}, 0.0);
  BatchedSearch scaled(config, &evaluator, FakeObserve);
  scaled.set_reward_scale(2.0);
  std::vector<SearchResult> results;
  const MMapGame* games[] = {&game};
  const uint64_t seeds[] = {1};
  scaled.Run(games, seeds, 0.0, &results);
  EXPECT_EQ(results[0].visits, plain[0].visits);
  EXPECT_NEAR(results[0].root_value, 2 * plain[0].root_value, 1e-5);
}

SearchResult GoldenRun(int simulations, double noise_fraction, uint64_t seed,
                       double temperature) {
  MMapGame root = AllLegalRoot();
  SearchConfig config = Config(SearchConfig::LEARNED_MODEL, simulations);
  config.set_root_exploration_fraction(noise_fraction);
  ToyModelEvaluator evaluator;
  const auto results =
      RunSearch(config, &evaluator, {&root}, {seed}, temperature);
  const auto& v = results[0].visits;
  std::printf("golden visits %d %d %d action %d value %.9g\n", v[0], v[1], v[2],
              static_cast<int>(results[0].action), results[0].root_value);
  return results[0];
}

// Golden counts: the toy model (uniform prior, values 0), seed 7. They were
// printed once by GoldenRun and pasted here; they change only if selection,
// noise, backup, tie-breaking or the random stream change.
//
// 16 simulations, Dirichlet(0.25) noise at fraction 0.25, temperature 1
// (the draw from 1:3:12 picks Drop): the noise gives
// Drop about half the prior. Simulation 1 (no parent visits, all scores 0)
// takes Copy by the lowest-index tie-break and sees Q = 0; simulation 2
// takes Drop (largest prior), whose Q 0.5 is then the max of the min-max
// bounds, i.e. normalised to 1, while unvisited NoCopy scores only its prior
// term: Drop keeps the visits until NoCopy's prior term catches up. This
// shows the pseudocode's pessimistic unvisited value and min-max
// normalisation, and that 16 simulations are too few to see move 2's 10.
TEST(BatchedSearchTest, GoldenVisitCountsWithNoise) {
  const SearchResult r = GoldenRun(16, 0.25, 7, 1.0);
  EXPECT_EQ(r.visits, (std::array<int32_t, 3>{1, 3, 12}));
  EXPECT_EQ(r.action, Action::kDrop);
  EXPECT_FLOAT_EQ(r.root_value, 0.5625f);  // (12 * 0.5 + 3 * 1) / 16
}

// 64 simulations, no noise, temperature 0 (argmax): nothing random.
// Copy's second visit (once its prior term beats NoCopy's Q of 1) reaches
// move 2's reward 10, after which Copy takes the visits (37 against
// NoCopy's 24, most of which came before): the best line wins the argmax.
TEST(BatchedSearchTest, GoldenVisitCountsWithoutNoise) {
  const SearchResult r = GoldenRun(64, 0.0, 7, 0.0);
  EXPECT_EQ(r.visits[0] + r.visits[1] + r.visits[2], 64);
  EXPECT_EQ(r.visits, (std::array<int32_t, 3>{37, 24, 3}));
  EXPECT_EQ(r.action, Action::kCopy);
  EXPECT_FLOAT_EQ(r.root_value, 5.3979373f);
}

void ExpectSame(const SearchResult& a, const SearchResult& b) {
  EXPECT_EQ(a.action, b.action);
  EXPECT_EQ(a.visits, b.visits);
  EXPECT_EQ(a.policy, b.policy);
  EXPECT_EQ(a.root_value, b.root_value);
  EXPECT_EQ(a.legal_mask, b.legal_mask);
}

class BatchingTest : public testing::TestWithParam<SearchConfig::Mode> {};

TEST_P(BatchingTest, BatchedEqualsOneAtATime) {
  MMapGame a = KnapsackGame();
  MMapGame b = KnapsackGame();
  b.ApplyAction(Action::kDrop);
  MMapGame c = AllLegalRoot();
  MMapGame d = KnapsackGame();
  const std::vector<const MMapGame*> games = {&a, &b, &c, &d};
  const std::vector<uint64_t> seeds = {11, 12, 13, 14};
  SearchConfig config = Config(GetParam(), 12);
  config.set_root_exploration_fraction(0.25);
  ToyModelEvaluator toy;
  UniformEvaluator uniform;
  Evaluator* evaluator = GetParam() == SearchConfig::REAL_GAME
                             ? static_cast<Evaluator*>(&uniform)
                             : &toy;
  const auto batched = RunSearch(config, evaluator, games, seeds, 1.0);
  ASSERT_EQ(batched.size(), 4u);
  for (size_t i = 0; i < games.size(); ++i) {
    const auto alone =
        RunSearch(config, evaluator, {games[i]}, {seeds[i]}, 1.0);
    SCOPED_TRACE(i);
    ExpectSame(batched[i], alone[0]);
  }
  // Same seed, same game in slots 0 and 3 with different seeds: the search
  // is reused across Run calls without carrying state.
  BatchedSearch search(config, evaluator, FakeObserve);
  std::vector<SearchResult> first, second;
  search.Run(games, seeds, 1.0, &first);
  search.Run(games, seeds, 1.0, &second);
  for (size_t i = 0; i < games.size(); ++i) ExpectSame(first[i], second[i]);
}

INSTANTIATE_TEST_SUITE_P(Modes, BatchingTest,
                         testing::Values(SearchConfig::LEARNED_MODEL,
                                         SearchConfig::REAL_GAME,
                                         SearchConfig::POLICY_ONLY,
                                         SearchConfig::GUMBEL));

// An operand with no earlier fast buffer: NoCopy is illegal at the root,
// though the model prefers it. It is never visited or chosen.
TEST(BatchedSearchTest, RootLegalMaskIsRespected) {
  Workload w = TwoSteps();
  AddBuffer(&w, 1, false, 10, 0, 1);
  MMapGame game = MakeGame(w);
  ASSERT_EQ(game.LegalActionMask(), 0b101);
  for (auto mode : {SearchConfig::LEARNED_MODEL, SearchConfig::REAL_GAME,
                    SearchConfig::POLICY_ONLY, SearchConfig::GUMBEL}) {
    SearchConfig config = Config(mode, 16);
    config.set_root_exploration_fraction(0.25);
    ToyModelEvaluator evaluator({0, 5, 0});  // the model prefers NoCopy
    for (uint64_t seed = 0; seed < 20; ++seed) {
      const auto r = RunSearch(config, &evaluator, {&game}, {seed}, 1.0);
      EXPECT_NE(r[0].action, Action::kNoCopy);
      EXPECT_EQ(r[0].visits[1], 0);
      EXPECT_EQ(r[0].policy[1], 0.0f);
      EXPECT_EQ(r[0].legal_mask, 0b101);
    }
  }
}

// Search from an observation (the toy model ignores it) with `mask` as the
// root's legal actions.
std::vector<SearchResult> RunFromObservation(const SearchConfig& config,
                                             Evaluator* evaluator, uint8_t mask,
                                             uint64_t seed,
                                             double temperature) {
  BatchedSearch search(config, evaluator, FakeObserve);
  features::Observation observation;
  observation.vector = {0};
  const std::vector<const features::Observation*> observations = {&observation};
  const std::vector<uint8_t> masks = {mask};
  const std::vector<uint64_t> seeds = {seed};
  std::vector<SearchResult> results;
  const absl::Status status = search.RunFromObservations(
      observations, masks, seeds, temperature, &results);
  EXPECT_TRUE(status.ok()) << status;
  return results;
}

// A single legal action takes every visit and the whole policy, and the
// root value is that action's line alone: NoCopy's reward 1 and Drop's 0.5
// (the toy model pays nothing below them, values are 0). With all three
// legal the value would follow Copy's line to 10 (GoldenVisitCounts...).
TEST(BatchedSearchTest, ObservationRootWithOneLegalActionSearchesOnlyIt) {
  constexpr struct {
    uint8_t mask;
    int action;
    float value;
  } kCases[] = {{0b010, 1, 1.0f}, {0b100, 2, 0.5f}};
  for (const auto& c : kCases) {
    for (auto mode : {SearchConfig::LEARNED_MODEL, SearchConfig::GUMBEL}) {
      SCOPED_TRACE(testing::Message() << "mask " << int{c.mask} << " mode "
                                      << SearchConfig::Mode_Name(mode));
      SearchConfig config = Config(mode, 16);
      config.set_root_exploration_fraction(0.25);
      ToyModelEvaluator evaluator({5, 0, 0});  // the model prefers Copy
      const auto r = RunFromObservation(config, &evaluator, c.mask, 3, 1.0);
      std::array<int32_t, 3> visits{};
      visits[c.action] = 16;
      std::array<float, 3> policy{};
      policy[c.action] = 1.0f;
      EXPECT_EQ(r[0].visits, visits);
      EXPECT_EQ(r[0].policy, policy);
      EXPECT_EQ(static_cast<int>(r[0].action), c.action);
      EXPECT_FLOAT_EQ(r[0].root_value, c.value);
      EXPECT_EQ(r[0].legal_mask, c.mask);
    }
  }
  // Copy only, 2 simulations by hand: Copy (reward 0, value 0), then
  // Copy, Copy (reward 10): the root's mean is (0 + 0.9999 * 10) / 2.
  ToyModelEvaluator evaluator;
  const auto r = RunFromObservation(Config(SearchConfig::LEARNED_MODEL, 2),
                                    &evaluator, 0b001, 1, 0.0);
  EXPECT_EQ(r[0].visits, (std::array<int32_t, 3>{2, 0, 0}));
  EXPECT_EQ(r[0].policy, (std::array<float, 3>{1, 0, 0}));
  EXPECT_FLOAT_EQ(r[0].root_value, 4.9995f);
}

// The observation entry point searches a game's observation with the
// game's legal mask exactly as Run searches the game, noise included.
TEST(BatchedSearchTest, ObservationRootsEqualGameRoots) {
  Workload w = TwoSteps();
  AddBuffer(&w, 1, false, 10, 0, 1);
  MMapGame no_copy_illegal = MakeGame(w);
  ASSERT_EQ(no_copy_illegal.LegalActionMask(), 0b101);
  MMapGame all_legal = AllLegalRoot();
  MMapGame knapsack = KnapsackGame();
  MMapGame knapsack_after_drop = KnapsackGame();
  knapsack_after_drop.ApplyAction(Action::kDrop);
  const std::vector<const MMapGame*> games = {&no_copy_illegal, &all_legal,
                                              &knapsack, &knapsack_after_drop};
  const std::vector<uint64_t> seeds = {21, 22, 23, 24};
  std::vector<features::Observation> observations(games.size());
  std::vector<const features::Observation*> observation_ptrs;
  std::vector<uint8_t> masks;
  for (size_t i = 0; i < games.size(); ++i) {
    FakeObserve(*games[i], &observations[i]);
    observation_ptrs.push_back(&observations[i]);
    masks.push_back(games[i]->LegalActionMask());
  }
  for (auto mode : {SearchConfig::LEARNED_MODEL, SearchConfig::POLICY_ONLY,
                    SearchConfig::GUMBEL}) {
    SCOPED_TRACE(SearchConfig::Mode_Name(mode));
    SearchConfig config = Config(mode, 12);
    config.set_root_exploration_fraction(0.25);
    ToyModelEvaluator evaluator({0, 5, 0});
    BatchedSearch search(config, &evaluator, FakeObserve);
    std::vector<SearchResult> from_games, from_observations;
    search.Run(games, seeds, 1.0, &from_games);
    ASSERT_TRUE(search
                    .RunFromObservations(observation_ptrs, masks, seeds, 1.0,
                                         &from_observations)
                    .ok());
    ASSERT_EQ(from_observations.size(), games.size());
    for (size_t i = 0; i < games.size(); ++i) {
      SCOPED_TRACE(i);
      ExpectSame(from_games[i], from_observations[i]);
      EXPECT_EQ(from_games[i].network_value,
                from_observations[i].network_value);
    }
  }
}

TEST(BatchedSearchTest, ObservationRootsRejectRealGameAndBadMasks) {
  ToyModelEvaluator evaluator;
  features::Observation observation;
  const std::vector<const features::Observation*> observations = {&observation};
  const std::vector<uint64_t> seeds = {1};
  std::vector<SearchResult> results;
  BatchedSearch real(Config(SearchConfig::REAL_GAME, 4), &evaluator,
                     FakeObserve);
  EXPECT_EQ(real.RunFromObservations(observations, std::vector<uint8_t>{7},
                                     seeds, 0.0, &results)
                .code(),
            absl::StatusCode::kInvalidArgument);
  BatchedSearch learned(Config(SearchConfig::LEARNED_MODEL, 4), &evaluator,
                        FakeObserve);
  for (uint8_t mask : {0, 8, 0b1001}) {
    EXPECT_EQ(learned
                  .RunFromObservations(observations, std::vector<uint8_t>{mask},
                                       seeds, 0.0, &results)
                  .code(),
              absl::StatusCode::kInvalidArgument)
        << int{mask};
  }
  EXPECT_EQ(evaluator.initial_calls, 0);  // rejected before any search
}

TEST(BatchedSearchTest, PolicyOnlyActsOnMaskedPrior) {
  MMapGame root = AllLegalRoot();
  ToyModelEvaluator evaluator({0, 1, 0});
  const auto r = RunSearch(Config(SearchConfig::POLICY_ONLY, 50), &evaluator,
                           {&root}, {1}, 0.0);
  EXPECT_EQ(evaluator.initial_calls, 1);
  EXPECT_EQ(evaluator.recurrent_calls, 0);
  EXPECT_EQ(r[0].action, Action::kNoCopy);  // the prior's favourite
  EXPECT_EQ(r[0].visits, (std::array<int32_t, 3>{0, 0, 0}));
  EXPECT_NEAR(r[0].policy[0] + r[0].policy[1] + r[0].policy[2], 1.0, 1e-6);
}

TEST(BatchedSearchTest, GumbelTinyBudgetGivesValidImprovedPolicy) {
  MMapGame root = AllLegalRoot();
  ToyModelEvaluator evaluator;
  SearchConfig config = Config(SearchConfig::GUMBEL, 4);
  config.set_gumbel_considered_actions(3);
  for (uint64_t seed = 0; seed < 10; ++seed) {
    const auto r = RunSearch(config, &evaluator, {&root}, {seed}, 1.0);
    float sum = 0;
    for (float p : r[0].policy) {
      EXPECT_GE(p, 0.0f);
      sum += p;
    }
    EXPECT_NEAR(sum, 1.0f, 1e-6);
    EXPECT_EQ(r[0].visits[0] + r[0].visits[1] + r[0].visits[2], 4);
  }
}

TEST(BatchedSearchTest, GumbelFindsTheBestLine) {
  MMapGame root = AllLegalRoot();
  ToyModelEvaluator evaluator;
  const auto r = RunSearch(Config(SearchConfig::GUMBEL, 32), &evaluator,
                           {&root}, {3}, 1.0);
  EXPECT_EQ(r[0].action, Action::kCopy);
  EXPECT_GT(r[0].policy[0], 0.9f);
}

TEST(BatchedSearchTest, OneEvaluatorCallPerRoundForAllGames) {
  MMapGame root = AllLegalRoot();
  const std::vector<const MMapGame*> games(5, &root);
  const std::vector<uint64_t> seeds = {1, 2, 3, 4, 5};
  for (auto mode : {SearchConfig::LEARNED_MODEL, SearchConfig::GUMBEL}) {
    ToyModelEvaluator evaluator;
    RunSearch(Config(mode, 8), &evaluator, games, seeds, 1.0);
    EXPECT_EQ(evaluator.initial_calls, 1);
    EXPECT_EQ(evaluator.recurrent_calls, 8);
    EXPECT_EQ(evaluator.batch_sizes, std::vector<int>(9, 5));
  }
  // REAL_GAME: one InitialInference for the roots, then at most one per
  // round (none when every leaf is terminal), each with at most 5 leaves.
  MMapGame knapsack = KnapsackGame();
  const std::vector<const MMapGame*> real(5, &knapsack);
  UniformEvaluator evaluator;
  RunSearch(Config(SearchConfig::REAL_GAME, 8), &evaluator, real, seeds, 1.0);
  EXPECT_EQ(evaluator.recurrent_calls, 0);
  EXPECT_LE(evaluator.initial_calls, 1 + 8);
  EXPECT_GE(evaluator.initial_calls, 2);
  for (int size : evaluator.batch_sizes) EXPECT_LE(size, 5);
}

}  // namespace
}  // namespace mmapzero::search
