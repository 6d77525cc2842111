// The gRPC face of ReplayTables (replay_tables.h): each handler only
// translates, through rpc::ServeUnary (deadline check, status mapping,
// metrics, logs). SampleBatch hands the call's deadline to the rate
// limiter's wait. The writes (InsertTrajectories, UpdateTargets) first
// check the writer's lease ticket under authentication
// (common/rpc/writer_lease.h), with the key the coordinator gave this
// server.
#ifndef MMAPZERO_REPLAY_REPLAY_SERVICE_H_
#define MMAPZERO_REPLAY_REPLAY_SERVICE_H_

#include <functional>
#include <string>

#include "common/rpc/rpc_handler.h"
#include "proto/replay.grpc.pb.h"
#include "replay/replay_tables.h"

namespace mmapzero::replay {

class ReplayServiceImpl final : public v1::ReplayService::Service {
 public:
  // The coordinator's lease key now ("" while unknown: writes that need a
  // ticket are then Unavailable).
  using LeaseKeySource = std::function<std::string()>;

  // Neither pointer is owned; `observer` may be null.
  ReplayServiceImpl(ReplayTables* tables, rpc::RpcObserver* observer,
                    LeaseKeySource lease_key)
      : tables_(tables), observer_(observer), lease_key_(std::move(lease_key)) {}

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
  // The writer's lease, when the caller needs one (writer_lease.h).
  absl::Status CheckWriter(const grpc::ServerContext& context,
                           absl::string_view method, const std::string& job_id,
                           const std::string& worker_id,
                           const v1::LeaseTicket& ticket,
                           v1::WorkerRole role) const;

  ReplayTables* tables_;
  rpc::RpcObserver* observer_;
  LeaseKeySource lease_key_;
};

}  // namespace mmapzero::replay

#endif  // MMAPZERO_REPLAY_REPLAY_SERVICE_H_
