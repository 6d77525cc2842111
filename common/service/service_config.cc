#include "common/service/service_config.h"

#include <cstdint>
#include <map>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/base/status_macros.h"
#include "common/service/service_flags.h"
#include "common/workload/proto_io.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

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

absl::Status BadValue(const FieldDescriptor& field, const std::string& text) {
  return absl::InvalidArgumentError(
      absl::StrCat(FlagName(field.name()), ": expected ", field.cpp_type_name(),
                   ", got '", text, "'"));
}

// Parse errors become the one error above, not log lines.
class SilentErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int, int, const std::string&) override {}
};

}  // namespace

Message* ConfigLeaf::Holder(Message* config) const {
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    config = config->GetReflection()->MutableMessage(config, path[i]);
  }
  return config;
}

const Message& ConfigLeaf::Holder(const Message& config) const {
  const Message* message = &config;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    message = &message->GetReflection()->GetMessage(*message, path[i]);
  }
  return *message;
}

std::vector<ConfigLeaf> ConfigLeaves(const Descriptor& type) {
  std::vector<ConfigLeaf> leaves;
  CollectLeaves(type, {}, &leaves);
  return leaves;
}

std::string FlagName(absl::string_view name) {
  return absl::StrCat("--", absl::StrReplaceAll(name, {{"_", "-"}}));
}

absl::Status SetConfigLeaf(const ConfigLeaf& leaf, const std::string& text,
                           Message* config) {
  Message* message = leaf.Holder(config);
  const FieldDescriptor& field = *leaf.field();
  if (field.cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
    // Unquoted: a flag's value is the string itself.
    message->GetReflection()->SetString(message, &field, text);
    return absl::OkStatus();
  }
  // Numbers, booleans and enum names as protobuf's text format reads them.
  SilentErrors errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFieldValueFromString(text, &field, message)) {
    return BadValue(field, text);
  }
  return absl::OkStatus();
}

absl::Status ReadServiceConfig(Message* config) {
  // Each field with its flag, which every field must have.
  std::map<std::string, std::pair<ConfigLeaf, const absl::CommandLineFlag*>>
      settings;
  for (ConfigLeaf& leaf : ConfigLeaves(*config->GetDescriptor())) {
    const std::string name = leaf.field()->name();
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr) {
      return absl::InternalError(absl::StrCat(config->GetTypeName(), ".", name,
                                              " has no flag ", FlagName(name)));
    }
    if (!settings.try_emplace(name, std::move(leaf), flag).second) {
      return absl::InternalError(
          absl::StrCat(config->GetTypeName(), ": two fields named ", name));
    }
  }
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (!IsServiceFlagFile(flag->Filename()) || IsControlFlag(name) ||
        settings.contains(std::string(name))) {
      continue;
    }
    if (absl::EndsWith(flag->Filename(), "/main.cc")) {
      return absl::InternalError(
          absl::StrCat(FlagName(name), " (", flag->Filename(),
                       ") sets no field of ", config->GetTypeName()));
    }
    if (!flag->CurrentValue().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(FlagName(name), ": not a setting of this service (",
                       config->GetTypeName(), ")"));
    }
  }
  config->Clear();
  if (const std::string path = absl::GetFlag(FLAGS_config); !path.empty()) {
    RETURN_IF_ERROR(ReadProtoFile(path, config));
  }
  // Optional-valued flags print "" when not given.
  for (const auto& [name, setting] : settings) {
    const auto& [leaf, flag] = setting;
    if (const std::string value = flag->CurrentValue(); !value.empty()) {
      RETURN_IF_ERROR(SetConfigLeaf(leaf, value, config));
    }
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::service
