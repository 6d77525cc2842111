// For tests: every field of a service's config message is either read (a
// new value changes the settings the service starts from) or refused (an
// error naming its flag or field), never accepted and ignored. Walks the
// message's descriptor, so a field added to the .proto without being
// wired into the service fails its service's test.
#ifndef MMAPZERO_COMMON_SERVICE_CONFIG_FIELD_COVERAGE_H_
#define MMAPZERO_COMMON_SERVICE_CONFIG_FIELD_COVERAGE_H_

#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/service/service_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::service {

// Another valid-looking value for `leaf` than it has in `config`: +1 for
// numbers, a changed string, the other boolean, the next enum value.
inline std::string ChangedValue(const ConfigLeaf& leaf,
                                const google::protobuf::Message& config) {
  const google::protobuf::Message* message = &leaf.Holder(config);
  const google::protobuf::Reflection& r = *message->GetReflection();
  const google::protobuf::FieldDescriptor* f = leaf.field();
  using FD = google::protobuf::FieldDescriptor;
  switch (f->cpp_type()) {
    case FD::CPPTYPE_INT32:
      return absl::StrCat(r.GetInt32(*message, f) + 1);
    case FD::CPPTYPE_INT64:
      return absl::StrCat(r.GetInt64(*message, f) + 1);
    case FD::CPPTYPE_UINT32:
      return absl::StrCat(r.GetUInt32(*message, f) + 1);
    case FD::CPPTYPE_UINT64:
      return absl::StrCat(r.GetUInt64(*message, f) + 1);
    case FD::CPPTYPE_DOUBLE:
      return absl::StrCat(r.GetDouble(*message, f) + 0.5);
    case FD::CPPTYPE_FLOAT:
      return absl::StrCat(r.GetFloat(*message, f) + 0.5);
    case FD::CPPTYPE_BOOL:
      return r.GetBool(*message, f) ? "false" : "true";
    case FD::CPPTYPE_ENUM: {
      const int index = r.GetEnum(*message, f)->index() + 1;
      return f->enum_type()
          ->value(index % f->enum_type()->value_count())
          ->name();
    }
    case FD::CPPTYPE_STRING: {
      const std::string value = r.GetString(*message, f);
      return value.empty() ? "probe" : value + "x";
    }
    case FD::CPPTYPE_MESSAGE:
      break;
  }
  return "";
}

// For each field of Config outside `skip` (top-level message fields
// tested on their own, such as `security`): `baseline` with that field
// changed (ChangedValue of its value in with_defaults(baseline)) must give
// settings_of an error naming the field or its flag, or settings unequal to
// settings_of(baseline).
template <typename Config, typename Settings>
void ExpectEveryFieldReadOrRefused(
    const Config& baseline, Config (*with_defaults)(Config),
    absl::StatusOr<Settings> (*settings_of)(const Config&),
    const std::set<std::string>& skip = {"security"}) {
  const absl::StatusOr<Settings> base = settings_of(baseline);
  ASSERT_TRUE(base.ok()) << base.status();
  const Config effective = with_defaults(baseline);
  int fields = 0;
  for (const ConfigLeaf& leaf : ConfigLeaves(*Config::descriptor())) {
    if (skip.contains(leaf.path.front()->name())) continue;
    ++fields;
    const std::string name = leaf.field()->name();
    const std::string flag = FlagName(name);
    const std::string value = ChangedValue(leaf, effective);
    Config probe = baseline;
    ASSERT_TRUE(SetConfigLeaf(leaf, value, &probe).ok()) << name;
    const absl::StatusOr<Settings> changed = settings_of(probe);
    if (changed.ok()) {
      EXPECT_FALSE(*changed == *base)
          << Config::descriptor()->full_name() << "." << name << " = " << value
          << " is accepted but changes nothing the service uses";
    } else {
      EXPECT_THAT(std::string(changed.status().message()),
                  ::testing::AnyOf(::testing::HasSubstr(flag),
                                   ::testing::HasSubstr(name)))
          << name << " = " << value << " is refused without naming it";
    }
  }
  EXPECT_GT(fields, 0);
}

}  // namespace mmapzero::service

#endif  // MMAPZERO_COMMON_SERVICE_CONFIG_FIELD_COVERAGE_H_
