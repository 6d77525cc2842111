#include "coordinator/job_service.h"

namespace mmapzero::coordinator {

using rpc::ServeUnary;

grpc::Status JobServiceImpl::SubmitJob(grpc::ServerContext* context,
                                       const v1::SubmitJobRequest* request,
                                       v1::SubmitJobResponse* response) {
  return ServeUnary(
      "SubmitJob", *context, observer_,
      [&] { return coordinator_->SubmitJob(*request); }, response);
}

grpc::Status JobServiceImpl::ListJobs(grpc::ServerContext* context,
                                      const v1::ListJobsRequest* request,
                                      v1::ListJobsResponse* response) {
  return ServeUnary(
      "ListJobs", *context, observer_,
      [&] { return coordinator_->ListJobs(*request); }, response);
}

grpc::Status JobServiceImpl::GetJob(grpc::ServerContext* context,
                                    const v1::GetJobRequest* request,
                                    v1::JobStatus* response) {
  return ServeUnary(
      "GetJob", *context, observer_,
      [&] { return coordinator_->GetJob(*request); }, response);
}

grpc::Status JobServiceImpl::WatchJob(
    grpc::ServerContext* context, const v1::WatchJobRequest* request,
    grpc::ServerWriter<v1::JobProgress>* writer) {
  return rpc::ServeStream("WatchJob", *context, observer_, [&] {
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
      [&] { return coordinator_->CancelJob(*request); }, response);
}

grpc::Status JobServiceImpl::GetBestSolution(
    grpc::ServerContext* context, const v1::GetBestSolutionRequest* request,
    v1::GetBestSolutionResponse* response) {
  return ServeUnary(
      "GetBestSolution", *context, observer_,
      [&] { return coordinator_->GetBestSolution(*request); }, response);
}

}  // namespace mmapzero::coordinator
