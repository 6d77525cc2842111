// The check every write to a job's state makes on its writer's lease
// (InsertTrajectories and UpdateTargets on the replay server,
// ReportSolution on the coordinator): under authentication every caller
// but an admin shows the lease ticket of its assignment
// (common/security/lease_ticket.h), and each refusal is logged with the
// method, the caller, the worker and the job. Without authentication
// everyone may write, as everyone may call everything.
#ifndef MMAPZERO_COMMON_RPC_WRITER_LEASE_H_
#define MMAPZERO_COMMON_RPC_WRITER_LEASE_H_

#include <grpcpp/server_context.h>

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/rpc/caller.h"
#include "proto/lease_ticket.pb.h"
#include "proto/worker_role.pb.h"

namespace mmapzero::rpc {

// What is written with what: a request's parts the check reads.
struct LeaseWrite {
  absl::string_view method;     // "InsertTrajectories"
  absl::string_view job_id;     // the request's job
  absl::string_view worker_id;  // the request's worker ("": not named)
  const v1::LeaseTicket* ticket = nullptr;
};

// OK for a caller who owns everything (nobody authenticated, or an
// admin); else security::CheckLeaseTicket of `write` under `key` at
// `now_unix_ms`, with `roles` the lease roles that may make it, and a
// refusal logged (event=refused, naming `caller`). An empty key (a replay
// server not yet registered with its coordinator) is Unavailable: the
// writer retries.
absl::Status CheckWriterLease(const Caller& caller, const LeaseWrite& write,
                              absl::string_view key,
                              std::initializer_list<v1::WorkerRole> roles,
                              int64_t now_unix_ms);

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_WRITER_LEASE_H_
