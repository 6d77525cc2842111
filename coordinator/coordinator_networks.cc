// The coordinator's network registry and jobs' networks: named networks
// users import, export and delete, the copy a job starts from, and the
// newest network each job's learner reports (coordinator.h).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/rpc/network_stream.h"
#include "common/rpc/parameter_client.h"
#include "common/security/sha256.h"
#include "common/service/log_line.h"
#include "coordinator/coordinator.h"
#include "coordinator/ids.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace mmapzero::coordinator {
namespace {

absl::Status CheckNetworkBytes(absl::string_view field,
                               absl::string_view bytes) {
  if (bytes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": no bytes"));
  }
  if (static_cast<int64_t>(bytes.size()) > Coordinator::kMaxNetworkBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", bytes.size(), " bytes, over the registry's limit of ",
        Coordinator::kMaxNetworkBytes));
  }
  if (!rpc::LooksLikeNetworkFile(bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        field,
        ": not a network file (a learner's network.pt is a LibTorch zip "
        "archive)"));
  }
  return absl::OkStatus();
}

std::shared_ptr<const NetworkBytes> Shared(std::string bytes) {
  auto shared = std::make_shared<NetworkBytes>();
  shared->crc32c = rpc::Crc32c(bytes);
  shared->bytes = std::move(bytes);
  return shared;
}

// SHA-256 of the workload's deterministic serialisation.
std::string WorkloadSha256(const Workload& workload) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    workload.SerializeToCodedStream(&coded);
  }
  return security::Sha256Hex(bytes);
}

}  // namespace

absl::StatusOr<std::optional<JobNetwork>>
Coordinator::ResolveStartNetworkLocked(JobRecord* job, const Caller& caller) {
  using features::NetworkReference;
  TrainingConfig* training = job->config.mutable_training();
  const std::string name = training->initial_network();
  job->initial_network = name;
  constexpr absl::string_view kField = "config.training.initial_network";
  JobNetwork start;
  start.kind = JobNetworkKind::kStart;
  start.saved_ms = NowMs();
  switch (features::ClassifyNetwork(name)) {
    case NetworkReference::kChecksum:
      return absl::InvalidArgumentError(absl::StrCat(
          kField, ": '", name,
          "': sha256: values are the coordinator's; name a registered "
          "network or a job"));
    case NetworkReference::kRegistry: {
      absl::StatusOr<v1::NetworkInfo> info = store_->GetNetworkInfo(name);
      if (absl::IsNotFound(info.status())) {
        return absl::InvalidArgumentError(
            absl::StrCat(kField, ": ", info.status().message(),
                         " (mmapctl networks list)"));
      }
      RETURN_IF_ERROR(info.status());
      ASSIGN_OR_RETURN(start.bytes, store_->GetNetworkBytes(name));
      start.lineage = *std::move(info);
      break;
    }
    case NetworkReference::kJob: {
      ASSIGN_OR_RETURN(const int64_t source, ParseJobId(kField, name));
      absl::StatusOr<std::pair<v1::NetworkInfo, std::string>> network =
          JobNetworkLocked(source, caller, "SubmitJob");
      if (absl::IsNotFound(network.status())) {
        return absl::InvalidArgumentError(
            absl::StrCat(kField, ": ", network.status().message()));
      }
      RETURN_IF_ERROR(network.status());
      start.lineage = std::move(network->first);
      start.bytes = std::move(network->second);
      break;
    }
    default:
      return std::nullopt;  // the learner reads a file or the default
  }
  start.sha256 = security::Sha256Hex(start.bytes);
  start.learner_step = start.lineage.learner_steps();
  training->set_initial_network(
      absl::StrCat(features::kNetworkChecksumPrefix, start.sha256));
  return start;
}

absl::StatusOr<std::pair<v1::NetworkInfo, std::string>>
Coordinator::JobNetworkLocked(int64_t job_id, const Caller& caller,
                              absl::string_view method) {
  ASSIGN_OR_RETURN(const JobRecord job, OwnedJobLocked(job_id, caller, method));
  absl::StatusOr<JobNetwork> latest =
      store_->GetJobNetwork(job_id, JobNetworkKind::kLatest, true);
  if (absl::IsNotFound(latest.status())) {
    return absl::NotFoundError(absl::StrCat(
        FormatJobId(job_id),
        " has no network yet (its learner reports one at each checkpoint "
        "and when it stops)"));
  }
  RETURN_IF_ERROR(latest.status());
  // What it descends from: the job's start, when that came from the
  // registry or another job (a file or the default leaves no lineage).
  v1::NetworkInfo info;
  const absl::StatusOr<JobNetwork> start =
      store_->GetJobNetwork(job_id, JobNetworkKind::kStart, false);
  if (start.ok()) {
    info = start->lineage;
  } else if (!absl::IsNotFound(start.status())) {
    return start.status();
  }
  const int64_t inherited = info.learner_steps();
  ASSIGN_OR_RETURN(const std::shared_ptr<const Workload> workload,
                   WorkloadLocked(job_id));
  v1::TrainedOn* own = info.add_trained_on();
  own->set_workload_name(workload->name());
  own->set_workload_sha256(WorkloadSha256(*workload));
  own->set_hardware_profile(workload->hardware().name());
  own->set_job_id(FormatJobId(job_id));
  // A learner that starts from a network counts its own steps from 0.
  own->set_learner_steps(latest->learner_step);
  info.set_learner_steps(inherited + own->learner_steps());
  info.set_sha256(latest->sha256);
  info.set_size_bytes(static_cast<int64_t>(latest->bytes.size()));
  info.set_source(FormatJobId(job_id));
  info.clear_name();
  info.clear_owner();
  info.set_created_unix_ms(latest->saved_ms);
  return std::make_pair(std::move(info), std::move(latest->bytes));
}

absl::StatusOr<v1::ListNetworksResponse> Coordinator::ListNetworks() {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(std::vector<v1::NetworkInfo> networks,
                   store_->ListNetworks());
  v1::ListNetworksResponse response;
  for (v1::NetworkInfo& info : networks) {
    *response.add_networks() = std::move(info);
  }
  return response;
}

absl::StatusOr<std::pair<v1::NetworkInfo, std::string>>
Coordinator::NamedNetworkLocked(const std::string& name, bool with_bytes,
                                const Caller& caller,
                                absl::string_view method) {
  if (features::ClassifyNetwork(name) == features::NetworkReference::kJob) {
    ASSIGN_OR_RETURN(const int64_t job_id, ParseJobId("name", name));
    ASSIGN_OR_RETURN(auto network, JobNetworkLocked(job_id, caller, method));
    network.first.set_name(name);
    return network;
  }
  RETURN_IF_ERROR(features::CheckNetworkName(name));
  std::pair<v1::NetworkInfo, std::string> network;
  ASSIGN_OR_RETURN(network.first, store_->GetNetworkInfo(name));
  if (with_bytes) {
    ASSIGN_OR_RETURN(network.second, store_->GetNetworkBytes(name));
  }
  return network;
}

absl::StatusOr<v1::NetworkInfo> Coordinator::GetNetwork(
    const v1::GetNetworkRequest& request, const Caller& caller) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(auto network, NamedNetworkLocked(request.name(), false,
                                                    caller, "GetNetwork"));
  return std::move(network.first);
}

absl::StatusOr<std::shared_ptr<const NetworkBytes>> Coordinator::ExportNetwork(
    const std::string& name, const Caller& caller) {
  std::string bytes;
  {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckOpenLocked());
    ASSIGN_OR_RETURN(auto network,
                     NamedNetworkLocked(name, true, caller, "ExportNetwork"));
    bytes = std::move(network.second);
  }
  return Shared(std::move(bytes));
}

absl::StatusOr<v1::NetworkInfo> Coordinator::ImportNetwork(
    const v1::ImportNetworkRequest& request, std::string bytes,
    const Caller& caller) {
  const v1::NetworkInfo& asked = request.info();
  RETURN_IF_ERROR(features::CheckNetworkName(asked.name(), "info.name"));
  if (asked.description().size() > 4096) {
    return absl::InvalidArgumentError(absl::StrCat(
        "info.description: ", asked.description().size(),
        " characters, at most 4096"));
  }
  if (asked.trained_on_size() > 10'000) {
    return absl::InvalidArgumentError(
        absl::StrCat("info.trained_on: ", asked.trained_on_size(),
                     " entries, at most 10000"));
  }
  for (int i = 0; i < asked.trained_on_size(); ++i) {
    const v1::TrainedOn& entry = asked.trained_on(i);
    if (!entry.workload_sha256().empty() &&
        !security::IsSha256Hex(entry.workload_sha256())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "info.trained_on[", i, "].workload_sha256: not 64 lowercase hex "
          "digits"));
    }
    if (entry.workload_name().size() > 1024 ||
        entry.hardware_profile().size() > 256 || entry.job_id().size() > 64) {
      return absl::InvalidArgumentError(absl::StrCat(
          "info.trained_on[", i, "]: a name over its length limit"));
    }
  }
  if (!request.from_job().empty() && !bytes.empty()) {
    return absl::InvalidArgumentError(
        "from_job: a job's network or a file's bytes, not both");
  }
  v1::NetworkInfo info;
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  if (!request.from_job().empty()) {
    ASSIGN_OR_RETURN(const int64_t job_id,
                     ParseJobId("from_job", request.from_job()));
    ASSIGN_OR_RETURN(auto network,
                     JobNetworkLocked(job_id, caller, "ImportNetwork"));
    info = std::move(network.first);
    bytes = std::move(network.second);
  } else {
    RETURN_IF_ERROR(CheckNetworkBytes("chunk", bytes));
    info.mutable_trained_on()->CopyFrom(asked.trained_on());
    for (const v1::TrainedOn& entry : asked.trained_on()) {
      info.set_learner_steps(info.learner_steps() + entry.learner_steps());
    }
    info.set_sha256(security::Sha256Hex(bytes));
    info.set_size_bytes(static_cast<int64_t>(bytes.size()));
    info.set_source("import");
  }
  if (!asked.sha256().empty() && asked.sha256() != info.sha256()) {
    return absl::InvalidArgumentError(
        absl::StrCat("info.sha256: ", asked.sha256().substr(0, 64),
                     " does not match the bytes received (", info.sha256(),
                     ")"));
  }
  info.set_name(asked.name());
  info.set_description(asked.description());
  info.set_owner(caller.identity);
  info.set_created_unix_ms(NowMs());
  RETURN_IF_ERROR(store_->PutNetwork(info, bytes));
  service::LogLine("info", "network_registered",
                   {{"name", info.name()},
                    {"source", info.source()},
                    {"sha256", info.sha256()},
                    {"owner", info.owner()}});
  Audit("network_registered", caller,
        {{"name", info.name()},
         {"source", info.source()},
         {"sha256", info.sha256()}});
  return info;
}

absl::StatusOr<v1::DeleteNetworkResponse> Coordinator::DeleteNetwork(
    const v1::DeleteNetworkRequest& request, const Caller& caller) {
  RETURN_IF_ERROR(features::CheckNetworkName(request.name()));
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(const v1::NetworkInfo info,
                   store_->GetNetworkInfo(request.name()));
  if (!caller.Owns(info.owner())) {
    return absl::PermissionDeniedError(absl::StrCat(
        "network '", info.name(), "' belongs to '", info.owner(),
        "'; only its owner or an admin may delete it"));
  }
  RETURN_IF_ERROR(store_->DeleteNetwork(request.name()).status());
  service::LogLine("info", "network_deleted",
                   {{"name", info.name()}, {"by", caller.identity}});
  Audit("network_deleted", caller, {{"name", info.name()}});
  return v1::DeleteNetworkResponse();
}

absl::Status Coordinator::CheckJobLearnerLocked(int64_t job_id,
                                               int64_t worker_id,
                                               const std::string& worker_text,
                                               absl::string_view what) {
  RETURN_IF_ERROR(CheckOpenLocked());
  RETURN_IF_ERROR(JobLocked(job_id).status());
  if (IsJobLearnerLocked(job_id, worker_id)) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("worker_id: ", worker_text, " is not the learner of ",
                   FormatJobId(job_id), "; only a job's learner may ", what));
}

bool Coordinator::IsJobLearnerLocked(int64_t job_id, int64_t worker_id) {
  const absl::StatusOr<std::vector<Lease>> leases = store_->ListLeases();
  const int64_t now = NowMs();
  if (leases.ok() &&
      std::any_of(leases->begin(), leases->end(), [&](const Lease& lease) {
        return lease.job_id == job_id && lease.worker_id == worker_id &&
               lease.role == v1::WORKER_ROLE_LEARNER && lease.expiry_ms > now;
      })) {
    return true;
  }
  const auto ended = ended_learners_.find(job_id);
  return ended != ended_learners_.end() &&
         ended->second.worker_id == worker_id &&
         now - ended->second.ended_ms < kLateNetworkReportMs;
}

absl::StatusOr<std::shared_ptr<const NetworkBytes>>
Coordinator::StartNetworkForWorker(const std::string& worker_text,
                                   const std::string& job_text) {
  ASSIGN_OR_RETURN(const int64_t worker_id,
                   ParseWorkerId("worker_id", worker_text));
  ASSIGN_OR_RETURN(const int64_t job_id, ParseJobId("job_id", job_text));
  std::string bytes;
  {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckJobLearnerLocked(job_id, worker_id, worker_text,
                                          "fetch its starting network"));
    ASSIGN_OR_RETURN(JobNetwork start, store_->GetJobNetwork(
                                           job_id, JobNetworkKind::kStart,
                                           /*with_bytes=*/true));
    bytes = std::move(start.bytes);
  }
  return Shared(std::move(bytes));
}

absl::StatusOr<v1::ReportJobNetworkResponse> Coordinator::ReportJobNetwork(
    const std::string& worker_text, const std::string& job_text,
    int64_t learner_step, std::string bytes) {
  ASSIGN_OR_RETURN(const int64_t worker_id,
                   ParseWorkerId("worker_id", worker_text));
  ASSIGN_OR_RETURN(const int64_t job_id, ParseJobId("job_id", job_text));
  if (learner_step < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("learner_step: ", learner_step, " is negative"));
  }
  RETURN_IF_ERROR(CheckNetworkBytes("chunk", bytes));
  JobNetwork network;
  network.job_id = job_id;
  network.kind = JobNetworkKind::kLatest;
  network.sha256 = security::Sha256Hex(bytes);
  network.learner_step = learner_step;
  network.bytes = std::move(bytes);
  v1::ReportJobNetworkResponse response;
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckJobLearnerLocked(job_id, worker_id, worker_text,
                                        "report its network"));
  const absl::StatusOr<JobNetwork> kept =
      store_->GetJobNetwork(job_id, JobNetworkKind::kLatest, false);
  if (kept.ok() && kept->learner_step > learner_step) {
    response.set_reason(absl::StrCat("the network kept is of step ",
                                     kept->learner_step, ", newer than ",
                                     learner_step));
    return response;
  }
  if (!kept.ok() && !absl::IsNotFound(kept.status())) return kept.status();
  network.saved_ms = NowMs();
  RETURN_IF_ERROR(store_->PutJobNetwork(network));
  NoteChangeLocked(job_id);
  response.set_accepted(true);
  return response;
}

}  // namespace mmapzero::coordinator
