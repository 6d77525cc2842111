#include "worker/worker_session.h"

#include <grpcpp/client_context.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/metrics/health_checks.h"
#include "common/rpc/backoff.h"
#include "common/rpc/chunked_bytes.h"
#include "common/rpc/client_channel.h"
#include "common/rpc/enum_names.h"
#include "common/rpc/grpc_status.h"
#include "common/rpc/network_stream.h"
#include "common/service/log_line.h"
#include "common/service/service_main.h"

namespace mmapzero::worker {
namespace {

// How long the heartbeat loop may go without a round before /healthz
// fails; a round takes at most the RPC deadline plus the backoff (5 s
// each by default).
constexpr absl::Duration kMaxSilence = absl::Minutes(2);

void SetDeadline(grpc::ClientContext* context, absl::Duration deadline) {
  context->set_deadline(std::chrono::system_clock::now() +
                        absl::ToChronoMilliseconds(deadline));
}

// Whether `cached` holds the workload `assignment` names.
bool CacheHolds(const v1::Assignment& cached,
                const v1::Assignment& assignment) {
  return cached.has_workload() &&
         cached.workload_bytes() == assignment.workload_bytes() &&
         cached.workload_crc32c() == assignment.workload_crc32c();
}

// An assignment with its job's workload and config: as sent (an older
// coordinator inlines the workload), from `fetched`, or from `cache` when
// the coordinator left them out; nullopt when its workload is not at hand.
std::optional<v1::Assignment> Filled(
    const v1::Assignment& assignment,
    absl::flat_hash_map<std::string, Workload>* fetched,
    absl::flat_hash_map<std::string, v1::Assignment>* cache) {
  const std::string& job = assignment.job_id();
  if (assignment.has_workload() || fetched->contains(job)) {
    v1::Assignment filled = assignment;
    if (!assignment.has_workload()) {
      *filled.mutable_workload() = std::move((*fetched)[job]);
    }
    v1::Assignment& cached = (*cache)[job];
    *cached.mutable_workload() = filled.workload();
    *cached.mutable_config() = filled.config();
    cached.set_workload_bytes(filled.workload_bytes());
    cached.set_workload_crc32c(filled.workload_crc32c());
    return filled;
  }
  auto it = cache->find(job);
  if (it == cache->end()) return std::nullopt;
  if (assignment.workload_bytes() > 0 && !CacheHolds(it->second, assignment)) {
    return std::nullopt;  // another job under the same id: fetch again
  }
  v1::Assignment filled = assignment;
  *filled.mutable_workload() = it->second.workload();
  *filled.mutable_config() = it->second.config();
  return filled;
}

}  // namespace

absl::StatusOr<std::unique_ptr<WorkerSession>> WorkerSession::Start(
    WorkerSessionOptions options) {
  if (options.coordinator.empty()) {
    return absl::InvalidArgumentError("worker: no coordinator address");
  }
  if (options.role == v1::WORKER_ROLE_UNSPECIFIED ||
      !v1::WorkerRole_IsValid(options.role)) {
    return absl::InvalidArgumentError(
        absl::StrCat("worker: bad role ", static_cast<int>(options.role)));
  }
  if (options.stored_jobs.list && !options.stored_jobs.remove) {
    return absl::InvalidArgumentError(
        "worker: stored jobs listed with no way to remove them");
  }
  std::unique_ptr<WorkerSession> session(new WorkerSession(std::move(options)));
  WorkerSession* raw = session.get();
  // /healthz: the heartbeat loop goes round (whether or not the
  // coordinator answers: a coordinator that is away is its own failure, and
  // restarting every worker would not bring it back).
  metrics::ProcessHealth().Add(raw->health_check_, kMaxSilence);
  session->thread_ =
      std::jthread([raw](std::stop_token stop) { raw->Run(stop); });
  return session;
}

WorkerSession::WorkerSession(WorkerSessionOptions options)
    : options_(std::move(options)),
      health_check_(
          absl::StrCat("worker_session_", rpc::WorkerRoleName(options_.role))),
      channel_(rpc::MakeClientChannel(options_.coordinator)),
      stub_(v1::WorkerService::NewStub(channel_)) {}

WorkerSession::~WorkerSession() { Stop(); }

void WorkerSession::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    changed_.SignalAll();
  }
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
    metrics::ProcessHealth().Remove(health_check_);
  }
}

void WorkerSession::Run(std::stop_token stop) {
  rpc::Backoff backoff;
  while (!stop.stop_requested()) {
    bool registered;
    {
      absl::MutexLock lock(&mu_);
      registered = !worker_id_.empty();
    }
    const bool ok = registered ? HeartbeatOnce() : RegisterOnce();
    {
      absl::MutexLock lock(&mu_);
      if (refused_) return;  // nothing left to do: the service exits
    }
    metrics::ProcessHealth().Succeeded(health_check_);
    absl::Duration wait;
    if (ok) {
      backoff.Reset();
      absl::MutexLock lock(&mu_);
      wait = registered ? interval_ : absl::ZeroDuration();
    } else {
      wait = backoff.Next();
    }
    absl::MutexLock lock(&mu_);
    if (!assignments_.empty()) {
      const absl::Time now = absl::Now();
      if (now >= leases_end_) {
        DropAssignmentsLocked("lease_expired");
      } else {
        wait = std::min(wait, leases_end_ - now);  // wake to fence in time
      }
    }
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), wait);
    if (stopping_) return;
  }
}

bool WorkerSession::RefusedForGoodLocked(const char* call,
                                         const grpc::Status& status) {
  if (status.error_code() != grpc::StatusCode::PERMISSION_DENIED &&
      status.error_code() != grpc::StatusCode::UNAUTHENTICATED) {
    return false;
  }
  service::LogLine(
      "error", "refused_for_good",
      {{"coordinator", options_.coordinator},
       {"call", call},
       {"code", absl::StrCat(status.error_code())},
       {"message", status.error_message()},
       {"fix", "give this worker a certificate with OU=worker signed by the "
               "cluster's CA (or a worker bearer token); it stops now"}});
  refused_ = true;
  if (!assignments_.empty()) DropAssignmentsLocked("refused_for_good");
  // In a service this exits the process (status kExitRefused) through its
  // main; elsewhere (a test) the session just stops.
  service::RequestShutdown(service::kExitRefused);
  return true;
}

bool WorkerSession::RegisterOnce() {
  v1::RegisterRequest request;
  request.set_role(options_.role);
  request.set_address(options_.address);
  request.set_capacity(options_.capacity);
  request.set_name(options_.name);
  v1::RegisterResponse response;
  grpc::ClientContext context;
  SetDeadline(&context, options_.rpc_deadline);
  const grpc::Status status = stub_->Register(&context, request, &response);
  if (!status.ok()) {
    absl::MutexLock lock(&mu_);
    if (RefusedForGoodLocked("Register", status)) return false;
    service::LogLine("warning", "register_failed",
                     {{"coordinator", options_.coordinator},
                      {"code", absl::StrCat(status.error_code())},
                      {"message", status.error_message()}});
    return false;
  }
  absl::MutexLock lock(&mu_);
  worker_id_ = response.worker_id();
  worker_secret_ = response.worker_secret();
  if (response.heartbeat_interval_ms() > 0) {
    interval_ = absl::Milliseconds(response.heartbeat_interval_ms());
  }
  lease_ttl_ =
      absl::Milliseconds(std::max<int64_t>(0, response.lease_ttl_ms()));
  lease_key_ = response.lease_key();
  service::LogLine("info", "registered",
                   {{"worker_id", worker_id_},
                    {"coordinator", options_.coordinator},
                    {"role", v1::WorkerRole_Name(options_.role)}});
  return true;
}

std::vector<v1::StoredJob> StoredJobsRound(std::vector<v1::StoredJob> all,
                                           size_t* cursor) {
  const size_t most = kMaxStoredJobsPerHeartbeat;
  if (all.size() <= most) return all;
  std::vector<v1::StoredJob> round;
  round.reserve(most);
  for (size_t i = 0; i < most; ++i) {
    round.push_back(std::move(all[(*cursor + i) % all.size()]));
  }
  *cursor = (*cursor + most) % all.size();
  return round;
}

std::vector<v1::StoredJob> WorkerSession::StoredJobsToCheck() {
  const StoredJobState& stored = options_.stored_jobs;
  if (!stored.list || absl::Now() < next_stored_check_) return {};
  next_stored_check_ = absl::Now() + stored.check_interval;
  return StoredJobsRound(stored.list(), &stored_cursor_);
}

bool WorkerSession::HeartbeatOnce() {
  v1::HeartbeatRequest request;
  for (v1::StoredJob& job : StoredJobsToCheck()) {
    *request.add_stored_jobs() = std::move(job);
  }
  {
    absl::MutexLock lock(&mu_);
    request.set_worker_id(worker_id_);
    request.set_worker_secret(worker_secret_);
    for (const auto& [job, counters] : counters_) {
      *request.add_jobs() = counters;
    }
  }
  v1::HeartbeatResponse response;
  grpc::ClientContext context;
  SetDeadline(&context, options_.rpc_deadline);
  // The coordinator renews the leases when it receives this, so they last
  // at least lease_ttl from now.
  const absl::Time sent = absl::Now();
  const grpc::Status status = stub_->Heartbeat(&context, request, &response);
  // The workloads of jobs new to this worker, fetched outside the lock.
  absl::flat_hash_map<std::string, Workload> fetched;
  if (status.ok()) {
    // Only what this heartbeat asked about: an answer never names a path.
    for (const v1::StoredJob& job : response.deleted_jobs()) {
      const bool asked = std::any_of(request.stored_jobs().begin(),
                                     request.stored_jobs().end(),
                                     [&job](const v1::StoredJob& listed) {
                                       return listed.job_id() == job.job_id() &&
                                              listed.job_uid() == job.job_uid();
                                     });
      if (asked) options_.stored_jobs.remove(job);
    }
    std::vector<const v1::Assignment*> missing;
    {
      absl::MutexLock lock(&mu_);
      for (const v1::Assignment& assignment : response.assignments()) {
        if (assignment.has_workload() || assignment.workload_bytes() <= 0) {
          continue;
        }
        auto it = job_cache_.find(assignment.job_id());
        if (it == job_cache_.end() || !CacheHolds(it->second, assignment)) {
          missing.push_back(&assignment);
        }
      }
    }
    for (const v1::Assignment* assignment : missing) {
      absl::StatusOr<Workload> workload = FetchWorkload(
          request.worker_id(), request.worker_secret(), *assignment);
      if (!workload.ok()) {
        service::LogLine("warning", "workload_fetch_failed",
                         {{"job", assignment->job_id()},
                          {"error", workload.status().ToString()}});
        continue;
      }
      fetched[assignment->job_id()] = *std::move(workload);
    }
  }
  absl::MutexLock lock(&mu_);
  if (RefusedForGoodLocked("Heartbeat", status)) return false;
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
    service::LogLine("warning", "worker_forgotten",
                     {{"worker_id", worker_id_}});
    worker_id_.clear();  // register again on the next round
    if (!assignments_.empty()) DropAssignmentsLocked("worker_forgotten");
    return true;
  }
  if (!status.ok()) {
    service::LogLine("warning", "heartbeat_failed",
                     {{"coordinator", options_.coordinator},
                      {"code", absl::StrCat(status.error_code())},
                      {"message", status.error_message()}});
    return false;
  }
  ++heartbeats_;
  if (!response.lease_key().empty()) lease_key_ = response.lease_key();
  if (response.heartbeat_interval_ms() > 0) {
    interval_ = absl::Milliseconds(response.heartbeat_interval_ms());
  }
  leases_end_ = lease_ttl_ > absl::ZeroDuration() ? sent + lease_ttl_
                                                  : absl::InfiniteFuture();
  std::vector<v1::Assignment> assignments;
  absl::flat_hash_set<std::string> assigned;
  for (const v1::Assignment& assignment : response.assignments()) {
    std::optional<v1::Assignment> filled =
        Filled(assignment, &fetched, &job_cache_);
    if (!filled.has_value()) continue;  // fetched on a later heartbeat
    assigned.insert(assignment.job_id());
    assignments.push_back(*std::move(filled));
  }
  // Tickets outlive their assignment by their grace (writes in flight).
  const int64_t now_ms = absl::ToUnixMillis(absl::Now());
  absl::erase_if(tickets_, [now_ms](const auto& entry) {
    const v1::LeaseTicket& ticket = entry.second;
    return ticket.expiry_unix_ms() + ticket.grace_ms() < now_ms;
  });
  for (const v1::Assignment& assignment : assignments) {
    if (assignment.has_lease_ticket()) {
      tickets_[assignment.job_id()] = assignment.lease_ticket();
    }
  }
  // The cache holds only what is assigned now.
  absl::erase_if(job_cache_, [&assigned](const auto& entry) {
    return !assigned.contains(entry.first);
  });
  // A new best (a learner's next demonstration) is news too.
  auto same = [](const v1::Assignment& a, const v1::Assignment& b) {
    return a.job_id() == b.job_id() && a.role() == b.role() &&
           a.replay_address() == b.replay_address() &&
           a.parameter_address() == b.parameter_address() && !a.has_best();
  };
  const bool changed = assignments.size() != assignments_.size() ||
                       !std::equal(assignments.begin(), assignments.end(),
                                   assignments_.begin(), same);
  assignments_ = std::move(assignments);
  if (changed) {
    ++version_;
    changed_.SignalAll();
  }
  return true;
}

void WorkerSession::DropAssignmentsLocked(const char* why) {
  std::vector<std::string> jobs;
  for (const v1::Assignment& assignment : assignments_) {
    jobs.push_back(assignment.job_id());
  }
  service::LogLine(
      "warning", why,
      {{"worker_id", worker_id_},
       {"stopped_jobs", absl::StrJoin(jobs, ",")},
       {"lease_ttl_ms", absl::StrCat(absl::ToInt64Milliseconds(lease_ttl_))}});
  assignments_.clear();
  ++version_;
  changed_.SignalAll();
}

absl::StatusOr<Workload> WorkerSession::FetchWorkload(
    const std::string& worker_id, const std::string& worker_secret,
    const v1::Assignment& assignment) {
  const std::string& job = assignment.job_id();
  const auto damaged = [&job](const absl::Status& status) {
    return absl::Status(status.code(), absl::StrCat("workload of ", job, ": ",
                                                    status.message()));
  };
  v1::FetchWorkloadRequest request;
  request.set_worker_id(worker_id);
  request.set_worker_secret(worker_secret);
  request.set_job_id(job);
  grpc::ClientContext context;
  // Up to a message limit's worth of bytes: more than a heartbeat's time.
  SetDeadline(&context, std::max(options_.rpc_deadline, absl::Minutes(1)));
  std::unique_ptr<grpc::ClientReader<v1::WorkloadChunk>> reader =
      stub_->FetchWorkload(&context, request);
  rpc::ChunkAssembler assembler(assignment.workload_bytes());
  v1::WorkloadChunk chunk;
  while (reader->Read(&chunk)) {  // read to the end; the status comes first
    (void)assembler.Add(chunk.offset(), chunk.total_bytes(), chunk.data());
  }
  const grpc::Status status = reader->Finish();
  if (!status.ok()) return damaged(rpc::FromGrpcStatus(status));
  absl::StatusOr<std::string> bytes =
      assembler.Finish(assignment.workload_crc32c());
  if (!bytes.ok()) return damaged(bytes.status());
  if (static_cast<int64_t>(bytes->size()) != assignment.workload_bytes()) {
    return damaged(absl::DataLossError(
        absl::StrCat("got ", bytes->size(), " bytes, the assignment said ",
                     assignment.workload_bytes())));
  }
  Workload workload;
  if (!workload.ParseFromString(*bytes)) {
    return damaged(absl::DataLossError("does not parse"));
  }
  return workload;
}

std::string WorkerSession::worker_id() const {
  absl::MutexLock lock(&mu_);
  return worker_id_;
}

v1::LeaseTicket WorkerSession::LeaseTicket(const std::string& job_id) const {
  absl::MutexLock lock(&mu_);
  const auto found = tickets_.find(job_id);
  return found == tickets_.end() ? v1::LeaseTicket() : found->second;
}

std::string WorkerSession::lease_key() const {
  absl::MutexLock lock(&mu_);
  return lease_key_;
}

std::vector<v1::Assignment> WorkerSession::Assignments() const {
  absl::MutexLock lock(&mu_);
  return assignments_;
}

int64_t WorkerSession::AwaitChange(int64_t seen, absl::Duration timeout) const {
  const absl::Time deadline = absl::Now() + timeout;
  absl::MutexLock lock(&mu_);
  while (version_ == seen && !stopping_) {
    if (changed_.WaitWithDeadline(&mu_, deadline)) break;  // timed out
  }
  return version_;
}

bool WorkerSession::LeasesLive() const {
  absl::MutexLock lock(&mu_);
  return absl::Now() < leases_end_;
}

int64_t WorkerSession::version() const {
  absl::MutexLock lock(&mu_);
  return version_;
}

int64_t WorkerSession::heartbeats() const {
  absl::MutexLock lock(&mu_);
  return heartbeats_;
}

bool WorkerSession::refused() const {
  absl::MutexLock lock(&mu_);
  return refused_;
}

void WorkerSession::SetCounters(const v1::JobCounters& counters) {
  absl::MutexLock lock(&mu_);
  v1::JobCounters& kept = counters_[counters.job_id()];
  kept = counters;
  if (kept.fatal_error().size() > kMaxHeartbeatTextBytes) {
    kept.mutable_fatal_error()->resize(kMaxHeartbeatTextBytes);
  }
}

void WorkerSession::ClearCounters(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  counters_.erase(job_id);
}

absl::StatusOr<v1::ReportSolutionResponse> WorkerSession::ReportSolution(
    const std::string& job_id, const Solution& solution,
    int64_t parameter_version) {
  v1::ReportSolutionRequest request;
  request.set_job_id(job_id);
  request.set_worker_id(worker_id());
  *request.mutable_solution() = solution;
  request.set_parameter_version(parameter_version);
  *request.mutable_lease_ticket() = LeaseTicket(job_id);
  v1::ReportSolutionResponse response;
  grpc::ClientContext context;
  SetDeadline(&context, options_.rpc_deadline);
  const grpc::Status status =
      stub_->ReportSolution(&context, request, &response);
  if (!status.ok()) return rpc::FromGrpcStatus(status);
  return response;
}

absl::StatusOr<std::string> WorkerSession::FetchJobNetwork(
    const std::string& job_id) {
  v1::FetchJobNetworkRequest request;
  {
    absl::MutexLock lock(&mu_);
    request.set_worker_id(worker_id_);
    request.set_worker_secret(worker_secret_);
  }
  request.set_job_id(job_id);
  grpc::ClientContext context;
  SetDeadline(&context, std::max(options_.rpc_deadline, absl::Minutes(2)));
  std::unique_ptr<grpc::ClientReader<v1::NetworkChunk>> reader =
      stub_->FetchJobNetwork(&context, request);
  absl::StatusOr<std::string> bytes =
      rpc::ReadNetworkStream(reader.get(), int64_t{1} << 30);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        absl::StrCat("starting network of ", job_id, ": ",
                                     bytes.status().message()));
  }
  return bytes;
}

absl::StatusOr<v1::ReportJobNetworkResponse> WorkerSession::ReportJobNetwork(
    const std::string& job_id, int64_t learner_step,
    const std::string& bytes) {
  v1::ReportJobNetworkRequest first;
  {
    absl::MutexLock lock(&mu_);
    first.set_worker_id(worker_id_);
    first.set_worker_secret(worker_secret_);
  }
  first.set_job_id(job_id);
  first.set_learner_step(learner_step);
  v1::ReportJobNetworkResponse response;
  grpc::ClientContext context;
  SetDeadline(&context, std::max(options_.rpc_deadline, absl::Minutes(2)));
  std::unique_ptr<grpc::ClientWriter<v1::ReportJobNetworkRequest>> writer =
      stub_->ReportJobNetwork(&context, &response);
  rpc::WriteNetworkStream(writer.get(), std::move(first), bytes);
  const grpc::Status status = writer->Finish();
  if (!status.ok()) {
    const absl::Status failed = rpc::FromGrpcStatus(status);
    return absl::Status(failed.code(),
                        absl::StrCat("network of ", job_id, ": ",
                                     failed.message()));
  }
  return response;
}

}  // namespace mmapzero::worker
