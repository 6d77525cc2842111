// The `muzero` solver's checkpoint directory (`checkpoint=DIR`,
// item 7): what a run needs to continue where an earlier one stopped.
//   DIR/learner/    the learner checkpoint (learner_checkpoint.h: network,
//                   Adam state, step, replay with its sampling generator);
//                   absent when the runs did not learn;
//   DIR/best.json   the best solution found so far (a Solution);
//   DIR/run.txt     "key value" lines: the identity (workload name, buffer
//                   count, fingerprint of the compiled workload, network and
//                   feature sizes) and the progress (learner step,
//                   self-play games over all runs, best normalised return).
// Writes go in that order, each file replaced atomically (atomic_file.h;
// the learner directory through its .tmp/.old renames), and run.txt last:
// DIR holds a checkpoint once run.txt exists. Should a crash fall between
// two writes, the learner's own step file is the authority for the step,
// and best.json is never worse than the one before it.
//
// The identity is checked before anything is loaded or written, so a
// checkpoint of another workload or network size is an error that leaves
// DIR as it was. The fingerprint hashes the compiled Program (sizes, times,
// latencies, decision order), not the workload file's bytes, so it follows
// what the game plays, not how the file was formatted.
#ifndef MMAPZERO_COMMON_TRAINING_RUN_CHECKPOINT_H_
#define MMAPZERO_COMMON_TRAINING_RUN_CHECKPOINT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/game/program.h"
#include "common/training/learner.h"
#include "proto/muzero.pb.h"
#include "proto/solution.pb.h"

namespace mmapzero::training {

// What a checkpoint must match to be resumed.
struct RunIdentity {
  std::string workload;  // Program::name()
  int32_t buffers = 0;
  std::string fingerprint;  // ProgramFingerprint
  NetworkConfig network;
  FeatureConfig features;
};

// Where a run stood when it was saved.
struct RunProgress {
  int64_t step = 0;   // learner step
  int64_t games = 0;  // self-play games over all runs
  std::optional<Solution> best;
};

// 16 hex digits hashing everything the game reads from `program`.
std::string ProgramFingerprint(const game::Program& program);
RunIdentity IdentityOf(const game::Program& program,
                       const MuZeroConfig& config);

// The learner checkpoint directory inside `dir`.
std::string LearnerCheckpointDir(const std::string& dir);
// Whether `dir` holds a learner checkpoint (or its ".old" fallback).
bool HasLearnerCheckpoint(const std::string& dir);
// Its network file (the ".old" one when only that exists).
std::string LearnerNetworkPath(const std::string& dir);

// nullopt when `dir` holds no checkpoint (no run.txt). FailedPrecondition
// naming `dir` and the first mismatch when it was written for another
// identity; DataLoss for an unreadable file; InvalidArgument when `dir`
// exists but is not a directory.
absl::StatusOr<std::optional<RunProgress>> ReadRunCheckpoint(
    const std::string& dir, const RunIdentity& expected);

// Creates `dir` if needed and writes best.json (when progress.best), the
// learner checkpoint with `replay` (when `learner` is given; its step is
// the one recorded) and run.txt. Call it from the thread that drives
// `learner`.
absl::Status WriteRunCheckpoint(const std::string& dir,
                                const RunIdentity& identity,
                                const RunProgress& progress,
                                const Learner* learner,
                                const agent::ReplayBuffer* replay);

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_RUN_CHECKPOINT_H_
