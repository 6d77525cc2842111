#include "common/service/service_config.h"

#include <cstdint>
#include <map>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/base/status_macros.h"
#include "common/service/service_flags.h"
#include "common/workload/proto_io.h"

namespace mmapzero::service {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

void CollectLeaves(const Descriptor& type, ConfigLeaf prefix,
                   std::vector<ConfigLeaf>* leaves) {
  for (int i = 0; i < type.field_count(); ++i) {
    ConfigLeaf leaf = prefix;
    leaf.path.push_back(type.field(i));
    if (type.field(i)->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      CollectLeaves(*type.field(i)->message_type(), leaf, leaves);
    } else {
      leaves->push_back(std::move(leaf));
    }
  }
}

std::string FlagName(const FieldDescriptor& field) {
  return absl::StrCat("--", absl::StrReplaceAll(field.name(), {{"_", "-"}}));
}

absl::Status BadValue(const FieldDescriptor& field, const std::string& text,
                      const char* expected) {
  return absl::InvalidArgumentError(absl::StrCat(
      FlagName(field), ": expected ", expected, ", got '", text, "'"));
}

// The message that holds `leaf`'s field, made on the way.
Message* Holder(const ConfigLeaf& leaf, Message* config) {
  Message* message = config;
  for (size_t i = 0; i + 1 < leaf.path.size(); ++i) {
    message = message->GetReflection()->MutableMessage(message, leaf.path[i]);
  }
  return message;
}

// The flag of `name` if it was given: optional-valued flags print "" when
// unset.
const absl::CommandLineFlag* GivenFlag(const std::string& name) {
  const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  if (flag == nullptr || flag->CurrentValue().empty()) return nullptr;
  return flag;
}

}  // namespace

std::vector<ConfigLeaf> ConfigLeaves(const Descriptor& type) {
  std::vector<ConfigLeaf> leaves;
  CollectLeaves(type, {}, &leaves);
  return leaves;
}

absl::Status SetConfigLeaf(const ConfigLeaf& leaf, const std::string& text,
                           Message* config) {
  Message* message = Holder(leaf, config);
  const google::protobuf::Reflection& reflection = *message->GetReflection();
  const FieldDescriptor& field = *leaf.field();
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      int32_t value = 0;
      if (!absl::SimpleAtoi(text, &value))
        return BadValue(field, text, "an integer");
      reflection.SetInt32(message, &field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      int64_t value = 0;
      if (!absl::SimpleAtoi(text, &value))
        return BadValue(field, text, "an integer");
      reflection.SetInt64(message, &field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      uint32_t value = 0;
      if (!absl::SimpleAtoi(text, &value)) {
        return BadValue(field, text, "an integer >= 0");
      }
      reflection.SetUInt32(message, &field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t value = 0;
      if (!absl::SimpleAtoi(text, &value)) {
        return BadValue(field, text, "an integer >= 0");
      }
      reflection.SetUInt64(message, &field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT: {
      double value = 0;
      if (!absl::SimpleAtod(text, &value))
        return BadValue(field, text, "a number");
      if (field.cpp_type() == FieldDescriptor::CPPTYPE_FLOAT) {
        reflection.SetFloat(message, &field, static_cast<float>(value));
      } else {
        reflection.SetDouble(message, &field, value);
      }
      break;
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      bool value = false;
      if (!absl::SimpleAtob(text, &value))
        return BadValue(field, text, "true or false");
      reflection.SetBool(message, &field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      const auto* value = field.enum_type()->FindValueByName(text);
      if (value == nullptr) return BadValue(field, text, "a value's name");
      reflection.SetEnum(message, &field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_STRING:
      reflection.SetString(message, &field, text);
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return absl::InternalError(
          absl::StrCat(FlagName(field), ": a message, not a setting"));
  }
  return absl::OkStatus();
}

absl::Status ReadServiceConfig(Message* config) {
  std::map<std::string, ConfigLeaf> leaves;
  for (ConfigLeaf& leaf : ConfigLeaves(*config->GetDescriptor())) {
    const std::string name = leaf.field()->name();
    if (absl::FindCommandLineFlag(name) == nullptr) {
      return absl::InternalError(absl::StrCat(config->GetTypeName(), ".", name,
                                              " has no flag ",
                                              FlagName(*leaf.field())));
    }
    if (!leaves.emplace(name, std::move(leaf)).second) {
      return absl::InternalError(
          absl::StrCat(config->GetTypeName(), ": two fields named ", name));
    }
  }
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (!IsServiceFlagFile(flag->Filename()) || IsControlFlag(name) ||
        leaves.contains(std::string(name))) {
      continue;
    }
    if (absl::EndsWith(flag->Filename(), "/main.cc")) {
      return absl::InternalError(
          absl::StrCat("--", name, " (", flag->Filename(),
                       ") sets no field of ", config->GetTypeName()));
    }
    if (!flag->CurrentValue().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--", absl::StrReplaceAll(name, {{"_", "-"}}),
          ": not a setting of this service (", config->GetTypeName(), ")"));
    }
  }
  config->Clear();
  if (const std::string path = absl::GetFlag(FLAGS_config); !path.empty()) {
    RETURN_IF_ERROR(ReadProtoFile(path, config));
  }
  for (const auto& [name, leaf] : leaves) {
    if (const absl::CommandLineFlag* flag = GivenFlag(name)) {
      RETURN_IF_ERROR(SetConfigLeaf(leaf, flag->CurrentValue(), config));
    }
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::service
