#include "common/validate/latency_simulator.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/validate/decision_order.h"
#include "common/validate/reference_latency.h"
#include "common/workload/workload_check.h"

namespace mmapzero::validate {
namespace {

// The copies of a solution, by the step at which they are issued and the
// step that waits for them. Index lists are in decision order.
struct CopyPlan {
  std::vector<double> duration;                    // by copy
  std::vector<double> repeat;  // by copy: runs per run of the program
  std::vector<std::vector<int>> prefetch_issue;    // at the start of t
  std::vector<std::vector<int>> write_back_issue;  // at the end of t
  std::vector<std::vector<int>> prefetch_due;      // finished before t starts
  std::vector<std::vector<int>> write_back_due;    // finished after t ends,
                                                   // before the next step
  int num_prefetches = 0;
  int num_write_backs = 0;
};

absl::Status DecisionError(int b, const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat("buffer ", b, ": ", what, " (run `mmapctl validate`)"));
}

// The decision of each buffer, or null.
absl::StatusOr<std::vector<const BufferDecision*>> DecisionsByBuffer(
    const Workload& workload, const Solution& solution) {
  std::vector<const BufferDecision*> by_buffer(workload.buffers_size(),
                                               nullptr);
  for (const BufferDecision& decision : solution.decisions()) {
    const int b = decision.buffer_id();
    if (b < 0 || b >= workload.buffers_size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("a decision names unknown buffer ", b));
    }
    if (by_buffer[b] != nullptr) return DecisionError(b, "decided twice");
    by_buffer[b] = &decision;
  }
  return by_buffer;
}

absl::StatusOr<CopyPlan> PlanCopies(
    const Workload& workload, const ReferenceLatency& latency,
    const std::vector<const BufferDecision*>& decision_of) {
  const int num_steps = workload.instructions_size();
  CopyPlan plan;
  plan.prefetch_issue.resize(num_steps);
  plan.write_back_issue.resize(num_steps);
  plan.prefetch_due.resize(num_steps);
  plan.write_back_due.resize(num_steps);
  for (int b : DecisionOrder(workload)) {
    const BufferDecision* d = decision_of[b];
    if (d == nullptr || d->action() != COPY || latency.Demand(b) <= 0) {
      continue;
    }
    if (!d->has_copy_start() || !d->has_copy_end() || d->copy_start() < 0 ||
        d->copy_end() >= num_steps || d->copy_start() > d->copy_end()) {
      return DecisionError(b, "COPY needs copy steps inside the program");
    }
    const Buffer& buffer = workload.buffers(b);
    const int copy = static_cast<int>(plan.duration.size());
    plan.duration.push_back(latency.Demand(b));
    plan.repeat.push_back(latency.Repeat(buffer.target_time()));
    if (buffer.is_output()) {
      const int last =
          d->has_interval_end() ? d->interval_end() : d->copy_end();
      if (last < buffer.target_time() || last >= num_steps) {
        return DecisionError(b, "allocation interval ends outside [d, T-1]");
      }
      plan.write_back_issue[buffer.target_time()].push_back(copy);
      plan.write_back_due[last].push_back(copy);
      ++plan.num_write_backs;
    } else {
      if (d->copy_start() >= buffer.target_time()) {
        return DecisionError(b,
                             "prefetch copy steps start at or after the use");
      }
      plan.prefetch_issue[d->copy_start()].push_back(copy);
      plan.prefetch_due[buffer.target_time()].push_back(copy);
      ++plan.num_prefetches;
    }
  }
  return plan;
}

// L_t(S_t) for every t.
std::vector<double> InstructionTimes(
    const Workload& workload, const ReferenceLatency& latency,
    const std::vector<const BufferDecision*>& decision_of) {
  std::vector<double> times(workload.instructions_size());
  std::vector<int> fast;
  for (int t = 0; t < workload.instructions_size(); ++t) {
    fast.clear();
    for (int b : latency.BuffersOf(t)) {
      const BufferDecision* d = decision_of[b];
      if (d != nullptr && (d->action() == COPY || d->action() == NO_COPY)) {
        fast.push_back(b);
      }
    }
    times[t] = latency.Latency(t, fast);
  }
  return times;
}

// The single FIFO DMA engine.
class DmaEngine {
 public:
  explicit DmaEngine(const CopyPlan& plan)
      : plan_(plan), finish_(plan.duration.size(), 0.0) {}

  void Issue(const std::vector<int>& copies, double now) {
    for (int copy : copies) {
      free_at_ = std::max(free_at_, now) + plan_.duration[copy];
      finish_[copy] = free_at_;
      busy_ += plan_.duration[copy] * plan_.repeat[copy];
    }
  }

  // The latest finish of `copies` (all issued before), or `now`.
  double Await(const std::vector<int>& copies, double now) const {
    for (int copy : copies) now = std::max(now, finish_[copy]);
    return now;
  }

  double busy() const { return busy_; }

 private:
  const CopyPlan& plan_;
  std::vector<double> finish_;
  double free_at_ = 0.0;
  double busy_ = 0.0;
};

}  // namespace

absl::StatusOr<SimulationResult> SimulateSolution(const Workload& workload,
                                                  const Solution& solution) {
  RETURN_IF_ERROR(CheckWorkload(workload));
  const ReferenceLatency latency(workload);
  ASSIGN_OR_RETURN(const std::vector<const BufferDecision*> decision_of,
                   DecisionsByBuffer(workload, solution));
  ASSIGN_OR_RETURN(const CopyPlan plan,
                   PlanCopies(workload, latency, decision_of));
  const std::vector<double> times =
      InstructionTimes(workload, latency, decision_of);

  const int num_steps = workload.instructions_size();
  SimulationResult result;
  result.stall_by_instruction_us.assign(num_steps, 0.0);
  DmaEngine dma(plan);
  // `previous_end` is the clock of one pass over the steps, each loop's
  // body once: every copy stays inside its step's run, so the DMA engine is
  // idle whenever a loop starts or ends and every trip runs alike. A wait
  // or instruction time therefore counts its step's repeat times.
  double previous_end = 0.0;
  for (int t = 0; t < num_steps; ++t) {
    double start = previous_end;
    if (t > 0) {
      dma.Issue(plan.write_back_issue[t - 1], previous_end);
      const double drained = dma.Await(plan.write_back_due[t - 1], start);
      const double wait = latency.Repeat(t - 1) * (drained - start);
      result.stall_by_instruction_us[t] += wait;
      result.stall_us += wait;
      start = drained;
    }
    const double ready = dma.Await(plan.prefetch_due[t], start);
    const double wait = latency.Repeat(t) * (ready - start);
    result.stall_by_instruction_us[t] += wait;
    result.stall_us += wait;
    dma.Issue(plan.prefetch_issue[t], ready);
    previous_end = ready + times[t];
    result.compute_us += latency.Repeat(t) * times[t];
  }
  dma.Issue(plan.write_back_issue[num_steps - 1], previous_end);
  const double end = dma.Await(plan.write_back_due[num_steps - 1], previous_end);
  result.final_drain_us = latency.Repeat(num_steps - 1) * (end - previous_end);
  result.stall_us += result.final_drain_us;
  result.latency_us = latency.loops().has_loops()
                          ? result.compute_us + result.stall_us
                          : end;
  result.dma_busy_us = dma.busy();
  result.num_prefetches = plan.num_prefetches;
  result.num_write_backs = plan.num_write_backs;
  return result;
}

}  // namespace mmapzero::validate
