#include "common/hlo/hlo_opcodes.h"

#include <string>

#include "absl/container/flat_hash_map.h"

namespace mmapzero::hlo {
namespace {

using Table = absl::flat_hash_map<std::string, OpcodeClass>;

const Table& Opcodes() {
  static const Table* table = [] {
    auto* t = new Table;
    auto add = [t](OpcodeClass c, std::initializer_list<const char*> names) {
      for (const char* name : names) t->emplace(name, c);
    };
    add(OpcodeClass::kSource, {"parameter", "constant"});
    add(OpcodeClass::kView,
        {"tuple", "get-tuple-element", "bitcast", "copy-done",
         "all-reduce-done", "all-gather-done", "collective-permute-done",
         "async-done", "async-update", "send-done", "recv-done",
         "optimization-barrier", "opt-barrier", "add-dependency",
         "domain"});
    add(OpcodeClass::kNoWork,
        {"after-all", "partition-id", "replica-id", "get-dimension-size",
         "set-dimension-size", "rng-get-and-update-state"});
    add(OpcodeClass::kElementwise, {"abs",
                                    "add",
                                    "and",
                                    "atan2",
                                    "cbrt",
                                    "ceil",
                                    "clamp",
                                    "clz",
                                    "compare",
                                    "complex",
                                    "convert",
                                    "cosine",
                                    "divide",
                                    "erf",
                                    "exponential",
                                    "exponential-minus-one",
                                    "floor",
                                    "imag",
                                    "is-finite",
                                    "log",
                                    "log-plus-one",
                                    "logistic",
                                    "map",
                                    "maximum",
                                    "minimum",
                                    "multiply",
                                    "negate",
                                    "not",
                                    "or",
                                    "popcnt",
                                    "power",
                                    "real",
                                    "reduce-precision",
                                    "remainder",
                                    "round-nearest-afz",
                                    "round-nearest-even",
                                    "rsqrt",
                                    "select",
                                    "shift-left",
                                    "shift-right-arithmetic",
                                    "shift-right-logical",
                                    "sign",
                                    "sine",
                                    "sqrt",
                                    "stochastic-convert",
                                    "subtract",
                                    "tan",
                                    "tanh",
                                    "xor",
                                    "rng",
                                    "rng-bit-generator",
                                    "bitcast-convert",
                                    "batch-norm-inference",
                                    "batch-norm-training",
                                    "batch-norm-grad",
                                    "cholesky",
                                    "triangular-solve",
                                    "fft",
                                    "topk",
                                    "sort"});
    add(OpcodeClass::kDataMovement, {"copy",
                                     "copy-start",
                                     "transpose",
                                     "reshape",
                                     "dynamic-reshape",
                                     "broadcast",
                                     "slice",
                                     "dynamic-slice",
                                     "dynamic-update-slice",
                                     "concatenate",
                                     "pad",
                                     "gather",
                                     "scatter",
                                     "reverse",
                                     "iota",
                                     "infeed",
                                     "outfeed",
                                     "send",
                                     "recv",
                                     "async-start"});
    add(OpcodeClass::kReduction,
        {"reduce", "reduce-window", "select-and-scatter"});
    add(OpcodeClass::kContraction, {"dot", "convolution", "ragged-dot"});
    add(OpcodeClass::kControlFlow, {"while", "conditional", "call"});
    add(OpcodeClass::kFusion, {"fusion"});
    add(OpcodeClass::kCustomCall, {"custom-call"});
    add(OpcodeClass::kCollective,
        {"all-reduce", "all-reduce-start", "all-gather", "all-gather-start",
         "all-to-all", "ragged-all-to-all", "collective-broadcast",
         "collective-permute", "collective-permute-start", "reduce-scatter"});
    return t;
  }();
  return *table;
}

}  // namespace

bool IsKnownOpcode(std::string_view opcode) {
  return Opcodes().contains(std::string(opcode));
}

OpcodeClass ClassOf(std::string_view opcode) {
  auto it = Opcodes().find(std::string(opcode));
  return it == Opcodes().end() ? OpcodeClass::kElementwise : it->second;
}

bool IsAsyncStart(std::string_view opcode) {
  return opcode.ends_with("-start") || opcode == "send" ||
         opcode == "recv";
}

bool IsAsyncDone(std::string_view opcode) {
  return opcode.ends_with("-done");
}

}  // namespace mmapzero::hlo
