// The learner service as a running worker (docs/protocols.md): serves
// ParameterService on its gRPC port (with health and reflection),
// registers with the coordinator as a LEARNER (WorkerSession) and trains
// each job the coordinator assigns it (learner_job.h), fed by a prefetch
// queue over the job's replay server (worker/prefetch_queue.h,
// replay_sampler.h); the jobs follow the assignments through the workers'
// shared JobSupervisor (worker/job_supervisor.h,
// supervised_learner_job.h):
//  - a new assignment starts the job from its MuZeroConfig, resuming from
//    its checkpoint folder (JobCheckpointDir) when an earlier learner left
//    a checkpoint there; a job that cannot start (bad config, a checkpoint
//    of another network size) is reported through JobCounters.fatal_error
//    and the coordinator fails it;
//  - a changed replay address is followed;
//  - a job missing from the assignments (lease lost, job final) is stopped
//    with a checkpoint and its parameters are withdrawn;
//  - the job's checkpoints are fenced by its lease epoch (learner_job.h):
//    a job fenced out stops without saving and is no failure; a grant with
//    a new epoch restarts the job from its checkpoint;
//  - every poll its learner step, parameter version and loss terms go into
//    the next heartbeat (WorkerSession::SetCounters).
// Shutdown (SIGTERM): health turns NOT_SERVING, every job stops and
// checkpoints, heartbeats stop (the leases then expire and pass to another
// learner), in-flight fetches get `grace`; metrics stop when the worker is
// destroyed (Jobs() and metrics() stay valid until then).
#ifndef MMAPZERO_LEARNER_LEARNER_WORKER_H_
#define MMAPZERO_LEARNER_LEARNER_WORKER_H_

#include <grpcpp/server.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "learner/checkpoint_folders.h"  // JobCheckpointDir
#include "learner/learner_metrics.h"
#include "learner/learner_progress.h"
#include "learner/parameter_service.h"
#include "proto/worker.pb.h"
#include "worker/job_supervisor.h"
#include "worker/worker_session.h"

namespace mmapzero::learner {

struct LearnerWorkerOptions {
  std::string coordinator;              // host:port, required
  std::string listen = "0.0.0.0:7072";  // ParameterService
  // host:port actors reach ParameterService at; "": the listen host (or
  // 127.0.0.1 for a wildcard host) and the bound port.
  std::string advertise;
  std::string data_dir;        // required: <data-dir>/learner/<job>/
  std::string metrics_listen;  // "": no /metrics
  std::string name;            // for humans
  int capacity = 1;            // jobs trained at once
  int64_t publish_interval = 10;
  int64_t checkpoint_interval = 0;  // 0: each job's config
  int prefetch_batches = 4;
  int max_chunk_bytes = 1 << 20;  // FetchParameters' default chunk
  absl::Duration replay_deadline = absl::Seconds(10);
  // How often each job's step goes into the next heartbeat.
  absl::Duration poll_interval = absl::Milliseconds(200);
  // auto (CUDA when LibTorch has it, else the CPU), cpu or cuda; resolved
  // by Start on the machine that runs it (training_device.h).
  std::string device = "cpu";
  // How often the checkpoint folders are listed to the coordinator, those
  // of deleted jobs to be removed (checkpoint_folders.h).
  absl::Duration stored_check_interval = absl::Minutes(1);

  bool operator==(const LearnerWorkerOptions&) const = default;
};

// What Start checks before it starts anything: the required options and
// their ranges, each error naming its flag. mmapzero-learner --check-flags
// runs it too.
absl::Status CheckLearnerWorkerOptions(const LearnerWorkerOptions& options);

class LearnerWorker {
 public:
  // InvalidArgument for missing options; Unavailable when a port cannot
  // be bound.
  static absl::StatusOr<std::unique_ptr<LearnerWorker>> Start(
      LearnerWorkerOptions options);
  ~LearnerWorker();  // Shutdown()

  int port() const { return port_; }
  int metrics_port() const { return metrics_ ? metrics_->port() : 0; }
  const std::string& address() const { return address_; }
  const worker::ParameterStore& parameters() const { return parameters_; }
  LearnerMetrics& metrics() { return *metrics_; }
  // The jobs it trains now, with their progress.
  std::map<std::string, LearnerProgress> Jobs() const;

  // Idempotent; see the file comment.
  void Shutdown(absl::Duration grace = absl::Seconds(5));

 private:
  explicit LearnerWorker(LearnerWorkerOptions options)
      : options_(std::move(options)) {}
  // The JobSupervisor's factory: one job from its assignment.
  absl::StatusOr<std::shared_ptr<worker::SupervisedJob>> StartJob(
      const v1::Assignment& assignment);

  const LearnerWorkerOptions options_;
  std::string device_;  // "cpu" or "cuda": options_.device resolved
  std::string address_;
  int port_ = 0;
  std::unique_ptr<LearnerMetrics> metrics_;
  worker::ParameterStore parameters_;  // what parameter_service_ serves
  std::unique_ptr<ParameterServiceImpl> parameter_service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<worker::WorkerSession> session_;

  std::atomic<bool> shut_down_{false};  // Shutdown ran (or runs)
  // After session_ and parameters_: stopped (and destroyed) first.
  std::unique_ptr<worker::JobSupervisor> supervisor_;
};

}  // namespace mmapzero::learner

#endif  // MMAPZERO_LEARNER_LEARNER_WORKER_H_
