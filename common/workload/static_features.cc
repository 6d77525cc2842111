#include "common/workload/static_features.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/workload/workload_check.h"

namespace mmapzero {
namespace {

constexpr double kBytesPerUsPerGbps = 1e3;
constexpr double kFlopsPerUsPerTflops = 1e6;

double TransferUs(int64_t bytes, double gbps) {
  return static_cast<double>(bytes) / (gbps * kBytesPerUsPerGbps);
}

void FillRoofline(int t, const std::vector<int>& buffer_ids,
                  Workload* workload) {
  const HardwareProfile& hw = workload->hardware();
  const RooflineLatency& roofline = workload->instructions(t).roofline();
  const double compute =
      roofline.flops() > 0
          ? roofline.flops() / (hw.peak_tflops() * kFlopsPerUsPerTflops)
          : roofline.compute_us();
  double all_slow = 0;
  double all_fast = 0;
  for (int id : buffer_ids) {
    all_slow +=
        TransferUs(workload->buffers(id).size(), hw.slow_bandwidth_gbps());
    all_fast +=
        TransferUs(workload->buffers(id).size(), hw.fast_bandwidth_gbps());
  }
  const double empty = std::max(compute, all_slow);
  for (int id : buffer_ids) {
    Buffer* buffer = workload->mutable_buffers(id);
    const double with_b = std::max(
        compute, all_slow -
                     TransferUs(buffer->size(), hw.slow_bandwidth_gbps()) +
                     TransferUs(buffer->size(), hw.fast_bandwidth_gbps()));
    buffer->set_benefit_us(std::max(0.0, empty - with_b));
  }
  workload->mutable_instructions(t)->set_supply_us(std::max(compute, all_fast));
}

void FillMeasured(int t, const std::vector<int>& buffer_ids,
                  Workload* workload) {
  const MeasuredLatency& measured = workload->instructions(t).measured();
  const int k = measured.buffer_ids_size();
  for (int i = 0; i < k; ++i) {
    workload->mutable_buffers(measured.buffer_ids(i))
        ->set_benefit_us(std::max(
            0.0, measured.latency_us(0) - measured.latency_us(1 << i)));
  }
  double unlisted_benefit = 0;
  for (int id : buffer_ids) {
    const auto& listed = measured.buffer_ids();
    if (std::find(listed.begin(), listed.end(), id) == listed.end()) {
      unlisted_benefit += workload->buffers(id).benefit_us();
    }
  }
  workload->mutable_instructions(t)->set_supply_us(
      std::max(0.0, measured.latency_us((1 << k) - 1) - unlisted_benefit));
}

}  // namespace

absl::Status FillStaticFeatures(Workload* workload) {
  RETURN_IF_ERROR(CheckWorkload(*workload));
  const double copy_gbps = workload->hardware().copy_bandwidth_gbps();
  if (workload->buffers_size() > 0 && !(copy_gbps > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "hardware.copy_bandwidth_gbps: must be > 0 to derive demand_us, got ",
        copy_gbps));
  }
  std::vector<std::vector<int>> buffers_of(workload->instructions_size());
  for (Buffer& buffer : *workload->mutable_buffers()) {
    buffers_of[buffer.target_time()].push_back(buffer.id());
    buffer.set_demand_us(TransferUs(buffer.size(), copy_gbps));
  }
  for (int t = 0; t < workload->instructions_size(); ++t) {
    const Instruction& instruction = workload->instructions(t);
    if (instruction.has_roofline()) {
      FillRoofline(t, buffers_of[t], workload);
    } else if (instruction.has_measured()) {
      FillMeasured(t, buffers_of[t], workload);
    }
  }
  return absl::OkStatus();
}

void DropLatencyModels(Workload* workload) {
  for (Instruction& instruction : *workload->mutable_instructions()) {
    instruction.clear_latency();
  }
}

}  // namespace mmapzero
