#include "coordinator/job_service.h"

#include "common/base/status_macros.h"

namespace mmapzero::coordinator {

using rpc::ServeUnary;

namespace {

// A unary JobService method: the coordinator's `call` on the request and
// the caller of `context` (ownership, limits), through ServeUnary (the
// access check, metrics, status translation).
template <typename Request, typename Response>
grpc::Status ServeAsCaller(const char* method,
                           absl::StatusOr<Response> (Coordinator::*call)(
                               const Request&, const Caller&),
                           Coordinator* coordinator, RpcObserver* observer,
                           grpc::ServerContext& context, const Request& request,
                           Response* response) {
  return ServeUnary(
      method, context, observer,
      [&]() -> absl::StatusOr<Response> {
        ASSIGN_OR_RETURN(const Caller caller, CallerOf(context));
        return (coordinator->*call)(request, caller);
      },
      response);
}

}  // namespace

grpc::Status JobServiceImpl::SubmitJob(grpc::ServerContext* context,
                                       const v1::SubmitJobRequest* request,
                                       v1::SubmitJobResponse* response) {
  return ServeAsCaller("SubmitJob", &Coordinator::SubmitJob, coordinator_,
                       observer_, *context, *request, response);
}

grpc::Status JobServiceImpl::ListJobs(grpc::ServerContext* context,
                                      const v1::ListJobsRequest* request,
                                      v1::ListJobsResponse* response) {
  return ServeAsCaller("ListJobs", &Coordinator::ListJobs, coordinator_,
                       observer_, *context, *request, response);
}

grpc::Status JobServiceImpl::GetJob(grpc::ServerContext* context,
                                    const v1::GetJobRequest* request,
                                    v1::JobStatus* response) {
  return ServeAsCaller("GetJob", &Coordinator::GetJob, coordinator_, observer_,
                       *context, *request, response);
}

grpc::Status JobServiceImpl::WatchJob(
    grpc::ServerContext* context, const v1::WatchJobRequest* request,
    grpc::ServerWriter<v1::JobProgress>* writer) {
  return rpc::ServeStream(
      "WatchJob", *context, observer_, [&]() -> absl::Status {
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
  return ServeAsCaller("CancelJob", &Coordinator::CancelJob, coordinator_,
                       observer_, *context, *request, response);
}

grpc::Status JobServiceImpl::DeleteJob(grpc::ServerContext* context,
                                       const v1::DeleteJobRequest* request,
                                       v1::DeleteJobResponse* response) {
  return ServeAsCaller("DeleteJob", &Coordinator::DeleteJob, coordinator_,
                       observer_, *context, *request, response);
}

grpc::Status JobServiceImpl::GetBestSolution(
    grpc::ServerContext* context, const v1::GetBestSolutionRequest* request,
    v1::GetBestSolutionResponse* response) {
  return ServeAsCaller("GetBestSolution", &Coordinator::GetBestSolution,
                       coordinator_, observer_, *context, *request, response);
}

grpc::Status JobServiceImpl::ExtendJob(grpc::ServerContext* context,
                                       const v1::ExtendJobRequest* request,
                                       v1::JobStatus* response) {
  return ServeAsCaller("ExtendJob", &Coordinator::ExtendJob, coordinator_,
                       observer_, *context, *request, response);
}

grpc::Status JobServiceImpl::ResumeJob(grpc::ServerContext* context,
                                       const v1::ResumeJobRequest* request,
                                       v1::ResumeJobResponse* response) {
  return ServeAsCaller("ResumeJob", &Coordinator::ResumeJob, coordinator_,
                       observer_, *context, *request, response);
}

grpc::Status JobServiceImpl::GetJobDetails(
    grpc::ServerContext* context, const v1::GetJobDetailsRequest* request,
    v1::JobDetails* response) {
  return ServeAsCaller("GetJobDetails", &Coordinator::GetJobDetails,
                       coordinator_, observer_, *context, *request, response);
}

}  // namespace mmapzero::coordinator
