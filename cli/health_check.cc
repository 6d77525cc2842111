#include "cli/health_check.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/rpc/client_channel.h"

namespace mmapzero::cli {
namespace {

constexpr char kCheckMethod[] = "/grpc.health.v1.Health/Check";

// HealthCheckResponse { ServingStatus status = 1; }: field 1, varint.
int DecodeServingStatus(const grpc::ByteBuffer& response) {
  std::vector<grpc::Slice> slices;
  if (!response.Dump(&slices).ok()) return -1;
  std::string bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  if (bytes.empty()) return 0;  // every field at its default: UNKNOWN
  if (bytes.size() < 2 || bytes[0] != 0x08) return -1;
  return static_cast<unsigned char>(bytes[1]);
}

}  // namespace

HealthResult CheckHealth(const std::string& address, absl::Duration deadline) {
  grpc::GenericStub stub(rpc::MakeClientChannel(address));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       absl::ToChronoMilliseconds(deadline));
  // HealthCheckRequest { service = "" }: every field default, zero bytes.
  const grpc::Slice empty{std::string()};
  const grpc::ByteBuffer request(&empty, 1);
  grpc::ByteBuffer response;
  grpc::Status status;
  absl::Notification done;
  stub.UnaryCall(&context, kCheckMethod, grpc::StubOptions(), &request,
                 &response, [&](grpc::Status result) {
                   status = std::move(result);
                   done.Notify();
                 });
  done.WaitForNotification();
  if (!status.ok()) {
    return {false, absl::StrCat("unreachable: ", status.error_message())};
  }
  switch (DecodeServingStatus(response)) {
    case 1:
      return {true, "SERVING"};
    case 2:
      return {false, "NOT_SERVING"};
    case 0:
      return {false, "UNKNOWN"};
    default:
      return {false, "unreadable health response"};
  }
}

}  // namespace mmapzero::cli
