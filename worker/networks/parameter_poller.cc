#include "worker/networks/parameter_poller.h"


#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/model/network_checkpoint.h"
#include "common/rpc/backoff.h"
#include "common/rpc/client_channel.h"
#include "common/rpc/log_line.h"

namespace mmapzero::worker {

ParameterPoller::ParameterPoller(ParameterPollerOptions options,
                                 model::MuZeroNetwork staging)
    : options_(std::move(options)), staging_(std::move(staging)) {
  thread_ = std::jthread([this] { Run(); });
}

ParameterPoller::~ParameterPoller() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void ParameterPoller::SetAddress(const std::string& address) {
  absl::MutexLock lock(&mu_);
  if (address == address_) return;
  address_ = address;
  client_.reset();
  if (!address.empty()) {
    client_ = std::make_shared<rpc::ParameterClient>(
        rpc::MakeClientChannel(address),
        options_.rpc_deadline);
  }
  wake_ = true;
}

int64_t ParameterPoller::latest_version() const {
  absl::MutexLock lock(&mu_);
  return latest_;
}

int64_t ParameterPoller::fetched() const {
  absl::MutexLock lock(&mu_);
  return fetched_;
}

void ParameterPoller::Run() {
  rpc::Backoff backoff(absl::Milliseconds(200), absl::Seconds(10));
  absl::Duration wait = absl::ZeroDuration();
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || wake_;
      };
      mu_.AwaitWithTimeout(absl::Condition(&ready), wait);
      if (stopping_) return;
      wake_ = false;
    }
    if (PollOnce()) {
      backoff.Reset();
      wait = options_.interval;
    } else {
      wait = std::max(options_.interval, backoff.Next());
    }
  }
}

bool ParameterPoller::PollOnce() {
  std::shared_ptr<rpc::ParameterClient> client;
  {
    absl::MutexLock lock(&mu_);
    client = client_;
  }
  if (client == nullptr) return true;  // no learner yet: nothing failed
  const absl::StatusOr<int64_t> latest = client->LatestVersion(options_.job_id);
  if (!latest.ok()) {
    rpc::LogLine(
        "warning", "parameter_poll_failed",
        {{"job", options_.job_id}, {"error", latest.status().ToString()}});
    return false;
  }
  {
    absl::MutexLock lock(&mu_);
    latest_ = *latest;
  }
  if (*latest <= have_) return true;
  absl::StatusOr<rpc::ParameterSnapshot> snapshot =
      client->Fetch(options_.job_id, 0);
  absl::Status status = snapshot.status();
  if (status.ok())
    status = model::LoadNetworkParameters(snapshot->bytes, staging_);
  if (!status.ok()) {
    rpc::LogLine("warning", "parameter_fetch_failed",
                 {{"job", options_.job_id},
                  {"version", absl::StrCat(*latest)},
                  {"error", status.ToString()}});
    return false;
  }
  published_.Publish(staging_, snapshot->version);
  have_ = snapshot->version;
  absl::MutexLock lock(&mu_);
  ++fetched_;
  latest_ = std::max(latest_, snapshot->version);
  return true;
}

}  // namespace mmapzero::worker
