#include "common/rpc/health_check_client.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/rpc/grpc_status.h"

namespace mmapzero::rpc {
namespace {

constexpr char kCheckMethod[] = "/grpc.health.v1.Health/Check";
constexpr size_t kMaxServiceName = 127;  // its length fits one varint byte

// HealthCheckRequest { string service = 1; }: field 1, length-delimited;
// nothing at all for the empty name (every field at its default).
std::string EncodeRequest(const std::string& service) {
  std::string bytes;
  if (service.empty()) return bytes;
  bytes.push_back(0x0a);
  bytes.push_back(static_cast<char>(service.size()));
  bytes += service;
  return bytes;
}

// HealthCheckResponse { ServingStatus status = 1; }: field 1, varint.
absl::StatusOr<ServingStatus> DecodeResponse(const grpc::ByteBuffer& response) {
  std::vector<grpc::Slice> slices;
  if (!response.Dump(&slices).ok()) {
    return absl::InternalError("health check: unreadable response");
  }
  std::string bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  if (bytes.empty()) return ServingStatus::kUnknown;  // every field default
  const int value = bytes.size() == 2 && bytes[0] == 0x08
                        ? static_cast<unsigned char>(bytes[1])
                        : -1;
  if (value < 0 || value > static_cast<int>(ServingStatus::kServiceUnknown)) {
    return absl::InternalError(absl::StrCat(
        "health check: unreadable response of ", bytes.size(), " bytes"));
  }
  return static_cast<ServingStatus>(value);
}

}  // namespace

absl::StatusOr<ServingStatus> CheckServingStatus(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& service,
    absl::Duration deadline) {
  if (service.size() > kMaxServiceName) {
    return absl::InvalidArgumentError(
        absl::StrCat("health check: service name of ", service.size(),
                     " bytes; at most ", kMaxServiceName));
  }
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  const grpc::Slice slice(EncodeRequest(service));
  const grpc::ByteBuffer request(&slice, 1);
  grpc::CompletionQueue queue;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> call =
      stub.PrepareUnaryCall(&context, kCheckMethod, request, &queue);
  call->StartCall();
  grpc::ByteBuffer response;
  grpc::Status status;
  int finished = 0;
  call->Finish(&response, &status, &finished);
  void* tag = nullptr;
  bool ok = false;
  const bool answered = queue.Next(&tag, &ok) && ok;
  queue.Shutdown();
  while (queue.Next(&tag, &ok)) {  // drained before the queue goes
  }
  if (!answered) return absl::UnavailableError("health check: no answer");
  if (!status.ok()) return FromGrpcStatus(status);
  return DecodeResponse(response);
}

}  // namespace mmapzero::rpc
