#include "replay/replay_service.h"

#include "absl/time/time.h"
#include "common/base/status_macros.h"
#include "common/rpc/writer_lease.h"

namespace mmapzero::replay {

using rpc::ServeUnary;

absl::Status ReplayServiceImpl::CheckWriter(const grpc::ServerContext& context,
                                            absl::string_view method,
                                            const std::string& job_id,
                                            const std::string& worker_id,
                                            const v1::LeaseTicket& ticket,
                                            v1::WorkerRole role) const {
  RETURN_IF_ERROR(CheckJobId(job_id));  // a malformed id says so first
  ASSIGN_OR_RETURN(const rpc::Caller caller, rpc::CallerOf(context));
  return rpc::CheckWriterLease(caller,
                               {.method = method,
                                .job_id = job_id,
                                .worker_id = worker_id,
                                .ticket = &ticket},
                               lease_key_ ? lease_key_() : std::string(),
                               {role}, absl::ToUnixMillis(absl::Now()));
}

grpc::Status ReplayServiceImpl::InsertTrajectories(
    grpc::ServerContext* context, const v1::InsertTrajectoriesRequest* request,
    v1::InsertTrajectoriesResponse* response) {
  return ServeUnary(
      "InsertTrajectories", *context, observer_,
      [&]() -> absl::StatusOr<v1::InsertTrajectoriesResponse> {
        RETURN_IF_ERROR(CheckWriter(*context, "InsertTrajectories",
                                    request->job_id(), request->worker_id(),
                                    request->lease_ticket(),
                                    v1::WORKER_ROLE_ACTOR));
        return tables_->Insert(*request);
      },
      response);
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
      [&]() -> absl::StatusOr<v1::UpdateTargetsResponse> {
        RETURN_IF_ERROR(CheckWriter(*context, "UpdateTargets",
                                    request->job_id(), /*worker_id=*/"",
                                    request->lease_ticket(),
                                    v1::WORKER_ROLE_REANALYSE));
        return tables_->UpdateTargets(*request);
      },
      response);
}

grpc::Status ReplayServiceImpl::GetStats(grpc::ServerContext* context,
                                         const v1::GetStatsRequest* request,
                                         v1::ReplayStats* response) {
  return ServeUnary(
      "GetStats", *context, observer_,
      [&] { return tables_->GetStats(*request); }, response);
}

}  // namespace mmapzero::replay
