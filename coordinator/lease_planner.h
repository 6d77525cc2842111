// Which jobs one worker should hold after its heartbeat: the lease policy
// (docs/protocols.md, "Leases"), as a pure function of the live leases so it
// can be tested by hand.
//
// A worker holds at most `capacity` leases, at most one per job.
//  - Learner and replay leases are exclusive: one holder per job. A worker
//    keeps the live ones it has and fills up with running jobs that have no
//    live holder (an expired holder's job is taken over here), oldest first;
//    a learner then takes queued jobs, oldest first, while fewer than
//    `max_running_jobs` run and fewer than the live actor slots (when any
//    actor is live), and so starts them: a job that no actor could serve
//    waits queued instead of running its wall-time budget down.
//  - Actor and reanalyse leases spread over running jobs: a worker keeps
//    its live ones, fills up with the running jobs that have the fewest
//    workers of its role (ties: oldest), then moves at most one lease from
//    its most crowded job to a job with at least two fewer workers, so a
//    newly started job gets workers without every worker churning.
//  - Rotation: while some running job has no worker of the role (more jobs
//    than slots, after an actor died), a worker that alone serves a job and
//    has held that lease for `rotation_ms` moves to the starved job, so
//    every job gets turns instead of one getting none.
#ifndef MMAPZERO_COORDINATOR_LEASE_PLANNER_H_
#define MMAPZERO_COORDINATOR_LEASE_PLANNER_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "coordinator/job_store.h"
#include "proto/job.pb.h"
#include "proto/worker.pb.h"

namespace mmapzero::coordinator {

struct PlannerJob {
  int64_t id = 0;
  v1::JobState state = v1::JOB_STATE_QUEUED;
};

struct LeaseRequest {
  int64_t worker_id = 0;
  v1::WorkerRole role = v1::WORKER_ROLE_UNSPECIFIED;
  int32_t capacity = 1;
  std::vector<PlannerJob> jobs;    // every job; only queued and running count
  std::vector<Lease> live_leases;  // every unexpired lease, all roles
  int32_t max_running_jobs = 0;    // 0: no limit
  int64_t actor_slots = 0;  // summed capacity of live actors; 0: no gate
  int64_t now_ms = 0;
  int64_t rotation_ms = 0;  // 0: spread leases never rotate
  absl::flat_hash_set<int64_t> excluded;  // jobs this worker gave up
};

struct LeasePlan {
  std::vector<int64_t> jobs;     // the worker's jobs in its role, ascending
  std::vector<int64_t> started;  // queued jobs its new learner leases start
};

LeasePlan PlanLeases(const LeaseRequest& request);

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_LEASE_PLANNER_H_
