#include "learner/replay_sampler.h"

#include <grpcpp/client_context.h>

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/rpc/client_channel.h"
#include "common/rpc/grpc_status.h"
#include "learner/window_positions.h"

namespace mmapzero::learner {

ReplaySampler::ReplaySampler(ReplaySamplerOptions options,
                             const std::string& address)
    : options_(std::move(options)) {
  SetAddress(address);
}

void ReplaySampler::SetAddress(const std::string& address) {
  absl::MutexLock lock(&mu_);
  if (address == address_ && (stub_ != nullptr || address.empty())) return;
  address_ = address;
  stub_.reset();
  if (address.empty()) return;
  stub_ = v1::ReplayService::NewStub(rpc::MakeClientChannel(address));
}

std::string ReplaySampler::address() const {
  absl::MutexLock lock(&mu_);
  return address_;
}

absl::StatusOr<worker::Batch> ReplaySampler::Sample() {
  std::shared_ptr<v1::ReplayService::Stub> stub;
  std::string address;
  {
    absl::MutexLock lock(&mu_);
    stub = stub_;
    address = address_;
  }
  if (stub == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("job ", options_.job_id, ": no replay server yet"));
  }
  v1::SampleBatchRequest request;
  request.set_job_id(options_.job_id);
  request.set_batch_size(options_.batch_size);
  request.set_unroll_steps(options_.unroll_steps);
  request.set_td_steps(options_.td_steps);
  request.set_discount(options_.discount);
  v1::SampleBatchResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       absl::ToChronoMilliseconds(options_.deadline));
  const grpc::Status status = stub->SampleBatch(&context, request, &response);
  if (!status.ok()) {
    const absl::Status error = rpc::FromGrpcStatus(status);
    return absl::Status(
        error.code(), absl::StrCat("replay ", address, ": ", error.message()));
  }
  return PositionsFromWindows(response);
}

}  // namespace mmapzero::learner
