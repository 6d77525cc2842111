#include "common/solvers/preference_decoder.h"

#include <vector>

#include "common/solvers/policy.h"
#include "common/workload/proto_io.h"
#include "gtest/gtest.h"

namespace mmapzero::solvers {
namespace {

std::shared_ptr<const game::Program> Small() {
  auto workload =
      ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json");
  EXPECT_TRUE(workload.ok()) << workload.status();
  auto program = game::Program::Create(*workload);
  EXPECT_TRUE(program.ok()) << program.status();
  return *program;
}

// Keys (Copy, NoCopy, Drop) = row for every buffer.
std::vector<float> Uniform(const game::Program& program, float copy,
                           float no_copy, float drop) {
  std::vector<float> keys;
  for (int32_t b = 0; b < program.num_buffers(); ++b) {
    keys.insert(keys.end(), {copy, no_copy, drop});
  }
  return keys;
}

TEST(PreferenceDecoderTest, HighestLegalKeyWins) {
  EXPECT_EQ(BestLegalAction(0b111, std::vector<float>{0.1f, 0.5f, 0.2f}.data()),
            game::Action::kNoCopy);
  EXPECT_EQ(BestLegalAction(0b101, std::vector<float>{0.1f, 0.5f, 0.2f}.data()),
            game::Action::kDrop);
  EXPECT_EQ(BestLegalAction(0b011, std::vector<float>{0.3f, 0.3f, 0.9f}.data()),
            game::Action::kCopy);  // ties: the lower index
}

TEST(PreferenceDecoderTest, UniformKeysPlayThePreferencePolicy) {
  const auto program = Small();
  PreferenceDecoder decoder(program);
  for (const auto& [policy_name, keys] :
       {std::pair{"fast-first", Uniform(*program, 0.5f, 0.9f, 0.1f)},
        std::pair{"copy-first", Uniform(*program, 0.9f, 0.5f, 0.1f)},
        std::pair{"drop-all", Uniform(*program, 0.1f, 0.5f, 0.9f)}}) {
    auto policy = MakePolicy(policy_name, 0);
    ASSERT_TRUE(policy.ok());
    game::MMapGame game(program);
    PlayOut(game, **policy);
    EXPECT_EQ(decoder.Decode(keys), game.Return()) << policy_name;
    EXPECT_TRUE(decoder.game().IsTerminal());
    EXPECT_EQ(decoder.game().ToSolution().SerializeAsString(),
              game.ToSolution().SerializeAsString())
        << policy_name;
  }
}

TEST(PreferenceDecoderTest, ReusedDecoderGivesTheSameGame) {
  const auto program = Small();
  PreferenceDecoder reused(program);
  const std::vector<float> fast = Uniform(*program, 0.5f, 0.9f, 0.1f);
  reused.Decode(Uniform(*program, 0.9f, 0.5f, 0.1f));
  const double again = reused.Decode(fast);
  PreferenceDecoder fresh(program);
  EXPECT_EQ(again, fresh.Decode(fast));
  EXPECT_EQ(reused.game().ToSolution().SerializeAsString(),
            fresh.game().ToSolution().SerializeAsString());
}

}  // namespace
}  // namespace mmapzero::solvers
