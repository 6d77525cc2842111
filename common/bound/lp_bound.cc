#include "common/bound/lp_bound.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>
#include <vector>

#include "ClpSimplex.hpp"
#include "CoinPackedMatrix.hpp"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/validate/decision_order.h"
#include "common/validate/reference_latency.h"

namespace mmapzero::bound {
namespace {

constexpr double kInfinity = 1e30;
// A buffer's bytes are counted over at most this many steps up to its use:
// counting less only loosens the bound, and it keeps the matrix to about
// 65 entries a buffer however far back a copy may start.
constexpr int kMaxSpan = 64;
// About this many matrix entries for the copies' windows in all: each
// copy's presence and supply are followed step by step over a window of
// steps before its use (further back: in aggregate), as wide as this allows
// (the whole program on small ones), each step costing about 8 entries.
constexpr int64_t kWindowEntries = 1'000'000;
constexpr int kMinCopyWindow = 16;

// The LP as CLP takes it: columns with bounds and objective, rows with
// bounds, and the matrix as (row, column, value) triples.
class LinearProgram {
 public:
  int AddColumn(double lower, double upper, double objective) {
    column_lower_.push_back(lower);
    column_upper_.push_back(upper);
    objective_.push_back(objective);
    return static_cast<int>(objective_.size()) - 1;
  }
  int AddRow(double lower, double upper) {
    row_lower_.push_back(lower);
    row_upper_.push_back(upper);
    return static_cast<int>(row_lower_.size()) - 1;
  }
  void Set(int row, int column, double value) {
    if (value == 0) return;
    rows_.push_back(row);
    columns_.push_back(column);
    values_.push_back(value);
  }

  int64_t num_columns() const { return static_cast<int64_t>(objective_.size()); }
  int64_t num_rows() const { return static_cast<int64_t>(row_lower_.size()); }
  int64_t nonzeros() const { return static_cast<int64_t>(values_.size()); }

  // Maximises; the optimum's objective, DeadlineExceeded past max_seconds
  // (> 0), or Internal.
  absl::StatusOr<double> Maximise(const LpOptions& options) const {
    if (objective_.empty()) return 0.0;
    CoinPackedMatrix matrix(
        /*colordered=*/true, rows_.data(), columns_.data(), values_.data(),
        static_cast<CoinBigIndex>(values_.size()));
    // CLP wants the matrix's dimensions to match the bounds it is given
    // (rows or columns without entries leave the triples short of them).
    matrix.setDimensions(static_cast<int>(row_lower_.size()),
                         static_cast<int>(objective_.size()));
    ClpSimplex model;
    model.setLogLevel(0);
    model.loadProblem(matrix, column_lower_.data(), column_upper_.data(),
                      objective_.data(), row_lower_.data(), row_upper_.data());
    model.setOptimizationDirection(-1);  // maximise
    if (!options.mps_path.empty() &&
        model.writeMps(options.mps_path.c_str(), /*formatType=*/1,
                       /*numberAcross=*/2, /*objSense=*/-1.0) != 0) {
      return absl::InternalError(
          absl::StrCat(options.mps_path, ": cannot write the LP as MPS"));
    }
    const double max_seconds = options.max_seconds;
    if (max_seconds > 0) model.setMaximumSeconds(max_seconds);
    model.initialSolve();
    if (max_seconds > 0 && model.hitMaximumIterations()) {
      return absl::DeadlineExceededError(absl::StrFormat(
          "the LP relaxation (%d columns, %d rows) did not finish in %g s",
          objective_.size(), row_lower_.size(), max_seconds));
    }
    if (!model.isProvenOptimal()) {
      return absl::InternalError(absl::StrCat(
          "the LP solver (CLP) ended with status ", model.status(),
          " instead of an optimum"));
    }
    return model.objectiveValue();
  }

 private:
  std::vector<double> column_lower_, column_upper_, objective_;
  std::vector<double> row_lower_, row_upper_;
  std::vector<int> rows_, columns_;
  std::vector<double> values_;
};

// The largest marginal saving of each buffer of instruction t, and the
// largest saving of the instruction, by its latency model.
struct Savings {
  std::vector<double> gain;  // by buffer id, >= 0
  std::vector<double> cap;   // by instruction, >= 0
};

Savings SavingsOf(const Workload& workload,
                  const validate::ReferenceLatency& latency) {
  Savings savings;
  savings.gain.assign(workload.buffers_size(), 0.0);
  savings.cap.assign(workload.instructions_size(), 0.0);
  for (int t = 0; t < workload.instructions_size(); ++t) {
    const double all_slow = latency.AllSlow(t);
    const absl::Span<const int> buffers = latency.BuffersOf(t);
    // Per execution here; a step in a loop saves it on every trip (below).
    const double repeat = latency.Repeat(t);
    for (const int b : buffers) {
      savings.gain[b] = all_slow - latency.Latency(t, {b});
    }
    savings.cap[t] = all_slow - latency.AllFast(t);
    const Instruction& instruction = workload.instructions(t);
    if (instruction.has_measured()) {
      // Not concave in general: every subset of the table's buffers, with
      // every unlisted buffer fast for the cap (they add their benefit).
      const auto& listed = instruction.measured().buffer_ids();
      std::vector<int> unlisted;
      for (const int b : buffers) {
        if (std::find(listed.begin(), listed.end(), b) == listed.end()) {
          unlisted.push_back(b);
        }
      }
      const int k = listed.size();
      for (int mask = 0; mask < (1 << k); ++mask) {
        std::vector<int> fast;
        for (int i = 0; i < k; ++i) {
          if (mask & (1 << i)) fast.push_back(listed[i]);
        }
        const double base = latency.Latency(t, fast);
        for (int i = 0; i < k; ++i) {
          if (mask & (1 << i)) continue;
          fast.push_back(listed[i]);
          savings.gain[listed[i]] = std::max(
              savings.gain[listed[i]], base - latency.Latency(t, fast));
          fast.pop_back();
        }
        fast.insert(fast.end(), unlisted.begin(), unlisted.end());
        savings.cap[t] = std::max(savings.cap[t],
                                  all_slow - latency.Latency(t, fast));
      }
    }
    savings.cap[t] = repeat * std::max(0.0, savings.cap[t]);
    for (const int b : buffers) savings.gain[b] *= repeat;
  }
  for (double& gain : savings.gain) gain = std::max(0.0, gain);
  return savings;
}

// Whose bytes a column holds once at a step: an alias group's or a
// tensor's (with their size, so that a key never mixes sizes).
struct HeldKey {
  int chain;  // Chains::Find of the tensor
  int step;
  int64_t size;
  bool operator==(const HeldKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const HeldKey& key) {
    return H::combine(std::move(h), key.chain, key.step, key.size);
  }
};

// Tensors whose allocations may be one: a tensor's own chain (its output's
// allocation and the NoCopy extensions of it), joined with every tensor it
// shares an alias group with. Union-find over tensor ids.
class Chains {
 public:
  explicit Chains(const Workload& workload) {
    absl::flat_hash_map<int, int> group_tensor;  // alias group -> a tensor
    for (const Buffer& buffer : workload.buffers()) {
      parent_.try_emplace(buffer.tensor_id(), buffer.tensor_id());
      if (!buffer.has_alias_id()) continue;
      const auto [it, first] =
          group_tensor.emplace(buffer.alias_id(), buffer.tensor_id());
      if (!first) Join(it->second, buffer.tensor_id());
    }
  }
  int Find(int tensor) {
    int root = tensor;
    while (parent_[root] != root) root = parent_[root];
    while (parent_[tensor] != root) {
      const int next = parent_[tensor];
      parent_[tensor] = root;
      tensor = next;
    }
    return root;
  }

 private:
  void Join(int a, int b) { parent_[Find(a)] = Find(b); }
  absl::flat_hash_map<int, int> parent_;
};

// Whether a copy of `demand` fits the supply of steps [first, last], from
// `prefix` (prefix[t] = the supply of the steps before t). A relative 1e-9
// of slack, wider than the engine's 1e-12, so that rounding never rules
// out a copy the game allows (ruling in one more only loosens the bound).
bool CopyFits(const std::vector<double>& prefix, double demand, int first,
              int last) {
  if (demand <= 0) return true;
  if (first > last) return false;
  return prefix[last + 1] - prefix[first] >= demand * (1 - 1e-9);
}

// A copy's interval, step by step over a window next to `use` (column
// `copy`, its fraction): before the use for an operand's prefetch
// ([s, use), towards `limit` = its live range's start), after it for an
// output's eviction ((use, e], towards `limit` = the last step). As
// fractions:
//  - present[j]: the interval reaches the j-th step away from the use (so
//    the bytes are held there), non-increasing in j, present[1] = copy;
//  - draw[j]: the supply it takes from that step, at most demand while
//    present, every step's draws within that step's supply;
//  - far: what it takes from beyond the window, only if present at the
//    window's end (operands' far draws are bounded by the prefix rows);
//  - the intervals' rule: present[j] for j >= 2 holds two adjacent steps
//    of the interval, which one copy at most may.
// `hold(step, column)` counts the bytes the column holds at a step.
void AddCopyWindow(LinearProgram& lp, int copy, double demand, int use,
                   bool before, int limit, int max_window,
                   const std::function<void(int step, int column)>& hold,
                   const std::vector<int>& supply_row,
                   const std::vector<int>& pair_row) {
  const int reach = before ? use - limit : limit - use;
  const int window = std::min(max_window, reach);
  const int drawn = lp.AddRow(0, 0);  // draws + far - demand * copy = 0
  lp.Set(drawn, copy, -demand);
  int previous = copy;
  for (int j = 1; j <= window; ++j) {
    const int step = before ? use - j : use + j;
    const int present = lp.AddColumn(0, 1, 0);
    // present_1 = copy (a copy with demand takes at least one step), then
    // present_j <= present_j-1.
    const int monotone = lp.AddRow(j == 1 ? 0 : -kInfinity, 0);
    lp.Set(monotone, present, 1.0);
    lp.Set(monotone, previous, -1.0);
    previous = present;
    const int draw = lp.AddColumn(0, demand, 0);
    lp.Set(drawn, draw, 1.0);
    lp.Set(supply_row[step], draw, 1.0);
    const int while_present = lp.AddRow(-kInfinity, 0);
    lp.Set(while_present, draw, 1.0);
    lp.Set(while_present, present, -demand);
    // Steps {t, t + 1} of the interval are pair t.
    if (j >= 2) lp.Set(pair_row[before ? step : step - 1], present, 1.0);
    hold(step, present);
  }
  if (reach > window) {
    const int far = lp.AddColumn(0, demand, 0);
    lp.Set(drawn, far, 1.0);
    const int far_present = lp.AddRow(-kInfinity, 0);
    lp.Set(far_present, far, 1.0);
    lp.Set(far_present, previous, -demand);
  }
}

}  // namespace

absl::StatusOr<LpBound> SolveLpBound(const Workload& workload,
                                     const LpOptions& options) {
  const validate::ReferenceLatency latency(workload);
  const Savings savings = SavingsOf(workload, latency);
  const int num_steps = workload.instructions_size();
  const int64_t memory = workload.memory_size();

  int64_t operands = 0;
  for (const Buffer& buffer : workload.buffers()) operands += !buffer.is_output();
  const int copy_window = static_cast<int>(std::clamp<int64_t>(
      kWindowEntries / 8 / std::max<int64_t>(1, operands), kMinCopyWindow,
      std::max(kMinCopyWindow, num_steps)));

  LinearProgram lp;
  // Capacity rows, one per step, created up front.
  std::vector<int> capacity_row(num_steps);
  for (int t = 0; t < num_steps; ++t) {
    capacity_row[t] = lp.AddRow(-kInfinity, 1.0);  // in units of the memory
  }
  // Savings: s_t - sum of gains of t's fast buffers <= 0.
  std::vector<int> saving_row(num_steps, -1);
  for (int t = 0; t < num_steps; ++t) {
    if (savings.cap[t] <= 0) continue;
    const int column = lp.AddColumn(0, savings.cap[t], 1.0);
    saving_row[t] = lp.AddRow(-kInfinity, 0);
    lp.Set(saving_row[t], column, 1.0);
  }
  // Bandwidth: E_t = E_{t-1} + demand copied for uses at t, E_t at most the
  // supply of the steps before t.
  std::vector<double> supply_prefix(num_steps + 1, 0.0);
  for (int t = 0; t < num_steps; ++t) {
    supply_prefix[t + 1] = supply_prefix[t] + latency.Supply(t);
  }
  std::vector<int> bandwidth_row(num_steps);
  int previous_total = -1;
  for (int t = 0; t < num_steps; ++t) {
    const int total =
        lp.AddColumn(0, supply_prefix[t] * (1 + 1e-9) + 1e-9, 0);
    bandwidth_row[t] = lp.AddRow(0, 0);  // E_t - E_{t-1} - demands = 0
    lp.Set(bandwidth_row[t], total, 1.0);
    if (previous_total >= 0) lp.Set(bandwidth_row[t], previous_total, -1.0);
    previous_total = total;
  }

  // Per step: the supply copies draw from it, and the copies whose
  // intervals hold both it and the next step (at most one: two copy
  // intervals share at most one step).
  std::vector<int> supply_row(num_steps), pair_row(num_steps);
  for (int t = 0; t < num_steps; ++t) {
    supply_row[t] = lp.AddRow(-kInfinity, latency.Supply(t) * (1 + 1e-9) + 1e-12);
    pair_row[t] = lp.AddRow(-kInfinity, 1.0);
  }

  // Each tensor's running total of fast buffers, for NoCopy's premise.
  absl::flat_hash_map<int, int> tensor_total;     // tensor -> its column
  absl::flat_hash_map<int, int> tensor_last_use;  // tensor -> previous use
  absl::flat_hash_map<int, int> alias_first;      // group -> x row column
  // Bytes held once for several buffers at a step -> their column.
  absl::flat_hash_map<HeldKey, int> held_once;
  Chains chain(workload);
  for (const int b : validate::DecisionOrder(workload)) {
    const Buffer& buffer = workload.buffers(b);
    const int use = buffer.target_time();
    const int tensor = buffer.tensor_id();
    const bool aliased = buffer.has_alias_id();
    struct Part {
      int column;
      int first, last;  // the steps it surely holds
      bool shared;      // part of the tensor's chain of allocations
    };
    std::vector<Part> parts;
    // Counts this buffer's bytes at `step` for `column`. Bytes that one
    // allocation holds for several buffers count once: an alias group's
    // (its members share one allocation) and a tensor's chain of output and
    // NoCopy holdings (the output's allocation, resident or written back,
    // and the extensions of it to later uses), through a column at least as
    // large as each buffer's holding there. An operand's copy is an
    // allocation of its own and counts directly.
    absl::flat_hash_map<int, int> keyed_row;  // step -> this buffer's row
    // Its share of the memory (capacity rows are in memories: well scaled).
    const double share = static_cast<double>(buffer.size()) / memory;
    const auto hold_as = [&](int step, int column, bool shared) {
      if (!aliased && !shared) {
        lp.Set(capacity_row[step], column, share);
        return;
      }
      auto [row, fresh] = keyed_row.emplace(step, -1);
      if (fresh) {
        const HeldKey key{chain.Find(tensor), step, buffer.size()};
        auto [held, created] = held_once.emplace(key, -1);
        if (created) {
          held->second = lp.AddColumn(0, 1, 0);
          lp.Set(capacity_row[step], held->second, share);
        }
        row->second = lp.AddRow(0, kInfinity);  // held - holdings >= 0
        lp.Set(row->second, held->second, 1.0);
      }
      lp.Set(row->second, column, -1.0);
    };
    if (buffer.size() <= memory) {
      const double demand = latency.Demand(b);
      if (buffer.is_output()) {
        // Copy: written back over (use, e], e no later than the last step.
        // Its allocation is the one a later NoCopy of the tensor extends:
        // held once with the tensor's other NoCopy holdings.
        // A copy stays inside its step's run of loops (rules §7).
        const int last = latency.loops().RunEnd(use);
        if (CopyFits(supply_prefix, demand, use + 1, last)) {
          const int copy = lp.AddColumn(0, 1, 0);
          parts.push_back({copy, use, use, true});
          if (demand > 0) {
            AddCopyWindow(lp, copy, demand, use, /*before=*/false,
                          last, copy_window,
                          [&](int step, int column) {
                            hold_as(step, column, /*shared=*/true);
                          },
                          supply_row, pair_row);
          }
        }
        // NoCopy: resident over its live range.
        const int no_copy = lp.AddColumn(0, 1, 0);
        parts.push_back({no_copy, use,
                         std::min(buffer.live_range().end(), use + kMaxSpan),
                         true});
      } else {
        const int live_start = std::max(buffer.live_range().start(),
                                        latency.loops().RunStart(use));
        if (CopyFits(supply_prefix, demand, live_start, use - 1)) {
          const int copy = lp.AddColumn(0, 1, 0);
          lp.Set(bandwidth_row[use], copy, -demand);
          parts.push_back({copy, use, use, false});
          if (demand > 0) {
            AddCopyWindow(lp, copy, demand, use, /*before=*/true, live_start,
                          copy_window,
                          [&](int step, int column) {
                            hold_as(step, column, /*shared=*/false);
                          },
                          supply_row, pair_row);
          }
        }
        const auto previous = tensor_total.find(tensor);
        if (previous != tensor_total.end()) {
          const int no_copy = lp.AddColumn(0, 1, 0);
          // NoCopy only as far as an earlier buffer of the tensor is fast.
          const int premise = lp.AddRow(-kInfinity, 0);
          lp.Set(premise, no_copy, 1.0);
          lp.Set(premise, previous->second, -1.0);
          parts.push_back({no_copy,
                           std::max(tensor_last_use[tensor] + 1, use - kMaxSpan),
                           use, true});
        }
      }
    }
    // x_b, the buffer's fast fraction, as a column tied to its parts.
    const int fast = lp.AddColumn(0, 1, 0);
    const int tie = lp.AddRow(0, 0);
    lp.Set(tie, fast, 1.0);
    for (const Part& part : parts) {
      lp.Set(tie, part.column, -1.0);
      for (int t = part.first; t <= part.last; ++t) {
        hold_as(t, part.column, part.shared);
      }
    }
    if (saving_row[use] >= 0) lp.Set(saving_row[use], fast, -savings.gain[b]);
    if (aliased) {
      const auto [first, inserted] = alias_first.emplace(buffer.alias_id(), fast);
      if (!inserted) {
        const int same = lp.AddRow(0, 0);
        lp.Set(same, fast, 1.0);
        lp.Set(same, first->second, -1.0);
      }
    }
    // The tensor's running total: Z = Z_previous + x_b (unbounded above).
    const int total = lp.AddColumn(0, kInfinity, 0);
    const int running = lp.AddRow(0, 0);
    lp.Set(running, total, 1.0);
    lp.Set(running, fast, -1.0);
    const auto previous = tensor_total.find(tensor);
    if (previous != tensor_total.end()) lp.Set(running, previous->second, -1.0);
    tensor_total[tensor] = total;
    tensor_last_use[tensor] = use;
  }

  absl::StatusOr<double> optimum = lp.Maximise(options);
  if (!optimum.ok()) return optimum.status();
  double normaliser = 0;
  for (int t = 0; t < num_steps; ++t) {
    normaliser += latency.Repeat(t) * (latency.AllSlow(t) - latency.AllFast(t));
  }
  LpBound bound;
  // The solver's tolerances: a bound must never fall below a solution.
  bound.return_us = std::max(0.0, *optimum) * (1 + 1e-7) + 1e-9;
  bound.normalised_return = normaliser > 0 ? bound.return_us / normaliser : 0;
  bound.columns = lp.num_columns();
  bound.rows = lp.num_rows();
  bound.nonzeros = lp.nonzeros();
  return bound;
}

}  // namespace mmapzero::bound
