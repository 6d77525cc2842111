#include "common/search/temperature.h"

#include "gtest/gtest.h"

namespace mmapzero::search {
namespace {

SearchConfig PaperSchedule() {
  SearchConfig config;
  config.set_temperature_start(1.0);
  config.set_temperature_end(0.2);
  config.set_temperature_decay_steps(400000);
  return config;
}

TEST(VisitTemperatureTest, DecaysLinearlyThenStays) {
  const SearchConfig config = PaperSchedule();
  EXPECT_DOUBLE_EQ(VisitTemperature(config, 0), 1.0);
  EXPECT_DOUBLE_EQ(VisitTemperature(config, 200000), 0.6);
  EXPECT_DOUBLE_EQ(VisitTemperature(config, 400000), 0.2);
  EXPECT_DOUBLE_EQ(VisitTemperature(config, 1000000), 0.2);
}

TEST(VisitTemperatureTest, NoDecayStepsMeansEnd) {
  SearchConfig config = PaperSchedule();
  config.set_temperature_decay_steps(0);
  EXPECT_DOUBLE_EQ(VisitTemperature(config, 0), 0.2);
}

TEST(SampleWithTemperatureTest, GreedyTiesGoToLowestLegalIndex) {
  SearchRng rng(1);
  EXPECT_EQ(SampleWithTemperature({3, 5, 5}, 0b111, 0.0, &rng), 1);
  EXPECT_EQ(SampleWithTemperature({3, 5, 5}, 0b101, 0.0, &rng), 2);
}

TEST(SampleWithTemperatureTest, NeverDrawsIllegalOrZeroWeight) {
  SearchRng rng(2);
  for (int i = 0; i < 1000; ++i) {
    const int a = SampleWithTemperature({1, 100, 0}, 0b101, 1.0, &rng);
    EXPECT_EQ(a, 0);
  }
}

TEST(SampleWithTemperatureTest, FollowsVisitProportionsAtTemperatureOne) {
  SearchRng rng(3);
  int count[3] = {0, 0, 0};
  for (int i = 0; i < 20000; ++i) {
    ++count[SampleWithTemperature({1, 3, 0}, 0b111, 1.0, &rng)];
  }
  EXPECT_NEAR(count[1] / 20000.0, 0.75, 0.02);
  EXPECT_EQ(count[2], 0);
}

}  // namespace
}  // namespace mmapzero::search
