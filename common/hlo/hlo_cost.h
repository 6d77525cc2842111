// Roofline cost of HLO instructions (docs/game-engine.md): the compute
// term of an instruction. The memory term is not computed here: the game
// derives it from the instruction's buffers and the hardware bandwidths.
//
//  - dot: 2 x output elements x product of the lhs contracting dimensions;
//  - convolution: 2 x output elements x kernel elements / output features
//    (the kernel's 'o' dimension in dim_labels), so grouped and depthwise
//    convolutions count what they compute;
//  - GPU custom-calls: cuBLAS GEMMs from the dot dimension numbers in their
//    backend_config, cuDNN convolutions from window/dim_labels like
//    convolution, fused attention from its head/sequence attributes;
//  - elementwise ops: one FLOP per output element; reductions: one per
//    input element; data movement and collectives: none (bytes only);
//  - fusion: the FLOPs of its fused computation;
//  - while / conditional / call: the roofline time of the called code
//    (trip count x body for a loop, the slowest branch of a conditional),
//    reported as compute_us because it mixes compute and memory time.
// docs/hlo-import.md has the table.
#ifndef MMAPZERO_COMMON_HLO_HLO_COST_H_
#define MMAPZERO_COMMON_HLO_HLO_COST_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "common/hlo/hlo_module.h"
#include "proto/workload.pb.h"

namespace mmapzero::hlo {

struct InstructionCost {
  double flops = 0;
  // Control flow only: time of the called computations, us (flops = 0).
  double compute_us = 0;
};

class HloCostModel {
 public:
  HloCostModel(const HloModule& module, const HardwareProfile& hardware,
               std::string source_name);

  InstructionCost Cost(const HloComputation& computation,
                       const HloInstruction& instruction);

  // The index of `conditional`'s slowest branch (in the order of
  // ControlFlowComputations, branch k taking operand k + 1), or -1 when a
  // branch is missing.
  int SlowestBranch(const HloInstruction& conditional);

  // Approximations made so far, each naming the line; deduplicated.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  double Flops(const HloComputation& computation,
               const HloInstruction& instruction);
  double CustomCallFlops(const HloComputation& computation,
                         const HloInstruction& instruction);
  double FusionFlops(const HloInstruction& instruction);
  double WhileUs(const HloComputation& computation,
                 const HloInstruction& instruction);
  // Roofline time of running `name` once with everything in slow memory.
  double ComputationUs(std::string_view name, int line);
  double InstructionUs(const HloComputation& computation,
                       const HloInstruction& instruction);
  void Warn(int line, const std::string& message);

  const HloModule& module_;
  HardwareProfile hardware_;
  std::string source_name_;
  absl::flat_hash_map<std::string, double> computation_us_;
  absl::flat_hash_map<std::string, double> fusion_flops_;
  int depth_ = 0;
  std::vector<std::string> warnings_;
  absl::flat_hash_map<std::string, int> warned_;
};

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_COST_H_
