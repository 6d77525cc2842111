// The worker id that GetBestSolution reports while a job's best is the
// solution submitted with the job (SubmitJobRequest.start in
// proto/job.proto); "" is the seed solver's. The coordinator writes it,
// `mmapctl` reads it to say which part of a combination found the best.
#ifndef MMAPZERO_COMMON_RPC_START_WORKER_ID_H_
#define MMAPZERO_COMMON_RPC_START_WORKER_ID_H_

namespace mmapzero::rpc {

inline constexpr char kStartWorkerId[] = "start";

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_START_WORKER_ID_H_
