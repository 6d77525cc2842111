#include "coordinator/lease_planner.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"

namespace mmapzero::coordinator {
namespace {

bool IsExclusive(v1::WorkerRole role) {
  return role == v1::WORKER_ROLE_LEARNER || role == v1::WORKER_ROLE_REPLAY;
}

// Running jobs, and queued ones too for a learner, that this worker may
// hold: not excluded.
std::vector<PlannerJob> Eligible(const LeaseRequest& request) {
  std::vector<PlannerJob> jobs;
  for (const PlannerJob& job : request.jobs) {
    const bool active = job.state == v1::JOB_STATE_RUNNING ||
                        (job.state == v1::JOB_STATE_QUEUED &&
                         request.role == v1::WORKER_ROLE_LEARNER);
    if (active && !request.excluded.contains(job.id)) jobs.push_back(job);
  }
  std::sort(
      jobs.begin(), jobs.end(),
      [](const PlannerJob& a, const PlannerJob& b) { return a.id < b.id; });
  return jobs;
}

LeasePlan PlanExclusive(const LeaseRequest& request,
                        const std::vector<PlannerJob>& eligible) {
  absl::flat_hash_map<int64_t, int64_t> holder;  // job -> worker, this role
  for (const Lease& lease : request.live_leases) {
    if (lease.role == request.role) holder[lease.job_id] = lease.worker_id;
  }
  int32_t running = 0;
  for (const PlannerJob& job : request.jobs) {
    if (job.state == v1::JOB_STATE_RUNNING) ++running;
  }
  LeasePlan plan;
  for (const PlannerJob& job : eligible) {
    const auto it = holder.find(job.id);
    if (it != holder.end() && it->second == request.worker_id) {
      plan.jobs.push_back(job.id);
    }
  }
  // Running jobs without a holder first, then queued ones (learners only).
  for (const v1::JobState state :
       {v1::JOB_STATE_RUNNING, v1::JOB_STATE_QUEUED}) {
    for (const PlannerJob& job : eligible) {
      if (static_cast<int32_t>(plan.jobs.size()) >= request.capacity) break;
      if (job.state != state || holder.contains(job.id)) continue;
      if (state == v1::JOB_STATE_QUEUED) {
        if (request.max_running_jobs > 0 &&
            running >= request.max_running_jobs) {
          break;
        }
        if (request.actor_slots > 0 && running >= request.actor_slots) break;
        ++running;
        plan.started.push_back(job.id);
      }
      plan.jobs.push_back(job.id);
    }
  }
  std::sort(plan.jobs.begin(), plan.jobs.end());
  return plan;
}

LeasePlan PlanSpread(const LeaseRequest& request,
                     const std::vector<PlannerJob>& eligible) {
  absl::flat_hash_map<int64_t, int32_t> crowd;  // job -> workers, this role
  absl::flat_hash_map<int64_t, int64_t> mine;   // job -> acquired_ms
  for (const Lease& lease : request.live_leases) {
    if (lease.role != request.role) continue;
    ++crowd[lease.job_id];
    if (lease.worker_id == request.worker_id) {
      mine[lease.job_id] = lease.acquired_ms;
    }
  }
  LeasePlan plan;
  std::vector<int64_t> others;  // eligible jobs this worker does not hold
  for (const PlannerJob& job : eligible) {
    (mine.contains(job.id) ? plan.jobs : others).push_back(job.id);
  }
  // The least crowded job of `others` (ties: oldest), or others.end().
  const auto least_crowded = [&]() {
    return std::min_element(
        others.begin(), others.end(), [&](int64_t a, int64_t b) {
          return crowd[a] != crowd[b] ? crowd[a] < crowd[b] : a < b;
        });
  };
  while (static_cast<int32_t>(plan.jobs.size()) < request.capacity &&
         !others.empty()) {
    const auto it = least_crowded();
    ++crowd[*it];
    plan.jobs.push_back(*it);
    others.erase(it);
  }
  if (!plan.jobs.empty() && !others.empty()) {
    const auto target = least_crowded();
    const auto source = std::max_element(
        plan.jobs.begin(), plan.jobs.end(), [&](int64_t a, int64_t b) {
          return crowd[a] != crowd[b] ? crowd[a] < crowd[b] : a < b;
        });
    if (crowd[*source] > crowd[*target] + 1) {
      *source = *target;
    } else if (request.rotation_ms > 0 && crowd[*target] == 0) {
      // Every job of this worker has it alone (else the move above was
      // taken): it leaves the one it has held longest (ties: oldest job),
      // once that is long enough. A lease taken in this plan is not in
      // `mine`: never moved.
      int64_t* held_longest = nullptr;
      int64_t longest_acquired_ms = 0;
      for (int64_t& job : plan.jobs) {
        const auto held = mine.find(job);
        if (held == mine.end() ||
            request.now_ms - held->second < request.rotation_ms) {
          continue;
        }
        if (held_longest == nullptr || held->second < longest_acquired_ms) {
          held_longest = &job;
          longest_acquired_ms = held->second;
        }
      }
      if (held_longest != nullptr) *held_longest = *target;
    }
  }
  std::sort(plan.jobs.begin(), plan.jobs.end());
  return plan;
}

}  // namespace

LeasePlan PlanLeases(const LeaseRequest& request) {
  const std::vector<PlannerJob> eligible = Eligible(request);
  if (request.capacity <= 0) return LeasePlan{};
  return IsExclusive(request.role) ? PlanExclusive(request, eligible)
                                   : PlanSpread(request, eligible);
}

}  // namespace mmapzero::coordinator
