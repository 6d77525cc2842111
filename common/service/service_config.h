// A service's configuration is one protobuf message
// (proto/service_config.proto): read from a JSON file (--config FILE), then
// each flag given on the command line sets the field of the same name, at
// any depth (--tls-ca sets security.tls_ca), and the service fills in its
// defaults for the fields still unset. Flags and fields are matched by
// name, so a flag is an override of a field by construction, and the
// checks of the values live in one place per service: its
// *SettingsFromConfig function, which --check-flags runs too.
#ifndef MMAPZERO_COMMON_SERVICE_SERVICE_CONFIG_H_
#define MMAPZERO_COMMON_SERVICE_SERVICE_CONFIG_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace mmapzero::service {

// The scalar fields of `type`, depth first, nested messages opened: the
// settings a flag can name. Each is given with the fields leading to it.
struct ConfigLeaf {
  std::vector<const google::protobuf::FieldDescriptor*> path;
  const google::protobuf::FieldDescriptor* field() const { return path.back(); }
  // The message of `config` that holds field(), made on the way.
  google::protobuf::Message* Holder(google::protobuf::Message* config) const;
  const google::protobuf::Message& Holder(
      const google::protobuf::Message& config) const;
};
std::vector<ConfigLeaf> ConfigLeaves(const google::protobuf::Descriptor& type);

// How users spell the flag of a field or absl flag name: "data_dir" ->
// "--data-dir".
std::string FlagName(absl::string_view name);

// Sets `leaf` in `config` from `text` (a flag's value: 42, 0.5, true, a
// string, an enum's name); InvalidArgument naming --FLAG and the value.
absl::Status SetConfigLeaf(const ConfigLeaf& leaf, const std::string& text,
                           google::protobuf::Message* config);

// `config` from the file --config names (when given) with every flag given
// on the command line set over it. Call after absl::ParseCommandLine.
// InvalidArgument naming the file (and field) for a file that does not
// parse, and naming the flag for a flag this service has no setting for
// (a shared flag such as --seed given to the coordinator). Internal when
// a field has no flag of its name: every setting can be given on the
// command line.
absl::Status ReadServiceConfig(google::protobuf::Message* config);

}  // namespace mmapzero::service

#endif  // MMAPZERO_COMMON_SERVICE_SERVICE_CONFIG_H_
