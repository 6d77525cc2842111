#include "replay/replay_service.h"

#include "absl/time/time.h"

namespace mmapzero::replay {

using rpc::ServeUnary;

grpc::Status ReplayServiceImpl::InsertTrajectories(
    grpc::ServerContext* context, const v1::InsertTrajectoriesRequest* request,
    v1::InsertTrajectoriesResponse* response) {
  return ServeUnary(
      "InsertTrajectories", *context, observer_,
      [&] { return tables_->Insert(*request); }, response);
}

grpc::Status ReplayServiceImpl::SampleBatch(
    grpc::ServerContext* context, const v1::SampleBatchRequest* request,
    v1::SampleBatchResponse* response) {
  const absl::Time deadline = absl::FromChrono(context->deadline());
  return ServeUnary(
      "SampleBatch", *context, observer_,
      [&] { return tables_->SampleBatch(*request, deadline); }, response);
}

grpc::Status ReplayServiceImpl::SampleForReanalyse(
    grpc::ServerContext* context, const v1::SampleForReanalyseRequest* request,
    v1::SampleForReanalyseResponse* response) {
  return ServeUnary(
      "SampleForReanalyse", *context, observer_,
      [&] { return tables_->SampleForReanalyse(*request); }, response);
}

grpc::Status ReplayServiceImpl::UpdateTargets(
    grpc::ServerContext* context, const v1::UpdateTargetsRequest* request,
    v1::UpdateTargetsResponse* response) {
  return ServeUnary(
      "UpdateTargets", *context, observer_,
      [&] { return tables_->UpdateTargets(*request); }, response);
}

grpc::Status ReplayServiceImpl::GetStats(grpc::ServerContext* context,
                                         const v1::GetStatsRequest* request,
                                         v1::ReplayStats* response) {
  return ServeUnary(
      "GetStats", *context, observer_,
      [&] { return tables_->GetStats(*request); }, response);
}

}  // namespace mmapzero::replay
