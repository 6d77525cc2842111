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
#include "absl/container/node_hash_map.h"
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
  // Scopes: 0 the entry; loop L's condition 1 + 2L, its body 2 + 2L;
  // conditional C's laid-out branch 1 + 2 * loops + C.
  int ScopeOfFlat(int f) const {
    return f >= 0 && f < NumFlat() ? scope_of_flat_[f] : 0;
  }
  int ParentScope(int loop) const {
    return ScopeOfFlat(flat_.loops[loop].entry);
  }
  int BranchScope(int c) const {
    return 1 + 2 * static_cast<int>(flat_.loops.size()) + c;
  }
  // Whether `scope` is `outer` or inside it.
  bool Within(int scope, int outer) const {
    for (; scope > 0; scope = parent_scope_[scope]) {
      if (scope == outer) return true;
    }
    return scope == outer;
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
  absl::Status PassIntoBranch(int c);
  absl::Status PlanBranchEnd(int c);
  absl::Status PrintConditional(int scope, int c);
  // A branch the import did not lay out, as a computation that takes its
  // operand in `operand_spaces` and gives the conditional's value in
  // `result_spaces` (placement transfers at its end, no work of the
  // program); its name (the module's own where nothing changes).
  std::string PrintOtherBranch(const HloComputation& branch,
                               const std::string& mapped_name,
                               const std::vector<int64_t>& operand_spaces,
                               const HloShape& result_shape,
                               const std::vector<int64_t>& result_spaces);
  // The versions that `step` reads of the tensors `want` (by leaf of
  // `value`); sets `*rewrite` where `value` as named does not carry them.
  std::vector<std::optional<Version>> ReadVersions(int scope, int step,
                                                   const std::string& value,
                                                   const std::vector<int>& want,
                                                   bool* rewrite);
  // `value` printed with `versions` for its leaves (nullopt: as named).
  std::string PrintVersions(int scope, const std::string& value,
                            const HloShape& shape,
                            const std::vector<std::optional<Version>>& chosen,
                            bool rewrite);
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

  std::vector<int> scope_of_flat_;  // the innermost region's scope
  std::vector<int> parent_scope_;   // by scope (0: none)
  std::vector<std::string> scope_prefix_;  // flat-name prefix, by scope
  std::vector<int> flat_pos_;       // by step: its place among the flat
  // Conditionals: the branch's printed parameter leaves, passed as the
  // parent holds them when the branch starts; the spaces of the branch's
  // value; the conditional's printed name.
  std::vector<std::vector<Version>> passed_;
  std::vector<bool> passed_ready_, closed_;
  std::vector<std::vector<int64_t>> root_spaces_;
  std::vector<std::string> cond_name_;
  absl::flat_hash_map<std::string, int> cond_of_root_;
  std::vector<std::vector<std::string>> after_branch_;
  std::vector<std::string> extra_computations_;  // unchosen branches, mapped
  std::vector<int> step_of_flat_;   // -1: no step
  std::vector<int> scope_of_step_;  // where the step's reads are read
  std::vector<std::vector<int>> reads_, writes_;  // buffers by step
  std::vector<const BufferDecision*> decision_;   // by buffer
  std::vector<Scope> scopes_;
  std::vector<std::string> printed_name_;  // by flat index
  std::vector<std::string> step_name_;     // printed name of each step
  std::vector<std::string> param_name_;    // by scope
  // Node-based: a reference to one tensor's versions stays good while
  // others are added.
  absl::node_hash_map<int64_t, TensorVersions> versions_;
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
  // A branch reads its conditional's operand as its parameter; code after a
  // conditional reads the branch's value as the conditional's.
  for (size_t c = 0; c < flat_.conditionals.size(); ++c) {
    const FlatConditional& conditional = flat_.conditionals[c];
    const int branch = BranchScope(static_cast<int>(c));
    if (scope == branch &&
        operand == conditional.operands[conditional.branch + 1]) {
      return param_name_[scope];
    }
  }
  if (const auto root = cond_of_root_.find(operand);
      root != cond_of_root_.end() &&
      !Within(scope, BranchScope(root->second))) {
    return cond_name_[root->second];
  }
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
  const int num_loops = static_cast<int>(flat_.loops.size());
  const int num_scopes =
      1 + 2 * num_loops + static_cast<int>(flat_.conditionals.size());
  // The regions (a loop's condition and body, a conditional's branch),
  // largest first, so inner ones overwrite the outer.
  struct Region {
    int scope, first, last;
    std::string prefix;
  };
  std::vector<Region> regions;
  for (int l = 0; l < num_loops; ++l) {
    const FlatLoop& loop = flat_.loops[l];
    regions.push_back({1 + 2 * l, loop.entry + 1, loop.body_begin - 1,
                       loop.name + "/cond/"});
    regions.push_back(
        {2 + 2 * l, loop.body_begin, loop.exit - 1, loop.name + "/body/"});
  }
  for (size_t c = 0; c < flat_.conditionals.size(); ++c) {
    const FlatConditional& conditional = flat_.conditionals[c];
    regions.push_back({BranchScope(static_cast<int>(c)), conditional.first,
                       conditional.last, conditional.name + "/"});
  }
  std::stable_sort(regions.begin(), regions.end(),
                   [](const Region& a, const Region& b) {
                     return a.last - a.first > b.last - b.first;
                   });
  scope_of_flat_.assign(num_flat, 0);
  parent_scope_.assign(num_scopes, 0);
  scope_prefix_.assign(num_scopes, "");
  for (const Region& region : regions) {
    scope_prefix_[region.scope] = region.prefix;
    for (int f = region.first; f <= region.last; ++f) {
      scope_of_flat_[f] = region.scope;
    }
  }
  // A region's parent: the region whose flat names prefix its own, the
  // longest such (a branch may be empty: its place says nothing).
  for (const Region& region : regions) {
    size_t longest = 0;
    for (const Region& outer : regions) {
      if (outer.scope != region.scope &&
          outer.prefix.size() > longest &&
          region.prefix.size() > outer.prefix.size() &&
          region.prefix.rfind(outer.prefix, 0) == 0) {
        longest = outer.prefix.size();
        parent_scope_[region.scope] = outer.scope;
      }
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
  scopes_.assign(num_scopes, Scope{});
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
  for (int l = 0; l < num_loops; ++l) {
    scopes_[1 + 2 * l].name = computation_name(flat_.loops[l].name + ".condition");
    scopes_[2 + 2 * l].name = computation_name(flat_.loops[l].name + ".body");
  }
  for (size_t c = 0; c < flat_.conditionals.size(); ++c) {
    scopes_[BranchScope(static_cast<int>(c))].name =
        computation_name(flat_.conditionals[c].name + ".branch");
  }
  // Each flat instruction's own name, local to its computation.
  auto local_name = [&](const std::string& flat_name, int scope) {
    const std::string& prefix = scope_prefix_[scope];
    return Sanitize(flat_name.rfind(prefix, 0) == 0
                        ? flat_name.substr(prefix.size())
                        : flat_name);
  };
  printed_name_.assign(num_flat, "");
  for (int f = 0; f < num_flat; ++f) {
    printed_name_[f] = Reserve(ScopeOfFlat(f), local_name(Flat(f).name,
                                                          ScopeOfFlat(f)));
  }
  cond_name_.assign(flat_.conditionals.size(), "");
  for (size_t c = 0; c < flat_.conditionals.size(); ++c) {
    const FlatConditional& conditional = flat_.conditionals[c];
    const int parent = parent_scope_[BranchScope(static_cast<int>(c))];
    cond_name_[c] = Reserve(parent, local_name(conditional.name, parent));
    const int root = FlatIndex(conditional.root);
    if (root >= conditional.first && root <= conditional.last) {
      cond_of_root_[conditional.root] = static_cast<int>(c);
    }
  }
  passed_.assign(flat_.conditionals.size(), {});
  passed_ready_.assign(flat_.conditionals.size(), false);
  closed_.assign(flat_.conditionals.size(), false);
  root_spaces_.assign(flat_.conditionals.size(), {});
  after_branch_.assign(flat_.conditionals.size(), {});
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
    // The marker of a branch that does no work stands in its branch.
    for (size_t c = 0; c < flat_.conditionals.size(); ++c) {
      if (name == flat_.conditionals[c].name + kBranchSuffix) {
        scope_of_step_[t] = BranchScope(static_cast<int>(c));
      }
    }
  }
  flat_pos_.assign(num_steps, num_flat);
  for (int t = num_steps - 1; t >= 0; --t) {
    flat_pos_[t] = trace_.step_flat[t] >= 0
                       ? trace_.step_flat[t]
                       : (t + 1 < num_steps ? flat_pos_[t + 1] : num_flat);
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
  if (const TensorVersions& versions = Versions(scope, tensor);
      versions.base) {
    return *versions.base;
  }
  // In a branch, what the conditional passes in (PassIntoBranch adds
  // versions: look again).
  for (size_t c = 0; c < flat_.conditionals.size(); ++c) {
    if (scope != BranchScope(static_cast<int>(c))) continue;
    RETURN_IF_ERROR(PassIntoBranch(static_cast<int>(c)));
    if (const TensorVersions& passed = Versions(scope, tensor); passed.base) {
      return *passed.base;
    }
  }
  TensorVersions& versions = Versions(scope, tensor);
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
  // in the state's memory spaces; an element the body passes through keeps
  // its names from before the loop (the same data: a body that returns it
  // as its parameter's element passes it through when read back too).
  const FlatLoop& loop = flat_.loops[l];
  const int parent = ParentScope(l);
  const std::string& name = printed_name_[loop.exit];
  Spaces(parent, name) = state_spaces_[l];
  const std::vector<int>& result = trace_.leaves.at(Flat(loop.exit).name);
  for (size_t k = 0; k < result.size(); ++k) {
    if (trace_.tensor_bytes[result[k]] == 0) continue;
    if (k < loop.passes_through.size() && loop.passes_through[k] &&
        Versions(parent, result[k]).base) {
      continue;
    }
    Version version;
    version.name = LeafName(parent, name, loop.original->shape,
                            static_cast<int>(k), &after_loop_[l]);
    version.space = state_spaces_[l][k];
    TensorVersions& versions = Versions(parent, result[k]);
    versions.base = version;
    (version.space == 1 ? versions.fast : versions.slow) = version;
  }
}

absl::Status Exporter::PassIntoBranch(int c) {
  if (passed_ready_[c]) return absl::OkStatus();
  passed_ready_[c] = true;
  const FlatConditional& conditional = flat_.conditionals[c];
  const int branch = BranchScope(c);
  const int parent = parent_scope_[branch];
  const std::string& operand = conditional.operands[conditional.branch + 1];
  const int defined = FlatIndex(operand);
  const auto leaves = trace_.leaves.find(operand);
  if (defined < 0 || leaves == trace_.leaves.end()) return absl::OkStatus();
  // Each leaf as the parent holds it now: its fast version where it has
  // one (the branch may find it there), else as the program names it.
  std::vector<Version>& passed = passed_[c];
  std::vector<int64_t> spaces;
  for (int tensor : leaves->second) {
    Version version;
    if (trace_.tensor_bytes[tensor] > 0) {
      TensorVersions& held = Versions(parent, tensor);
      if (held.fast) {
        version = *held.fast;
      } else {
        ASSIGN_OR_RETURN(version, Base(parent, tensor));
      }
    }
    passed.push_back(version);
    spaces.push_back(version.space);
  }
  Spaces(branch, param_name_[branch]) = spaces;
  const HloShape& shape = Flat(defined).shape;
  for (size_t k = 0; k < leaves->second.size(); ++k) {
    const int tensor = leaves->second[k];
    if (trace_.tensor_bytes[tensor] == 0) continue;
    TensorVersions& versions = Versions(branch, tensor);
    if (versions.base) continue;  // an element passed twice
    Version inside;
    inside.name = LeafName(branch, param_name_[branch], shape,
                           static_cast<int>(k), &scope_start_[branch]);
    inside.space = passed[k].space;
    versions.base = inside;
    (inside.space == 0 ? versions.slow : versions.fast) = inside;
  }
  return absl::OkStatus();
}

absl::Status Exporter::PlanBranchEnd(int c) {
  if (closed_[c]) return absl::OkStatus();
  closed_[c] = true;
  RETURN_IF_ERROR(PassIntoBranch(c));
  const FlatConditional& conditional = flat_.conditionals[c];
  const int branch = BranchScope(c);
  const int parent = parent_scope_[branch];
  const auto leaves = trace_.leaves.find(conditional.root);
  if (leaves == trace_.leaves.end()) return absl::OkStatus();
  // The conditional's value: each leaf in the space the branch leaves it.
  std::vector<int64_t>& spaces = root_spaces_[c];
  for (int tensor : leaves->second) {
    const TensorVersions& inside = Versions(branch, tensor);
    spaces.push_back(inside.base ? inside.base->space : 0);
  }
  Spaces(parent, cond_name_[c]) = spaces;
  for (size_t k = 0; k < leaves->second.size(); ++k) {
    const int tensor = leaves->second[k];
    if (trace_.tensor_bytes[tensor] == 0) continue;
    Version version;
    version.name = LeafName(parent, cond_name_[c], conditional.original->shape,
                            static_cast<int>(k), &after_branch_[c]);
    version.space = spaces[k];
    TensorVersions& versions = Versions(parent, tensor);
    versions.base = version;
    (version.space == 1 ? versions.fast : versions.slow) = version;
  }
  return absl::OkStatus();
}

absl::Status Exporter::Plan() {
  const int num_steps = workload_.instructions_size();
  for (int t = 0; t < num_steps; ++t) {
    // Conditionals whose branch ended before this step.
    for (size_t c = 0; c < flat_.conditionals.size(); ++c) {
      if (!closed_[c] && flat_.conditionals[c].last < flat_pos_[t] &&
          flat_.conditionals[c].first <= flat_pos_[t]) {
        RETURN_IF_ERROR(PlanBranchEnd(static_cast<int>(c)));
      }
    }
    const int scope = scope_of_step_[t];
    for (int buffer : reads_[t]) RETURN_IF_ERROR(PlanRead(scope, t, buffer));
    for (int buffer : writes_[t]) PlanWrite(scope, t, buffer);
    const int f = trace_.step_flat[t];
    for (size_t l = 0; l < flat_.loops.size(); ++l) {
      if (f == flat_.loops[l].entry) PlanLoopStart(static_cast<int>(l), t);
      if (f == flat_.loops[l].exit) PlanLoopEnd(static_cast<int>(l));
    }
  }
  for (size_t c = 0; c < flat_.conditionals.size(); ++c) {
    RETURN_IF_ERROR(PlanBranchEnd(static_cast<int>(c)));
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
  const auto found = trace_.leaves.find(value);
  if (found == trace_.leaves.end()) return OperandName(scope, value);
  bool rewrite = false;
  const std::vector<std::optional<Version>> chosen =
      ReadVersions(scope, step, value, want, &rewrite);
  return PrintVersions(scope, value, shape, chosen, rewrite);
}

std::vector<std::optional<Version>> Exporter::ReadVersions(
    int scope, int step, const std::string& value, const std::vector<int>& want,
    bool* rewrite) {
  const std::vector<int>& carried = trace_.leaves.at(value);
  const std::vector<int64_t> spaces = Spaces(scope, OperandName(scope, value));
  std::vector<std::optional<Version>> chosen(want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    const auto read = read_version_.find({step, want[k]});
    if (read != read_version_.end()) chosen[k] = read->second;
    const int64_t space = k < spaces.size() ? spaces[k] : 0;
    if (k >= carried.size() || carried[k] != want[k] ||
        (chosen[k] && (chosen[k]->is_copy || chosen[k]->space != space))) {
      *rewrite = true;
    }
  }
  return chosen;
}

std::string Exporter::PrintVersions(
    int scope, const std::string& value, const HloShape& shape,
    const std::vector<std::optional<Version>>& chosen, bool rewrite) {
  const std::string printed = OperandName(scope, value);
  if (!rewrite) return printed;
  const std::vector<int64_t> spaces = Spaces(scope, printed);
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
    const std::vector<int>& next = trace_.leaves.at(exit.name);
    bool rewrite = false;
    std::vector<std::optional<Version>> chosen =
        ReadVersions(inner, exit_step, exit.operands[0], next, &rewrite);
    // An element the body passes through is its parameter's element, as
    // the module has it (one tensor may stand in several elements).
    for (size_t k = 0; k < chosen.size() && k < loop.passes_through.size();
         ++k) {
      if (!loop.passes_through[k] || !chosen[k]) continue;
      Version element;
      element.name = LeafName(inner, param_name_[inner], state,
                              static_cast<int>(k), &scope_start_[inner]);
      element.space = state_spaces_[l][k];
      if (element.name != chosen[k]->name) rewrite = true;
      chosen[k] = element;
    }
    computation.root =
        PrintVersions(inner, exit.operands[0], state, chosen, rewrite);
    const std::vector<int64_t> root_spaces = Spaces(inner, computation.root);
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
  // The conditionals laid out in this scope, by where they stand.
  std::vector<int> conditionals;
  for (size_t c = 0; c < flat_.conditionals.size(); ++c) {
    if (parent_scope_[BranchScope(static_cast<int>(c))] == scope &&
        flat_.conditionals[c].first >= first &&
        flat_.conditionals[c].first <= last + 1) {
      conditionals.push_back(static_cast<int>(c));
    }
  }
  // In program order: by place; at one place, an empty branch (nothing
  // but its parameter) before the branch that starts there.
  std::sort(conditionals.begin(), conditionals.end(), [&](int a, int b) {
    const FlatConditional& x = flat_.conditionals[a];
    const FlatConditional& y = flat_.conditionals[b];
    if (x.first != y.first) return x.first < y.first;
    const bool x_empty = x.last < x.first, y_empty = y.last < y.first;
    if (x_empty != y_empty) return x_empty;
    return a < b;
  });
  for (int pass = 0; pass < 2; ++pass) {
    size_t next = 0;
    for (int f = first; f <= last + 1; ++f) {
      // A conditional stands where its branch was laid out.
      bool skipped = false;
      while (!skipped && pass == 1 && next < conditionals.size() &&
             flat_.conditionals[conditionals[next]].first == f) {
        const int c = conditionals[next++];
        RETURN_IF_ERROR(PrintConditional(scope, c));
        if (flat_.conditionals[c].last >= f) {
          f = flat_.conditionals[c].last;
          skipped = true;
        }
      }
      if (skipped || f > last) continue;
      int child = -1;
      for (size_t l = 0; l < flat_.loops.size(); ++l) {
        if (flat_.loops[l].entry == f) child = static_cast<int>(l);
      }
      if (child >= 0) {
        if (pass == 1) RETURN_IF_ERROR(PrintLoop(scope, child));
        f = flat_.loops[child].exit;
        continue;
      }
      if (ScopeOfFlat(f) != scope) continue;  // inside a laid-out branch
      if (is_source(f) == (pass == 0)) PrintFlat(scope, f);
    }
  }
  return absl::OkStatus();
}

absl::Status Exporter::PrintConditional(int scope, int c) {
  const FlatConditional& conditional = flat_.conditionals[c];
  const HloInstruction& original = *conditional.original;
  const int branch = BranchScope(c);
  const std::string& operand = conditional.operands[conditional.branch + 1];
  const int defined = FlatIndex(operand);
  const HloShape operand_shape =
      defined >= 0 ? Flat(defined).shape : HloShape{};
  // The branch, a computation of its own.
  Scope& computation = scopes_[branch];
  computation.lines.push_back(absl::StrCat(
      param_name_[branch], " = ",
      PrintShapeWithSpaces(operand_shape, Spaces(branch, param_name_[branch])),
      " parameter(0)"));
  computation.lines.insert(computation.lines.end(), scope_start_[branch].begin(),
                           scope_start_[branch].end());
  RETURN_IF_ERROR(PrintScope(branch, conditional.first, conditional.last));
  computation.root = OperandName(branch, conditional.root);
  // The operand the branch takes, as passed in; the others as named.
  std::vector<std::string> operands;
  for (size_t j = 0; j < conditional.operands.size(); ++j) {
    if (static_cast<int>(j) != conditional.branch + 1) {
      operands.push_back(OperandName(scope, conditional.operands[j]));
      continue;
    }
    std::vector<std::optional<Version>> chosen;
    bool rewrite = false;
    const std::vector<int64_t> named = Spaces(scope, OperandName(scope, operand));
    for (size_t k = 0; k < passed_[c].size(); ++k) {
      const Version& version = passed_[c][k];
      const bool as_named =
          version.name.empty() || (!version.is_copy && k < named.size() &&
                                   named[k] == version.space);
      chosen.push_back(as_named ? std::nullopt
                                : std::optional<Version>(version));
      rewrite |= !as_named;
    }
    operands.push_back(PrintVersions(scope, operand, operand_shape, chosen,
                                     rewrite));
  }
  // The other branches must give the conditional's shape, memory spaces
  // included: where the laid-out branch leaves a leaf in fast memory, a
  // copy of each other branch moves its value there at its end (a
  // placement transfer: no work of the program).
  const std::vector<std::string> branches = ControlFlowComputations(original);
  std::vector<std::string> names(branches.size());
  for (size_t k = 0; k < branches.size(); ++k) {
    const HloComputation* other = module_.FindComputation(branches[k]);
    if (static_cast<int>(k) == conditional.branch || other == nullptr) {
      names[k] = static_cast<int>(k) == conditional.branch ? computation.name
                                                           : branches[k];
      continue;
    }
    // The spaces its operand is passed in.
    std::vector<int64_t> operand_spaces;
    if (k + 1 < operands.size()) {
      if (conditional.operands[k + 1] == operand) {
        for (const Version& version : passed_[c]) {
          operand_spaces.push_back(version.space);
        }
      } else {
        operand_spaces = Spaces(scope, operands[k + 1]);
      }
    }
    names[k] = PrintOtherBranch(
        *other, Sanitize(absl::StrCat(other->name, ".", cond_name_[c])),
        operand_spaces, original.shape, root_spaces_[c]);
  }
  absl::flat_hash_map<std::string, std::string> replaced;
  if (original.Attribute("branch_computations") != nullptr) {
    replaced["branch_computations"] =
        absl::StrCat("{", absl::StrJoin(names, ", "), "}");
  } else if (names.size() == 2) {
    replaced["true_computation"] = names[0];
    replaced["false_computation"] = names[1];
  }
  scopes_[scope].lines.push_back(absl::StrCat(
      cond_name_[c], " = ", PrintShapeWithSpaces(original.shape, root_spaces_[c]),
      " conditional(", absl::StrJoin(operands, ", "), ")",
      Attributes(original, replaced)));
  std::vector<std::string>& lines = scopes_[scope].lines;
  lines.insert(lines.end(), after_branch_[c].begin(), after_branch_[c].end());
  return absl::OkStatus();
}

std::string Exporter::PrintOtherBranch(
    const HloComputation& branch, const std::string& mapped_name,
    const std::vector<int64_t>& operand_spaces, const HloShape& result_shape,
    const std::vector<int64_t>& result_spaces) {
  for (const HloInstruction& inner : branch.instructions) {
    NoteComputations(inner);
  }
  // Each value's leaf spaces: the parameter's as passed, views as what
  // they name, the rest as the module placed them.
  absl::flat_hash_map<std::string, std::vector<int64_t>> spaces;
  bool changed = false;
  for (const HloInstruction& inner : branch.instructions) {
    std::vector<int64_t>& own = spaces[inner.name];
    inner.shape.AppendLeafSpaces(&own);
    const std::vector<int64_t> before = own;
    if (inner.opcode == "parameter" &&
        operand_spaces.size() == own.size()) {
      own = operand_spaces;
    } else if (inner.opcode == "tuple") {
      own.clear();
      for (const std::string& operand : inner.operands) {
        const std::vector<int64_t>& part = spaces[operand];
        own.insert(own.end(), part.begin(), part.end());
      }
    } else if ((inner.opcode == "get-tuple-element" ||
                inner.opcode == "bitcast") &&
               inner.operands.size() == 1) {
      const HloInstruction* source = branch.Find(inner.operands[0]);
      const std::vector<int64_t>& whole = spaces[inner.operands[0]];
      int64_t offset = 0;
      if (inner.opcode == "get-tuple-element" && source != nullptr) {
        const std::vector<int64_t> index = IntegersIn(
            inner.Attribute("index") ? *inner.Attribute("index") : "");
        for (int64_t i = 0; !index.empty() && i < index[0] &&
                            i < static_cast<int64_t>(source->shape.elements.size());
             ++i) {
          offset += source->shape.elements[i].LeafCount();
        }
      }
      if (offset + static_cast<int64_t>(own.size()) <=
          static_cast<int64_t>(whole.size())) {
        own.assign(whole.begin() + offset, whole.begin() + offset + own.size());
      }
    }
    changed |= own != before;
  }
  // Each leaf of the value moved to the space the conditional gives it.
  const HloInstruction& root = branch.instructions[branch.root];
  const std::vector<int64_t>& root_spaces = spaces[root.name];
  std::vector<std::string> lines;
  std::vector<std::string> elements;
  bool moved = false;
  for (int leaf = 0; leaf < result_shape.LeafCount(); ++leaf) {
    const int64_t want =
        leaf < static_cast<int>(result_spaces.size()) ? result_spaces[leaf] : 0;
    const int64_t have =
        leaf < static_cast<int>(root_spaces.size()) ? root_spaces[leaf] : 0;
    std::string current = root.name;
    const HloShape* current_shape = &result_shape;
    int first_leaf = 0;  // of `current` in the value
    for (int64_t i : LeafPath(result_shape, leaf)) {
      for (int64_t j = 0; j < i; ++j) {
        first_leaf += current_shape->elements[j].LeafCount();
      }
      const HloShape& element = current_shape->elements[i];
      const std::string name = absl::StrCat(current, ".", i, ".mapped");
      std::vector<int64_t> element_spaces(element.LeafCount(), 0);
      for (size_t j = 0; j < element_spaces.size(); ++j) {
        if (first_leaf + j < root_spaces.size()) {
          element_spaces[j] = root_spaces[first_leaf + j];
        }
      }
      lines.push_back(absl::StrCat(
          "  ", name, " = ", PrintShapeWithSpaces(element, element_spaces),
          " get-tuple-element(", current, "), index=", i));
      current = name;
      current_shape = &element;
    }
    if (want != have) {
      const std::string moved_name = absl::StrCat(current, ".to", want);
      lines.push_back(absl::StrCat(
          "  ", moved_name, ".start = (",
          PrintShapeWithSpaces(*current_shape, {want}), ", ",
          PrintShapeWithSpaces(*current_shape, {have}), ", u32[]) copy-start(",
          current, ")"));
      lines.push_back(absl::StrCat(
          "  ", moved_name, " = ", PrintShapeWithSpaces(*current_shape, {want}),
          " copy-done(", moved_name, ".start)"));
      current = moved_name;
      moved = true;
    }
    elements.push_back(current);
  }
  if (!changed && !moved) {
    computations_.insert(branch.name);
    return branch.name;  // as the module has it
  }
  std::string text = absl::StrCat(mapped_name, " {\n");
  for (const HloInstruction& inner : branch.instructions) {
    const bool literal =
        inner.opcode == "parameter" || inner.opcode == "constant";
    const bool is_root = &inner == &root && !moved;
    absl::StrAppend(
        &text, "  ", is_root ? "ROOT " : "", inner.name, " = ",
        PrintShapeWithSpaces(inner.shape, spaces[inner.name]), " ",
        inner.opcode, "(",
        literal ? inner.literal : absl::StrJoin(inner.operands, ", "), ")",
        Attributes(inner, {}), "\n");
  }
  if (moved) {
    // Rebuilt as the conditional's (possibly nested) tuple shape.
    std::function<std::string(const HloShape&, int*)> build =
        [&](const HloShape& part, int* leaf) -> std::string {
      if (!part.IsTuple()) return elements[(*leaf)++];
      std::vector<std::string> parts;
      for (const HloShape& element : part.elements) {
        parts.push_back(build(element, leaf));
      }
      return absl::StrCat("tuple(", absl::StrJoin(parts, ", "), ")");
    };
    for (const std::string& line : lines) absl::StrAppend(&text, line, "\n");
    int leaf = 0;
    const std::string value = build(result_shape, &leaf);
    absl::StrAppend(&text, "  ROOT ", root.name, ".mapped = ",
                    PrintShapeWithSpaces(result_shape, result_spaces), " ",
                    result_shape.IsTuple() ? value
                                           : absl::StrCat("bitcast(", value, ")"),
                    "\n");
  }
  absl::StrAppend(&text, "}\n\n");
  extra_computations_.push_back(std::move(text));
  return mapped_name;
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
  Index();
  RETURN_IF_ERROR(Plan());
  RETURN_IF_ERROR(PrintScope(0, 0, NumFlat() - 1));
  scopes_[0].root = OperandName(0, flat_.computation.instructions[flat_.computation.root].name);
  std::string text = Header() + "\n\n";
  for (const HloComputation& computation : module_.computations) {
    if (!computation.is_entry && computations_.contains(computation.name)) {
      text += PrintComputation(computation);
    }
  }
  for (const std::string& computation : extra_computations_) {
    text += computation;
  }
  // The computations the export made, inner before those that run them:
  // by where their region starts, last first.
  std::vector<std::pair<int, int>> made;  // (first flat index, scope)
  for (size_t l = 0; l < flat_.loops.size(); ++l) {
    made.emplace_back(flat_.loops[l].entry, 1 + 2 * static_cast<int>(l));
    made.emplace_back(flat_.loops[l].entry, 2 + 2 * static_cast<int>(l));
  }
  for (size_t c = 0; c < flat_.conditionals.size(); ++c) {
    made.emplace_back(flat_.conditionals[c].first,
                      BranchScope(static_cast<int>(c)));
  }
  std::stable_sort(made.begin(), made.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [first, scope] : made) {
    text += PrintScopeText(scopes_[scope], false);
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
    if (!IsComputationLoop(loop.name())) {
      options.trip_counts[loop.name()] = loop.trip_count();
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
