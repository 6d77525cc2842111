#include "common/validate/reference_latency.h"

#include <algorithm>

namespace mmapzero::validate {
namespace {

// 1 GB/s moves 1e3 bytes per us; 1 TFLOP/s does 1e6 FLOPs per us.
constexpr double kBytesPerUsPerGbps = 1e3;
constexpr double kFlopsPerUsPerTflops = 1e6;

}  // namespace

ReferenceLatency::ReferenceLatency(const Workload& workload)
    : loops_(workload) {
  const int num_steps = workload.instructions_size();
  const int num_buffers = workload.buffers_size();
  const HardwareProfile& hw = workload.hardware();

  buffers_of_.resize(num_steps);
  model_.resize(num_steps, Model::kStatic);
  compute_us_.resize(num_steps, 0.0);
  measured_us_.resize(num_steps);
  supply_.resize(num_steps, 0.0);
  all_slow_.resize(num_steps, 0.0);
  all_fast_.resize(num_steps, 0.0);
  target_.resize(num_buffers);
  position_.resize(num_buffers);
  measured_bit_.resize(num_buffers, -1);
  slow_us_.resize(num_buffers, 0.0);
  fast_us_.resize(num_buffers, 0.0);
  demand_.resize(num_buffers, 0.0);
  benefit_.resize(num_buffers, 0.0);
  given_benefit_.resize(num_buffers, 0.0);

  for (int b = 0; b < num_buffers; ++b) {
    const Buffer& buffer = workload.buffers(b);
    const int t = buffer.target_time();
    target_[b] = t;
    position_[b] = static_cast<int>(buffers_of_[t].size());
    buffers_of_[t].push_back(b);
    const double bytes = static_cast<double>(buffer.size());
    if (hw.slow_bandwidth_gbps() > 0) {
      slow_us_[b] = bytes / (hw.slow_bandwidth_gbps() * kBytesPerUsPerGbps);
    }
    if (hw.fast_bandwidth_gbps() > 0) {
      fast_us_[b] = bytes / (hw.fast_bandwidth_gbps() * kBytesPerUsPerGbps);
    }
    demand_[b] = buffer.has_demand_us()
                     ? buffer.demand_us()
                     : bytes / (hw.copy_bandwidth_gbps() * kBytesPerUsPerGbps);
    if (buffer.has_benefit_us()) given_benefit_[b] = buffer.benefit_us();
  }

  for (int t = 0; t < num_steps; ++t) {
    const Instruction& instruction = workload.instructions(t);
    if (instruction.has_roofline()) {
      model_[t] = Model::kRoofline;
      const RooflineLatency& roofline = instruction.roofline();
      compute_us_[t] =
          roofline.flops() > 0
              ? roofline.flops() / (hw.peak_tflops() * kFlopsPerUsPerTflops)
              : roofline.compute_us();
    } else if (instruction.has_measured()) {
      model_[t] = Model::kMeasured;
      const MeasuredLatency& measured = instruction.measured();
      measured_us_[t].assign(measured.latency_us().begin(),
                             measured.latency_us().end());
      for (int i = 0; i < measured.buffer_ids_size(); ++i) {
        measured_bit_[measured.buffer_ids(i)] = i;
      }
    }
    // The static model reads supply_[t], which it requires to be given.
    if (instruction.has_supply_us()) supply_[t] = instruction.supply_us();
    const size_t count = buffers_of_[t].size();
    all_slow_[t] = LatencyOfMembership(t, std::vector<char>(count, 0));
    all_fast_[t] = LatencyOfMembership(t, std::vector<char>(count, 1));
    if (!instruction.has_supply_us()) supply_[t] = all_fast_[t];
  }

  for (int b = 0; b < num_buffers; ++b) {
    if (workload.buffers(b).has_benefit_us()) {
      benefit_[b] = given_benefit_[b];
      continue;
    }
    const int t = target_[b];
    std::vector<char> only_b(buffers_of_[t].size(), 0);
    only_b[position_[b]] = 1;
    benefit_[b] = all_slow_[t] - LatencyOfMembership(t, only_b);
  }
}

double ReferenceLatency::Latency(int t, absl::Span<const int> fast) const {
  std::vector<char> in_fast(buffers_of_[t].size(), 0);
  for (int b : fast) {
    if (b >= 0 && b < num_buffers() && target_[b] == t)
      in_fast[position_[b]] = 1;
  }
  return LatencyOfMembership(t, in_fast);
}

double ReferenceLatency::LatencyOfMembership(
    int t, const std::vector<char>& in_fast) const {
  const std::vector<int>& buffers = buffers_of_[t];
  switch (model_[t]) {
    case Model::kStatic: {
      // Supply is required without a latency model (CheckWorkload), and is
      // by definition L_t(all): each slow buffer adds its benefit back.
      double latency = supply_[t];
      for (size_t i = 0; i < buffers.size(); ++i) {
        if (!in_fast[i]) latency += given_benefit_[buffers[i]];
      }
      return latency;
    }
    case Model::kRoofline: {
      double memory_us = 0.0;
      for (size_t i = 0; i < buffers.size(); ++i) {
        memory_us += in_fast[i] ? fast_us_[buffers[i]] : slow_us_[buffers[i]];
      }
      return std::max(compute_us_[t], memory_us);
    }
    case Model::kMeasured: {
      size_t mask = 0;
      double unlisted_benefit = 0.0;
      for (size_t i = 0; i < buffers.size(); ++i) {
        if (!in_fast[i]) continue;
        const int bit = measured_bit_[buffers[i]];
        if (bit >= 0) {
          mask |= size_t{1} << bit;
        } else {
          unlisted_benefit += given_benefit_[buffers[i]];
        }
      }
      return measured_us_[t][mask] - unlisted_benefit;
    }
  }
  return 0.0;
}

}  // namespace mmapzero::validate
