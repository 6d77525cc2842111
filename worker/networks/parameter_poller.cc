#include "worker/networks/parameter_poller.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/model/network_checkpoint.h"
#include "common/rpc/backoff.h"
#include "common/rpc/client_channel.h"
#include "common/service/log_line.h"

namespace mmapzero::worker {

ParameterPoller::ParameterPoller(ParameterPollerOptions options,
                                 model::MuZeroNetwork staging)
    : options_(std::move(options)), staging_(std::move(staging)) {
  thread_ = std::jthread([this] { Run(); });
}

ParameterPoller::~ParameterPoller() {
  shared_.Update([](Shared& shared) { shared.stopping = true; });
  if (thread_.joinable()) thread_.join();
}

void ParameterPoller::SetAddress(const std::string& address) {
  shared_.Update([&](Shared& shared) {
    if (address == shared.address) return;
    shared.address = address;
    shared.client.reset();
    if (!address.empty()) {
      shared.client = std::make_shared<rpc::ParameterClient>(
          rpc::MakeClientChannel(address), options_.rpc_deadline);
    }
    shared.wake = true;
  });
}

int64_t ParameterPoller::latest_version() const {
  return shared_.Read([](const Shared& shared) { return shared.latest; });
}

int64_t ParameterPoller::fetched() const {
  return shared_.Read([](const Shared& shared) { return shared.fetched; });
}

void ParameterPoller::Run() {
  rpc::Backoff backoff(absl::Milliseconds(200), absl::Seconds(10));
  absl::Duration wait = absl::ZeroDuration();
  while (true) {
    shared_.AwaitWithTimeout(
        [](const Shared& shared) { return shared.stopping || shared.wake; },
        wait);
    const bool stopping = shared_.Update([](Shared& shared) {
      shared.wake = false;
      return shared.stopping;
    });
    if (stopping) return;
    if (PollOnce()) {
      backoff.Reset();
      wait = options_.interval;
    } else {
      wait = std::max(options_.interval, backoff.Next());
    }
  }
}

bool ParameterPoller::PollOnce() {
  const std::shared_ptr<rpc::ParameterClient> client =
      shared_.Read([](const Shared& shared) { return shared.client; });
  if (client == nullptr) return true;  // no learner yet: nothing failed
  const absl::StatusOr<int64_t> latest = client->LatestVersion(options_.job_id);
  if (!latest.ok()) {
    service::LogLine(
        "warning", "parameter_poll_failed",
        {{"job", options_.job_id}, {"error", latest.status().ToString()}});
    return false;
  }
  shared_.Update([&](Shared& shared) { shared.latest = *latest; });
  if (*latest <= have_) return true;
  absl::StatusOr<rpc::ParameterSnapshot> snapshot =
      client->Fetch(options_.job_id, 0);
  absl::Status status = snapshot.status();
  if (status.ok())
    status = model::LoadNetworkParameters(snapshot->bytes, staging_);
  if (!status.ok()) {
    service::LogLine("warning", "parameter_fetch_failed",
                     {{"job", options_.job_id},
                      {"version", absl::StrCat(*latest)},
                      {"error", status.ToString()}});
    return false;
  }
  published_.Publish(staging_, snapshot->version);
  have_ = snapshot->version;
  shared_.Update([&](Shared& shared) {
    ++shared.fetched;
    shared.latest = std::max(shared.latest, snapshot->version);
  });
  return true;
}

}  // namespace mmapzero::worker
