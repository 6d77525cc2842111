// Reads and writes workloads and solutions as JSON (proto3 JSON mapping) or
// binary protobuf. The format follows the file name: ".json" is JSON,
// anything else is binary; on reading, a file whose first non-blank byte is
// '{' is JSON whatever its name. Errors name the file and, for JSON, the
// field the parser stopped at; unknown fields are errors.
#ifndef MMAPZERO_COMMON_WORKLOAD_PROTO_IO_H_
#define MMAPZERO_COMMON_WORKLOAD_PROTO_IO_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero {

// Parses `path` into `message` (JSON or binary, see above).
absl::Status ReadProtoFile(const std::string& path,
                           google::protobuf::Message* message);
// The same for bytes already in memory; `name` stands for the path in the
// format choice and in errors.
absl::Status ParseProtoBytes(const std::string& bytes, const std::string& name,
                             google::protobuf::Message* message);

// Writes `message` to `path` (JSON when the name ends in ".json"), through a
// temporary file renamed into place so a crash never leaves half a file.
absl::Status WriteProtoFile(const std::string& path,
                            const google::protobuf::Message& message);

// Serialises to indented JSON (proto3 mapping, field names as in .proto).
std::string ToJson(const google::protobuf::Message& message);

// ReadProtoFile + CheckWorkload (workload_check.h).
absl::StatusOr<Workload> ReadWorkload(const std::string& path);
absl::StatusOr<Solution> ReadSolution(const std::string& path);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_WORKLOAD_PROTO_IO_H_
