// MiniMalloc instances (Moffitt, "MiniMalloc: A Lightweight Memory
// Allocator for Hardware-Accelerated Machine Learning", ASPLOS 2024) as
// workloads. An instance is a CSV `id,lower,upper,size`: buffers that live
// over logical times [lower, upper) and must all be placed in a memory of
// a given capacity, with no two overlapping in time x bytes. That is the
// offset half of memory mapping, with real allocation pressure from
// production programs: a test of the engine's allocator.
//
// Times are renumbered: the distinct lowers and uppers, in order, become
// steps 0, 1, ... (which buffers overlap is unchanged; the instances' times
// run to a million with a few hundred distinct values). Each row becomes
// one output buffer written at its `lower` step and live until the step
// before its `upper`, so that NoCopy reserves exactly its lifetime at the lowest
// free offset (rules §4.2), with a benefit of one microsecond and no
// demand: the normalised return is the share of buffers placed, and 1 means
// the whole instance fits. Instructions carry a supply of zero and no
// latency model (static benefits only).
#ifndef MMAPZERO_COMMON_WORKLOAD_MINIMALLOC_H_
#define MMAPZERO_COMMON_WORKLOAD_MINIMALLOC_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/workload.pb.h"

namespace mmapzero {

struct MiniMallocOptions {
  std::string name;  // the workload's name
  int64_t capacity = 0;  // the workload's memory_size, bytes; > 0
};

// InvalidArgument naming the line and the field for a malformed row (a
// header other than `id,lower,upper,size`, lower >= upper, size <= 0, a
// repeated id); the workload passes CheckWorkload. Ids are text (the
// instances use numbers and names alike); buffers are numbered by start
// time, the file's order kept among equal starts.
absl::StatusOr<Workload> WorkloadFromMiniMalloc(absl::string_view csv,
                                                const MiniMallocOptions& options);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_WORKLOAD_MINIMALLOC_H_
