#include "cli/job_client.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "cli/local_cluster.h"
#include "common/base/address_file.h"
#include "common/base/random_hex.h"
#include "common/base/status_macros.h"
#include "common/rpc/backoff.h"
#include "common/rpc/client_channel.h"
#include "common/rpc/enum_names.h"
#include "common/rpc/grpc_status.h"
#include "common/rpc/network_stream.h"
#include "common/security/local_certificates.h"
#include "common/security/sha256.h"
#include "common/security/transport_security.h"
#include "google/protobuf/util/json_util.h"

namespace mmapzero::cli {
namespace {

constexpr absl::Duration kDefaultDeadline = absl::Seconds(30);
// Moving a network file (up to the registry's 256 MiB) takes longer.
constexpr absl::Duration kNetworkTransferDeadline = absl::Minutes(5);
constexpr absl::Duration kWatchReconnectFor = absl::Minutes(1);

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

}  // namespace

std::set<std::string> WithClientFlags(std::set<std::string> value_flags) {
  value_flags.insert({"coordinator", "data-dir", "timeout", "tls-ca",
                      "tls-cert", "tls-key", "tls-server-name",
                      "bearer-token-file"});
  return value_flags;
}

absl::Status UseClientTransportSecurity(const CommandLine& line) {
  security::TransportSecurityFiles files;
  files.ca = line.GetString("tls-ca", "");
  files.cert = line.GetString("tls-cert", "");
  files.key = line.GetString("tls-key", "");
  const std::string local = LocalCertificateDir(DataDir(line));
  if (files.ca.empty() && files.cert.empty() && files.key.empty() &&
      std::filesystem::exists(local + "/ca.pem")) {
    files = security::CertificateDirFiles(local, "client");
  }
  files.server_name = line.GetString("tls-server-name", "");
  files.bearer_token_file = line.GetString("bearer-token-file", "");
  ASSIGN_OR_RETURN(security::TransportSecurity security,
                   security::LoadTransportSecurity(files));
  security::SetProcessTransportSecurity(std::move(security));
  return absl::OkStatus();
}

std::string DataDir(const CommandLine& line) {
  if (line.Has("data-dir")) return line.GetString("data-dir", "");
  if (std::string dir = Env("MMAPZERO_DATA_DIR"); !dir.empty()) return dir;
  if (std::string home = Env("HOME"); !home.empty()) {
    return home + "/.mmapzero";
  }
  return "mmapzero-data";
}

absl::StatusOr<std::string> CoordinatorAddress(const CommandLine& line) {
  if (line.Has("coordinator")) {
    std::string address = line.GetString("coordinator", "");
    if (address.empty()) {
      return absl::InvalidArgumentError("--coordinator: empty address");
    }
    return address;
  }
  if (std::string address = Env("MMAPZERO_COORDINATOR"); !address.empty()) {
    return address;
  }
  const std::string file = DataDir(line) + "/coordinator.addr";
  absl::StatusOr<std::string> address = ReadAddressFile(file);
  if (absl::IsNotFound(address.status())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no coordinator address: pass --coordinator HOST:PORT, set "
        "$MMAPZERO_COORDINATOR, or start a local cluster with `mmapctl local "
        "up` (looked for ",
        file, ")"));
  }
  return address;
}

absl::StatusOr<absl::Duration> ParseDurationFlag(const std::string& flag,
                                                 const std::string& text) {
  absl::Duration duration;
  double seconds;
  if (absl::SimpleAtod(text, &seconds) && std::isfinite(seconds)) {
    duration = absl::Seconds(seconds);
  } else if (!absl::ParseDuration(text, &duration)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": not a duration: '", text,
                     "' (e.g. 90s, 10m, 24h, 1500ms, 90)"));
  }
  if (duration <= absl::ZeroDuration() ||
      duration == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": must be > 0 and finite, got '", text, "'"));
  }
  return duration;
}

absl::StatusOr<int64_t> WallSecondsFlag(const std::string& flag,
                                        const std::string& text) {
  ASSIGN_OR_RETURN(const absl::Duration wall, ParseDurationFlag(flag, text));
  const int64_t seconds =
      absl::ToInt64Seconds(absl::Ceil(wall, absl::Seconds(1)));
  constexpr int64_t kMaxWallSeconds = 24 * 60 * 60;  // the service's limit
  if (seconds > kMaxWallSeconds) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": at most 24h, got '", text, "'"));
  }
  return seconds;
}

absl::StatusOr<int64_t> BudgetSecondsFlag(const CommandLine& line,
                                          const char* usage) {
  ASSIGN_OR_RETURN(const std::string text, line.GetRequired("budget", usage));
  return WallSecondsFlag("budget", text);
}

std::string DescribeSeed(const v1::JobStatus& job) {
  if (job.state() == v1::JOB_STATE_SEEDING) {
    return "heuristic seed solve queued";
  }
  return absl::StrFormat("heuristic seed normalised return %.4f",
                         job.heuristic_normalised_return());
}

std::string CompactJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(message, &json, options)
           .ok()) {
    return "{}";
  }
  return json;
}

absl::StatusOr<std::unique_ptr<JobClient>> JobClient::Connect(
    const CommandLine& line) {
  absl::Duration deadline = kDefaultDeadline;
  if (line.Has("timeout")) {
    ASSIGN_OR_RETURN(
        deadline, ParseDurationFlag("timeout", line.GetString("timeout", "")));
  }
  ASSIGN_OR_RETURN(std::string address, CoordinatorAddress(line));
  RETURN_IF_ERROR(UseClientTransportSecurity(line));
  return std::make_unique<JobClient>(std::move(address), deadline);
}

JobClient::JobClient(std::string address, absl::Duration deadline)
    : address_(std::move(address)), deadline_(deadline) {
  const std::shared_ptr<grpc::Channel> channel =
      rpc::MakeClientChannel(address_);
  stub_ = v1::JobService::NewStub(channel);
  networks_ = v1::NetworkRegistry::NewStub(channel);
}

void JobClient::SetDeadline(grpc::ClientContext* context,
                            absl::Duration at_least) const {
  context->set_deadline(
      std::chrono::system_clock::now() +
      absl::ToChronoMilliseconds(std::max(deadline_, at_least)));
}

absl::Status JobClient::Error(const grpc::Status& status,
                              const std::string& job_id) const {
  const std::string& message = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return absl::OkStatus();
    case grpc::StatusCode::NOT_FOUND:
      if (!job_id.empty()) {
        return absl::NotFoundError(absl::StrCat(
            "no job '", job_id, "' on the coordinator at ", address_));
      }
      break;
    case grpc::StatusCode::UNAVAILABLE:
      return absl::UnavailableError(absl::StrCat(
          "no coordinator at ", address_, " (", message,
          "); is it running? `mmapctl local status` shows a local cluster",
          security::ProcessTransportSecurity()->tls()
              ? "; a TLS handshake that fails (another CA) shows the same"
              : "; if it takes TLS, give --tls-ca, --tls-cert and --tls-key"));
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
      return absl::Status(
          status.error_code() == grpc::StatusCode::UNAUTHENTICATED
              ? absl::StatusCode::kUnauthenticated
              : absl::StatusCode::kPermissionDenied,
          absl::StrCat("the coordinator at ", address_,
                       " refused the call: ", message));
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return absl::DeadlineExceededError(
          absl::StrCat("the coordinator at ", address_, " did not answer in ",
                       absl::FormatDuration(deadline_), " (--timeout)"));
    default:
      break;
  }
  return absl::Status(
      static_cast<absl::StatusCode>(status.error_code()),
      job_id.empty() ? message : absl::StrCat(job_id, ": ", message));
}

template <typename Stub, typename Request, typename Response>
absl::StatusOr<Response> JobClient::Call(
    Stub& stub,
    grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&,
                                 Response*),
    const Request& request, const std::string& job_id) {
  grpc::ClientContext context;
  SetDeadline(&context);
  Response response;
  RETURN_IF_ERROR(Error((stub.*method)(&context, request, &response), job_id));
  return response;
}

std::string NewRequestId() { return "mmapctl-" + RandomHex128(); }

absl::StatusOr<v1::SubmitJobResponse> JobClient::Submit(
    v1::SubmitJobRequest request) {
  if (request.request_id().empty()) request.set_request_id(NewRequestId());
  absl::Duration wait = absl::Seconds(1);
  for (int attempt = 1;; ++attempt) {
    absl::StatusOr<v1::SubmitJobResponse> response =
        Call(&v1::JobService::Stub::SubmitJob, request, "");
    const bool lost = absl::IsUnavailable(response.status()) ||
                      absl::IsDeadlineExceeded(response.status());
    if (!lost || attempt == kSubmitAttempts) {
      if (!response.ok()) return response;
      return AwaitSeeded(*std::move(response));
    }
    // The answer was lost, perhaps after the job was made: the same
    // request_id gets that job back instead of a second one.
    absl::SleepFor(wait);
    wait *= 2;
  }
}

v1::SubmitJobResponse JobClient::AwaitSeeded(v1::SubmitJobResponse submitted) {
  const absl::Time give_up = absl::Now() + deadline_;
  while (submitted.job().state() == v1::JOB_STATE_SEEDING &&
         absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(100));
    absl::StatusOr<v1::JobStatus> now = Get(submitted.job_id());
    if (!now.ok()) break;  // the job exists; say what the submit said
    *submitted.mutable_job() = *std::move(now);
  }
  return submitted;
}

absl::StatusOr<v1::ListJobsResponse> JobClient::List(
    const v1::ListJobsRequest& request) {
  return Call(&v1::JobService::Stub::ListJobs, request, "");
}

absl::StatusOr<v1::JobStatus> JobClient::Get(const std::string& job_id) {
  v1::GetJobRequest request;
  request.set_job_id(job_id);
  return Call(&v1::JobService::Stub::GetJob, request, job_id);
}

absl::StatusOr<v1::JobStatus> JobClient::Cancel(const std::string& job_id,
                                                const std::string& reason) {
  v1::CancelJobRequest request;
  request.set_job_id(job_id);
  request.set_reason(reason);
  return Call(&v1::JobService::Stub::CancelJob, request, job_id);
}

absl::StatusOr<v1::DeleteJobResponse> JobClient::Delete(
    const std::string& job_id) {
  v1::DeleteJobRequest request;
  request.set_job_id(job_id);
  return Call(&v1::JobService::Stub::DeleteJob, request, job_id);
}

absl::StatusOr<v1::JobStatus> JobClient::Extend(const std::string& job_id,
                                                int64_t wall_seconds) {
  v1::ExtendJobRequest request;
  request.set_job_id(job_id);
  request.set_wall_seconds(wall_seconds);
  return Call(&v1::JobService::Stub::ExtendJob, request, job_id);
}

absl::StatusOr<v1::ResumeJobResponse> JobClient::Resume(
    const std::string& job_id, int64_t wall_seconds) {
  v1::ResumeJobRequest request;
  request.set_job_id(job_id);
  request.set_wall_seconds(wall_seconds);
  return Call(&v1::JobService::Stub::ResumeJob, request, job_id);
}

absl::StatusOr<v1::JobDetails> JobClient::Details(const std::string& job_id) {
  v1::GetJobDetailsRequest request;
  request.set_job_id(job_id);
  return Call(&v1::JobService::Stub::GetJobDetails, request, job_id);
}

absl::StatusOr<v1::GetBestSolutionResponse> JobClient::Best(
    const std::string& job_id) {
  v1::GetBestSolutionRequest request;
  request.set_job_id(job_id);
  request.set_include_workload(true);
  return Call(&v1::JobService::Stub::GetBestSolution, request, job_id);
}

absl::Status JobClient::Watch(
    const std::string& job_id, absl::Duration max_wait,
    const std::function<void(const v1::JobProgress&)>& on_progress) {
  const absl::Time end = absl::Now() + max_wait;
  rpc::Backoff backoff;
  bool received_any = false;
  absl::Time reconnect_until = absl::InfiniteFuture();
  while (true) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(end));
    v1::WatchJobRequest request;
    request.set_job_id(job_id);
    std::unique_ptr<grpc::ClientReader<v1::JobProgress>> reader =
        stub_->WatchJob(&context, request);
    v1::JobProgress progress;
    bool final = false;
    while (reader->Read(&progress)) {
      received_any = true;
      reconnect_until = absl::InfiniteFuture();
      backoff.Reset();
      final = rpc::IsFinalJobState(progress.job().state());
      on_progress(progress);
    }
    const grpc::Status status = reader->Finish();
    if (final || (status.ok() && received_any)) return absl::OkStatus();
    if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      return absl::DeadlineExceededError(
          absl::StrCat("watch of ", job_id, ": still not final after ",
                       absl::FormatDuration(max_wait), " (--for)"));
    }
    // A coordinator that restarts ends the stream with UNAVAILABLE: watch
    // again, for a while, if it was there before.
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE || !received_any) {
      return Error(status, job_id);
    }
    if (reconnect_until == absl::InfiniteFuture()) {
      reconnect_until = absl::Now() + kWatchReconnectFor;
    }
    if (absl::Now() >= std::min(reconnect_until, end)) {
      return Error(status, job_id);
    }
    absl::SleepFor(backoff.Next());
  }
}

absl::StatusOr<v1::ListNetworksResponse> JobClient::ListNetworks() {
  return Call(*networks_, &v1::NetworkRegistry::Stub::ListNetworks,
              v1::ListNetworksRequest(), "");
}

absl::StatusOr<v1::NetworkInfo> JobClient::GetNetwork(const std::string& name) {
  v1::GetNetworkRequest request;
  request.set_name(name);
  return Call(*networks_, &v1::NetworkRegistry::Stub::GetNetwork, request, "");
}

absl::StatusOr<std::string> JobClient::ExportNetwork(const std::string& name) {
  v1::ExportNetworkRequest request;
  request.set_name(name);
  grpc::ClientContext context;
  SetDeadline(&context, kNetworkTransferDeadline);
  std::unique_ptr<grpc::ClientReader<v1::NetworkChunk>> reader =
      networks_->ExportNetwork(&context, request);
  absl::StatusOr<std::string> bytes =
      rpc::ReadNetworkStream(reader.get(), int64_t{1} << 30);
  if (!bytes.ok() && bytes.status().code() != absl::StatusCode::kDataLoss) {
    return Error(rpc::ToGrpcStatus(bytes.status()), "");
  }
  return bytes;
}

absl::StatusOr<std::pair<v1::NetworkInfo, std::string>>
JobClient::FetchNetwork(const std::string& name) {
  ASSIGN_OR_RETURN(v1::NetworkInfo info, GetNetwork(name));
  ASSIGN_OR_RETURN(std::string bytes, ExportNetwork(name));
  if (security::Sha256Hex(bytes) != info.sha256()) {
    return absl::DataLossError(absl::StrCat(
        "network '", name, "': the bytes received do not match its sha256 ",
        info.sha256()));
  }
  return std::make_pair(std::move(info), std::move(bytes));
}

absl::StatusOr<v1::NetworkInfo> JobClient::ImportNetwork(
    v1::ImportNetworkRequest first, const std::string& bytes) {
  grpc::ClientContext context;
  SetDeadline(&context, kNetworkTransferDeadline);
  v1::NetworkInfo info;
  std::unique_ptr<grpc::ClientWriter<v1::ImportNetworkRequest>> writer =
      networks_->ImportNetwork(&context, &info);
  if (bytes.empty()) {
    writer->Write(first);
    writer->WritesDone();
  } else {
    rpc::WriteNetworkStream(writer.get(), std::move(first), bytes);
  }
  RETURN_IF_ERROR(Error(writer->Finish(), ""));
  return info;
}

absl::Status JobClient::DeleteNetwork(const std::string& name) {
  v1::DeleteNetworkRequest request;
  request.set_name(name);
  return Call(*networks_, &v1::NetworkRegistry::Stub::DeleteNetwork, request,
              "")
      .status();
}

}  // namespace mmapzero::cli
