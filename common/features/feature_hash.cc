#include "common/features/feature_hash.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"

namespace mmapzero::features {

std::string FeatureFingerprint(const FeatureConfig& config) {
  std::string text = absl::StrCat("layout=", kFeatureLayoutVersion, ";");
  const google::protobuf::Descriptor* descriptor = config.GetDescriptor();
  const google::protobuf::Reflection* reflection = config.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  for (int i = 0; i < descriptor->field_count(); ++i) {
    fields.push_back(descriptor->field(i));
  }
  std::sort(fields.begin(), fields.end(), [](const auto* a, const auto* b) {
    return a->number() < b->number();
  });
  for (const google::protobuf::FieldDescriptor* field : fields) {
    // FeatureConfig holds int32 fields only (a test checks): a field of
    // another type must be added here before it can count.
    absl::StrAppend(&text, field->name(), "=",
                    reflection->GetInt32(config, field), ";");
  }
  return text;
}

int32_t FeatureHash(const FeatureConfig& config) {
  uint64_t hash = 14695981039346656037ull;
  for (const unsigned char c : FeatureFingerprint(config)) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  const auto folded = static_cast<int32_t>((hash ^ (hash >> 32)) & 0x7fffffff);
  return folded == 0 ? 1 : folded;
}

}  // namespace mmapzero::features
