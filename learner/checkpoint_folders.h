// Where a learner keeps each job's checkpoints on its volume, and their
// removal once the job is gone: <data_dir>/learner/<job id>-<job uid>
// (JobCheckpointDir), beside its .old, .tmp, .fence and .damaged-N
// siblings (common/training/learner_checkpoint.h, lease_fence.h). Folders
// outlive their job there (a resumed job continues from them), so the
// learner lists them to the coordinator now and then and removes those of
// jobs it deleted (WorkerSession's StoredJobState): a deleted or expired
// job's checkpoints, about 100 MB for a paper job, leave the volume too.
#ifndef MMAPZERO_LEARNER_CHECKPOINT_FOLDERS_H_
#define MMAPZERO_LEARNER_CHECKPOINT_FOLDERS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/worker.pb.h"

namespace mmapzero::learner {

// <data_dir>/learner/<job id>-<job uid>: the folder of one job's
// checkpoints, named by its identity as well as its id, so that a job of a
// coordinator started again on a new database (job ids from 1 again) never
// resumes another job's network. <job id> alone for a job without a uid.
std::string JobCheckpointDir(const std::string& data_dir,
                             const v1::Assignment& assignment);

// The jobs with a folder (or sibling) under <data_dir>/learner, sorted by
// id and uid, each once; names that are not a job's are left out.
std::vector<v1::StoredJob> ListCheckpointJobs(const std::string& data_dir);

// Removes the job's folder and its siblings; the bytes that freed.
// InvalidArgument, touching nothing, for a job id that is not "job-" and
// digits or a uid that is not hex digits: a name never reaches outside the
// folder.
absl::StatusOr<int64_t> RemoveCheckpointFolders(const std::string& data_dir,
                                                const v1::StoredJob& job);

}  // namespace mmapzero::learner

#endif  // MMAPZERO_LEARNER_CHECKPOINT_FOLDERS_H_
