#include "common/validate/validator.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/validate/decision_list.h"
#include "common/validate/decision_order.h"
#include "common/validate/decision_replay.h"
#include "common/validate/modelled_figures.h"
#include "common/validate/overlap_sweep.h"
#include "common/validate/reference_latency.h"
#include "common/workload/workload_check.h"

namespace mmapzero::validate {
namespace {

constexpr double kFigureTolerance = 1e-6;

std::string ShowRectangle(const Allocation& a) {
  return absl::StrCat("steps [", a.first_step, ", ", a.last_step, "] x bytes [",
                      a.offset, ", ", a.end_byte(), ")");
}

// Which tensors have a buffer in which alias group.
AliasTensors AliasTensorsOf(const Workload& workload) {
  AliasTensors pairs;
  for (const Buffer& buffer : workload.buffers()) {
    if (buffer.has_alias_id()) pairs.insert({buffer.alias_id(), buffer.tensor_id()});
  }
  return pairs;
}

void ReportOverlaps(const Workload& workload,
                    const std::vector<Allocation>& allocations,
                    std::vector<Violation>* violations) {
  for (const AllocationOverlap& overlap :
       FindOverlaps(allocations, AliasTensorsOf(workload))) {
    const Allocation& a = allocations[overlap.index];
    const Allocation& other = allocations[overlap.other_index];
    violations->push_back(
        {a.buffer_id, kRuleAllocationOverlap,
         absl::StrCat(ShowRectangle(a), " overlaps buffer ", other.buffer_id,
                      "'s ", ShowRectangle(other))});
  }
}

void CompareFigure(const char* name, double stated, double recomputed,
                   std::vector<Violation>* warnings) {
  const double scale = std::max({1.0, std::abs(stated), std::abs(recomputed)});
  if (std::abs(stated - recomputed) <= kFigureTolerance * scale) return;
  warnings->push_back(
      {-1, kRuleReportedFigures,
       absl::StrFormat("the solution states %s = %.9g; recomputed %.9g", name,
                       stated, recomputed)});
}

void CheckStatedFigures(const Solution& solution, ValidationReport* report) {
  if (solution.return_us() == 0 && solution.normalised_return() == 0 &&
      solution.latency_us() == 0) {
    return;  // none stated
  }
  CompareFigure("return_us", solution.return_us(), report->return_us,
                &report->warnings);
  CompareFigure("normalised_return", solution.normalised_return(),
                report->normalised_return, &report->warnings);
  CompareFigure("latency_us", solution.latency_us(), report->latency_us,
                &report->warnings);
}

}  // namespace

ValidationReport ValidateSolution(const Workload& workload,
                                  const Solution& solution) {
  ValidationReport report;
  if (const absl::Status status = CheckWorkload(workload); !status.ok()) {
    report.violations.push_back(
        {-1, kRuleWorkload, std::string(status.message())});
    return report;
  }
  if (!solution.workload_name().empty() && !workload.name().empty() &&
      solution.workload_name() != workload.name()) {
    report.warnings.push_back({-1, kRuleWorkloadName,
                               absl::StrCat("the solution is for workload '",
                                            solution.workload_name(),
                                            "', not '", workload.name(), "'")});
  }
  const ReferenceLatency latency(workload);
  const std::vector<int> order = DecisionOrder(workload);
  const std::vector<const BufferDecision*> decision_of =
      IndexDecisions(workload, solution, order, &report.violations);
  const ReplayResult replay = ReplayDecisions(workload, latency, order,
                                              decision_of, &report.violations);
  ReportOverlaps(workload, replay.allocations, &report.violations);

  report.actions = replay.actions;
  const ModelledFigures figures = ComputeFigures(latency, replay.fast);
  report.return_us = figures.return_us;
  report.normalised_return = figures.normalised_return;
  report.latency_us = figures.latency_us;
  report.all_slow_latency_us = figures.all_slow_latency_us;
  report.all_fast_latency_us = figures.all_fast_latency_us;
  CheckStatedFigures(solution, &report);
  report.ok = report.violations.empty();
  return report;
}

}  // namespace mmapzero::validate
