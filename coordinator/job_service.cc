#include "coordinator/job_service.h"

#include "common/base/status_macros.h"

namespace mmapzero::coordinator {

using rpc::ServeUnary;

grpc::Status JobServiceImpl::SubmitJob(grpc::ServerContext* context,
                                       const v1::SubmitJobRequest* request,
                                       v1::SubmitJobResponse* response) {
  return ServeUnary(
      "SubmitJob", *context, observer_,
      [&]() -> absl::StatusOr<v1::SubmitJobResponse> {
        ASSIGN_OR_RETURN(const Caller caller, CallerOf(*context));
        return coordinator_->SubmitJob(*request, caller);
      },
      response);
}

grpc::Status JobServiceImpl::ListJobs(grpc::ServerContext* context,
                                      const v1::ListJobsRequest* request,
                                      v1::ListJobsResponse* response) {
  return ServeUnary(
      "ListJobs", *context, observer_,
      [&]() -> absl::StatusOr<v1::ListJobsResponse> {
        ASSIGN_OR_RETURN(const Caller caller, CallerOf(*context));
        return coordinator_->ListJobs(*request, caller);
      },
      response);
}

grpc::Status JobServiceImpl::GetJob(grpc::ServerContext* context,
                                    const v1::GetJobRequest* request,
                                    v1::JobStatus* response) {
  return ServeUnary(
      "GetJob", *context, observer_,
      [&]() -> absl::StatusOr<v1::JobStatus> {
        ASSIGN_OR_RETURN(const Caller caller, CallerOf(*context));
        return coordinator_->GetJob(*request, caller);
      },
      response);
}

grpc::Status JobServiceImpl::WatchJob(
    grpc::ServerContext* context, const v1::WatchJobRequest* request,
    grpc::ServerWriter<v1::JobProgress>* writer) {
  return rpc::ServeStream("WatchJob", *context, observer_, [&]() -> absl::Status {
    // Another identity's job is refused before the first progress; the
    // watch reports an unknown or malformed id itself.
    ASSIGN_OR_RETURN(const Caller caller, CallerOf(*context));
    RETURN_IF_ERROR(
        coordinator_->CheckJobOwner(request->job_id(), caller, "WatchJob"));
    JobWatch watch(coordinator_, watch_options_);
    return watch.Run(
        request->job_id(),
        [writer](const v1::JobProgress& progress) {
          return writer->Write(progress);
        },
        [context] { return context->IsCancelled(); });
  });
}

grpc::Status JobServiceImpl::CancelJob(grpc::ServerContext* context,
                                       const v1::CancelJobRequest* request,
                                       v1::JobStatus* response) {
  return ServeUnary(
      "CancelJob", *context, observer_,
      [&]() -> absl::StatusOr<v1::JobStatus> {
        ASSIGN_OR_RETURN(const Caller caller, CallerOf(*context));
        return coordinator_->CancelJob(*request, caller);
      },
      response);
}

grpc::Status JobServiceImpl::DeleteJob(grpc::ServerContext* context,
                                       const v1::DeleteJobRequest* request,
                                       v1::DeleteJobResponse* response) {
  return ServeUnary(
      "DeleteJob", *context, observer_,
      [&]() -> absl::StatusOr<v1::DeleteJobResponse> {
        ASSIGN_OR_RETURN(const Caller caller, CallerOf(*context));
        return coordinator_->DeleteJob(*request, caller);
      },
      response);
}

grpc::Status JobServiceImpl::GetBestSolution(
    grpc::ServerContext* context, const v1::GetBestSolutionRequest* request,
    v1::GetBestSolutionResponse* response) {
  return ServeUnary(
      "GetBestSolution", *context, observer_,
      [&]() -> absl::StatusOr<v1::GetBestSolutionResponse> {
        ASSIGN_OR_RETURN(const Caller caller, CallerOf(*context));
        return coordinator_->GetBestSolution(*request, caller);
      },
      response);
}

}  // namespace mmapzero::coordinator
