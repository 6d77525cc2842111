#include "coordinator/request_checks.h"

#include <initializer_list>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/base/plain_name.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/workload/workload_check.h"
#include "worker/worker_session.h"

namespace mmapzero::coordinator {
namespace {

constexpr int32_t kMaxCapacity = 1024;
// Loss terms a learner reports (four today); a job id, a term's name or a
// fatal error, which the coordinator stores, is at most
// worker::kMaxHeartbeatTextBytes.
constexpr int kMaxLossTerms = 64;
constexpr size_t kMaxTextBytes = worker::kMaxHeartbeatTextBytes;

absl::Status NonNegative(absl::string_view field, int64_t value) {
  if (value >= 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": must be >= 0, got ", value));
}

// InvalidArgument naming `prefix` and the first of `fields` (name, text)
// longer than kMaxTextBytes.
absl::Status CheckTextSizes(
    const std::string& prefix,
    std::initializer_list<std::pair<const char*, const std::string*>> fields) {
  for (const auto& [field, text] : fields) {
    if (text->size() > kMaxTextBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(prefix, field, ": at most ", kMaxTextBytes, " bytes"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::Budget> CheckBudget(const v1::Budget& budget) {
  if (budget.wall_seconds() < 0 || budget.wall_seconds() > kMaxWallSeconds) {
    return absl::InvalidArgumentError(
        absl::StrCat("budget.wall_seconds: must be in [0, ", kMaxWallSeconds,
                     "] (0: the maximum), got ", budget.wall_seconds()));
  }
  if (absl::Status status =
          NonNegative("budget.learner_steps", budget.learner_steps());
      !status.ok()) {
    return status;
  }
  v1::Budget checked = budget;
  if (checked.wall_seconds() == 0) checked.set_wall_seconds(kMaxWallSeconds);
  return checked;
}

absl::StatusOr<MuZeroConfig> TrainingConfigOf(
    const v1::SubmitJobRequest& request) {
  switch (request.training_case()) {
    case v1::SubmitJobRequest::kConfig: {
      const absl::Status status = features::CheckMuZeroConfig(request.config());
      if (!status.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("config: ", status.message()));
      }
      return request.config();
    }
    case v1::SubmitJobRequest::kPreset: {
      absl::StatusOr<MuZeroConfig> config =
          features::PresetByName(request.preset());
      if (!config.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("preset: ", config.status().message()));
      }
      return config;
    }
    case v1::SubmitJobRequest::TRAINING_NOT_SET:
      break;
  }
  return features::CpuPreset();
}

absl::Status CheckShownText(absl::string_view field, const std::string& text,
                            size_t max_bytes) {
  if (text.size() > max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": at most ", max_bytes, " bytes, got ", text.size()));
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": no control characters, got ",
                       static_cast<int>(c), " at byte ", i));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckSubmittedWorkload(const v1::SubmitJobRequest& request) {
  const std::string& key = request.request_id();
  if (key.size() > kMaxRequestIdLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("request_id: at most ", kMaxRequestIdLength,
                     " characters, got ", key.size()));
  }
  if (!IsPlainName(key)) {
    return absl::InvalidArgumentError(
        "request_id: only letters, digits, '.', '_' and '-'");
  }
  RETURN_IF_ERROR(CheckShownText("name", request.name(), kMaxJobNameBytes));
  if (!request.has_workload()) {
    return absl::InvalidArgumentError("workload: required");
  }
  const absl::Status status = CheckWorkload(request.workload());
  if (status.ok()) return status;
  return absl::InvalidArgumentError(
      absl::StrCat("workload.", status.message()));
}

std::string JobNameOf(const v1::SubmitJobRequest& request) {
  if (!request.name().empty()) return request.name();
  const std::string& name = request.workload().name();
  if (name.size() <= kMaxJobNameBytes) return name;
  size_t end = kMaxJobNameBytes;
  // Not inside a character: back over continuation bytes (10xxxxxx).
  while (end > 0 && (static_cast<unsigned char>(name[end]) & 0xc0) == 0x80) {
    --end;
  }
  return name.substr(0, end);
}

absl::Status CheckListJobs(const v1::ListJobsRequest& request) {
  // Each state once is all a filter can say.
  constexpr int kMaxStates = 16;
  if (request.states_size() > kMaxStates) {
    return absl::InvalidArgumentError(absl::StrCat(
        "states: at most ", kMaxStates, " entries, got ",
        request.states_size()));
  }
  for (int i = 0; i < request.states_size(); ++i) {
    if (!v1::JobState_IsValid(request.states(i)) ||
        request.states(i) == v1::JOB_STATE_UNSPECIFIED) {
      return absl::InvalidArgumentError(absl::StrCat(
          "states[", i, "]: not a job state, got ", request.states(i)));
    }
  }
  return NonNegative("limit", request.limit());
}

absl::Status CheckRegister(const v1::RegisterRequest& request) {
  const v1::WorkerRole role = request.role();
  if (!v1::WorkerRole_IsValid(role) || role == v1::WORKER_ROLE_UNSPECIFIED) {
    return absl::InvalidArgumentError(absl::StrCat(
        "role: must be ACTOR, LEARNER, REANALYSE or REPLAY, got ", role));
  }
  if (request.capacity() < 0 || request.capacity() > kMaxCapacity) {
    return absl::InvalidArgumentError(
        absl::StrCat("capacity: must be in [0, ", kMaxCapacity,
                     "] (0: 1), got ", request.capacity()));
  }
  RETURN_IF_ERROR(CheckShownText("name", request.name(), kMaxWorkerTextBytes));
  RETURN_IF_ERROR(
      CheckShownText("address", request.address(), kMaxWorkerTextBytes));
  if (request.address().empty() &&
      (role == v1::WORKER_ROLE_LEARNER || role == v1::WORKER_ROLE_REPLAY)) {
    return absl::InvalidArgumentError(
        absl::StrCat("address: required for a ", v1::WorkerRole_Name(role),
                     " (the host:port of the service it serves)"));
  }
  return absl::OkStatus();
}

absl::Status CheckHeartbeat(const v1::HeartbeatRequest& request) {
  // A worker reports at most the jobs its capacity lets it hold; every entry
  // costs the coordinator a lookup and a write under its lock.
  if (request.jobs_size() > kMaxCapacity) {
    return absl::InvalidArgumentError(absl::StrCat(
        "jobs: at most ", kMaxCapacity, " entries, got ", request.jobs_size()));
  }
  for (int i = 0; i < request.jobs_size(); ++i) {
    const v1::JobCounters& c = request.jobs(i);
    const std::string prefix = absl::StrCat("jobs[", i, "].");
    if (c.losses_size() > kMaxLossTerms) {
      return absl::InvalidArgumentError(
          absl::StrCat(prefix, "losses: at most ", kMaxLossTerms,
                       " terms, got ", c.losses_size()));
    }
    for (const auto& [term, value] : c.losses()) {
      if (term.size() > kMaxTextBytes) {
        return absl::InvalidArgumentError(absl::StrCat(
            prefix, "losses: a term name of ", term.size(), " bytes"));
      }
    }
    RETURN_IF_ERROR(CheckTextSizes(
        prefix, {{"job_id", &c.job_id()},
                 {"fatal_error", &c.fatal_error()},
                 {"checkpoint_fallback", &c.checkpoint_fallback()}}));
    for (const auto& [name, value] :
         {std::pair<const char*, int64_t>{"games", c.games()},
          {"moves", c.moves()},
          {"simulations", c.simulations()},
          {"reanalysed", c.reanalysed()},
          {"learner_step", c.learner_step()},
          {"parameter_version", c.parameter_version()},
          {"best_starts", c.best_starts()},
          {"followed_moves", c.followed_moves()},
          {"rejoined", c.rejoined()},
          {"unchanged", c.unchanged()},
          {"best_start_window", c.best_start_window()}}) {
      if (absl::Status status = NonNegative(absl::StrCat(prefix, name), value);
          !status.ok()) {
        return status;
      }
    }
  }
  if (request.stored_jobs_size() > worker::kMaxStoredJobsPerHeartbeat) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stored_jobs: at most ", worker::kMaxStoredJobsPerHeartbeat,
        " entries, got ", request.stored_jobs_size()));
  }
  for (int i = 0; i < request.stored_jobs_size(); ++i) {
    const v1::StoredJob& job = request.stored_jobs(i);
    RETURN_IF_ERROR(CheckTextSizes(
        absl::StrCat("stored_jobs[", i, "]."),
        {{"job_id", &job.job_id()}, {"job_uid", &job.job_uid()}}));
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::coordinator
