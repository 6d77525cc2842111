#include "common/training/run_checkpoint.h"

#include <bit>
#include <filesystem>
#include <fstream>
#include <map>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/atomic_file.h"
#include "common/base/status_macros.h"
#include "common/workload/proto_io.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/text_format.h"

namespace mmapzero::training {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[] = "mmapzero-muzero-checkpoint 1";
constexpr char kRun[] = "run.txt";
constexpr char kBest[] = "best.json";
constexpr char kLearner[] = "learner";

// FNV-1a, 64 bits, over the bytes of the values added.
class Fnv1a {
 public:
  void Bytes(std::string_view bytes) {
    for (unsigned char c : bytes) {
      hash_ ^= c;
      hash_ *= 0x100000001b3ull;
    }
  }
  void Int(int64_t value) {
    const uint64_t v = static_cast<uint64_t>(value);
    char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(v >> (8 * i));
    Bytes(std::string_view(bytes, sizeof(bytes)));
  }
  void Double(double value) { Int(std::bit_cast<int64_t>(value)); }
  uint64_t hash() const { return hash_; }

 private:
  uint64_t hash_ = 0xcbf29ce484222325ull;
};

// "prefix.field value" for every field of `message`, in field order.
void AppendFields(const std::string& prefix,
                  const google::protobuf::Message& message,
                  std::vector<std::pair<std::string, std::string>>* out) {
  const google::protobuf::Descriptor* descriptor = message.GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = descriptor->field(i);
    std::string value;
    google::protobuf::TextFormat::PrintFieldValueToString(message, field, -1,
                                                          &value);
    out->emplace_back(absl::StrCat(prefix, ".", field->name()), value);
  }
}

std::vector<std::pair<std::string, std::string>> ConfigFields(
    const RunIdentity& identity) {
  std::vector<std::pair<std::string, std::string>> fields;
  AppendFields("network", identity.network, &fields);
  AppendFields("features", identity.features, &fields);
  return fields;
}

std::string Describe(const std::string& workload, const std::string& buffers,
                     const std::string& fingerprint) {
  return absl::StrCat("'", workload, "' (", buffers, " buffers, fingerprint ",
                      fingerprint, ")");
}

// The first difference between the stored identity and `expected`.
absl::Status CheckIdentity(const std::string& dir,
                           const std::map<std::string, std::string>& stored,
                           const RunIdentity& expected) {
  const auto get = [&stored](const std::string& key) {
    auto it = stored.find(key);
    return it == stored.end() ? std::string("(missing)") : it->second;
  };
  const std::string buffers = absl::StrCat(expected.buffers);
  if (get("workload") != expected.workload || get("buffers") != buffers ||
      get("fingerprint") != expected.fingerprint) {
    return absl::FailedPreconditionError(absl::StrCat(
        "muzero: checkpoint ", dir, " is for workload ",
        Describe(get("workload"), get("buffers"), get("fingerprint")),
        ", not this run's ",
        Describe(expected.workload, buffers, expected.fingerprint),
        "; use another checkpoint directory"));
  }
  for (const auto& [key, value] : ConfigFields(expected)) {
    if (get(key) != value) {
      return absl::FailedPreconditionError(
          absl::StrCat("muzero: checkpoint ", dir, " has ", key, " = ",
                       get(key), " but this run's config has ", value,
                       "; use the same sizes or another checkpoint directory"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::map<std::string, std::string>> ReadRunFile(
    const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::DataLossError(absl::StrCat(path, ": cannot read"));
  std::string line;
  if (!std::getline(in, line) || line != kMagic) {
    return absl::DataLossError(
        absl::StrCat(path, ": not a muzero checkpoint (expected \"", kMagic,
                     "\" on the first line)"));
  }
  std::map<std::string, std::string> values;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const size_t space = line.find(' ');
    if (space == std::string::npos) {
      return absl::DataLossError(
          absl::StrCat(path, ": malformed line \"", line, "\""));
    }
    values[line.substr(0, space)] = line.substr(space + 1);
  }
  return values;
}

absl::StatusOr<int64_t> GetInt(const std::map<std::string, std::string>& run,
                               const std::string& path,
                               const std::string& key) {
  auto it = run.find(key);
  int64_t value = 0;
  if (it == run.end() || !absl::SimpleAtoi(it->second, &value) || value < 0) {
    return absl::DataLossError(
        absl::StrCat(path, ": ", key, " missing or not a count"));
  }
  return value;
}

std::string RunFile(const RunIdentity& identity, const RunProgress& progress) {
  std::string text = absl::StrCat(kMagic, "\n");
  absl::StrAppend(&text, "workload ", identity.workload, "\n");
  absl::StrAppend(&text, "buffers ", identity.buffers, "\n");
  absl::StrAppend(&text, "fingerprint ", identity.fingerprint, "\n");
  for (const auto& [key, value] : ConfigFields(identity)) {
    absl::StrAppend(&text, key, " ", value, "\n");
  }
  absl::StrAppend(&text, "step ", progress.step, "\n");
  absl::StrAppend(&text, "games ", progress.games, "\n");
  absl::StrAppend(
      &text, "best ",
      progress.best
          ? absl::StrFormat("%.6f", progress.best->normalised_return())
          : std::string("none"),
      "\n");
  return text;
}

}  // namespace

std::string ProgramFingerprint(const game::Program& program) {
  Fnv1a h;
  h.Bytes(program.name());
  h.Int(program.memory_size());
  h.Int(program.alignment());
  h.Int(program.num_tensors());
  h.Int(program.num_alias_groups());
  h.Int(program.num_buffers());
  for (int32_t id = 0; id < program.num_buffers(); ++id) {
    const game::BufferInfo& b = program.buffer(id);
    for (int64_t v :
         {b.size, int64_t{b.target_time}, int64_t{b.tensor},
          int64_t{b.alias_group}, int64_t{b.live_start}, int64_t{b.live_end},
          int64_t{b.is_output}, int64_t{b.measured_slot}}) {
      h.Int(v);
    }
    for (double v : {b.demand_us, b.benefit_us, b.fast_delta_us}) h.Double(v);
  }
  h.Int(program.num_steps());
  for (int32_t t = 0; t < program.num_steps(); ++t) {
    const game::InstructionInfo& i = program.instruction(t);
    h.Int(static_cast<int64_t>(i.kind));
    for (double v :
         {i.compute_us, i.supply_us, i.empty_latency_us, i.full_latency_us}) {
      h.Double(v);
    }
  }
  for (int32_t id : program.decision_order()) h.Int(id);
  for (int32_t tensor = 0; tensor < program.num_tensors(); ++tensor) {
    h.Int(program.tensor_id(tensor));
  }
  return absl::StrFormat("%016x", h.hash());
}

RunIdentity IdentityOf(const game::Program& program,
                       const MuZeroConfig& config) {
  return RunIdentity{.workload = program.name(),
                     .buffers = program.num_buffers(),
                     .fingerprint = ProgramFingerprint(program),
                     .network = config.network(),
                     .features = config.features()};
}

std::string LearnerCheckpointDir(const std::string& dir) {
  return absl::StrCat(dir, "/", kLearner);
}

bool HasLearnerCheckpoint(const std::string& dir) {
  const std::string learner = LearnerCheckpointDir(dir);
  std::error_code error;
  return fs::exists(learner, error) || fs::exists(learner + ".old", error);
}

std::string LearnerNetworkPath(const std::string& dir) {
  std::string learner = LearnerCheckpointDir(dir);
  std::error_code error;
  if (!fs::exists(learner, error)) learner += ".old";
  return absl::StrCat(learner, "/network.pt");
}

absl::StatusOr<std::optional<RunProgress>> ReadRunCheckpoint(
    const std::string& dir, const RunIdentity& expected) {
  std::error_code error;
  if (fs::exists(dir, error) && !fs::is_directory(dir, error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("muzero: checkpoint ", dir, " is not a directory"));
  }
  const std::string run_path = absl::StrCat(dir, "/", kRun);
  if (!fs::exists(run_path, error)) return std::nullopt;
  ASSIGN_OR_RETURN(const auto run, ReadRunFile(run_path));
  RETURN_IF_ERROR(CheckIdentity(dir, run, expected));
  RunProgress progress;
  ASSIGN_OR_RETURN(progress.step, GetInt(run, run_path, "step"));
  ASSIGN_OR_RETURN(progress.games, GetInt(run, run_path, "games"));
  const std::string best_path = absl::StrCat(dir, "/", kBest);
  if (fs::exists(best_path, error)) {
    Solution best;
    RETURN_IF_ERROR(ReadProtoFile(best_path, &best));
    if (best.workload_name() != expected.workload) {
      return absl::DataLossError(
          absl::StrCat(best_path, ": a solution of '", best.workload_name(),
                       "', not of '", expected.workload, "'"));
    }
    progress.best = std::move(best);
  }
  return progress;
}

absl::Status WriteRunCheckpoint(const std::string& dir,
                                const RunIdentity& identity,
                                const RunProgress& progress,
                                const Learner* learner,
                                const agent::ReplayBuffer* replay) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    return absl::PermissionDeniedError(absl::StrCat(
        "muzero: checkpoint ", dir, ": cannot create: ", error.message()));
  }
  if (progress.best) {
    RETURN_IF_ERROR(
        WriteProtoFile(absl::StrCat(dir, "/", kBest), *progress.best));
  }
  RunProgress recorded = progress;
  if (learner != nullptr) {
    RETURN_IF_ERROR(learner->Save(LearnerCheckpointDir(dir), replay));
    recorded.step = learner->step();
  }
  return WriteFileAtomically(absl::StrCat(dir, "/", kRun),
                             RunFile(identity, recorded));
}

}  // namespace mmapzero::training
