#include "common/hlo/hlo_export.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/base/status_macros.h"
#include "common/hlo/hlo_importer.h"
#include "common/hlo/hlo_lexer.h"
#include "common/hlo/hlo_opcodes.h"
#include "common/validate/validator.h"

namespace mmapzero::hlo {
namespace {

// Attributes that name computations: what the printed module must keep.
constexpr const char* kComputationAttributes[] = {
    "to_apply",        "calls",          "condition",          "body",
    "branch_computations", "true_computation", "false_computation",
    "called_computations", "select",     "scatter"};

// An HLO name made of what HLO names may hold: letters, digits, '_', '.',
// '-'; anything else (the '/' of inlined names, braces) becomes '.'.
std::string Sanitize(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
          c == '.' || c == '-')) {
      c = '.';
    }
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) {
    out.insert(0, "v");
  }
  return out;
}

// The index path of leaf `leaf` (depth first) in `shape`.
std::vector<int64_t> LeafPath(const HloShape& shape, int leaf) {
  std::vector<int64_t> path;
  const HloShape* current = &shape;
  while (current->IsTuple()) {
    for (size_t i = 0; i < current->elements.size(); ++i) {
      const int count = current->elements[i].LeafCount();
      if (leaf < count) {
        path.push_back(static_cast<int64_t>(i));
        current = &current->elements[i];
        break;
      }
      leaf -= count;
    }
  }
  return path;
}

const HloShape& SubShape(const HloShape& shape,
                         const std::vector<int64_t>& path) {
  const HloShape* current = &shape;
  for (int64_t i : path) current = &current->elements[i];
  return *current;
}

// A version of a tensor's data the printed program names.
struct Version {
  std::string name;      // a value of the computation: the whole array
  int64_t space = 0;     // its memory space
  bool is_copy = false;  // the result of a copy pair the export added
  int available = -1;    // the first step that may read it (-1: any)
};

struct TensorVersions {
  std::optional<Version> base;  // what the program itself names
  std::optional<Version> fast;  // its current fast-memory version
  std::optional<Version> slow;  // its latest slow-memory version
};

// One computation of the printed module being built.
struct Scope {
  std::string name;
  absl::flat_hash_set<std::string> names;  // taken
  std::vector<std::string> lines;
  std::string root;  // the printed name of its ROOT
};

// A prefetch, for the overrides: the step that reads it, the tensor, and
// the step its copy starts before.
struct Prefetch {
  int step = 0;
  int tensor = 0;
  int start = 0;
};

class Exporter {
 public:
  Exporter(const HloImport& import, const Workload& workload,
           const Solution& solution)
      : module_(import.module),
        flat_(import.flat),
        trace_(import.result.trace),
        workload_(workload),
        solution_(solution) {}

  absl::StatusOr<HloExport> Run();

 private:
  const HloInstruction& Flat(int f) const {
    return flat_.computation.instructions[f];
  }
  int NumFlat() const {
    return static_cast<int>(flat_.computation.instructions.size());
  }
  int FlatIndex(const std::string& name) const {
    const auto it = flat_.computation.index.find(name);
    return it == flat_.computation.index.end() ? -1 : it->second;
  }
  // Scopes: 0 the entry; loop L's condition 1 + 2L, its body 2 + 2L.
  int ScopeOfFlat(int f) const {
    const int loop = loop_of_flat_[f];
    if (loop < 0) return 0;
    return f < flat_.loops[loop].body_begin ? 1 + 2 * loop : 2 + 2 * loop;
  }
  int ParentScope(int loop) const {
    return ScopeOfFlat(flat_.loops[loop].entry);
  }
  static std::string Key(int scope, const std::string& name) {
    return absl::StrCat(scope, ":", name);
  }
  std::vector<int64_t>& Spaces(int scope, const std::string& name) {
    return spaces_[Key(scope, name)];
  }
  // The array a tensor is, for the shapes of copies.
  HloShape ArrayOf(int tensor) const;
  // How the flat value `operand` is named in `scope`: its printed name, or
  // the loop state's parameter inside the loop.
  std::string OperandName(int scope, const std::string& operand) const;

  void Index();
  std::string Reserve(int scope, std::string_view wanted);
  absl::Status Plan();
  absl::Status PlanRead(int scope, int step, int buffer);
  void PlanWrite(int scope, int step, int buffer);
  void PlanLoopStart(int loop, int step);
  void PlanLoopEnd(int loop);
  TensorVersions& Versions(int scope, int tensor) {
    return versions_[(static_cast<int64_t>(scope) << 32) | tensor];
  }
  absl::StatusOr<Version> Base(int scope, int tensor);
  // A name for leaf `leaf` of `value` (printed in `scope`, of `shape`),
  // its get-tuple-elements appended to `emit` when the value is a tuple.
  std::string LeafName(int scope, const std::string& value,
                       const HloShape& shape, int leaf,
                       std::vector<std::string>* emit);
  std::string CopyPair(int scope, const Version& source, int64_t to_space,
                       const HloShape& shape, const std::string& stem,
                       std::vector<std::string>* start_lines,
                       std::vector<std::string>* done_lines);

  absl::Status PrintScope(int scope, int first, int last);
  void PrintFlat(int scope, int f);
  absl::Status PrintLoop(int scope, int loop);
  void PrintAddedCopy(int scope, int step);
  // The first of the copies the import added in `scope` right before
  // `step` (a loop marker's), or `step` when there are none.
  int FirstAddedCopy(int step, int scope) const {
    while (step > 0 && trace_.step_flat[step - 1] < 0 &&
           scope_of_step_[step - 1] == scope) {
      --step;
    }
    return step;
  }
  void PrintStepLines(int scope, int step, bool after);
  // `value` (a flat name) as the instruction at `step` reads it: printed as
  // is, or a version (a tuple of versions) of the tensors `want` by leaf.
  std::string PrintedOperand(int scope, int step, const std::string& value,
                             const HloShape& shape,
                             const std::vector<int>& want);
  std::vector<int64_t> SpacesOf(int scope, int f,
                                const std::vector<std::string>& operands);
  std::string Attributes(const HloInstruction& instruction,
                         const absl::flat_hash_map<std::string, std::string>&
                             replaced) const;
  void NoteComputations(const HloInstruction& instruction);
  std::string PrintComputation(const HloComputation& computation) const;
  std::string PrintScopeText(const Scope& scope, bool entry) const;
  std::string Header() const;
  std::string OffsetsCsv();
  std::string OverridesText();

  const HloModule& module_;
  const FlatEntry& flat_;
  const HloImportTrace& trace_;
  const Workload& workload_;
  const Solution& solution_;

  std::vector<int> loop_of_flat_;   // innermost loop, -1 outside
  std::vector<int> step_of_flat_;   // -1: no step
  std::vector<int> scope_of_step_;  // where the step's reads are read
  std::vector<std::vector<int>> reads_, writes_;  // buffers by step
  std::vector<const BufferDecision*> decision_;   // by buffer
  std::vector<Scope> scopes_;
  std::vector<std::string> printed_name_;  // by flat index
  std::vector<std::string> step_name_;     // printed name of each step
  std::vector<std::string> param_name_;    // by scope
  absl::flat_hash_map<int64_t, TensorVersions> versions_;
  std::vector<int64_t> home_space_;        // by tensor
  std::vector<std::string> home_name_;     // by tensor
  std::map<std::pair<int, int>, Version> read_version_;  // (step, tensor)
  std::vector<Prefetch> prefetches_;
  std::vector<std::vector<std::string>> before_step_, after_step_;
  std::vector<std::vector<std::string>> after_flat_;
  std::vector<std::vector<std::string>> scope_start_;  // by scope
  std::vector<std::vector<std::string>> after_loop_;   // by loop
  std::map<std::tuple<int, std::string, int>, std::string> leaf_names_;
  absl::flat_hash_map<std::string, std::vector<int64_t>> spaces_;  // by Key
  std::vector<std::vector<int64_t>> state_spaces_;  // by loop
  absl::flat_hash_set<std::string> computations_;   // originals to print
  HloExport out_;
};

HloShape Exporter::ArrayOf(int tensor) const {
  const int f = trace_.tensor_flat[tensor];
  if (f >= 0) {
    return SubShape(Flat(f).shape,
                    LeafPath(Flat(f).shape, trace_.tensor_leaf[tensor]));
  }
  HloShape array;  // a copy of the import's: bytes only
  array.element_type = "u8";
  array.element_bits = 8;
  array.dims = {trace_.tensor_bytes[tensor]};
  return array;
}

std::string Exporter::OperandName(int scope, const std::string& operand) const {
  const int f = FlatIndex(operand);
  if (f < 0) return operand;
  for (size_t l = 0; l < flat_.loops.size(); ++l) {
    if (flat_.loops[l].entry == f &&
        (scope == 1 + 2 * static_cast<int>(l) ||
         scope == 2 + 2 * static_cast<int>(l))) {
      return param_name_[scope];
    }
  }
  return printed_name_[f];
}

void Exporter::Index() {
  const int num_flat = NumFlat();
  loop_of_flat_.assign(num_flat, -1);
  // Outer loops first (longer ranges), so inner ones overwrite.
  std::vector<int> order(flat_.loops.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return flat_.loops[a].exit - flat_.loops[a].entry >
           flat_.loops[b].exit - flat_.loops[b].entry;
  });
  for (int loop : order) {
    for (int f = flat_.loops[loop].entry + 1; f < flat_.loops[loop].exit; ++f) {
      loop_of_flat_[f] = loop;
    }
  }
  const int num_steps = workload_.instructions_size();
  step_of_flat_.assign(num_flat, -1);
  for (int t = 0; t < num_steps; ++t) {
    if (trace_.step_flat[t] >= 0) step_of_flat_[trace_.step_flat[t]] = t;
  }
  reads_.assign(num_steps, {});
  writes_.assign(num_steps, {});
  for (const Buffer& buffer : workload_.buffers()) {
    (buffer.is_output() ? writes_ : reads_)[buffer.target_time()].push_back(
        buffer.id());
  }
  decision_.assign(workload_.buffers_size(), nullptr);
  for (const BufferDecision& decision : solution_.decisions()) {
    decision_[decision.buffer_id()] = &decision;
  }
  scopes_.assign(1 + 2 * flat_.loops.size(), Scope{});
  param_name_.assign(scopes_.size(), "");
  absl::flat_hash_set<std::string> computation_names;
  for (const HloComputation& computation : module_.computations) {
    computation_names.insert(computation.name);
  }
  auto computation_name = [&](const std::string& wanted) {
    std::string name = Sanitize(wanted);
    for (int k = 1; !computation_names.insert(name).second; ++k) {
      name = absl::StrCat(Sanitize(wanted), ".", k);
    }
    return name;
  };
  scopes_[0].name = Sanitize(flat_.computation.name);
  for (size_t l = 0; l < flat_.loops.size(); ++l) {
    scopes_[1 + 2 * l].name = computation_name(flat_.loops[l].name + ".condition");
    scopes_[2 + 2 * l].name = computation_name(flat_.loops[l].name + ".body");
  }
  // Each flat instruction's own name, local to its computation.
  printed_name_.assign(num_flat, "");
  for (int f = 0; f < num_flat; ++f) {
    std::string local = Flat(f).name;
    const int loop = loop_of_flat_[f];
    if (loop >= 0) {
      const std::string prefix =
          flat_.loops[loop].name +
          (f < flat_.loops[loop].body_begin ? "/cond/" : "/body/");
      if (local.rfind(prefix, 0) == 0) local = local.substr(prefix.size());
    }
    printed_name_[f] = Reserve(ScopeOfFlat(f), Sanitize(local));
  }
  for (size_t s = 1; s < scopes_.size(); ++s) {
    param_name_[s] = Reserve(static_cast<int>(s), "param");
  }
  // The scope each step's reads happen in: its instruction's; a loop's
  // exit marker reads the body's last values; a copy the import added
  // ("<loop>/entry/copy{k}" before the loop, "<loop>/copy{k}" at the end of
  // its body) where it stands.
  scope_of_step_.assign(num_steps, 0);
  step_name_.assign(num_steps, "");
  for (int t = 0; t < num_steps; ++t) {
    const int f = trace_.step_flat[t];
    if (f >= 0) {
      scope_of_step_[t] = ScopeOfFlat(f);
      step_name_[t] = printed_name_[f];
      for (size_t l = 0; l < flat_.loops.size(); ++l) {
        if (flat_.loops[l].exit == f) {
          scope_of_step_[t] = 2 + 2 * static_cast<int>(l);
        }
      }
      continue;
    }
    const std::string& name = workload_.instructions(t).name();
    for (size_t l = 0; l < flat_.loops.size(); ++l) {
      const std::string& loop = flat_.loops[l].name;
      if (name.rfind(loop + "/entry/copy", 0) == 0) {
        scope_of_step_[t] = ParentScope(static_cast<int>(l));
        step_name_[t] = Reserve(scope_of_step_[t], Sanitize(name));
      } else if (name.rfind(loop + "/copy", 0) == 0) {
        scope_of_step_[t] = 2 + 2 * static_cast<int>(l);
        step_name_[t] =
            Reserve(scope_of_step_[t], Sanitize(name.substr(loop.size() + 1)));
      }
    }
  }
  before_step_.assign(num_steps, {});
  after_step_.assign(num_steps, {});
  after_flat_.assign(num_flat, {});
  scope_start_.assign(scopes_.size(), {});
  after_loop_.assign(flat_.loops.size(), {});
  home_space_.assign(trace_.tensor_flat.size(), 0);
  home_name_.assign(trace_.tensor_flat.size(), "");
  state_spaces_.assign(flat_.loops.size(), {});
}

std::string Exporter::Reserve(int scope, std::string_view wanted) {
  const std::string stem(wanted);
  std::string name = stem;
  for (int k = 1; !scopes_[scope].names.insert(name).second; ++k) {
    name = absl::StrCat(stem, ".", k);
  }
  return name;
}

std::string Exporter::LeafName(int scope, const std::string& value,
                               const HloShape& shape, int leaf,
                               std::vector<std::string>* emit) {
  if (!shape.IsTuple()) return value;
  const auto key = std::make_tuple(scope, value, leaf);
  if (const auto it = leaf_names_.find(key); it != leaf_names_.end()) {
    return it->second;
  }
  const std::vector<int64_t> path = LeafPath(shape, leaf);
  std::string current = value;
  const HloShape* current_shape = &shape;
  for (size_t depth = 0; depth < path.size(); ++depth) {
    const HloShape& element = current_shape->elements[path[depth]];
    int first = 0;  // the element's first leaf in `current`
    for (int64_t i = 0; i < path[depth]; ++i) {
      first += current_shape->elements[i].LeafCount();
    }
    const std::vector<int64_t> parent = Spaces(scope, current);
    std::vector<int64_t> element_spaces;
    for (int i = 0; i < element.LeafCount(); ++i) {
      const size_t k = static_cast<size_t>(first + i);
      element_spaces.push_back(k < parent.size() ? parent[k] : 0);
    }
    const std::string name =
        Reserve(scope, absl::StrCat(value, ".", absl::StrJoin(
                                                    path.begin(),
                                                    path.begin() + depth + 1,
                                                    ".")));
    emit->push_back(absl::StrCat(
        name, " = ", PrintShapeWithSpaces(element, element_spaces),
        " get-tuple-element(", current, "), index=", path[depth]));
    Spaces(scope, name) = element_spaces;
    current = name;
    current_shape = &element;
  }
  leaf_names_[key] = current;
  return current;
}

std::string Exporter::CopyPair(int scope, const Version& source,
                               int64_t to_space, const HloShape& shape,
                               const std::string& stem,
                               std::vector<std::string>* start_lines,
                               std::vector<std::string>* done_lines) {
  const std::string start = Reserve(scope, stem + ".start");
  const std::string done = Reserve(scope, stem);
  start_lines->push_back(absl::StrCat(
      start, " = (", PrintShapeWithSpaces(shape, {to_space}), ", ",
      PrintShapeWithSpaces(shape, {source.space}), ", u32[]) copy-start(",
      source.name, ")"));
  done_lines->push_back(absl::StrCat(done, " = ",
                                     PrintShapeWithSpaces(shape, {to_space}),
                                     " copy-done(", start, ")"));
  Spaces(scope, done) = {to_space};
  return done;
}

absl::StatusOr<Version> Exporter::Base(int scope, int tensor) {
  TensorVersions& versions = Versions(scope, tensor);
  if (versions.base) return *versions.base;
  // A source (parameter, constant): named where it is defined.
  const int f = trace_.tensor_flat[tensor];
  if (f < 0 || ScopeOfFlat(f) != scope) {
    return absl::InternalError(absl::StrCat(
        "tensor ", tensor, " is read in computation ", scopes_[scope].name,
        " where the program does not name it"));
  }
  Version base;
  base.name = LeafName(scope, printed_name_[f], Flat(f).shape,
                       trace_.tensor_leaf[tensor], &after_flat_[f]);
  versions.base = base;
  versions.slow = base;
  return base;
}

absl::Status Exporter::PlanRead(int scope, int step, int buffer) {
  const int tensor = trace_.buffer_tensor[buffer];
  ASSIGN_OR_RETURN(const Version base, Base(scope, tensor));
  TensorVersions& versions = Versions(scope, tensor);
  const BufferDecision* decision = decision_[buffer];
  const Action action = decision == nullptr ? DROP : decision->action();
  const HloShape array = ArrayOf(tensor);
  Version version;
  switch (action) {
    case COPY: {
      // At the copy's first step, and never before the value exists.
      int start = decision->has_copy_start() ? decision->copy_start() : step;
      start = std::max(start, base.available);
      const Version source =
          versions.slow && versions.slow->available <= start ? *versions.slow
                                                             : base;
      version.name = CopyPair(scope, source, 1, array, base.name + ".prefetch",
                              &before_step_[start], &before_step_[step]);
      version.space = 1;
      version.is_copy = true;
      version.available = step;
      versions.fast = version;
      prefetches_.push_back({step, tensor, start});
      ++out_.prefetches;
      break;
    }
    case NO_COPY:
      if (!versions.fast) {
        return absl::InvalidArgumentError(absl::StrCat(
            "buffer ", buffer, " (", workload_.buffers(buffer).tensor_name(),
            "): NoCopy in computation ", scopes_[scope].name,
            " where the tensor has no fast-memory version"));
      }
      version = *versions.fast;
      break;
    default:
      if (versions.slow && versions.slow->available <= step) {
        version = *versions.slow;
      } else {
        // The game reads a value that lives only in fast memory from slow
        // memory: a spill right before the read stands for it.
        const Version source = versions.fast ? *versions.fast : base;
        std::vector<std::string>& lines = before_step_[step];
        version.name =
            CopyPair(scope, source, 0, array, base.name + ".spill", &lines,
                     &lines);
        version.is_copy = true;
        version.available = step;
        versions.slow = version;
        ++out_.spills;
      }
      break;
  }
  read_version_[{step, tensor}] = version;
  return absl::OkStatus();
}

void Exporter::PlanWrite(int scope, int step, int buffer) {
  const int tensor = trace_.buffer_tensor[buffer];
  const BufferDecision* decision = decision_[buffer];
  const Action action = decision == nullptr ? DROP : decision->action();
  home_space_[tensor] = action == DROP ? 0 : 1;
  const int f = trace_.step_flat[step];
  Version home;
  home.name = f >= 0 ? LeafName(scope, printed_name_[f], Flat(f).shape,
                                trace_.tensor_leaf[tensor], &after_flat_[f])
                     : step_name_[step];
  home.space = home_space_[tensor];
  home.available = step + 1;
  home_name_[tensor] = home.name;
  TensorVersions& versions = Versions(scope, tensor);
  versions = TensorVersions{};
  versions.base = home;
  (home.space == 0 ? versions.slow : versions.fast) = home;
  if (action == DROP) return;
  ++out_.fast_values;
  if (action != COPY || !decision->has_copy_end()) return;
  // Written back over steps (d, e]: started right after the write and done
  // after e, so that at least one instruction lies between (what marks a
  // write-back).
  Version written;
  written.name = CopyPair(scope, home, 0, ArrayOf(tensor), home.name + ".evict",
                          &after_step_[step], &after_step_[decision->copy_end()]);
  written.is_copy = true;
  written.available = decision->copy_end() + 1;
  versions.slow = written;
  ++out_.write_backs;
}

void Exporter::PlanLoopStart(int l, int step) {
  const FlatLoop& loop = flat_.loops[l];
  const std::vector<int>& state = trace_.leaves.at(Flat(loop.entry).name);
  std::vector<int64_t>& spaces = state_spaces_[l];
  for (int tensor : state) {
    const auto read = read_version_.find({step, tensor});
    spaces.push_back(read == read_version_.end() ? 0 : read->second.space);
  }
  for (int inner : {1 + 2 * l, 2 + 2 * l}) {
    Spaces(inner, param_name_[inner]) = spaces;
    for (size_t k = 0; k < state.size(); ++k) {
      if (trace_.tensor_bytes[state[k]] == 0) continue;
      Version version;
      version.name = LeafName(inner, param_name_[inner], loop.original->shape,
                              static_cast<int>(k), &scope_start_[inner]);
      version.space = spaces[k];
      TensorVersions& versions = Versions(inner, state[k]);
      versions = TensorVersions{};
      versions.base = version;
      (version.space == 0 ? versions.slow : versions.fast) = version;
    }
  }
}

void Exporter::PlanLoopEnd(int l) {
  // After the loop its parent names the final values by the loop's result,
  // in the state's memory spaces.
  const FlatLoop& loop = flat_.loops[l];
  const int parent = ParentScope(l);
  const std::string& name = printed_name_[loop.exit];
  Spaces(parent, name) = state_spaces_[l];
  const std::vector<int>& result = trace_.leaves.at(Flat(loop.exit).name);
  for (size_t k = 0; k < result.size(); ++k) {
    if (trace_.tensor_bytes[result[k]] == 0) continue;
    Version version;
    version.name = LeafName(parent, name, loop.original->shape,
                            static_cast<int>(k), &after_loop_[l]);
    version.space = state_spaces_[l][k];
    TensorVersions& versions = Versions(parent, result[k]);
    versions.base = version;
    (version.space == 1 ? versions.fast : versions.slow) = version;
  }
}

absl::Status Exporter::Plan() {
  const int num_steps = workload_.instructions_size();
  for (int t = 0; t < num_steps; ++t) {
    const int scope = scope_of_step_[t];
    for (int buffer : reads_[t]) RETURN_IF_ERROR(PlanRead(scope, t, buffer));
    for (int buffer : writes_[t]) PlanWrite(scope, t, buffer);
    const int f = trace_.step_flat[t];
    for (size_t l = 0; l < flat_.loops.size(); ++l) {
      if (f == flat_.loops[l].entry) PlanLoopStart(static_cast<int>(l), t);
      if (f == flat_.loops[l].exit) PlanLoopEnd(static_cast<int>(l));
    }
  }
  return absl::OkStatus();
}

std::vector<int64_t> Exporter::SpacesOf(
    int scope, int f, const std::vector<std::string>& operands) {
  const HloInstruction& instruction = Flat(f);
  std::vector<int64_t> spaces;
  const auto leaves = trace_.leaves.find(instruction.name);
  if (leaves == trace_.leaves.end()) {
    instruction.shape.AppendLeafSpaces(&spaces);
    return spaces;
  }
  for (int tensor : leaves->second) {
    if (trace_.tensor_flat[tensor] == f) {
      spaces.push_back(home_space_[tensor]);
      continue;
    }
    // Passed on: in the space of the operand that carries it, as printed.
    int64_t space = 0;
    for (size_t j = 0; j < instruction.operands.size(); ++j) {
      const auto carried = trace_.leaves.find(instruction.operands[j]);
      if (carried == trace_.leaves.end()) continue;
      const auto at =
          std::find(carried->second.begin(), carried->second.end(), tensor);
      if (at == carried->second.end()) continue;
      const std::vector<int64_t>& operand = Spaces(scope, operands[j]);
      const size_t k = static_cast<size_t>(at - carried->second.begin());
      if (k < operand.size()) space = operand[k];
      break;
    }
    spaces.push_back(space);
  }
  return spaces;
}

std::string Exporter::PrintedOperand(int scope, int step,
                                     const std::string& value,
                                     const HloShape& shape,
                                     const std::vector<int>& want) {
  const std::string printed = OperandName(scope, value);
  const auto found = trace_.leaves.find(value);
  if (found == trace_.leaves.end()) return printed;
  const std::vector<int>& carried = found->second;
  const std::vector<int64_t> spaces = Spaces(scope, printed);
  std::vector<std::optional<Version>> chosen(want.size());
  bool rewrite = false;
  for (size_t k = 0; k < want.size(); ++k) {
    const auto read = read_version_.find({step, want[k]});
    if (read != read_version_.end()) chosen[k] = read->second;
    const int64_t space = k < spaces.size() ? spaces[k] : 0;
    if (k >= carried.size() || carried[k] != want[k] ||
        (chosen[k] && (chosen[k]->is_copy || chosen[k]->space != space))) {
      rewrite = true;
    }
  }
  if (!rewrite) return printed;
  std::vector<std::string>& lines = scopes_[scope].lines;
  if (!shape.IsTuple()) return chosen[0] ? chosen[0]->name : printed;
  // A tuple of the chosen versions, shaped as the value.
  std::function<std::string(const HloShape&, int*)> build =
      [&](const HloShape& part, int* leaf) -> std::string {
    if (!part.IsTuple()) {
      const int k = (*leaf)++;
      if (chosen[k]) return chosen[k]->name;
      return LeafName(scope, printed, shape, k, &lines);
    }
    std::vector<std::string> elements;
    std::vector<int64_t> element_spaces;
    for (const HloShape& element : part.elements) {
      const int first = *leaf;
      elements.push_back(build(element, leaf));
      for (int k = first; k < *leaf; ++k) {
        element_spaces.push_back(
            chosen[k] ? chosen[k]->space
                      : static_cast<size_t>(k) < spaces.size() ? spaces[k] : 0);
      }
    }
    const std::string name = Reserve(scope, printed + ".mapped");
    lines.push_back(absl::StrCat(name, " = ",
                                 PrintShapeWithSpaces(part, element_spaces),
                                 " tuple(", absl::StrJoin(elements, ", "), ")"));
    Spaces(scope, name) = element_spaces;
    return name;
  };
  int leaf = 0;
  return build(shape, &leaf);
}

std::string Exporter::Attributes(
    const HloInstruction& instruction,
    const absl::flat_hash_map<std::string, std::string>& replaced) const {
  std::string text;
  for (const auto& [key, value] : instruction.attributes) {
    const auto with = replaced.find(key);
    absl::StrAppend(&text, ", ", key);
    const std::string& shown = with != replaced.end() ? with->second : value;
    if (!shown.empty()) absl::StrAppend(&text, "=", shown);
  }
  return text;
}

void Exporter::NoteComputations(const HloInstruction& instruction) {
  for (const char* key : kComputationAttributes) {
    const std::string* value = instruction.Attribute(key);
    if (value == nullptr) continue;
    std::string names = *value;
    for (char& c : names) {
      if (c == '{' || c == '}' || c == ',' || c == '%') c = ' ';
    }
    for (std::string_view name : SplitTopLevel(names, ' ')) {
      name = Trim(name);
      const HloComputation* computation =
          name.empty() ? nullptr : module_.FindComputation(name);
      if (computation == nullptr ||
          !computations_.insert(computation->name).second) {
        continue;
      }
      for (const HloInstruction& inner : computation->instructions) {
        NoteComputations(inner);
      }
    }
  }
}

void Exporter::PrintStepLines(int scope, int step, bool after) {
  std::vector<std::string>& lines = scopes_[scope].lines;
  const std::vector<std::string>& extra =
      after ? after_step_[step] : before_step_[step];
  lines.insert(lines.end(), extra.begin(), extra.end());
}

void Exporter::PrintFlat(int scope, int f) {
  const HloInstruction& instruction = Flat(f);
  const int step = step_of_flat_[f];
  std::vector<std::string>& lines = scopes_[scope].lines;
  if (step >= 0) PrintStepLines(scope, step, /*after=*/false);
  std::vector<std::string> operands;
  for (const std::string& operand : instruction.operands) {
    const int defined = FlatIndex(operand);
    if (step >= 0 && defined >= 0 && trace_.leaves.contains(operand)) {
      operands.push_back(PrintedOperand(scope, step, operand,
                                        Flat(defined).shape,
                                        trace_.leaves.at(operand)));
    } else {
      operands.push_back(OperandName(scope, operand));
    }
  }
  const std::vector<int64_t> spaces = SpacesOf(scope, f, operands);
  Spaces(scope, printed_name_[f]) = spaces;
  const bool literal =
      instruction.opcode == "parameter" || instruction.opcode == "constant";
  NoteComputations(instruction);
  lines.push_back(absl::StrCat(
      printed_name_[f], " = ", PrintShapeWithSpaces(instruction.shape, spaces),
      " ", instruction.opcode, "(",
      literal ? instruction.literal : absl::StrJoin(operands, ", "), ")",
      Attributes(instruction, {})));
  lines.insert(lines.end(), after_flat_[f].begin(), after_flat_[f].end());
  if (step >= 0) PrintStepLines(scope, step, /*after=*/true);
}

void Exporter::PrintAddedCopy(int scope, int step) {
  PrintStepLines(scope, step, /*after=*/false);
  const int in = trace_.buffer_tensor[reads_[step].front()];
  const int out = trace_.buffer_tensor[writes_[step].front()];
  const Version& source = read_version_.at({step, in});
  scopes_[scope].lines.push_back(absl::StrCat(
      step_name_[step], " = ",
      PrintShapeWithSpaces(ArrayOf(in), {home_space_[out]}), " copy(",
      source.name, ")"));
  Spaces(scope, step_name_[step]) = {home_space_[out]};
  PrintStepLines(scope, step, /*after=*/true);
}

absl::Status Exporter::PrintLoop(int scope, int l) {
  const FlatLoop& loop = flat_.loops[l];
  const int entry_step = step_of_flat_[loop.entry];
  const int exit_step = step_of_flat_[loop.exit];
  // Copies the import added before the loop sit right before its marker.
  for (int t = FirstAddedCopy(entry_step, scope); t < entry_step; ++t) {
    PrintAddedCopy(scope, t);
  }
  PrintStepLines(scope, entry_step, /*after=*/false);
  const HloInstruction& entry = Flat(loop.entry);
  const std::string init =
      PrintedOperand(scope, entry_step, entry.operands[0], loop.original->shape,
                     trace_.leaves.at(entry.name));
  const HloShape& state = loop.original->shape;
  for (int inner : {1 + 2 * l, 2 + 2 * l}) {
    const bool body = inner == 2 + 2 * l;
    Scope& computation = scopes_[inner];
    computation.lines.push_back(absl::StrCat(
        param_name_[inner], " = ",
        PrintShapeWithSpaces(state, state_spaces_[l]), " parameter(0)"));
    computation.lines.insert(computation.lines.end(),
                             scope_start_[inner].begin(),
                             scope_start_[inner].end());
    RETURN_IF_ERROR(PrintScope(inner, body ? loop.body_begin : loop.entry + 1,
                               body ? loop.exit - 1 : loop.body_begin - 1));
    if (!body) {
      computation.root = OperandName(inner, loop.condition_root);
      continue;
    }
    // The copies the import added at the end of the body, then its root:
    // the state's next values, as the exit reads them.
    for (int t = FirstAddedCopy(exit_step, inner); t < exit_step; ++t) {
      PrintAddedCopy(inner, t);
    }
    PrintStepLines(inner, exit_step, /*after=*/false);
    const HloInstruction& exit = Flat(loop.exit);
    computation.root = PrintedOperand(inner, exit_step, exit.operands[0], state,
                                      trace_.leaves.at(exit.name));
    const std::vector<int64_t> root_spaces = Spaces(inner, computation.root);
    const std::vector<int>& next = trace_.leaves.at(exit.name);
    for (size_t k = 0; k < next.size() && k < root_spaces.size(); ++k) {
      if (trace_.tensor_bytes[next[k]] > 0 &&
          root_spaces[k] != state_spaces_[l][k]) {
        return absl::InternalError(absl::StrCat(
            "loop ", loop.name, ": state element ", k, " enters in memory space ",
            state_spaces_[l][k], " but the body leaves it in ", root_spaces[k]));
      }
    }
  }
  absl::flat_hash_map<std::string, std::string> replaced = {
      {"condition", scopes_[1 + 2 * l].name}, {"body", scopes_[2 + 2 * l].name}};
  scopes_[scope].lines.push_back(absl::StrCat(
      printed_name_[loop.exit], " = ",
      PrintShapeWithSpaces(state, state_spaces_[l]), " while(", init, ")",
      Attributes(*loop.original, replaced)));
  std::vector<std::string>& lines = scopes_[scope].lines;
  lines.insert(lines.end(), after_loop_[l].begin(), after_loop_[l].end());
  PrintStepLines(scope, exit_step, /*after=*/true);
  return absl::OkStatus();
}

absl::Status Exporter::PrintScope(int scope, int first, int last) {
  // Data present from the start (parameters, constants) first: a copy may
  // read it from the computation's first step.
  auto is_source = [&](int f) {
    const OpcodeClass kind = ClassOf(Flat(f).opcode);
    return kind == OpcodeClass::kSource || kind == OpcodeClass::kNoWork;
  };
  for (int pass = 0; pass < 2; ++pass) {
    for (int f = first; f <= last; ++f) {
      int child = -1;
      for (size_t l = 0; l < flat_.loops.size(); ++l) {
        if (flat_.loops[l].entry == f) child = static_cast<int>(l);
      }
      if (child >= 0) {
        if (pass == 1) RETURN_IF_ERROR(PrintLoop(scope, child));
        f = flat_.loops[child].exit;
        continue;
      }
      if (is_source(f) == (pass == 0)) PrintFlat(scope, f);
    }
  }
  return absl::OkStatus();
}

std::string Exporter::PrintComputation(const HloComputation& computation) const {
  std::string text = absl::StrCat(computation.name, " {\n");
  for (const HloInstruction& instruction : computation.instructions) {
    std::vector<int64_t> spaces;
    instruction.shape.AppendLeafSpaces(&spaces);
    const bool literal =
        instruction.opcode == "parameter" || instruction.opcode == "constant";
    absl::StrAppend(
        &text, "  ", instruction.is_root ? "ROOT " : "", instruction.name,
        " = ", PrintShapeWithSpaces(instruction.shape, spaces), " ",
        instruction.opcode, "(",
        literal ? instruction.literal : absl::StrJoin(instruction.operands, ", "),
        ")", Attributes(instruction, {}), "\n");
  }
  absl::StrAppend(&text, "}\n\n");
  return text;
}

std::string Exporter::PrintScopeText(const Scope& scope, bool entry) const {
  std::string text = absl::StrCat(entry ? "ENTRY " : "", scope.name, " {\n");
  for (const std::string& line : scope.lines) {
    const bool root = line.rfind(scope.root + " = ", 0) == 0;
    absl::StrAppend(&text, "  ", root ? "ROOT " : "", line, "\n");
  }
  absl::StrAppend(&text, "}\n\n");
  return text;
}

std::string Exporter::Header() const {
  std::string header =
      absl::StrCat("HloModule ", Sanitize(module_.name), ", is_scheduled=true");
  if (!module_.input_output_alias.empty()) {
    std::vector<std::string> entries;
    for (const HloAlias& alias : module_.input_output_alias) {
      entries.push_back(absl::StrCat(
          "{", absl::StrJoin(alias.output_index, ","), "}: (", alias.parameter,
          ", {", absl::StrJoin(alias.parameter_index, ","), "}, may-alias)"));
    }
    absl::StrAppend(&header, ", input_output_alias={ ",
                    absl::StrJoin(entries, ", "), " }");
  }
  return header;
}

std::string Exporter::OffsetsCsv() {
  std::string csv =
      "value,memory_space,offset,size,first_instruction,last_instruction\n";
  for (const BufferDecision& decision : solution_.decisions()) {
    if (decision.action() == DROP || !decision.has_interval_start()) continue;
    const Buffer& buffer = workload_.buffers(decision.buffer_id());
    const int tensor = trace_.buffer_tensor[buffer.id()];
    const auto read = read_version_.find({buffer.target_time(), tensor});
    const std::string value =
        buffer.is_output() ? home_name_[tensor]
        : read != read_version_.end() ? read->second.name
                                      : buffer.tensor_name();
    absl::StrAppend(&csv, value, ",1,", decision.offset(), ",", buffer.size(),
                    ",", step_name_[decision.interval_start()], ",",
                    step_name_[decision.interval_end()], "\n");
  }
  return csv;
}

std::string Exporter::OverridesText() {
  auto regex = [](const std::string& name) {
    std::string quoted = "^";
    for (char c : name) {
      if (c == '.' || c == '-') quoted.push_back('\\');
      quoted.push_back(c);
    }
    return absl::StrCat("\"", absl::CEscape(quoted + "$"), "\"");
  };
  auto tuple_index = [](const std::vector<int64_t>& path) {
    std::string text;
    if (path.empty()) return text;
    text = " tuple_index {";
    for (int64_t i : path) absl::StrAppend(&text, " index: ", i);
    return text + " }";
  };
  std::string text =
      "# The solution as XLA memory-space-assignment overrides (text format "
      "of\n# xla.memory_space_assignment.MsaOverrides, "
      "proto/msa_overrides.proto):\n# buffers placed in alternate memory in "
      "the solution's order, and where each\n# prefetch starts.\n"
      "sort_order_overrides {\n";
  int rank = 0;
  for (const BufferDecision& decision : solution_.decisions()) {
    if (decision.action() == DROP) continue;
    const Buffer& buffer = workload_.buffers(decision.buffer_id());
    if (!buffer.is_output()) continue;
    const int tensor = trace_.buffer_tensor[buffer.id()];
    const int f = trace_.tensor_flat[tensor];
    const std::string name = f >= 0 ? printed_name_[f]
                                    : step_name_[buffer.target_time()];
    const std::vector<int64_t> path =
        f >= 0 ? LeafPath(Flat(f).shape, trace_.tensor_leaf[tensor])
               : std::vector<int64_t>{};
    absl::StrAppend(&text,
                    "  overrides {\n"
                    "    hlo_position_matcher { instruction_name_regex: ",
                    regex(name), tuple_index(path),
                    " }\n    override_options { assign_value: ", rank++,
                    " }\n  }\n");
  }
  absl::StrAppend(&text, "}\npreferred_prefetch_overrides {\n");
  for (const Prefetch& prefetch : prefetches_) {
    const int f = trace_.step_flat[prefetch.step];
    if (f < 0) continue;
    const HloInstruction& user = Flat(f);
    int operand = 0;
    std::vector<int64_t> path;
    for (size_t j = 0; j < user.operands.size(); ++j) {
      const auto carried = trace_.leaves.find(user.operands[j]);
      if (carried == trace_.leaves.end()) continue;
      const auto at = std::find(carried->second.begin(), carried->second.end(),
                                prefetch.tensor);
      if (at == carried->second.end()) continue;
      operand = static_cast<int>(j);
      const int defined = FlatIndex(user.operands[j]);
      if (defined >= 0) {
        path = LeafPath(Flat(defined).shape,
                        static_cast<int>(at - carried->second.begin()));
      }
      break;
    }
    absl::StrAppend(
        &text,
        "  overrides {\n    hlo_operand_filter { instruction_name_regex: ",
        regex(step_name_[prefetch.step]), " operand_number: ", operand,
        tuple_index(path),
        " }\n    override_options { before_instruction { "
        "instruction_name_regex: ",
        regex(step_name_[prefetch.start]), " } }\n  }\n");
  }
  absl::StrAppend(&text, "}\n");
  return text;
}

absl::StatusOr<HloExport> Exporter::Run() {
  if (flat_.conditionals_laid_out > 0) {
    return absl::UnimplementedError(absl::StrCat(
        "the module has ", flat_.conditionals_laid_out,
        " conditionals; exporting a solution into a conditional's branches "
        "is not supported yet"));
  }
  Index();
  RETURN_IF_ERROR(Plan());
  RETURN_IF_ERROR(PrintScope(0, 0, NumFlat() - 1));
  scopes_[0].root = printed_name_[flat_.computation.root];
  std::string text = Header() + "\n\n";
  for (const HloComputation& computation : module_.computations) {
    if (!computation.is_entry && computations_.contains(computation.name)) {
      text += PrintComputation(computation);
    }
  }
  // Inner loops before the loops that run them.
  std::vector<int> loops(flat_.loops.size());
  for (size_t l = 0; l < loops.size(); ++l) loops[l] = static_cast<int>(l);
  std::sort(loops.begin(), loops.end(), [&](int a, int b) {
    return flat_.loops[a].entry > flat_.loops[b].entry;
  });
  for (int l : loops) {
    text += PrintScopeText(scopes_[1 + 2 * l], false);
    text += PrintScopeText(scopes_[2 + 2 * l], false);
  }
  text += PrintScopeText(scopes_[0], true);
  out_.mapped_hlo = std::move(text);
  out_.offsets_csv = OffsetsCsv();
  out_.overrides_txtpb = OverridesText();
  return out_;
}

}  // namespace

absl::StatusOr<HloExport> ExportSolution(std::string_view module_text,
                                         std::string_view source_name,
                                         const Workload& workload,
                                         const Solution& solution) {
  HloImportOptions options;
  options.source_name = std::string(source_name);
  options.hardware = workload.hardware();
  options.memory_size = workload.memory_size();
  options.alignment = std::max<int64_t>(1, workload.alignment());
  for (const Loop& loop : workload.loops()) {
    options.trip_counts[loop.name()] = loop.trip_count();
  }
  // The body of every loop is a one-trip loop of its own (the importer's);
  // it is no while of the module.
  for (auto it = options.trip_counts.begin(); it != options.trip_counts.end();) {
    const std::string& name = it->first;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, "/body") == 0) {
      options.trip_counts.erase(it++);
    } else {
      ++it;
    }
  }
  ASSIGN_OR_RETURN(std::unique_ptr<HloImport> import,
                   ImportHloModule(module_text, options));
  if (absl::Status same = CheckSameProgram(workload, import->result.workload);
      !same.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(source_name), ": ", same.message()));
  }
  const validate::ValidationReport report =
      validate::ValidateSolution(workload, solution);
  if (!report.ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the solution is not valid for the workload (",
        report.violations.size(),
        " violations, first: ", validate::FormatViolation(report.violations[0]),
        "); nothing exported"));
  }
  return Exporter(*import, workload, solution).Run();
}

absl::Status CheckSameProgram(const Workload& expected, const Workload& got) {
  auto differ = [](const std::string& what) {
    return absl::InvalidArgumentError(
        absl::StrCat("the module does not give this workload: ", what));
  };
  if (expected.instructions_size() != got.instructions_size()) {
    return differ(absl::StrCat(got.instructions_size(), " instructions, not ",
                               expected.instructions_size()));
  }
  if (expected.buffers_size() != got.buffers_size()) {
    return differ(absl::StrCat(got.buffers_size(), " buffers, not ",
                               expected.buffers_size()));
  }
  for (int t = 0; t < expected.instructions_size(); ++t) {
    const Instruction& a = expected.instructions(t);
    const Instruction& b = got.instructions(t);
    if (a.opcode() != b.opcode() ||
        a.roofline().SerializeAsString() != b.roofline().SerializeAsString() ||
        a.has_supply_us() != b.has_supply_us()) {
      return differ(absl::StrCat("instruction ", t, " (", a.name(), ") is ",
                                 b.opcode(), " ", b.name()));
    }
  }
  for (int i = 0; i < expected.buffers_size(); ++i) {
    const Buffer& a = expected.buffers(i);
    const Buffer& b = got.buffers(i);
    if (a.size() != b.size() || a.is_output() != b.is_output() ||
        a.target_time() != b.target_time() || a.tensor_id() != b.tensor_id() ||
        a.has_alias_id() != b.has_alias_id() ||
        (a.has_alias_id() && a.alias_id() != b.alias_id()) ||
        a.live_range().start() != b.live_range().start() ||
        a.live_range().end() != b.live_range().end()) {
      return differ(absl::StrCat("buffer ", i, " (", a.tensor_name(),
                                 ") differs"));
    }
  }
  if (expected.loops_size() != got.loops_size()) {
    return differ(absl::StrCat(got.loops_size(), " loops, not ",
                               expected.loops_size()));
  }
  for (int l = 0; l < expected.loops_size(); ++l) {
    const Loop& a = expected.loops(l);
    const Loop& b = got.loops(l);
    if (a.trip_count() != b.trip_count() || a.first_step() != b.first_step() ||
        a.last_step() != b.last_step()) {
      return differ(absl::StrCat("loop ", a.name(), " differs"));
    }
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::hlo
