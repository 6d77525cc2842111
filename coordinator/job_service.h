// JobService over gRPC (proto/job.proto): each handler translates the
// request to a Coordinator call through ServeUnary (rpc_handler.h);
// WatchJob runs a JobWatch on the stream.
#ifndef MMAPZERO_COORDINATOR_JOB_SERVICE_H_
#define MMAPZERO_COORDINATOR_JOB_SERVICE_H_

#include "coordinator/coordinator.h"
#include "coordinator/job_watch.h"
#include "common/rpc/rpc_handler.h"
#include "proto/job.grpc.pb.h"

namespace mmapzero::coordinator {

using rpc::ServeUnary;
using rpc::RpcObserver;

class JobServiceImpl final : public v1::JobService::Service {
 public:
  // `observer` may be null; both must outlive the service.
  JobServiceImpl(Coordinator* coordinator, RpcObserver* observer,
                 JobWatchOptions watch_options)
      : coordinator_(coordinator),
        observer_(observer),
        watch_options_(watch_options) {}

  grpc::Status SubmitJob(grpc::ServerContext* context,
                         const v1::SubmitJobRequest* request,
                         v1::SubmitJobResponse* response) override;
  grpc::Status ListJobs(grpc::ServerContext* context,
                        const v1::ListJobsRequest* request,
                        v1::ListJobsResponse* response) override;
  grpc::Status GetJob(grpc::ServerContext* context,
                      const v1::GetJobRequest* request,
                      v1::JobStatus* response) override;
  grpc::Status WatchJob(grpc::ServerContext* context,
                        const v1::WatchJobRequest* request,
                        grpc::ServerWriter<v1::JobProgress>* writer) override;
  grpc::Status CancelJob(grpc::ServerContext* context,
                         const v1::CancelJobRequest* request,
                         v1::JobStatus* response) override;
  grpc::Status DeleteJob(grpc::ServerContext* context,
                         const v1::DeleteJobRequest* request,
                         v1::DeleteJobResponse* response) override;
  grpc::Status ExtendJob(grpc::ServerContext* context,
                         const v1::ExtendJobRequest* request,
                         v1::JobStatus* response) override;
  grpc::Status ResumeJob(grpc::ServerContext* context,
                         const v1::ResumeJobRequest* request,
                         v1::ResumeJobResponse* response) override;
  grpc::Status GetJobDetails(grpc::ServerContext* context,
                             const v1::GetJobDetailsRequest* request,
                             v1::JobDetails* response) override;
  grpc::Status GetBestSolution(grpc::ServerContext* context,
                               const v1::GetBestSolutionRequest* request,
                               v1::GetBestSolutionResponse* response) override;

 private:
  Coordinator* coordinator_;
  RpcObserver* observer_;
  JobWatchOptions watch_options_;
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_JOB_SERVICE_H_
