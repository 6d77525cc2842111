// What a workload looks like before anyone plays it: counts, size
// distributions, the latency models in use and the memory pressure over
// logical time (how many bytes of tensors are live at each step, against
// the fast-memory capacity). `mmapctl inspect` prints it; services reuse it
// to describe the workloads they hold.
//
// Tensors are identified by Buffer.tensor_id. A tensor's bytes are the
// largest size among its buffers (its buffers normally agree) and its
// lifetime is the union of its buffers' live ranges (normally identical), so
// each tensor counts once in the pressure, however many buffers use it.
#ifndef MMAPZERO_COMMON_WORKLOAD_WORKLOAD_STATS_H_
#define MMAPZERO_COMMON_WORKLOAD_WORKLOAD_STATS_H_

#include <cstdint>
#include <vector>

#include "proto/workload.pb.h"

namespace mmapzero {

// Distribution of a set of sizes in bytes; all zero when the set is empty.
struct SizeStats {
  int64_t count = 0;
  int64_t min = 0;
  int64_t median = 0;  // the lower median: an element of the set
  int64_t max = 0;
  int64_t total = 0;
};

struct WorkloadStats {
  int64_t memory_size = 0;  // copied from the workload, bytes

  int num_instructions = 0;  // T, the number of logical time steps
  int num_buffers = 0;
  int num_operands = 0;  // buffers read
  int num_outputs = 0;   // buffers written
  int num_tensors = 0;   // distinct tensor_ids
  int num_alias_groups = 0;
  int num_alias_members = 0;    // buffers that belong to an alias group
  int largest_alias_group = 0;  // members of the biggest group

  // Latency models (rules §6): how many instructions use each.
  int num_roofline = 0;
  int num_measured = 0;
  int num_static = 0;  // no model: static benefits and supply only

  SizeStats buffer_bytes;
  SizeStats tensor_bytes;
  int num_buffers_over_memory = 0;  // size > memory_size: can only be dropped
  int num_tensors_over_memory = 0;

  // Memory pressure: live_bytes[t] is the sum of the bytes of every tensor
  // whose lifetime contains t, for t in [0, T).
  std::vector<int64_t> live_bytes;
  int64_t peak_live_bytes = 0;
  int peak_time = 0;  // first step at which the peak is reached
  double mean_live_bytes = 0;
  int steps_over_memory = 0;        // steps with live_bytes > memory_size
  double fraction_over_memory = 0;  // steps_over_memory / T
};

// Computes the statistics of a workload that passed CheckWorkload
// (workload_check.h); fields out of range in an unchecked workload are
// clamped, never trusted.
WorkloadStats ComputeWorkloadStats(const Workload& workload);

// Splits [0, live_bytes.size()) into min(max_buckets, size) consecutive
// buckets of (nearly) equal length and returns the largest value of each,
// so a short spike over the memory is never averaged away. Empty when
// max_buckets <= 0 or there are no steps.
std::vector<int64_t> PeakPerBucket(const std::vector<int64_t>& live_bytes,
                                   int max_buckets);

// The first step of bucket `bucket` out of `num_buckets` over `num_steps`,
// as PeakPerBucket splits them (bucket == num_buckets gives num_steps).
int BucketStart(int bucket, int num_buckets, int num_steps);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_WORKLOAD_WORKLOAD_STATS_H_
