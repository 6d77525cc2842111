// Hand-made workloads and solutions for the validator's, simulator's and
// commands' tests, with every answer worked out in the comments. Header
// only: it is part of no library.
#ifndef MMAPZERO_COMMON_VALIDATE_TINY_WORKLOADS_FOR_TEST_H_
#define MMAPZERO_COMMON_VALIDATE_TINY_WORKLOADS_FOR_TEST_H_

#include <cstdint>
#include <optional>

#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::validate::tiny {

struct BufferSpec {
  int tensor_id = 0;
  bool is_output = false;
  int target_time = 0;
  int64_t size = 0;
  int live_start = 0;
  int live_end = 0;
  double demand_us = 0.0;
  double benefit_us = 0.0;
};

// Static features only: every instruction has supply `supply_us` and no
// latency model, so L_t(S) = supply + benefits of t's buffers not in S.
inline Workload StaticWorkload(int num_steps, int64_t memory_size,
                               double supply_us) {
  Workload workload;
  workload.set_name("tiny");
  workload.set_memory_size(memory_size);
  for (int t = 0; t < num_steps; ++t) {
    workload.add_instructions()->set_supply_us(supply_us);
  }
  return workload;
}

inline int AddBuffer(Workload* workload, const BufferSpec& spec) {
  Buffer* buffer = workload->add_buffers();
  buffer->set_id(workload->buffers_size() - 1);
  buffer->set_tensor_id(spec.tensor_id);
  buffer->set_is_output(spec.is_output);
  buffer->set_target_time(spec.target_time);
  buffer->set_size(spec.size);
  buffer->mutable_live_range()->set_start(spec.live_start);
  buffer->mutable_live_range()->set_end(spec.live_end);
  buffer->set_demand_us(spec.demand_us);
  buffer->set_benefit_us(spec.benefit_us);
  return buffer->id();
}

inline int AddAliasedBuffer(Workload* workload, const BufferSpec& spec,
                            int alias_id) {
  const int b = AddBuffer(workload, spec);
  workload->mutable_buffers(b)->set_alias_id(alias_id);
  return b;
}

inline BufferDecision Copy(int b, int64_t offset, int first, int last,
                           std::optional<int> copy_first,
                           std::optional<int> copy_last) {
  BufferDecision d;
  d.set_buffer_id(b);
  d.set_action(COPY);
  d.set_offset(offset);
  d.set_interval_start(first);
  d.set_interval_end(last);
  if (copy_first) d.set_copy_start(*copy_first);
  if (copy_last) d.set_copy_end(*copy_last);
  return d;
}

// NoCopy; `first`/`last` absent for an empty extension.
inline BufferDecision NoCopy(int b, int64_t offset,
                             std::optional<int> first = std::nullopt,
                             std::optional<int> last = std::nullopt) {
  BufferDecision d;
  d.set_buffer_id(b);
  d.set_action(NO_COPY);
  d.set_offset(offset);
  if (first) d.set_interval_start(*first);
  if (last) d.set_interval_end(*last);
  return d;
}

inline BufferDecision Drop(int b) {
  BufferDecision d;
  d.set_buffer_id(b);
  d.set_action(DROP);
  return d;
}

// Four steps, supply 1 us each, 100 bytes of fast memory:
//   b0 tensor 0 operand at 2, 40 B, live [0,3], demand 1.5, benefit 5
//   b1 tensor 1 output  at 1, 30 B, live [1,3], demand 0.5, benefit 2
//   b2 tensor 1 operand at 3, 30 B, live [1,3], demand 0.5, benefit 3
//   b3 tensor 2 output  at 0, 20 B, live [0,1], demand 0.25, benefit 1
//   b4 tensor 3 operand at 1, 50 B, live [0,1], demand 0.25, benefit 4
// Decision order (target_time, operands first, id): b3, b4, b1, b0, b2.
inline Workload FourStepWorkload() {
  Workload w = StaticWorkload(4, 100, 1.0);
  AddBuffer(&w, {0, false, 2, 40, 0, 3, 1.5, 5.0});
  AddBuffer(&w, {1, true, 1, 30, 1, 3, 0.5, 2.0});
  AddBuffer(&w, {1, false, 3, 30, 1, 3, 0.5, 3.0});
  AddBuffer(&w, {2, true, 0, 20, 0, 1, 0.25, 1.0});
  AddBuffer(&w, {3, false, 1, 50, 0, 1, 0.25, 4.0});
  return w;
}

// The solution the rules give for FourStepWorkload (W = supply left):
//   b3 NoCopy output: I = live [0,1], lowest offset 0.
//   b4 Drop.
//   b1 Copy (write-back at d=1, demand 0.5): e=2 (W[2]=1 covers it), copy
//      steps [2,2], I=[1,2]; W[2]=0.5. Lowest offset over [1,2]: b3 holds
//      [0,20) at step 1, so 20.
//   b0 Copy (prefetch at u=2, demand 1.5): W[1]=1 short, W[1]+W[0]=2 covers,
//      s=0, copy steps [0,1], I=[0,2]; W[1]=0, W[0]=0.5. Lowest offset
//      over [0,2]: [0,20) and [20,50) taken, so 50 (50+40 <= 100).
//   b2 NoCopy operand of tensor 1 at u=3: tensor 1's latest allocation is
//      b1's, to step 2 at offset 20, so the extension (2,3] = [3,3] at 20.
// L_t(S_t) = [1, 1+4, 1, 1] = 8 us; all-slow [2, 7, 6, 4] = 19 us;
// all-fast 4 x 1 = 4 us; return 19 - 8 = 11 us; normalised 11 / 15.
inline Solution FourStepSolution() {
  Solution s;
  s.set_workload_name("tiny");
  *s.add_decisions() = NoCopy(3, 0, 0, 1);
  *s.add_decisions() = Drop(4);
  *s.add_decisions() = Copy(1, 20, 1, 2, 2, 2);
  *s.add_decisions() = Copy(0, 50, 0, 2, 0, 1);
  *s.add_decisions() = NoCopy(2, 20, 3, 3);
  return s;
}

}  // namespace mmapzero::validate::tiny

#endif  // MMAPZERO_COMMON_VALIDATE_TINY_WORKLOADS_FOR_TEST_H_
