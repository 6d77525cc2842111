#include "common/model/learner_checkpoint.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "common/base/atomic_file.h"
#include "common/base/status_macros.h"
#include "common/model/network_checkpoint.h"

namespace mmapzero::model {
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

absl::Status WriteAll(const std::string& dir, const MuZeroNetwork& network,
                      torch::optim::Optimizer& optimizer, int64_t step,
                      const agent::ReplayBuffer* replay) {
  std::error_code error;
  fs::remove_all(dir, error);
  if (!fs::create_directories(dir, error)) {
    return FsError("cannot create", dir, error);
  }
  RETURN_IF_ERROR(SaveCheckpoint(network, dir + "/" + kNetwork));
  RETURN_IF_ERROR(SaveOptimizer(optimizer, dir + "/" + kOptimizer));
  if (replay != nullptr) RETURN_IF_ERROR(replay->Save(dir + "/" + kReplay));
  return WriteFileAtomically(dir + "/" + kState,
                             absl::StrCat("step ", step, "\n"));
}

}  // namespace

absl::Status SaveLearnerCheckpoint(const std::string& dir,
                                   const MuZeroNetwork& network,
                                   torch::optim::Optimizer& optimizer,
                                   int64_t step,
                                   const agent::ReplayBuffer* replay) {
  const std::string tmp = dir + ".tmp";
  const std::string old = dir + ".old";
  RETURN_IF_ERROR(WriteAll(tmp, network, optimizer, step, replay));
  std::error_code error;
  fs::remove_all(old, error);
  if (fs::exists(dir)) {
    fs::rename(dir, old, error);
    if (error) return FsError("cannot move aside", dir, error);
  }
  fs::rename(tmp, dir, error);
  if (error) return FsError("cannot rename into place", dir, error);
  fs::remove_all(old, error);
  return absl::OkStatus();
}

absl::Status LoadLearnerCheckpoint(const std::string& requested,
                                   MuZeroNetwork& network,
                                   torch::optim::Optimizer& optimizer,
                                   int64_t* step, agent::ReplayBuffer* replay) {
  std::string dir = requested;
  if (!fs::exists(dir) && fs::exists(dir + ".old")) dir += ".old";
  const std::string state_path = dir + "/" + kState;
  std::ifstream state(state_path);
  std::string word;
  int64_t loaded_step = -1;
  if (!state || !(state >> word >> loaded_step) || word != "step" ||
      loaded_step < 0) {
    return absl::NotFoundError(absl::StrCat("learner checkpoint ", state_path,
                                            ": missing or malformed"));
  }
  RETURN_IF_ERROR(LoadCheckpoint(dir + "/" + kNetwork, network));
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
  *step = loaded_step;
  return absl::OkStatus();
}

}  // namespace mmapzero::model
