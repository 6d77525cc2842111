// Keeps a job's newest learner parameters at hand for a worker (actor or
// reanalyse): a thread polls the learner's ParameterService
// (common/rpc/parameter_client.h) every `interval`; when the version
// advanced it fetches the snapshot, loads it into a staging network
// (common/model/network_checkpoint.h: a snapshot of another architecture is
// refused and logged) and publishes it (training::PublishedParameters), from
// which the playing thread copies it between moves
// (SelfPlay::SyncParameters), so no move waits on the network. The
// learner's address may change (takeover) or be "" (none yet); while the
// learner is away the polls back off.
//
// Thread-safety: thread-safe.
#ifndef MMAPZERO_WORKER_NETWORKS_PARAMETER_POLLER_H_
#define MMAPZERO_WORKER_NETWORKS_PARAMETER_POLLER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/time/time.h"
#include "common/base/guarded.h"
#include "common/model/networks.h"
#include "common/rpc/parameter_client.h"
#include "common/training/self_play.h"

namespace mmapzero::worker {

struct ParameterPollerOptions {
  std::string job_id;
  absl::Duration interval = absl::Seconds(1);
  absl::Duration rpc_deadline = absl::Seconds(30);  // one whole fetch
};

class ParameterPoller {
 public:
  // `staging` receives each fetched snapshot before it is published; it
  // must have the job's architecture and is used by the poll thread only.
  ParameterPoller(ParameterPollerOptions options, model::MuZeroNetwork staging);
  ~ParameterPoller();  // stops and joins the thread

  // The job's learner ("": none now).
  void SetAddress(const std::string& address);

  const training::PublishedParameters& published() const { return published_; }
  // The learner's latest version seen (0: none yet), for the lag.
  int64_t latest_version() const;
  // Snapshots fetched and published since the start.
  int64_t fetched() const;

 private:
  void Run();
  // One poll; false when the learner could not be reached or a snapshot
  // not loaded.
  bool PollOnce();

  const ParameterPollerOptions options_;
  model::MuZeroNetwork staging_;  // the poll thread's only
  training::PublishedParameters published_;
  // The poll thread's only. -1: nothing yet, so that a learner's version 0
  // (the job's starting network, before its first step) is fetched too.
  int64_t have_ = -1;

  // What the poll thread shares with the others.
  struct Shared {
    std::string address;
    std::shared_ptr<rpc::ParameterClient> client;
    int64_t latest = 0;
    int64_t fetched = 0;
    bool stopping = false;
    bool wake = false;
  };
  Guarded<Shared> shared_;
  std::jthread thread_;  // last: started after the fields it reads
};

}  // namespace mmapzero::worker

#endif  // MMAPZERO_WORKER_NETWORKS_PARAMETER_POLLER_H_
