#include "coordinator/worker_service.h"

namespace mmapzero::coordinator {

using rpc::ServeUnary;

grpc::Status WorkerServiceImpl::Register(grpc::ServerContext* context,
                                         const v1::RegisterRequest* request,
                                         v1::RegisterResponse* response) {
  return ServeUnary(
      "Register", *context, observer_,
      [&] { return coordinator_->Register(*request); }, response);
}

grpc::Status WorkerServiceImpl::Heartbeat(grpc::ServerContext* context,
                                          const v1::HeartbeatRequest* request,
                                          v1::HeartbeatResponse* response) {
  return ServeUnary(
      "Heartbeat", *context, observer_,
      [&] { return coordinator_->Heartbeat(*request); }, response);
}

grpc::Status WorkerServiceImpl::ReportSolution(
    grpc::ServerContext* context, const v1::ReportSolutionRequest* request,
    v1::ReportSolutionResponse* response) {
  return ServeUnary(
      "ReportSolution", *context, observer_,
      [&] { return coordinator_->ReportSolution(*request); }, response);
}

}  // namespace mmapzero::coordinator
