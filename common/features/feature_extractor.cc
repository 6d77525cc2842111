#include "common/features/feature_extractor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

namespace mmapzero::features {
namespace {

using game::Action;
using game::BufferInfo;
using game::MMapGame;
using game::Program;

float Soft(double x, double scale) {
  return static_cast<float>(x / (std::abs(x) + scale));
}

// The hardware section (feature_extractor.h): the profile's numbers, into
// `h` (kHardwareFeatures values, already zeroed).
void HardwareFeatures(const Program& program, float* h) {
  const HardwareProfile& hw = program.source().hardware();
  const double log_memory =
      std::log2(1.0 + static_cast<double>(program.memory_size()));
  h[1] = static_cast<float>(std::min(1.0, log_memory / 48.0));
  if (log_memory > 0 && program.alignment() > 1) {
    h[5] = static_cast<float>(std::min(
        1.0, std::log2(static_cast<double>(program.alignment())) / log_memory));
  }
  const double slow = hw.slow_bandwidth_gbps();
  if (!(slow > 0)) return;
  h[0] = 1.0f;
  const auto log_ratio = [slow](double bandwidth) {
    if (!(bandwidth > 0)) return 0.0f;
    return static_cast<float>(
        std::clamp(std::log2(bandwidth / slow) / 8.0, -1.0, 1.0));
  };
  h[2] = log_ratio(hw.fast_bandwidth_gbps());
  h[3] = log_ratio(hw.copy_bandwidth_gbps());
  if (hw.peak_tflops() > 0) {
    const double flops_per_byte = hw.peak_tflops() * 1e3 / slow;
    h[4] = static_cast<float>(
        std::min(1.0, std::log2(1.0 + flops_per_byte) / 16.0));
  }
}

// Per-program tables, indexed by position in decision order, and the
// hardware section, the same in every state. Kept per thread for the
// latest program seen (weak_ptr: a freed program is never mistaken for a
// new one at the same address).
struct ProgramTables {
  std::weak_ptr<const Program> program;
  std::vector<int32_t> next_same_tensor;  // next position, -1 if none
  std::vector<int32_t> group_rank;        // members of its group before it
  std::array<float, kHardwareFeatures> hardware{};
};

const ProgramTables& TablesFor(const std::shared_ptr<const Program>& program) {
  thread_local ProgramTables tables;
  const bool same = !tables.program.expired() &&
                    !tables.program.owner_before(program) &&
                    !program.owner_before(tables.program);
  if (same) return tables;
  tables.program = program;
  const std::vector<int32_t>& order = program->decision_order();
  const int32_t n = static_cast<int32_t>(order.size());
  tables.next_same_tensor.assign(n, -1);
  tables.group_rank.assign(n, 0);
  std::vector<int32_t> last_of_tensor(program->num_tensors(), -1);
  std::vector<int32_t> seen_in_group(program->num_alias_groups(), 0);
  for (int32_t pos = n - 1; pos >= 0; --pos) {
    const int32_t tensor = program->buffer(order[pos]).tensor;
    tables.next_same_tensor[pos] = last_of_tensor[tensor];
    last_of_tensor[tensor] = pos;
  }
  for (int32_t pos = 0; pos < n; ++pos) {
    const int32_t group = program->buffer(order[pos]).alias_group;
    if (group >= 0) tables.group_rank[pos] = seen_in_group[group]++;
  }
  tables.hardware.fill(0.0f);
  HardwareFeatures(*program, tables.hardware.data());
  return tables;
}

// MMapGame::OccupancyGrid, written into `grid` (time_bins * byte_bins,
// already zeroed) instead of a new vector.
void RasteriseOccupancy(const MMapGame& game, int32_t start, int32_t end,
                        int32_t time_bins, int32_t byte_bins, float* grid) {
  const Program& program = game.program();
  if (time_bins <= 0 || byte_bins <= 0 || start > end) return;
  const double steps_per_bin = static_cast<double>(end - start + 1) / time_bins;
  const double bytes_per_bin =
      static_cast<double>(program.memory_size()) / byte_bins;
  const int32_t lo = std::max(start, 0);
  const int32_t hi = std::min(end, program.num_steps() - 1);
  if (lo > hi) return;
  game.allocations().ForEachOverlapping(lo, hi, [&](const game::Rect& r) {
    const double t0 = std::max(r.start, start) - start;
    const double t1 = std::min(r.end, end) + 1 - start;
    const double b0 = static_cast<double>(r.offset);
    const double b1 = static_cast<double>(r.offset + r.size);
    const int32_t ti0 = static_cast<int32_t>(t0 / steps_per_bin);
    const int32_t ti1 = std::min(
        time_bins - 1, static_cast<int32_t>((t1 - 1e-9) / steps_per_bin));
    const int32_t bi0 = static_cast<int32_t>(b0 / bytes_per_bin);
    const int32_t bi1 = std::min(
        byte_bins - 1, static_cast<int32_t>((b1 - 1e-9) / bytes_per_bin));
    for (int32_t ti = ti0; ti <= ti1; ++ti) {
      const double tc = (std::min(t1, (ti + 1) * steps_per_bin) -
                         std::max(t0, ti * steps_per_bin)) /
                        steps_per_bin;
      float* row = grid + static_cast<size_t>(ti) * byte_bins;
      for (int32_t bi = bi0; bi <= bi1; ++bi) {
        const double bc = std::min(b1, (bi + 1) * bytes_per_bin) -
                          std::max(b0, bi * bytes_per_bin);
        row[bi] += static_cast<float>(tc * (bc / bytes_per_bin));
      }
    }
  });
  // Members of an alias group share their bytes, so cells may sum past 1.
  for (size_t i = 0, n = static_cast<size_t>(time_bins) * byte_bins; i < n;
       ++i) {
    grid[i] = std::min(grid[i], 1.0f);
  }
}

struct Scales {
  int32_t now;        // current target time
  double time;        // s_t
  double latency;     // s_l
  double log_memory;  // log2(1 + memory_size)
  int32_t current_tensor;
  int32_t current_group;
};

void BufferFeatures(const Program& program, int32_t id, const Scales& s,
                    float* f) {
  const BufferInfo& b = program.buffer(id);
  f[0] = 1.0f;
  f[1] = static_cast<float>(std::log2(1.0 + static_cast<double>(b.size)) /
                            s.log_memory);
  f[2] = b.is_output ? 1.0f : 0.0f;
  f[3] = Soft(b.target_time - s.now, s.time);
  f[4] = Soft(b.live_start - s.now, s.time);
  f[5] = Soft(b.live_end - s.now, s.time);
  f[6] = static_cast<float>(b.demand_us / (b.demand_us + s.latency));
  f[7] = static_cast<float>(std::max(0.0, b.benefit_us) /
                            (std::max(0.0, b.benefit_us) + s.latency));
  if (b.alias_group >= 0) {
    const double n = program.alias_group_size(b.alias_group);
    f[8] = 1.0f;
    f[9] = static_cast<float>(n / (n + 4.0));
  }
  f[10] = b.tensor == s.current_tensor ? 1.0f : 0.0f;
  f[11] = b.alias_group >= 0 && b.alias_group == s.current_group ? 1.0f : 0.0f;
}

}  // namespace

int BufferSlots(const FeatureConfig& config) {
  return 1 + config.next_buffers() + config.same_tensor_buffers();
}
int TargetOccupancyOffset(const FeatureConfig& config) {
  return kBufferFeatures * BufferSlots(config);
}
int SupplyOffset(const FeatureConfig& config) {
  return TargetOccupancyOffset(config) + config.target_occupancy_bins();
}
int ActionOffset(const FeatureConfig& config) {
  return SupplyOffset(config) + config.supply_window_steps();
}
int GlobalOffset(const FeatureConfig& config) {
  return ActionOffset(config) + game::kNumActions * kActionFeatures;
}
int HardwareOffset(const FeatureConfig& config) {
  return GlobalOffset(config) + kGlobalFeatures;
}
int VectorSize(const FeatureConfig& config) {
  return HardwareOffset(config) + kHardwareFeatures;
}
int OccupancySize(const FeatureConfig& config) {
  return config.occupancy_time_bins() * config.occupancy_byte_bins();
}

void Observe(const MMapGame& game, const FeatureConfig& config,
             Observation* out) {
  out->vector.assign(VectorSize(config), 0.0f);
  out->occupancy.assign(OccupancySize(config), 0.0f);
  if (game.IsTerminal()) return;

  const Program& program = game.program();
  const ProgramTables& tables = TablesFor(game.shared_program());
  const std::vector<int32_t>& order = program.decision_order();
  const int32_t num_buffers = program.num_buffers();
  const int32_t depth = game.depth();
  const int32_t current = game.CurrentBuffer();
  const BufferInfo& cur = program.buffer(current);
  const int32_t now = game.CurrentTime();

  Scales s;
  s.now = now;
  s.time = std::max(1, config.occupancy_window_steps() / 2);
  s.latency = std::max(
      1e-9, program.empty_latency_us() / std::max(1, program.num_steps()));
  s.log_memory = std::max(
      1.0, std::log2(1.0 + static_cast<double>(program.memory_size())));
  s.current_tensor = cur.tensor;
  s.current_group = cur.alias_group;

  // Buffer slots.
  float* v = out->vector.data();
  BufferFeatures(program, current, s, v);
  float* slot = v + kBufferFeatures;
  for (int i = 1; i <= config.next_buffers(); ++i, slot += kBufferFeatures) {
    if (depth + i < num_buffers)
      BufferFeatures(program, order[depth + i], s, slot);
  }
  int32_t pos = tables.next_same_tensor[depth];
  for (int i = 0; i < config.same_tensor_buffers();
       ++i, slot += kBufferFeatures) {
    if (pos < 0) continue;
    BufferFeatures(program, order[pos], s, slot);
    pos = tables.next_same_tensor[pos];
  }

  // Occupancy at the target time, and the supply window.
  RasteriseOccupancy(game, now, now, 1, config.target_occupancy_bins(),
                     v + TargetOccupancyOffset(config));
  float* supply = v + SupplyOffset(config);
  const int32_t supply_start = now - config.supply_window_steps() / 2;
  for (int i = 0; i < config.supply_window_steps(); ++i) {
    const int32_t t = supply_start + i;
    if (t < 0 || t >= program.num_steps()) continue;
    const double left = std::max(0.0, game.ledger().remaining(t));
    supply[i] = static_cast<float>(left / (left + s.latency));
  }

  // Actions.
  const double memory = static_cast<double>(program.memory_size());
  float* a = v + ActionOffset(config);
  for (int i = 0; i < game::kNumActions; ++i, a += kActionFeatures) {
    const game::ActionOutcome& o = game.Outcome(static_cast<Action>(i));
    if (!o.legal) continue;
    a[0] = 1.0f;
    if (o.has_allocation()) {
      a[1] = 1.0f;
      a[2] = Soft(o.interval_start - now, s.time);
      a[3] = Soft(o.interval_end - now, s.time);
      a[4] = static_cast<float>(
          static_cast<double>(std::max<int64_t>(0, o.offset)) / memory);
    }
    a[5] = Soft(o.reward, s.latency);
  }

  // Global.
  float* g = v + GlobalOffset(config);
  const double buffers = std::max(1, num_buffers);
  g[0] = static_cast<float>(
      std::min(1.0, static_cast<double>(game.trajectory().size()) / buffers));
  g[1] = static_cast<float>(depth / buffers);
  g[2] = static_cast<float>(static_cast<double>(now) /
                            std::max(1, program.num_steps()));
  if (cur.alias_group >= 0) {
    const double n = program.alias_group_size(cur.alias_group);
    const int32_t rank = tables.group_rank[depth];
    g[3] = 1.0f;
    g[4] = static_cast<float>(rank / n);
    g[5] = static_cast<float>((n - 1 - rank) / n);
    g[6] = rank > 0 ? 1.0f : 0.0f;
  }
  g[7] = static_cast<float>(game.drop_backups()) / (1.0f + game.drop_backups());
  const double max_return = program.max_return_us();
  g[8] = max_return > 0 ? static_cast<float>(
                              std::clamp(game.Return() / max_return, -1.0, 1.0))
                        : 0.0f;
  g[9] = 1.0f;
  std::copy(tables.hardware.begin(), tables.hardware.end(),
            v + HardwareOffset(config));

  RasteriseOccupancy(game, now - config.occupancy_window_steps() / 2,
                     now - config.occupancy_window_steps() / 2 +
                         config.occupancy_window_steps() - 1,
                     config.occupancy_time_bins(), config.occupancy_byte_bins(),
                     out->occupancy.data());
}

}  // namespace mmapzero::features
