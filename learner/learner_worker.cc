#include "learner/learner_worker.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/address_file.h"
#include "common/base/status_macros.h"
#include "common/rpc/crash_guard.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/log_line.h"

namespace mmapzero::learner {

std::string JobCheckpointDir(const std::string& data_dir,
                             const v1::Assignment& assignment) {
  std::string dir = absl::StrCat(data_dir, "/learner/", assignment.job_id());
  if (!assignment.job_uid().empty()) {
    absl::StrAppend(&dir, "-", assignment.job_uid());
  }
  return dir;
}

using rpc::LogLine;

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
  worker->metrics_->SetDevice(o.device.is_cuda() ? "cuda" : "cpu");
  worker->parameters_ = std::make_unique<ParameterServiceImpl>(
      ParameterServiceOptions{.default_chunk_bytes = o.max_chunk_bytes},
      worker->metrics_.get());
  ASSIGN_OR_RETURN(
      rpc::StartedServer started,
      rpc::StartGrpcServer({.listen = o.listen,
                            .services = {worker->parameters_.get()},
                            .service_names = ServiceNames()}));
  worker->server_ = std::move(started.server);
  worker->port_ = started.port;
  worker->address_ = o.advertise.empty()
                         ? DialableAddress(o.listen, worker->port_)
                         : o.advertise;
  ASSIGN_OR_RETURN(worker->session_,
                   rpc::WorkerSession::Start({.coordinator = o.coordinator,
                                              .role = v1::WORKER_ROLE_LEARNER,
                                              .address = worker->address_,
                                              .capacity = o.capacity,
                                              .name = o.name}));
  LearnerWorker* raw = worker.get();
  worker->manager_ =
      std::jthread([raw](std::stop_token stop) { raw->Manage(stop); });
  LogLine("info", "started",
          {{"listen", o.listen},
           {"address", worker->address_},
           {"metrics_port", absl::StrCat(worker->metrics_port())},
           {"coordinator", o.coordinator},
           {"data_dir", o.data_dir},
           {"device", o.device.str()}});
  return worker;
}

LearnerWorker::~LearnerWorker() { Shutdown(); }

void LearnerWorker::Manage(std::stop_token stop) {
  int64_t seen = -1;
  while (!stop.stop_requested()) {
    seen = session_->version();
    Reconcile(session_->Assignments());
    Report();
    session_->AwaitChange(seen, options_.poll_interval);
  }
}

void LearnerWorker::Reconcile(const std::vector<v1::Assignment>& assignments) {
  absl::MutexLock lock(&mu_);
  if (shut_down_) return;
  std::map<std::string, const v1::Assignment*> wanted;
  for (const v1::Assignment& a : assignments) {
    if (a.role() == v1::WORKER_ROLE_LEARNER) wanted[a.job_id()] = &a;
  }
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const auto want = wanted.find(it->first);
    if (want != wanted.end() &&
        want->second->lease_epoch() == it->second.lease_epoch) {
      ++it;
      continue;
    }
    // Gone, or granted again since this job started (another learner may
    // have trained it in between): stop it; a new grant starts afresh
    // from the checkpoint.
    LogLine("info", want == wanted.end() ? "lease_gone" : "lease_renewed",
            {{"job", it->first},
             {"epoch", absl::StrCat(it->second.lease_epoch)}});
    it->second.job.reset();  // stops and checkpoints
    parameters_->Remove(it->first);
    session_->ClearCounters(it->first);
    it = jobs_.erase(it);
  }
  for (const auto& [job_id, assignment] : wanted) {
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) {
      RunningJob running = StartJob(*assignment);
      // Deferred (the checkpoint fence is busy): tried again next round.
      if (!running.deferred) jobs_.emplace(job_id, std::move(running));
    } else if (it->second.sampler != nullptr) {
      it->second.sampler->SetAddress(assignment->replay_address());
    }
  }
}

LearnerWorker::RunningJob LearnerWorker::StartJob(
    const v1::Assignment& assignment) {
  RunningJob running;
  running.lease_epoch = assignment.lease_epoch();
  const MuZeroConfig& config = assignment.config();
  const TrainingConfig& training = config.training();
  running.sampler = std::make_unique<ReplaySampler>(
      ReplaySamplerOptions{.job_id = assignment.job_id(),
                           .batch_size = training.batch_size(),
                           .unroll_steps = training.unroll_steps(),
                           .td_steps = training.td_steps(),
                           .discount = config.search().discount(),
                           .deadline = options_.replay_deadline},
      assignment.replay_address());
  ReplaySampler* sampler = running.sampler.get();
  auto queue = std::make_unique<PrefetchQueue>(
      [sampler] { return sampler->Sample(); },
      PrefetchOptions{.capacity = options_.prefetch_batches});
  absl::StatusOr<std::unique_ptr<LearnerJob>> job =
      absl::InternalError("not started");
  const std::string crash = rpc::RunCatchingCrash(assignment.job_id(), [&] {
    job = LearnerJob::Start(
        {.job_id = assignment.job_id(),
         .config = config,
         .steps_budget = assignment.learner_steps_budget(),
         .checkpoint_dir = JobCheckpointDir(options_.data_dir, assignment),
         .publish_interval = options_.publish_interval,
         .checkpoint_interval = options_.checkpoint_interval,
         .device = options_.device,
         .lease_epoch = assignment.lease_epoch()},
        std::move(queue), parameters_.get(), metrics_.get());
  });
  if (!crash.empty()) job = absl::InternalError(crash);
  if (absl::IsUnavailable(job.status())) {
    running.deferred = true;
    LogLine("warning", "job_start_deferred",
            {{"job", assignment.job_id()},
             {"message", std::string(job.status().message())}});
    return running;
  }
  if (absl::IsAborted(job.status())) {
    running.fenced = std::string(job.status().message());
    LogLine("warning", "fenced",
            {{"job", assignment.job_id()}, {"message", running.fenced}});
    return running;
  }
  if (!job.ok()) {
    running.fatal_error = std::string(job.status().message());
    LogLine("error", "job_failed_to_start",
            {{"job", assignment.job_id()}, {"message", running.fatal_error}});
    return running;
  }
  running.job = *std::move(job);
  return running;
}

void LearnerWorker::Report() {
  absl::MutexLock lock(&mu_);
  for (const auto& [job_id, running] : jobs_) {
    // A fenced job's learner steps are no longer the job's.
    if (!running.fenced.empty() ||
        (running.job != nullptr && !running.job->progress().fenced.empty())) {
      session_->ClearCounters(job_id);
      continue;
    }
    v1::JobCounters counters;
    counters.set_job_id(job_id);
    if (running.job == nullptr) {
      counters.set_fatal_error(running.fatal_error);
    } else {
      const LearnerProgress progress = running.job->progress();
      if (!progress.fatal_error.empty()) {
        counters.set_fatal_error(progress.fatal_error);
      }
      counters.set_learner_step(progress.step);
      counters.set_parameter_version(
          std::max<int64_t>(0, progress.parameter_version));
      for (const auto& [term, value] : progress.losses) {
        (*counters.mutable_losses())[term] = value;
      }
    }
    session_->SetCounters(counters);
  }
}

std::map<std::string, LearnerProgress> LearnerWorker::Jobs() const {
  absl::MutexLock lock(&mu_);
  std::map<std::string, LearnerProgress> jobs;
  for (const auto& [job_id, running] : jobs_) {
    if (running.job != nullptr) jobs[job_id] = running.job->progress();
  }
  return jobs;
}

void LearnerWorker::Shutdown(absl::Duration grace) {
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  if (server_ != nullptr) rpc::SetServing(*server_, ServiceNames(), false);
  if (manager_.joinable()) {
    manager_.request_stop();
    manager_.join();
  }
  {
    absl::MutexLock lock(&mu_);
    for (auto& [job_id, running] : jobs_) {
      if (running.job != nullptr) running.job->Stop();  // checkpoints
    }
  }
  if (session_ != nullptr) {
    Report();  // the final steps, for a heartbeat that may still go out
    session_->Stop();
  }
  if (server_ != nullptr) {
    server_->Shutdown(std::chrono::system_clock::now() +
                      absl::ToChronoMilliseconds(grace));
  }
  {
    absl::MutexLock lock(&mu_);
    jobs_.clear();
  }
  metrics_.reset();
  LogLine("info", "stopped");
}

}  // namespace mmapzero::learner
