#include "learner/learner_worker.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/address_file.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/game/program.h"
#include "common/rpc/grpc_server.h"
#include "common/security/sha256.h"
#include "common/service/log_line.h"
#include "learner/replay_sampler.h"
#include "learner/supervised_learner_job.h"
#include "learner/training_device.h"
#include "worker/prefetch_queue.h"

namespace mmapzero::learner {

using service::LogLine;

namespace {

const std::vector<std::string>& ServiceNames() {
  static const auto* names =
      new std::vector<std::string>{"mmapzero.v1.ParameterService"};
  return *names;
}

}  // namespace

absl::Status CheckLearnerWorkerOptions(const LearnerWorkerOptions& options) {
  if (options.coordinator.empty()) {
    return absl::InvalidArgumentError("--coordinator: required");
  }
  if (options.data_dir.empty()) {
    return absl::InvalidArgumentError("--data-dir: required");
  }
  if (options.publish_interval < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--publish-interval: must be >= 1, got ", options.publish_interval));
  }
  if (options.max_chunk_bytes < 1 || options.max_chunk_bytes > (16 << 20)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max-chunk-bytes: must be 1 to ", 16 << 20, ", got ",
                     options.max_chunk_bytes));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<LearnerWorker>> LearnerWorker::Start(
    LearnerWorkerOptions options) {
  RETURN_IF_ERROR(CheckLearnerWorkerOptions(options));
  std::unique_ptr<LearnerWorker> worker(new LearnerWorker(std::move(options)));
  const LearnerWorkerOptions& o = worker->options_;
  ASSIGN_OR_RETURN(worker->metrics_, LearnerMetrics::Start(o.metrics_listen));
  ASSIGN_OR_RETURN(worker->device_, ResolveDeviceName(o.device));
  worker->metrics_->SetDevice(worker->device_);
  worker->parameter_service_ = std::make_unique<ParameterServiceImpl>(
      &worker->parameters_,
      ParameterServiceOptions{.default_chunk_bytes = o.max_chunk_bytes},
      worker->metrics_.get());
  ASSIGN_OR_RETURN(
      rpc::StartedServer started,
      rpc::StartGrpcServer({.listen = o.listen,
                            .services = {worker->parameter_service_.get()},
                            .service_names = ServiceNames()}));
  worker->server_ = std::move(started.server);
  worker->port_ = started.port;
  worker->address_ = o.advertise.empty()
                         ? DialableAddress(o.listen, worker->port_)
                         : o.advertise;
  // Checkpoint folders of deleted jobs go (checkpoint_folders.h). A job
  // the coordinator deleted has ended and holds no lease, so none of them
  // is trained here; a last save racing the removal leaves a folder that
  // the next check removes.
  worker::StoredJobState stored;
  stored.list = [data_dir = o.data_dir] {
    return ListCheckpointJobs(data_dir);
  };
  stored.remove = [data_dir = o.data_dir](const v1::StoredJob& job) {
    const absl::StatusOr<int64_t> freed =
        RemoveCheckpointFolders(data_dir, job);
    LogLine(freed.ok() ? "info" : "warning", "checkpoints_removed",
            {{"job", job.job_id()},
             {"uid", job.job_uid()},
             {freed.ok() ? "freed_bytes" : "error",
              freed.ok() ? absl::StrCat(*freed) : freed.status().ToString()}});
  };
  stored.check_interval = o.stored_check_interval;
  worker::WorkerSessionOptions session;
  session.coordinator = o.coordinator;
  session.role = v1::WORKER_ROLE_LEARNER;
  session.address = worker->address_;
  session.capacity = o.capacity;
  session.name = o.name;
  session.stored_jobs = std::move(stored);
  ASSIGN_OR_RETURN(worker->session_,
                   worker::WorkerSession::Start(std::move(session)));
  LearnerWorker* raw = worker.get();
  worker->supervisor_ = std::make_unique<worker::JobSupervisor>(
      worker->session_.get(), v1::WORKER_ROLE_LEARNER,
      [raw](const v1::Assignment& assignment) {
        return raw->StartJob(assignment);
      });
  LogLine("info", "started",
          {{"listen", o.listen},
           {"address", worker->address_},
           {"metrics_port", absl::StrCat(worker->metrics_port())},
           {"coordinator", o.coordinator},
           {"data_dir", o.data_dir},
           {"device", worker->device_}});
  return worker;
}

LearnerWorker::~LearnerWorker() { Shutdown(); }

absl::StatusOr<std::shared_ptr<worker::SupervisedJob>> LearnerWorker::StartJob(
    const v1::Assignment& assignment) {
  const MuZeroConfig& config = assignment.config();
  const TrainingConfig& training = config.training();
  // The program the job's best solutions are replayed on (demonstrations).
  absl::StatusOr<std::shared_ptr<const game::Program>> program =
      game::Program::Create(assignment.workload());
  if (!program.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("job ", assignment.job_id(),
                     ": workload: ", program.status().message()));
  }
  auto sampler = std::make_unique<ReplaySampler>(
      ReplaySamplerOptions{.job_id = assignment.job_id(),
                           .batch_size = training.batch_size(),
                           .unroll_steps = training.unroll_steps(),
                           .td_steps = training.td_steps(),
                           .discount = config.search().discount(),
                           .deadline = options_.replay_deadline},
      assignment.replay_address());
  ReplaySampler* raw_sampler = sampler.get();
  auto queue = std::make_unique<worker::PrefetchQueue>(
      [raw_sampler] { return raw_sampler->Sample(); },
      worker::PrefetchOptions{.capacity = options_.prefetch_batches});
  // A registered network or an earlier job's: the coordinator's copy.
  std::string initial_network_bytes;
  const std::string& initial_network = training.initial_network();
  if (features::ClassifyNetwork(initial_network) ==
      features::NetworkReference::kChecksum) {
    ASSIGN_OR_RETURN(initial_network_bytes,
                     session_->FetchJobNetwork(assignment.job_id()));
    const std::string sha256 =
        initial_network.substr(sizeof(features::kNetworkChecksumPrefix) - 1);
    if (security::Sha256Hex(initial_network_bytes) != sha256) {
      return absl::DataLossError(absl::StrCat(
          "job ", assignment.job_id(),
          ": the starting network fetched does not match its checksum ",
          sha256));
    }
  }
  // Each checkpoint's network becomes the job's network on the
  // coordinator (`submit --network job-...`, `networks import --from-job`).
  auto report_network = [session = session_.get(), job_id =
                             assignment.job_id()](int64_t step,
                                                  const std::string& bytes) {
    absl::StatusOr<v1::ReportJobNetworkResponse> reported =
        session->ReportJobNetwork(job_id, step, bytes);
    if (!reported.ok()) {
      LogLine("warning", "network_report_failed",
              {{"job", job_id},
               {"step", absl::StrCat(step)},
               {"error", reported.status().ToString()}});
    }
  };
  // Unavailable (the checkpoint fence is busy) and Aborted (a newer lease
  // epoch holds the job) are the supervisor's to act on, not failures.
  ASSIGN_OR_RETURN(
      std::unique_ptr<LearnerJob> job,
      LearnerJob::Start(
          {.job_id = assignment.job_id(),
           .config = config,
           .steps_budget = assignment.learner_steps_budget(),
           .checkpoint_dir = JobCheckpointDir(options_.data_dir, assignment),
           .publish_interval = options_.publish_interval,
           .checkpoint_interval = options_.checkpoint_interval,
           .device = torch::Device(device_),
           .lease_epoch = assignment.lease_epoch(),
           .lease_live = [session =
                              session_.get()] { return session->LeasesLive(); },
           .program = *std::move(program),
           .initial_network_bytes = std::move(initial_network_bytes),
           .network_saved = std::move(report_network)},
          std::move(queue), &parameters_, metrics_.get()));
  auto supervised = std::make_shared<SupervisedLearnerJob>(
      assignment.job_id(), std::move(sampler), std::move(job), session_.get(),
      &parameters_, options_.poll_interval);
  supervised->Update(assignment);  // its best: the first demonstration
  return supervised;
}

std::map<std::string, LearnerProgress> LearnerWorker::Jobs() const {
  std::map<std::string, LearnerProgress> jobs;
  if (supervisor_ == nullptr) return jobs;
  for (const std::string& job_id : supervisor_->JobIds()) {
    const std::shared_ptr<worker::SupervisedJob> job =
        supervisor_->Find(job_id);
    if (job == nullptr) continue;  // stopped meanwhile
    jobs[job_id] = static_cast<const SupervisedLearnerJob&>(*job).progress();
  }
  return jobs;
}

void LearnerWorker::Shutdown(absl::Duration grace) {
  if (shut_down_.exchange(true)) return;
  if (server_ != nullptr) rpc::SetServing(*server_, ServiceNames(), false);
  // Every job stops after its step, checkpoints and reports its last step
  // for a heartbeat that may still go out.
  if (supervisor_ != nullptr) supervisor_->Stop(grace);
  if (session_ != nullptr) session_->Stop();
  if (server_ != nullptr) {
    server_->Shutdown(std::chrono::system_clock::now() +
                      absl::ToChronoMilliseconds(grace));
  }
  // supervisor_ and metrics_ stay until the destructor: Jobs() and
  // metrics() may be called from other threads while this runs, and the
  // stopped supervisor holds no job.
  LogLine("info", "stopped");
}

}  // namespace mmapzero::learner
