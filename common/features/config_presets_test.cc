#include "common/features/config_presets.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace mmapzero::features {
namespace {

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(PresetsTest, PassCheck) {
  EXPECT_TRUE(CheckMuZeroConfig(PaperPreset()).ok())
      << CheckMuZeroConfig(PaperPreset());
  EXPECT_TRUE(CheckMuZeroConfig(CpuPreset()).ok())
      << CheckMuZeroConfig(CpuPreset());
}

TEST(PresetsTest, PaperHoldsTable6) {
  const MuZeroConfig c = PaperPreset();
  EXPECT_EQ(c.preset(), "paper");
  EXPECT_DOUBLE_EQ(c.search().discount(), 0.9999);
  EXPECT_EQ(c.search().simulations(), 400);
  EXPECT_DOUBLE_EQ(c.search().temperature_start(), 1.0);
  EXPECT_DOUBLE_EQ(c.search().temperature_end(), 0.2);
  EXPECT_EQ(c.search().temperature_decay_steps(), 400000);
  EXPECT_DOUBLE_EQ(c.search().root_exploration_fraction(), 0.25);
  EXPECT_DOUBLE_EQ(c.search().root_dirichlet_alpha(), 0.03);
  EXPECT_EQ(c.search().mode(), SearchConfig::LEARNED_MODEL);
  EXPECT_EQ(c.training().batch_size(), 512);
  EXPECT_DOUBLE_EQ(c.training().learning_rate(), 2e-4);
  EXPECT_DOUBLE_EQ(c.training().weight_decay(), 1e-4);
  EXPECT_EQ(c.training().replay_size(), 20000);
  EXPECT_DOUBLE_EQ(c.training().reanalyse_fraction(), 0.5);
  EXPECT_EQ(c.training().training_steps(), 1000000);
  EXPECT_EQ(c.features().next_buffers(), 5);
  EXPECT_EQ(c.features().occupancy_time_bins(), 128);
  EXPECT_EQ(c.features().occupancy_byte_bins(), 128);
  EXPECT_EQ(c.features().target_occupancy_bins(), 128);
}

TEST(PresetsTest, CpuIsSmall) {
  const MuZeroConfig c = CpuPreset();
  EXPECT_EQ(c.preset(), "cpu");
  // The cheap actor: a tiny map into an MLP, a few real-game simulations
  // on a quarter of the moves, many games per network call.
  EXPECT_EQ(
      c.features().occupancy_time_bins() * c.features().occupancy_byte_bins(),
      32);
  EXPECT_EQ(c.network().trunk(), NetworkConfig::MLP);
  EXPECT_LE(c.network().hidden_size(), 64);
  EXPECT_EQ(c.search().mode(), SearchConfig::GUMBEL_REAL_GAME);
  EXPECT_LE(c.search().simulations(), 4);
  EXPECT_GT(c.search().fast_move_fraction(), 0);
  EXPECT_GE(c.search().batch_games(), 64);
  EXPECT_EQ(c.training().batch_size(), 256);
  EXPECT_EQ(c.training().replay_size(), 2000);
  EXPECT_EQ(c.training().target_scaling(), TrainingConfig::NORMALISED);
  EXPECT_GT(c.training().demonstration_fraction(), 0);
}

TEST(PresetsTest, ByName) {
  EXPECT_EQ(PresetByName("cpu")->preset(), "cpu");
  EXPECT_EQ(PresetByName("paper")->preset(), "paper");
  EXPECT_EQ(PresetByName("gpu").status().code(), absl::StatusCode::kNotFound);
}

TEST(LoadTest, PresetNameWithOverrides) {
  auto c = LoadMuZeroConfig(
      "cpu", {"search.simulations=64", "search.mode=GUMBEL",
              "training.learning_rate=0.01", "training.seed=42"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->search().simulations(), 64);
  EXPECT_EQ(c->search().mode(), SearchConfig::GUMBEL);
  EXPECT_DOUBLE_EQ(c->training().learning_rate(), 0.01);
  EXPECT_EQ(c->training().seed(), 42u);
  EXPECT_EQ(c->training().batch_size(), 256);  // from the preset
}

TEST(LoadTest, FileStartsFromItsPreset) {
  const std::string path = WriteTemp("cfg.json", R"({
    "preset": "paper",
    "search": {"simulations": 50, "root_exploration_fraction": 0},
    "training": {"batch_size": 128}
  })");
  auto c = LoadMuZeroConfig(path, {"features.next_buffers=2"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->search().simulations(), 50);
  EXPECT_DOUBLE_EQ(c->search().root_exploration_fraction(), 0);  // explicit 0
  EXPECT_DOUBLE_EQ(c->search().discount(), 0.9999);  // kept from the preset
  EXPECT_EQ(c->training().batch_size(), 128);
  EXPECT_EQ(c->features().next_buffers(), 2);
  EXPECT_EQ(c->features().occupancy_time_bins(), 128);
}

TEST(LoadTest, FormatConfigRoundTrips) {
  const MuZeroConfig cpu = CpuPreset();
  const std::string json = FormatConfig(cpu);
  EXPECT_TRUE(absl::StrContains(json, "\"simulations\"")) << json;
  EXPECT_TRUE(absl::StrContains(json, "\"seed\"")) << json;
  auto c = LoadMuZeroConfig(WriteTemp("cpu.json", json), {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->SerializeAsString(), cpu.SerializeAsString());
}

TEST(LoadTest, CheckedInConfigsMatchPresets) {
  const std::string dir = std::string(MMAPZERO_SOURCE_DIR) + "/configs/";
  auto paper = LoadMuZeroConfig(dir + "paper.json", {});
  ASSERT_TRUE(paper.ok()) << paper.status();
  EXPECT_EQ(paper->SerializeAsString(), PaperPreset().SerializeAsString());
  auto cpu = LoadMuZeroConfig(dir + "cpu.json", {});
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_EQ(cpu->SerializeAsString(), CpuPreset().SerializeAsString());
}

TEST(LoadTest, ErrorsNameFieldAndValue) {
  auto unknown = LoadMuZeroConfig("cpu", {"search.simulatoins=3"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(absl::StrContains(unknown.status().message(), "simulatoins"))
      << unknown.status();

  auto bad = LoadMuZeroConfig("cpu", {"search.simulations=many"});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "search.simulations"));
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "many"));

  auto enum_bad = LoadMuZeroConfig("cpu", {"search.mode=FAST"});
  ASSERT_FALSE(enum_bad.ok());
  EXPECT_TRUE(absl::StrContains(enum_bad.status().message(), "FAST"));

  auto range = LoadMuZeroConfig("cpu", {"search.simulations=0"});
  ASSERT_FALSE(range.ok());
  EXPECT_TRUE(
      absl::StrContains(range.status().message(), "search.simulations"));
  EXPECT_TRUE(absl::StrContains(range.status().message(), "= 0"));

  auto no_eq = LoadMuZeroConfig("cpu", {"search.simulations"});
  EXPECT_FALSE(no_eq.ok());

  auto file_unknown = LoadMuZeroConfig(
      WriteTemp("bad.json", R"({"search": {"simulatoins": 3}})"), {});
  ASSERT_FALSE(file_unknown.ok());
  EXPECT_TRUE(absl::StrContains(file_unknown.status().message(), "simulatoins"))
      << file_unknown.status();

  auto bad_preset =
      LoadMuZeroConfig(WriteTemp("preset.json", R"({"preset": "gpu"})"), {});
  ASSERT_FALSE(bad_preset.ok());
  EXPECT_TRUE(absl::StrContains(bad_preset.status().message(), "gpu"));

  EXPECT_EQ(LoadMuZeroConfig("/no/such/file.json", {}).status().code(),
            absl::StatusCode::kNotFound);

  MuZeroConfig c = CpuPreset();
  c.mutable_training()->set_reanalyse_fraction(1.5);
  const absl::Status s = CheckMuZeroConfig(c);
  EXPECT_TRUE(absl::StrContains(s.message(), "training.reanalyse_fraction"));
  EXPECT_TRUE(absl::StrContains(s.message(), "1.5"));

  auto weight = LoadMuZeroConfig("cpu", {"training.value_loss_weight=-1"});
  ASSERT_FALSE(weight.ok());
  EXPECT_TRUE(absl::StrContains(weight.status().message(),
                                "training.value_loss_weight"))
      << weight.status();
}

// The loss weights are unset (1) unless given; 0 is a value.
TEST(LoadTest, LossWeightsAreUnsetUnlessGiven) {
  const MuZeroConfig cpu = CpuPreset();
  EXPECT_FALSE(cpu.training().has_value_loss_weight());
  EXPECT_FALSE(cpu.training().has_reward_loss_weight());
  auto set = LoadMuZeroConfig("cpu", {"training.value_loss_weight=0.1",
                                      "training.reward_loss_weight=0"});
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_DOUBLE_EQ(set->training().value_loss_weight(), 0.1);
  EXPECT_TRUE(set->training().has_reward_loss_weight());
  EXPECT_EQ(set->training().reward_loss_weight(), 0);
}

// network=FILE becomes training.initial_network with the file's absolute
// path (a service started in another folder finds it); a missing file is
// refused naming the setting before anything starts.
TEST(TakeInitialNetworkTest, MakesTheOverrideOrNamesAMissingFile) {
  MuZeroConfigSettings none = SplitMuZeroConfigSettings({{"actors", "2"}});
  ASSERT_TRUE(TakeInitialNetwork(&none).ok());
  EXPECT_TRUE(none.overrides.empty());
  EXPECT_EQ(none.rest.count("actors"), 1u);

  const std::string file = ::testing::TempDir() + "/take_initial_network.pt";
  std::ofstream(file) << "bytes";
  MuZeroConfigSettings given = SplitMuZeroConfigSettings({{"network", file}});
  ASSERT_TRUE(TakeInitialNetwork(&given).ok());
  EXPECT_EQ(given.rest.count("network"), 0u);
  ASSERT_EQ(given.overrides.size(), 1u);
  EXPECT_EQ(given.overrides[0].rfind("training.initial_network=/", 0), 0u)
      << given.overrides[0];
  std::remove(file.c_str());
  MuZeroConfigSettings missing = SplitMuZeroConfigSettings({{"network", file}});
  const absl::Status status = TakeInitialNetwork(&missing);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "--set network"));
  EXPECT_TRUE(absl::StrContains(status.message(), file));

  // The two names pass as they are (no file of that name is looked for).
  for (const std::string name : {"none", "default"}) {
    MuZeroConfigSettings named = SplitMuZeroConfigSettings({{"network", name}});
    ASSERT_TRUE(TakeInitialNetwork(&named).ok()) << name;
    ASSERT_EQ(named.overrides.size(), 1u) << name;
    EXPECT_EQ(named.overrides[0], "training.initial_network=" + name);
  }
}

}  // namespace
}  // namespace mmapzero::features
