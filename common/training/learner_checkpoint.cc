#include "common/training/learner_checkpoint.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/atomic_file.h"
#include "common/base/read_file.h"
#include "common/base/set_aside.h"
#include "common/base/status_macros.h"
#include "common/model/network_checkpoint.h"

namespace mmapzero::training {
namespace {

namespace fs = std::filesystem;

constexpr char kNetwork[] = "network.pt";
constexpr char kOptimizer[] = "optimizer.pt";
constexpr char kReplay[] = "replay.bin";
constexpr char kState[] = "learner.txt";

absl::Status FsError(const std::string& what, const std::string& path,
                     const std::error_code& error) {
  return absl::InternalError(absl::StrCat("learner checkpoint: ", what, " ",
                                          path, ": ", error.message()));
}

absl::Status SaveOptimizer(torch::optim::Optimizer& optimizer,
                           const std::string& path) {
  std::ostringstream bytes;
  try {
    torch::serialize::OutputArchive archive;
    optimizer.save(archive);
    archive.save_to(bytes);
  } catch (const c10::Error& e) {
    return absl::InternalError(absl::StrCat("learner checkpoint ", path, ": ",
                                            e.what_without_backtrace()));
  }
  return WriteFileAtomically(path, bytes.str());
}

// FNV-1a, 64 bits: enough to tell a torn or overwritten file from the one
// written (not a defence against a deliberate forgery).
uint64_t Fnv1a(std::string_view bytes) {
  uint64_t hash = 14695981039346656037ull;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

// "file <name> <bytes> <hash>" for `name` in `dir`.
absl::StatusOr<std::string> FileLine(const std::string& dir,
                                     const std::string& name) {
  ASSIGN_OR_RETURN(const std::string bytes, ReadWholeFile(dir + "/" + name));
  return absl::StrFormat("file %s %d %016x\n", name, bytes.size(),
                         Fnv1a(bytes));
}

absl::Status WriteAll(const std::string& dir,
                      const model::MuZeroNetwork& network,
                      torch::optim::Optimizer& optimizer, int64_t step,
                      const agent::ReplayBuffer* replay, int64_t lease_epoch) {
  std::error_code error;
  fs::remove_all(dir, error);
  if (!fs::create_directories(dir, error)) {
    return FsError("cannot create", dir, error);
  }
  RETURN_IF_ERROR(model::SaveCheckpoint(network, dir + "/" + kNetwork));
  RETURN_IF_ERROR(SaveOptimizer(optimizer, dir + "/" + kOptimizer));
  std::vector<std::string> files = {kNetwork, kOptimizer};
  if (replay != nullptr) {
    RETURN_IF_ERROR(replay->Save(dir + "/" + kReplay));
    files.push_back(kReplay);
  }
  std::string state = absl::StrCat("step ", step, "\n");
  if (lease_epoch > 0) absl::StrAppend(&state, "epoch ", lease_epoch, "\n");
  for (const std::string& name : files) {
    ASSIGN_OR_RETURN(const std::string line, FileLine(dir, name));
    state += line;
  }
  return WriteFileAtomically(dir + "/" + kState, state);
}

struct CheckpointState {
  int64_t step = 0;
  int64_t lease_epoch = 0;  // 0: written unfenced
};

// Reads learner.txt in `dir`: the step and lease epoch, after checking every
// file it lists against its size and checksum. A checkpoint from before the
// checksums (a step line alone) is taken as it is.
absl::StatusOr<CheckpointState> VerifiedState(const std::string& dir) {
  const std::string state_path = dir + "/" + kState;
  std::ifstream state(state_path);
  std::string word;
  int64_t step = -1;
  if (!state || !(state >> word >> step) || word != "step" || step < 0) {
    return absl::NotFoundError(absl::StrCat("learner checkpoint ", state_path,
                                            ": missing or malformed"));
  }
  CheckpointState read{.step = step};
  std::string name, hash;
  int64_t size = 0;
  while (state >> word) {
    if (word == "epoch") {
      if (!(state >> read.lease_epoch) || read.lease_epoch < 0) {
        return absl::DataLossError(absl::StrCat(
            "learner checkpoint ", state_path, ": malformed epoch line"));
      }
      continue;
    }
    if (word != "file" || !(state >> name >> size >> hash) ||
        name.find('/') != std::string::npos) {
      return absl::DataLossError(absl::StrCat("learner checkpoint ", state_path,
                                              ": malformed file line"));
    }
    ASSIGN_OR_RETURN(const std::string line, FileLine(dir, name));
    if (line != absl::StrFormat("file %s %d %s\n", name, size, hash)) {
      return absl::DataLossError(absl::StrCat(
          "learner checkpoint ", dir, "/", name,
          ": size or checksum differs from learner.txt (torn or damaged)"));
    }
  }
  return read;
}

absl::Status LoadFrom(const std::string& dir, model::MuZeroNetwork& network,
                      torch::optim::Optimizer& optimizer, int64_t* step,
                      agent::ReplayBuffer* replay, int64_t* lease_epoch) {
  ASSIGN_OR_RETURN(const CheckpointState loaded, VerifiedState(dir));
  RETURN_IF_ERROR(model::LoadCheckpoint(dir + "/" + kNetwork, network));
  const std::string optimizer_path = dir + "/" + kOptimizer;
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(optimizer_path, network->device());
    optimizer.load(archive);
  } catch (const c10::Error& e) {
    return absl::DataLossError(absl::StrCat("learner checkpoint ",
                                            optimizer_path, ": ",
                                            e.what_without_backtrace()));
  }
  if (replay != nullptr) RETURN_IF_ERROR(replay->Restore(dir + "/" + kReplay));
  *step = loaded.step;
  if (lease_epoch != nullptr) *lease_epoch = loaded.lease_epoch;
  return absl::OkStatus();
}

// After a fallback: the damaged newest moves to "<dir>.damaged-N" (the
// first N free, so one never replaces another) and the previous one back to
// "<dir>", so that the next save keeps it as "<dir>.old" instead of deleting
// it. Returns where the damaged one went ("" when it was missing).
absl::StatusOr<std::string> SetAsideDamagedNewest(const std::string& dir) {
  ASSIGN_OR_RETURN(const std::string aside, SetAsideDamaged(dir));
  std::error_code error;
  fs::rename(dir + ".old", dir, error);
  if (error) return FsError("cannot move back", dir + ".old", error);
  RETURN_IF_ERROR(SyncParentDirectory(dir));
  return aside;
}

}  // namespace

absl::Status SaveLearnerCheckpoint(const std::string& dir,
                                   const model::MuZeroNetwork& network,
                                   torch::optim::Optimizer& optimizer,
                                   int64_t step,
                                   const agent::ReplayBuffer* replay,
                                   int64_t lease_epoch) {
  const std::string tmp = dir + ".tmp";
  const std::string old = dir + ".old";
  RETURN_IF_ERROR(WriteAll(tmp, network, optimizer, step, replay, lease_epoch));
  RETURN_IF_ERROR(SyncDirectory(tmp));
  std::error_code error;
  fs::remove_all(old, error);
  if (fs::exists(dir)) {
    fs::rename(dir, old, error);
    if (error) return FsError("cannot move aside", dir, error);
  }
  fs::rename(tmp, dir, error);
  if (error) return FsError("cannot rename into place", dir, error);
  // The previous checkpoint stays as "<dir>.old": the fallback should the
  // new one turn out damaged.
  return SyncParentDirectory(dir);
}

absl::Status LoadLearnerCheckpoint(const std::string& dir,
                                   model::MuZeroNetwork& network,
                                   torch::optim::Optimizer& optimizer,
                                   int64_t* step, agent::ReplayBuffer* replay,
                                   std::string* note, int64_t* lease_epoch) {
  if (note != nullptr) note->clear();
  const absl::Status newest =
      LoadFrom(dir, network, optimizer, step, replay, lease_epoch);
  const std::string previous = dir + ".old";
  if (newest.ok() || !fs::exists(previous)) return newest;
  const absl::Status fallback =
      LoadFrom(previous, network, optimizer, step, replay, lease_epoch);
  if (!fallback.ok()) {
    return absl::Status(
        newest.code(),
        absl::StrCat(newest.message(), "; the previous one, ", previous,
                     ", fails too: ", fallback.message()));
  }
  ASSIGN_OR_RETURN(const std::string aside, SetAsideDamagedNewest(dir));
  if (note != nullptr) {
    *note = absl::StrCat("resumed from the previous checkpoint ", previous,
                         " (step ", *step, "), now back in ", dir, ": ",
                         newest.message());
    if (!aside.empty()) absl::StrAppend(note, "; the damaged one is ", aside);
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::training
