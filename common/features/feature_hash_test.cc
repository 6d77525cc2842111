#include "common/features/feature_hash.h"

#include "common/features/config_presets.h"
#include "gtest/gtest.h"
#include "google/protobuf/descriptor.h"

namespace mmapzero::features {
namespace {

FeatureConfig Cpu() {
  absl::StatusOr<MuZeroConfig> config = PresetByName("cpu");
  EXPECT_TRUE(config.ok()) << config.status();
  return config->features();
}

TEST(FeatureHashTest, FingerprintNamesTheLayoutAndEveryField) {
  const std::string text = FeatureFingerprint(Cpu());
  EXPECT_EQ(text.rfind("layout=2;", 0), 0u) << text;
  const google::protobuf::Descriptor* d = FeatureConfig::descriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    EXPECT_NE(text.find(d->field(i)->name() + "="), std::string::npos)
        << d->field(i)->name() << " in " << text;
  }
}

// The fingerprint reads every field as an int32; a field of another type
// must be added to it first.
TEST(FeatureHashTest, EveryFeatureConfigFieldIsAnInt32) {
  const google::protobuf::Descriptor* d = FeatureConfig::descriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    EXPECT_EQ(d->field(i)->cpp_type(),
              google::protobuf::FieldDescriptor::CPPTYPE_INT32)
        << d->field(i)->name();
    EXPECT_FALSE(d->field(i)->is_repeated()) << d->field(i)->name();
  }
}

// Stable across builds and machines: a network saved by one build loads
// in another. This value changes only with kFeatureLayoutVersion or the
// cpu preset's features; then every saved network is refused, as it
// should be.
TEST(FeatureHashTest, CpuPresetHashIsStable) {
  EXPECT_EQ(FeatureFingerprint(Cpu()),
            "layout=2;next_buffers=3;same_tensor_buffers=2;"
            "occupancy_time_bins=4;occupancy_byte_bins=8;"
            "occupancy_window_steps=32;target_occupancy_bins=16;"
            "supply_window_steps=16;");
  EXPECT_EQ(FeatureHash(Cpu()), 533750796);
}

TEST(FeatureHashTest, EveryFieldChangesTheHash) {
  const FeatureConfig base = Cpu();
  const int32_t hash = FeatureHash(base);
  EXPECT_GT(hash, 0);
  const google::protobuf::Descriptor* d = FeatureConfig::descriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    FeatureConfig changed = base;
    const google::protobuf::Reflection* r = changed.GetReflection();
    r->SetInt32(&changed, d->field(i), r->GetInt32(base, d->field(i)) + 1);
    EXPECT_NE(FeatureHash(changed), hash) << d->field(i)->name();
  }
  EXPECT_EQ(FeatureHash(base), hash);  // deterministic
}

}  // namespace
}  // namespace mmapzero::features
