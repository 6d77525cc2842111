#include "common/workload/workload_check.h"

#include <cmath>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "common/workload/loop_nest.h"
#include "common/workload/workload_limits.h"

namespace mmapzero {
namespace {

absl::Status FieldError(const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

std::string BufferField(int index, const char* name) {
  return absl::StrCat("buffers[", index, "].", name);
}

// A name, opcode or provenance entry longer than kMaxNameLength.
absl::Status CheckLength(const std::string& field, const std::string& text) {
  if (text.size() <= static_cast<size_t>(kMaxNameLength)) {
    return absl::OkStatus();
  }
  return FieldError(field, absl::StrCat("at most ", kMaxNameLength,
                                        " bytes, got ", text.size()));
}

bool HasLatencyModel(const Instruction& instruction) {
  return instruction.latency_case() != Instruction::LATENCY_NOT_SET;
}

// Rates a latency model can divide by without times going past any
// double (a denormal bandwidth made a 100-MiB copy take "inf" seconds and
// the heuristic's plan invalid): 1 kB/s to 1 EB/s, and for compute up to
// 10^9 TFLOP/s from 10^-9 (a thousand FLOPs a second).
constexpr double kMinGbps = 1e-6;
constexpr double kMaxGbps = 1e9;
constexpr double kMinTflops = 1e-9;
constexpr double kMaxTflops = 1e9;

bool UsableBandwidth(double gbps) {
  return std::isfinite(gbps) && gbps >= kMinGbps && gbps <= kMaxGbps;
}

absl::Status CheckHardware(const Workload& workload) {
  bool needs_roofline = false;
  for (const Instruction& instruction : workload.instructions()) {
    needs_roofline |= instruction.has_roofline();
  }
  const HardwareProfile& hw = workload.hardware();
  if (needs_roofline) {
    if (!UsableBandwidth(hw.slow_bandwidth_gbps())) {
      return FieldError("hardware.slow_bandwidth_gbps",
                        absl::StrCat("must be in [", kMinGbps, ", ", kMaxGbps,
                                     "] GB/s for roofline latencies, got ",
                                     hw.slow_bandwidth_gbps()));
    }
    if (!UsableBandwidth(hw.fast_bandwidth_gbps())) {
      return FieldError("hardware.fast_bandwidth_gbps",
                        absl::StrCat("must be in [", kMinGbps, ", ", kMaxGbps,
                                     "] GB/s for roofline latencies, got ",
                                     hw.fast_bandwidth_gbps()));
    }
  }
  if (hw.peak_tflops() != 0 &&
      !(hw.peak_tflops() >= kMinTflops && hw.peak_tflops() <= kMaxTflops)) {
    return FieldError("hardware.peak_tflops",
                      absl::StrCat("must be 0 (none) or in [", kMinTflops, ", ",
                                   kMaxTflops, "], got ", hw.peak_tflops()));
  }
  if (hw.fast_memory_bytes() < 0 || hw.fast_memory_bytes() > kMaxBytes) {
    return FieldError("hardware.fast_memory_bytes",
                      absl::StrCat("must be in [0, 2^48], got ",
                                   hw.fast_memory_bytes()));
  }
  if (hw.alignment() < 0 || hw.alignment() > kMaxBytes) {
    return FieldError("hardware.alignment",
                      absl::StrCat("must be in [0, 2^48], got ", hw.alignment()));
  }
  return CheckLength("hardware.name", hw.name());
}

absl::Status CheckInstruction(const Workload& workload, int t) {
  const Instruction& instruction = workload.instructions(t);
  const std::string field = absl::StrCat("instructions[", t, "]");
  RETURN_IF_ERROR(CheckLength(field + ".name", instruction.name()));
  RETURN_IF_ERROR(CheckLength(field + ".opcode", instruction.opcode()));
  if (instruction.has_supply_us() &&
      (!std::isfinite(instruction.supply_us()) || instruction.supply_us() < 0)) {
    return FieldError(field + ".supply_us",
                      absl::StrCat("must be >= 0, got ", instruction.supply_us()));
  }
  if (!HasLatencyModel(instruction) && !instruction.has_supply_us()) {
    return FieldError(field + ".supply_us",
                      "required when the instruction has no latency model "
                      "(roofline or measured)");
  }
  if (instruction.has_roofline()) {
    const RooflineLatency& roofline = instruction.roofline();
    if (roofline.flops() < 0 || !std::isfinite(roofline.flops())) {
      return FieldError(field + ".roofline.flops",
                        absl::StrCat("must be >= 0, got ", roofline.flops()));
    }
    if (roofline.compute_us() < 0 || !std::isfinite(roofline.compute_us())) {
      return FieldError(field + ".roofline.compute_us",
                        absl::StrCat("must be >= 0, got ", roofline.compute_us()));
    }
    if (roofline.flops() > 0 && !(workload.hardware().peak_tflops() > 0)) {
      return FieldError(field + ".roofline.flops",
                        "needs hardware.peak_tflops > 0 to turn FLOPs into time");
    }
  }
  if (instruction.has_measured()) {
    const MeasuredLatency& measured = instruction.measured();
    const int k = measured.buffer_ids_size();
    if (k > 8) {
      return FieldError(field + ".measured.buffer_ids",
                        absl::StrCat("at most 8 buffers, got ", k));
    }
    if (measured.latency_us_size() != (1 << k)) {
      return FieldError(field + ".measured.latency_us",
                        absl::StrCat("needs 2^", k, " = ", 1 << k,
                                     " entries for ", k, " buffers, got ",
                                     measured.latency_us_size()));
    }
    for (int i = 0; i < measured.latency_us_size(); ++i) {
      const double latency = measured.latency_us(i);
      if (!std::isfinite(latency) || latency < 0) {
        return FieldError(absl::StrCat(field, ".measured.latency_us[", i, "]"),
                          absl::StrCat("must be >= 0, got ", latency));
      }
    }
    for (int i = 0; i < k; ++i) {
      const int id = measured.buffer_ids(i);
      const std::string id_field =
          absl::StrCat(field, ".measured.buffer_ids[", i, "]");
      if (id < 0 || id >= workload.buffers_size()) {
        return FieldError(id_field, absl::StrCat("no buffer with id ", id));
      }
      if (workload.buffers(id).target_time() != t) {
        return FieldError(id_field,
                          absl::StrCat("buffer ", id, " is used at time ",
                                       workload.buffers(id).target_time(),
                                       ", not by this instruction"));
      }
      for (int j = 0; j < i; ++j) {
        if (measured.buffer_ids(j) == id) {
          return FieldError(id_field, absl::StrCat("buffer ", id, " listed twice"));
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckBuffer(const Workload& workload, int i) {
  const Buffer& buffer = workload.buffers(i);
  const int num_steps = workload.instructions_size();
  if (buffer.id() != i) {
    return FieldError(BufferField(i, "id"),
                      absl::StrCat("must equal the buffer's index ", i, ", got ",
                                   buffer.id()));
  }
  if (buffer.size() <= 0 || buffer.size() > kMaxBytes) {
    return FieldError(BufferField(i, "size"),
                      absl::StrCat("must be in [1, 2^48] bytes, got ",
                                   buffer.size()));
  }
  RETURN_IF_ERROR(CheckLength(BufferField(i, "tensor_name"),
                              buffer.tensor_name()));
  if (buffer.target_time() < 0 || buffer.target_time() >= num_steps) {
    return FieldError(BufferField(i, "target_time"),
                      absl::StrCat("must be in [0, ", num_steps - 1, "], got ",
                                   buffer.target_time()));
  }
  if (buffer.tensor_id() < 0) {
    return FieldError(BufferField(i, "tensor_id"),
                      absl::StrCat("must be >= 0, got ", buffer.tensor_id()));
  }
  if (buffer.has_alias_id() && buffer.alias_id() < 0) {
    return FieldError(BufferField(i, "alias_id"),
                      absl::StrCat("must be >= 0 (or absent), got ",
                                   buffer.alias_id()));
  }
  const LiveRange& live = buffer.live_range();
  if (live.start() < 0 || live.end() >= num_steps || live.start() > live.end()) {
    return FieldError(BufferField(i, "live_range"),
                      absl::StrCat("must satisfy 0 <= start <= end <= ",
                                   num_steps - 1, ", got [", live.start(), ", ",
                                   live.end(), "]"));
  }
  if (buffer.target_time() < live.start() || buffer.target_time() > live.end()) {
    return FieldError(BufferField(i, "target_time"),
                      absl::StrCat(buffer.target_time(),
                                   " lies outside live_range [", live.start(),
                                   ", ", live.end(), "]"));
  }
  if (buffer.has_demand_us() &&
      (!std::isfinite(buffer.demand_us()) || buffer.demand_us() < 0)) {
    return FieldError(BufferField(i, "demand_us"),
                      absl::StrCat("must be >= 0, got ", buffer.demand_us()));
  }
  if (!buffer.has_demand_us() &&
      !UsableBandwidth(workload.hardware().copy_bandwidth_gbps())) {
    return FieldError(
        BufferField(i, "demand_us"),
        absl::StrCat("required when hardware.copy_bandwidth_gbps is not in [",
                     kMinGbps, ", ", kMaxGbps, "] GB/s"));
  }
  if (buffer.has_benefit_us() &&
      (!std::isfinite(buffer.benefit_us()) || buffer.benefit_us() < 0)) {
    return FieldError(BufferField(i, "benefit_us"),
                      absl::StrCat("must be >= 0, got ", buffer.benefit_us()));
  }
  const Instruction& user = workload.instructions(buffer.target_time());
  if (!buffer.has_benefit_us() && !HasLatencyModel(user)) {
    return FieldError(BufferField(i, "benefit_us"),
                      absl::StrCat("required: instruction ", buffer.target_time(),
                                   " has no latency model"));
  }
  if (!buffer.has_benefit_us() && user.has_measured()) {
    bool listed = false;
    for (int id : user.measured().buffer_ids()) listed |= id == i;
    if (!listed) {
      return FieldError(BufferField(i, "benefit_us"),
                        absl::StrCat("required: buffer is not in instruction ",
                                     buffer.target_time(), "'s measured table"));
    }
  }
  return absl::OkStatus();
}

// Alias-group members share one allocation, so they must have one size.
absl::Status CheckAliasGroups(const Workload& workload) {
  absl::flat_hash_map<int, int> first_member;
  for (int i = 0; i < workload.buffers_size(); ++i) {
    const Buffer& buffer = workload.buffers(i);
    if (!buffer.has_alias_id()) continue;
    auto [it, inserted] = first_member.emplace(buffer.alias_id(), i);
    if (inserted) continue;
    const Buffer& first = workload.buffers(it->second);
    if (first.size() != buffer.size()) {
      return FieldError(
          BufferField(i, "size"),
          absl::StrCat(buffer.size(), " differs from ", first.size(),
                       " of buffers[", it->second, "] in the same alias group ",
                       buffer.alias_id()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckWorkload(const Workload& workload) {
  if (workload.memory_size() <= 0 || workload.memory_size() > kMaxBytes) {
    return FieldError("memory_size",
                      absl::StrCat("must be in [1, 2^48] bytes, got ",
                                   workload.memory_size()));
  }
  if (workload.alignment() < 0 ||
      workload.alignment() > workload.memory_size()) {
    return FieldError("alignment",
                      absl::StrCat("must be in [0, memory_size ",
                                   workload.memory_size(), "], got ",
                                   workload.alignment()));
  }
  if (workload.instructions_size() == 0) {
    return FieldError("instructions", "a workload needs at least one instruction");
  }
  if (workload.instructions_size() > kMaxInstructions) {
    return FieldError("instructions",
                      absl::StrCat("at most 2^24, got ",
                                   workload.instructions_size()));
  }
  if (workload.buffers_size() > kMaxBuffers) {
    return FieldError("buffers", absl::StrCat("at most 2^24, got ",
                                              workload.buffers_size()));
  }
  RETURN_IF_ERROR(CheckLength("name", workload.name()));
  for (const auto& [key, value] : workload.provenance()) {
    RETURN_IF_ERROR(CheckLength("provenance", key));
    RETURN_IF_ERROR(CheckLength(absl::StrCat("provenance[", key.substr(0, 64),
                                             "]"),
                                value));
  }
  if (auto status = CheckHardware(workload); !status.ok()) return status;
  for (int t = 0; t < workload.instructions_size(); ++t) {
    if (auto status = CheckInstruction(workload, t); !status.ok()) return status;
  }
  int64_t total_bytes = 0;
  for (int i = 0; i < workload.buffers_size(); ++i) {
    if (auto status = CheckBuffer(workload, i); !status.ok()) return status;
    // Sizes are at most 2^48 each: the sum cannot pass 2^63 before this.
    total_bytes += workload.buffers(i).size();
    if (total_bytes > kMaxTotalBufferBytes) {
      return FieldError(BufferField(i, "size"),
                        "the buffers' sizes together pass 2^60 bytes");
    }
  }
  RETURN_IF_ERROR(CheckLoops(workload));
  RETURN_IF_ERROR(CheckAliasGroups(workload));
  if (workload.buffers_size() == 0) {
    return FieldError("buffers",
                      "a workload needs at least one buffer (with none, the "
                      "game has no decision to make)");
  }
  return absl::OkStatus();
}

}  // namespace mmapzero
