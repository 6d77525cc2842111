#include "common/solvers/solver_settings.h"

#include "gtest/gtest.h"

namespace mmapzero::solvers {
namespace {

TEST(SettingsReaderTest, DefaultsAndGivenValuesAreRecorded) {
  SettingsReader reader("es", {{"sigma", "0.5"}});
  EXPECT_EQ(*reader.GetInt("population", 32, 2, 100), 32);
  EXPECT_EQ(*reader.GetDouble("sigma", 0.1, 0, 1), 0.5);
  EXPECT_TRUE(reader.CheckNoUnknownKeys().ok());
  EXPECT_EQ(reader.effective().at("population"), "32");
  EXPECT_EQ(reader.effective().at("sigma"), "0.5");
}

TEST(SettingsReaderTest, ErrorsNameSolverKeyAndValue) {
  SettingsReader reader("brkga", {{"population", "lots"}, {"typo", "3"}});
  const auto population = reader.GetInt("population", 64, 2, 100);
  ASSERT_FALSE(population.ok());
  EXPECT_EQ(population.status().message(),
            "brkga: setting population: must be an integer in [2, 100], got "
            "'lots'");
  const absl::Status unknown = reader.CheckNoUnknownKeys();
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.message(),
            "brkga: unknown setting typo=3; known: population");
}

TEST(SettingsReaderTest, OutOfRangeIsRejected) {
  SettingsReader reader("es", {{"sigma", "2"}});
  EXPECT_FALSE(reader.GetDouble("sigma", 0.1, 0, 1).ok());
}

}  // namespace
}  // namespace mmapzero::solvers
