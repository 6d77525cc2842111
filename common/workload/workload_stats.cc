#include "common/workload/workload_stats.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_map.h"

namespace mmapzero {
namespace {

SizeStats Summarise(std::vector<int64_t> sizes) {
  SizeStats stats;
  if (sizes.empty()) return stats;
  std::sort(sizes.begin(), sizes.end());
  stats.count = static_cast<int64_t>(sizes.size());
  stats.min = sizes.front();
  stats.median = sizes[(sizes.size() - 1) / 2];
  stats.max = sizes.back();
  for (int64_t size : sizes) stats.total += size;
  return stats;
}

// One tensor as the pressure sees it: its bytes and its lifetime.
struct TensorExtent {
  int64_t bytes = 0;
  int start = 0;
  int end = 0;  // inclusive
};

// Tensors in tensor_id order, so every derived figure is deterministic.
std::map<int, TensorExtent> CollectTensors(const Workload& workload) {
  std::map<int, TensorExtent> tensors;
  for (const Buffer& buffer : workload.buffers()) {
    const int start = buffer.live_range().start();
    const int end = buffer.live_range().end();
    auto [it, inserted] = tensors.try_emplace(
        buffer.tensor_id(), TensorExtent{buffer.size(), start, end});
    if (inserted) continue;
    TensorExtent& tensor = it->second;
    tensor.bytes = std::max(tensor.bytes, buffer.size());
    tensor.start = std::min(tensor.start, start);
    tensor.end = std::max(tensor.end, end);
  }
  return tensors;
}

void CountBuffers(const Workload& workload, WorkloadStats& stats) {
  absl::flat_hash_map<int, int> alias_members;
  std::vector<int64_t> sizes;
  sizes.reserve(workload.buffers_size());
  for (const Buffer& buffer : workload.buffers()) {
    (buffer.is_output() ? stats.num_outputs : stats.num_operands)++;
    if (buffer.has_alias_id()) {
      ++stats.num_alias_members;
      const int members = ++alias_members[buffer.alias_id()];
      stats.largest_alias_group = std::max(stats.largest_alias_group, members);
    }
    if (buffer.size() > workload.memory_size()) {
      ++stats.num_buffers_over_memory;
    }
    sizes.push_back(buffer.size());
  }
  stats.num_buffers = workload.buffers_size();
  stats.num_alias_groups = static_cast<int>(alias_members.size());
  stats.buffer_bytes = Summarise(std::move(sizes));
}

void CountLatencyModels(const Workload& workload, WorkloadStats& stats) {
  for (const Instruction& instruction : workload.instructions()) {
    if (instruction.has_roofline()) {
      ++stats.num_roofline;
    } else if (instruction.has_measured()) {
      ++stats.num_measured;
    } else {
      ++stats.num_static;
    }
  }
}

// Sums the bytes of the live tensors at every step with a difference array:
// O(T + tensors) whatever the lifetimes.
void ComputePressure(const std::map<int, TensorExtent>& tensors,
                     WorkloadStats& stats) {
  const int num_steps = stats.num_instructions;
  std::vector<int64_t> delta(num_steps + 1, 0);
  for (const auto& [id, tensor] : tensors) {
    const int start = std::clamp(tensor.start, 0, num_steps);
    const int end = std::clamp(tensor.end + 1, start, num_steps);
    delta[start] += tensor.bytes;
    delta[end] -= tensor.bytes;
  }
  stats.live_bytes.assign(num_steps, 0);
  int64_t live = 0;
  double sum = 0;
  for (int t = 0; t < num_steps; ++t) {
    live += delta[t];
    stats.live_bytes[t] = live;
    sum += static_cast<double>(live);
    if (live > stats.peak_live_bytes) {
      stats.peak_live_bytes = live;
      stats.peak_time = t;
    }
    if (live > stats.memory_size) ++stats.steps_over_memory;
  }
  if (num_steps > 0) {
    stats.mean_live_bytes = sum / num_steps;
    stats.fraction_over_memory =
        static_cast<double>(stats.steps_over_memory) / num_steps;
  }
}

}  // namespace

WorkloadStats ComputeWorkloadStats(const Workload& workload) {
  WorkloadStats stats;
  stats.memory_size = workload.memory_size();
  stats.num_instructions = workload.instructions_size();
  CountBuffers(workload, stats);
  CountLatencyModels(workload, stats);

  const std::map<int, TensorExtent> tensors = CollectTensors(workload);
  stats.num_tensors = static_cast<int>(tensors.size());
  std::vector<int64_t> tensor_sizes;
  tensor_sizes.reserve(tensors.size());
  for (const auto& [id, tensor] : tensors) {
    tensor_sizes.push_back(tensor.bytes);
    if (tensor.bytes > workload.memory_size()) ++stats.num_tensors_over_memory;
  }
  stats.tensor_bytes = Summarise(std::move(tensor_sizes));
  ComputePressure(tensors, stats);
  return stats;
}

int BucketStart(int bucket, int num_buckets, int num_steps) {
  if (num_buckets <= 0) return 0;
  return static_cast<int>(static_cast<int64_t>(bucket) * num_steps /
                          num_buckets);
}

std::vector<int64_t> PeakPerBucket(const std::vector<int64_t>& live_bytes,
                                   int max_buckets) {
  const int num_steps = static_cast<int>(live_bytes.size());
  const int num_buckets = std::min(max_buckets, num_steps);
  std::vector<int64_t> peaks;
  if (num_buckets <= 0) return peaks;
  peaks.reserve(num_buckets);
  for (int b = 0; b < num_buckets; ++b) {
    const int begin = BucketStart(b, num_buckets, num_steps);
    const int end = BucketStart(b + 1, num_buckets, num_steps);
    peaks.push_back(*std::max_element(live_bytes.begin() + begin,
                                      live_bytes.begin() + end));
  }
  return peaks;
}

}  // namespace mmapzero
