#include "common/workload/proto_io.h"

#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/base/atomic_file.h"
#include "common/base/read_file.h"
#include "common/base/status_macros.h"
#include "common/workload/workload_check.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/type_resolver_util.h"

namespace mmapzero {
namespace {

bool LooksLikeJson(const std::string& bytes) {
  for (char c : bytes) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{';
  }
  return false;
}

// Serialises with map entries sorted, so one message always gives the same
// bytes (files of the same seed are identical, diffs stay small).
std::string DeterministicBytes(const google::protobuf::Message& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return bytes;
}

constexpr char kTypeUrlPrefix[] = "type.googleapis.com";

}  // namespace

absl::Status ReadProtoFile(const std::string& path,
                           google::protobuf::Message* message) {
  ASSIGN_OR_RETURN(const std::string bytes, ReadWholeFile(path));
  return ParseProtoBytes(bytes, path, message);
}

absl::Status ParseProtoBytes(const std::string& bytes, const std::string& name,
                             google::protobuf::Message* message) {
  if (bytes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": file is empty"));
  }
  if (absl::EndsWith(name, ".json") || LooksLikeJson(bytes)) {
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = false;
    const auto status =
        google::protobuf::util::JsonStringToMessage(bytes, message, options);
    if (!status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": invalid ", message->GetTypeName(),
                       " JSON: ", status.message().ToString()));
    }
    return absl::OkStatus();
  }
  if (!message->ParseFromString(bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": not a valid binary ", message->GetTypeName(),
        " (use a .json name for JSON)"));
  }
  return absl::OkStatus();
}

std::string ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  // Through deterministic bytes, so map keys come out sorted.
  static auto* resolver = google::protobuf::util::NewTypeResolverForDescriptorPool(
      kTypeUrlPrefix, google::protobuf::DescriptorPool::generated_pool());
  std::string json;
  (void)google::protobuf::util::BinaryToJsonString(
      resolver,
      absl::StrCat(kTypeUrlPrefix, "/", message.GetDescriptor()->full_name()),
      DeterministicBytes(message), &json, options);
  return json;
}

absl::Status WriteProtoFile(const std::string& path,
                            const google::protobuf::Message& message) {
  std::string bytes;
  bytes = absl::EndsWith(path, ".json") ? ToJson(message)
                                        : DeterministicBytes(message);
  return WriteFileAtomically(path, bytes);
}

absl::StatusOr<Workload> ReadWorkload(const std::string& path) {
  Workload workload;
  RETURN_IF_ERROR(ReadProtoFile(path, &workload));
  const absl::Status check = CheckWorkload(workload);
  if (!check.ok()) {
    return absl::Status(check.code(), absl::StrCat(path, ": ", check.message()));
  }
  return workload;
}

absl::StatusOr<Solution> ReadSolution(const std::string& path) {
  Solution solution;
  RETURN_IF_ERROR(ReadProtoFile(path, &solution));
  return solution;
}

}  // namespace mmapzero
