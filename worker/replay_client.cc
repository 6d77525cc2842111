#include "worker/replay_client.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/rpc/client_channel.h"
#include "common/rpc/grpc_status.h"

namespace mmapzero::worker {

ReplayClient::ReplayClient(std::string job_id, const std::string& address)
    : job_id_(std::move(job_id)) {
  SetAddress(address);
}

void ReplayClient::SetAddress(const std::string& address) {
  absl::MutexLock lock(&mu_);
  if (address == address_ && (stub_ != nullptr || address.empty())) return;
  address_ = address;
  stub_.reset();
  if (address.empty()) return;
  stub_ = v1::ReplayService::NewStub(rpc::MakeClientChannel(address));
}

std::string ReplayClient::address() const {
  absl::MutexLock lock(&mu_);
  return address_;
}

bool ReplayClient::has_address() const {
  absl::MutexLock lock(&mu_);
  return stub_ != nullptr;
}

template <typename Request, typename Response>
absl::StatusOr<Response> ReplayClient::Call(Method<Request, Response> method,
                                            const Request& request,
                                            absl::Duration deadline) {
  std::shared_ptr<v1::ReplayService::Stub> stub;
  std::string address;
  {
    absl::MutexLock lock(&mu_);
    stub = stub_;
    address = address_;
  }
  if (stub == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("job ", job_id_, ": no replay server yet"));
  }
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       absl::ToChronoMilliseconds(deadline));
  Response response;
  const grpc::Status status =
      (stub.get()->*method)(&context, request, &response);
  if (!status.ok()) {
    const absl::Status error = rpc::FromGrpcStatus(status);
    return absl::Status(
        error.code(), absl::StrCat("replay ", address, ": ", error.message()));
  }
  return response;
}

absl::StatusOr<v1::InsertTrajectoriesResponse> ReplayClient::InsertTrajectories(
    const v1::InsertTrajectoriesRequest& request, absl::Duration deadline) {
  return Call(&v1::ReplayService::Stub::InsertTrajectories, request, deadline);
}

absl::StatusOr<v1::SampleBatchResponse> ReplayClient::SampleBatch(
    const v1::SampleBatchRequest& request, absl::Duration deadline) {
  return Call(&v1::ReplayService::Stub::SampleBatch, request, deadline);
}

absl::StatusOr<v1::SampleForReanalyseResponse> ReplayClient::SampleForReanalyse(
    const v1::SampleForReanalyseRequest& request, absl::Duration deadline) {
  return Call(&v1::ReplayService::Stub::SampleForReanalyse, request, deadline);
}

absl::StatusOr<v1::UpdateTargetsResponse> ReplayClient::UpdateTargets(
    const v1::UpdateTargetsRequest& request, absl::Duration deadline) {
  return Call(&v1::ReplayService::Stub::UpdateTargets, request, deadline);
}

}  // namespace mmapzero::worker
