#include "common/workload/minimalloc.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/base/status_macros.h"
#include "common/workload/workload_check.h"
#include "common/workload/workload_limits.h"

namespace mmapzero {
namespace {

struct Row {
  std::string id;
  int64_t lower = 0;
  int64_t upper = 0;
  int64_t size = 0;
};

absl::Status LineError(int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("line ", line, ": ", what));
}

absl::StatusOr<Row> ParseRow(absl::string_view text, int line) {
  const std::vector<absl::string_view> fields = absl::StrSplit(text, ',');
  if (fields.size() != 4) {
    return LineError(line, absl::StrCat("expected 4 fields (id,lower,upper,"
                                        "size), got ",
                                        fields.size()));
  }
  static constexpr const char* kNames[] = {"lower", "upper", "size"};
  int64_t values[3];
  for (int i = 0; i < 3; ++i) {
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(fields[i + 1]),
                          &values[i])) {
      return LineError(line, absl::StrCat(kNames[i], ": not an integer, got '",
                                          fields[i + 1], "'"));
    }
  }
  const absl::string_view id = absl::StripAsciiWhitespace(fields[0]);
  if (id.empty() || id.size() > 256) {
    return LineError(line, "id: must be 1 to 256 characters");
  }
  const Row row{std::string(id), values[0], values[1], values[2]};
  if (row.lower < 0 || row.upper <= row.lower) {
    return LineError(line, absl::StrCat("needs 0 <= lower < upper, got lower ",
                                        row.lower, ", upper ", row.upper));
  }
  if (row.size <= 0 || row.size > kMaxBytes) {
    return LineError(line, absl::StrCat("size: must be in [1, 2^48], got ",
                                        row.size));
  }
  return row;
}

}  // namespace

absl::StatusOr<Workload> WorkloadFromMiniMalloc(
    absl::string_view csv, const MiniMallocOptions& options) {
  if (options.capacity <= 0 || options.capacity > kMaxBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "capacity: must be in [1, 2^48] bytes, got ", options.capacity));
  }
  std::vector<Row> rows;
  absl::flat_hash_set<std::string> ids;
  int line = 0;
  for (absl::string_view text : absl::StrSplit(csv, '\n')) {
    ++line;
    text = absl::StripAsciiWhitespace(text);
    if (line == 1) {
      if (text != "id,lower,upper,size") {
        return LineError(1, absl::StrCat("expected the header "
                                         "'id,lower,upper,size', got '",
                                         text.substr(0, 80), "'"));
      }
      continue;
    }
    if (text.empty()) continue;
    ASSIGN_OR_RETURN(const Row row, ParseRow(text, line));
    if (!ids.insert(row.id).second) {
      return LineError(line, absl::StrCat("id ", row.id, " appears twice"));
    }
    rows.push_back(row);
  }
  if (rows.empty()) return absl::InvalidArgumentError("no buffers");
  // The engine decides outputs by target time, then id: number the buffers
  // by start time, keeping the file's order among equal starts.
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.lower < b.lower;
  });
  // Only the order of the times matters for which buffers overlap: number
  // the distinct lowers and uppers 0, 1, ... (the instances' times run to a
  // million, with a few hundred distinct ones).
  std::vector<int64_t> times;
  for (const Row& row : rows) {
    times.push_back(row.lower);
    times.push_back(row.upper);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  const auto step_of = [&](int64_t time) {
    return static_cast<int32_t>(
        std::lower_bound(times.begin(), times.end(), time) - times.begin());
  };
  const int64_t steps = static_cast<int64_t>(times.size()) - 1;

  Workload workload;
  workload.set_name(options.name);
  workload.set_memory_size(options.capacity);
  workload.set_alignment(1);
  (*workload.mutable_provenance())["source"] = "minimalloc";
  (*workload.mutable_provenance())["times"] =
      "the instance's distinct lower and upper times, numbered in order";
  for (int64_t t = 0; t < steps; ++t) {
    Instruction* instruction = workload.add_instructions();
    instruction->set_name(absl::StrCat("t", t));
    instruction->set_supply_us(0);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    Buffer* buffer = workload.add_buffers();
    buffer->set_id(static_cast<int32_t>(i));
    buffer->set_size(row.size);
    buffer->set_is_output(true);
    buffer->set_target_time(step_of(row.lower));
    buffer->set_tensor_id(static_cast<int32_t>(i));
    buffer->mutable_live_range()->set_start(step_of(row.lower));
    buffer->mutable_live_range()->set_end(step_of(row.upper) - 1);
    buffer->set_demand_us(0);
    buffer->set_benefit_us(1);
    buffer->set_tensor_name(absl::StrCat("buffer ", row.id));
  }
  RETURN_IF_ERROR(CheckWorkload(workload));
  return workload;
}

}  // namespace mmapzero
