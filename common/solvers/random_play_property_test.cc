// Property: every game any policy plays on any generated workload yields a
// solution the independent validator accepts, with the same return and
// latency as the engine computed. Thousands of games over every family and
// mode, at several sizes, with the profile's memory and with memory so tight
// that alias groups hit Drop-backup, with and without alignment.
#include <cmath>
#include <cstdio>

#include "common/game/mmap_game.h"
#include "common/solvers/policy.h"
#include "common/validate/validator.h"
#include "common/workload/generator.h"
#include "gtest/gtest.h"

namespace mmapzero::solvers {
namespace {

struct Variant {
  int64_t memory_size;  // 0: the profile's
  int64_t alignment;
};

TEST(RandomPlayPropertyTest, ValidatorAcceptsEveryGameAndAgreesOnReturn) {
  int games = 0, backups = 0;
  for (ModelFamily family : {ModelFamily::kMlp, ModelFamily::kCnn,
                             ModelFamily::kTransformer, ModelFamily::kLstm}) {
    for (ProgramMode mode : {ProgramMode::kTraining, ProgramMode::kInference}) {
      for (int buffers : {100, 400, 1200}) {
        for (Variant variant : {Variant{0, 1}, Variant{8 << 20, 4096}}) {
          GeneratorOptions options;
          options.family = family;
          options.mode = mode;
          options.target_buffers = buffers;
          options.seed = static_cast<uint64_t>(buffers) + 17;
          options.memory_size = variant.memory_size;
          options.alignment = variant.alignment;
          auto workload = GenerateWorkload(options);
          ASSERT_TRUE(workload.ok()) << workload.status();
          auto program = game::Program::Create(*workload);
          ASSERT_TRUE(program.ok()) << program.status();
          const int random_games = buffers <= 400 ? 80 : 30;
          for (int g = 0; g < random_games + 3; ++g) {
            const std::string policy_name =
                g < random_games ? "random"
                                 : PolicyNames()[1 + (g - random_games)];
            auto policy = MakePolicy(policy_name, static_cast<uint64_t>(g));
            ASSERT_TRUE(policy.ok());
            game::MMapGame game(*program);
            PlayOut(game, **policy);
            const Solution solution = game.ToSolution();
            const validate::ValidationReport report =
                validate::ValidateSolution(*workload, solution);
            const std::string where = workload->name() + " " + policy_name +
                                      " game " + std::to_string(g);
            ASSERT_TRUE(report.ok)
                << where << ": " << report.violations.size()
                << " violations, first: " << report.violations[0].rule << ": "
                << report.violations[0].message;
            EXPECT_TRUE(report.warnings.empty())
                << where << ": " << report.warnings[0].message;
            const double scale = std::max(1.0, std::abs(game.Return()));
            ASSERT_NEAR(report.return_us, game.Return(), 1e-9 * scale) << where;
            ASSERT_NEAR(report.latency_us, game.Latency(),
                        1e-9 * std::max(1.0, game.Latency()))
                << where;
            ++games;
            backups += game.drop_backups();
          }
        }
      }
    }
  }
  EXPECT_GE(games, 3000);
  EXPECT_GT(backups, 0) << "no game exercised Drop-backup";
  std::printf("%d games validated, %d drop-backups\n", games, backups);
  RecordProperty("games", games);
  RecordProperty("drop_backups", backups);
}

}  // namespace
}  // namespace mmapzero::solvers
