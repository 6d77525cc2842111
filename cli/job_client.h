// How mmapctl's service commands (submit, list, status, watch, best, cancel)
// reach the coordinator's JobService (proto/job.proto): where it is, one
// call each with a deadline, and errors in the user's terms ("no job 'x'",
// "no coordinator at ...").
//
// The coordinator's address is the first of: --coordinator HOST:PORT,
// $MMAPZERO_COORDINATOR, the file <data dir>/coordinator.addr that
// `mmapctl local up` leaves. The data dir is --data-dir, else
// $MMAPZERO_DATA_DIR, else ~/.mmapzero (./mmapzero-data when $HOME is
// unset): one place per user, whatever the working directory. Calls are
// made under UseClientTransportSecurity (below).
#ifndef MMAPZERO_CLI_JOB_CLIENT_H_
#define MMAPZERO_CLI_JOB_CLIENT_H_

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cli/command_line.h"
#include "google/protobuf/message.h"
#include "proto/job.grpc.pb.h"
#include "proto/network.grpc.pb.h"

namespace mmapzero::cli {

// `value_flags` plus the flags every client command takes: --coordinator,
// --data-dir, --timeout (the deadline of each unary call, default 30s) and
// the transport security ones (UseClientTransportSecurity).
std::set<std::string> WithClientFlags(std::set<std::string> value_flags);

// Makes the process's transport security (common/security/transport_security.h)
// what `line` says: --tls-ca, --tls-cert, --tls-key (mutual TLS, all
// three), --tls-server-name and --bearer-token-file; without the TLS
// flags, the client certificate of a local cluster's data dir
// (<data dir>/tls, local_cluster.h) when there is one; else plaintext.
// Errors name the flag and the file.
absl::Status UseClientTransportSecurity(const CommandLine& line);

// --data-dir, $MMAPZERO_DATA_DIR, ~/.mmapzero or ./mmapzero-data.
std::string DataDir(const CommandLine& line);

// See the file comment; FailedPrecondition saying where it looked when no
// address is configured.
absl::StatusOr<std::string> CoordinatorAddress(const CommandLine& line);

// "10m", "24h", "1500ms" (absl::ParseDuration) or plain seconds ("90"):
// > 0 and finite. Errors name --flag and the text.
absl::StatusOr<absl::Duration> ParseDurationFlag(const std::string& flag,
                                                 const std::string& text);

// A wall-time budget flag's text (ParseDurationFlag) as whole seconds,
// rounded up: 1 to 86400 (24 h).
absl::StatusOr<int64_t> WallSecondsFlag(const std::string& flag,
                                        const std::string& text);

// --budget, which must be given, as WallSecondsFlag reads it.
absl::StatusOr<int64_t> BudgetSecondsFlag(const CommandLine& line,
                                          const char* usage);

// What a just-submitted job's seed says: "heuristic seed normalised return
// 0.4459", or "heuristic seed solve queued" while the job is still seeding
// (its seed solve runs after the submit's answer; there is no figure yet).
std::string DescribeSeed(const v1::JobStatus& job);

// "mmapctl-" and 32 random hex digits: a submission's idempotency key.
std::string NewRequestId();

// One line of JSON (proto3 mapping, field names as in the .proto).
std::string CompactJson(const google::protobuf::Message& message);

class JobClient {
 public:
  // Resolves the address (CoordinatorAddress) and the --timeout deadline;
  // connects lazily, so an absent coordinator shows at the first call.
  static absl::StatusOr<std::unique_ptr<JobClient>> Connect(
      const CommandLine& line);
  JobClient(std::string address, absl::Duration deadline);

  const std::string& address() const { return address_; }

  // Gives the request a fresh request_id (NewRequestId) unless it has one,
  // and sends it up to kSubmitAttempts times while the answer is lost
  // (UNAVAILABLE, DEADLINE_EXCEEDED), 1 s, then 2 s apart: the coordinator
  // makes one job per request_id, so a resend never makes a second. The
  // job exists from the first answer, SEEDING; Submit then waits (up to
  // the --timeout deadline) for its seed solve, so the answer carries the
  // heuristic's figure and the job has a best; a job still seeding then
  // comes back as it is.
  static constexpr int kSubmitAttempts = 3;
  absl::StatusOr<v1::SubmitJobResponse> Submit(v1::SubmitJobRequest request);
  absl::StatusOr<v1::ListJobsResponse> List(const v1::ListJobsRequest& request);
  absl::StatusOr<v1::JobStatus> Get(const std::string& job_id);
  absl::StatusOr<v1::JobStatus> Cancel(const std::string& job_id,
                                       const std::string& reason);
  absl::StatusOr<v1::DeleteJobResponse> Delete(const std::string& job_id);
  absl::StatusOr<v1::JobStatus> Extend(const std::string& job_id,
                                       int64_t wall_seconds);
  absl::StatusOr<v1::ResumeJobResponse> Resume(const std::string& job_id,
                                               int64_t wall_seconds);
  absl::StatusOr<v1::GetBestSolutionResponse> Best(const std::string& job_id);
  // Status, training configuration and history (`mmapctl archive`).
  absl::StatusOr<v1::JobDetails> Details(const std::string& job_id);

  // NetworkRegistry (proto/network.proto). Export and import move the
  // file in chunks, with a deadline of at least five minutes.
  absl::StatusOr<v1::ListNetworksResponse> ListNetworks();
  absl::StatusOr<v1::NetworkInfo> GetNetwork(const std::string& name);
  // A registered network or a job's ("job-000012"): its info, then its
  // bytes, checked against the info's sha256 (DataLoss naming the network).
  absl::StatusOr<std::pair<v1::NetworkInfo, std::string>> FetchNetwork(
      const std::string& name);
  // `first`: the info (and from_job); `bytes`: the file ("" with from_job).
  absl::StatusOr<v1::NetworkInfo> ImportNetwork(v1::ImportNetworkRequest first,
                                                const std::string& bytes);
  absl::Status DeleteNetwork(const std::string& name);

  // Calls `on_progress` with each message of WatchJob until the job is
  // final (OK), `max_wait` has passed (DeadlineExceeded) or the stream
  // fails. A stream the coordinator ends with UNAVAILABLE (a restart) is
  // watched again, with backoff, for up to one minute.
  absl::Status Watch(
      const std::string& job_id, absl::Duration max_wait,
      const std::function<void(const v1::JobProgress&)>& on_progress);

 private:
  // `submitted` with its job's status once that has left SEEDING, or as
  // it is after the deadline.
  v1::SubmitJobResponse AwaitSeeded(v1::SubmitJobResponse submitted);
  // `status` as an absl::Status whose message names the job or the
  // coordinator.
  absl::Status Error(const grpc::Status& status,
                     const std::string& job_id) const;
  // ExportNetwork's bytes, unchecked (FetchNetwork checks them).
  absl::StatusOr<std::string> ExportNetwork(const std::string& name);
  void SetDeadline(grpc::ClientContext* context,
                   absl::Duration at_least = absl::ZeroDuration()) const;
  // One unary call of `method` on `stub` with the deadline; errors
  // through Error().
  template <typename Stub, typename Request, typename Response>
  absl::StatusOr<Response> Call(
      Stub& stub,
      grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&,
                                   Response*),
      const Request& request, const std::string& job_id);
  template <typename Request, typename Response>
  absl::StatusOr<Response> Call(
      grpc::Status (v1::JobService::Stub::*method)(grpc::ClientContext*,
                                                   const Request&, Response*),
      const Request& request, const std::string& job_id) {
    return Call(*stub_, method, request, job_id);
  }

  std::string address_;
  absl::Duration deadline_;
  std::unique_ptr<v1::JobService::Stub> stub_;
  std::unique_ptr<v1::NetworkRegistry::Stub> networks_;
};

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_JOB_CLIENT_H_
