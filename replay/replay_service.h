// The gRPC face of ReplayTables (replay_tables.h): each handler only
// translates, through rpc::ServeUnary (deadline check, status mapping,
// metrics, logs). SampleBatch hands the call's deadline to the rate
// limiter's wait.
#ifndef MMAPZERO_REPLAY_REPLAY_SERVICE_H_
#define MMAPZERO_REPLAY_REPLAY_SERVICE_H_

#include "common/rpc/rpc_handler.h"
#include "proto/replay.grpc.pb.h"
#include "replay/replay_tables.h"

namespace mmapzero::replay {

class ReplayServiceImpl final : public v1::ReplayService::Service {
 public:
  // Neither is owned; `observer` may be null.
  ReplayServiceImpl(ReplayTables* tables, rpc::RpcObserver* observer)
      : tables_(tables), observer_(observer) {}

  grpc::Status InsertTrajectories(
      grpc::ServerContext* context,
      const v1::InsertTrajectoriesRequest* request,
      v1::InsertTrajectoriesResponse* response) override;
  grpc::Status SampleBatch(grpc::ServerContext* context,
                           const v1::SampleBatchRequest* request,
                           v1::SampleBatchResponse* response) override;
  grpc::Status SampleForReanalyse(
      grpc::ServerContext* context,
      const v1::SampleForReanalyseRequest* request,
      v1::SampleForReanalyseResponse* response) override;
  grpc::Status UpdateTargets(grpc::ServerContext* context,
                             const v1::UpdateTargetsRequest* request,
                             v1::UpdateTargetsResponse* response) override;
  grpc::Status GetStats(grpc::ServerContext* context,
                        const v1::GetStatsRequest* request,
                        v1::ReplayStats* response) override;

 private:
  ReplayTables* tables_;
  rpc::RpcObserver* observer_;
};

}  // namespace mmapzero::replay

#endif  // MMAPZERO_REPLAY_REPLAY_SERVICE_H_
