// `mmapctl archive JOB --out FILE [--no-network] [--json]`: what a job made
// and how, in one file that outlives the job (delete, retention): a tar
// archive (`tar -xf FILE`) of one folder named after the job:
//   status.json    its status (state, budget, figures, owner)
//   config.json    the training configuration it ran with
//   workload.json  its workload, as submitted
//   best.json      its best solution, validated here first (as `best`
//                  does); absent while the job has none (seeding)
//   history.csv    the dashboard's samples over its life
//   network.pt     its learner's newest network and network.json what it
//                  was trained on; absent before the learner's first report
//                  or with --no-network
//   SHA256SUMS     `sha256sum -c SHA256SUMS` in the folder checks the rest
// The file is written through a temporary one renamed into place. A job
// that has not ended is archived as it is at that moment, and said so.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/job_client.h"
#include "cli/verified_best.h"
#include "common/base/atomic_file.h"
#include "common/base/status_macros.h"
#include "common/base/tar_writer.h"
#include "common/rpc/enum_names.h"
#include "common/security/sha256.h"
#include "common/workload/proto_io.h"
#include "nlohmann/json.hpp"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "archive JOB --out FILE [--no-network] [--coordinator HOST:PORT] "
    "[--json]";

struct Member {
  std::string name;  // inside the job's folder
  std::string bytes;
};

std::string HistoryCsv(const v1::JobDetails& details) {
  std::string csv =
      "unix_ms,best_normalised_return,best_latency_us,learner_step,games,"
      "moves\n";
  for (const v1::JobHistorySample& sample : details.history()) {
    absl::StrAppendFormat(&csv, "%d,%.9g,%.9g,%d,%d,%d\n", sample.unix_ms(),
                          sample.best_normalised_return(),
                          sample.best_latency_us(), sample.learner_step(),
                          sample.games(), sample.moves());
  }
  return csv;
}

// "<sha256>  <name>" per member, as sha256sum writes it.
std::string Checksums(const std::vector<Member>& members) {
  std::string sums;
  for (const Member& member : members) {
    absl::StrAppend(&sums, security::Sha256Hex(member.bytes), "  ", member.name,
                    "\n");
  }
  return sums;
}

// The job's best, validated here; nullopt while it has none (seeding, or
// failed before its seed).
absl::StatusOr<std::optional<Solution>> VerifiedBest(JobClient& client,
                                                     const std::string& job_id,
                                                     const Workload& workload) {
  absl::StatusOr<v1::GetBestSolutionResponse> best = client.Best(job_id);
  if (absl::IsFailedPrecondition(best.status())) return std::nullopt;
  RETURN_IF_ERROR(best.status());
  RETURN_IF_ERROR(CheckBestValid(job_id, workload, best->solution()));
  return best->solution();
}

}  // namespace

absl::Status RunArchive(const Args& args) {
  ASSIGN_OR_RETURN(const CommandLine line,
                   CommandLine::Parse(args, WithClientFlags({"out"}),
                                      {"no-network", "json"}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  ASSIGN_OR_RETURN(const std::string out, line.GetRequired("out", kUsage));
  const std::string job_id = line.positional()[0];
  ASSIGN_OR_RETURN(const std::unique_ptr<JobClient> client,
                   JobClient::Connect(line));
  ASSIGN_OR_RETURN(const v1::JobDetails details, client->Details(job_id));
  ASSIGN_OR_RETURN(const std::optional<Solution> best,
                   VerifiedBest(*client, job_id, details.workload()));

  std::vector<Member> members = {{"status.json", ToJson(details.job())},
                                 {"config.json", ToJson(details.config())},
                                 {"workload.json", ToJson(details.workload())}};
  if (best.has_value()) members.push_back({"best.json", ToJson(*best)});
  members.push_back({"history.csv", HistoryCsv(details)});
  std::string network_note = "no network (--no-network)";
  if (!line.Has("no-network")) {
    absl::StatusOr<std::pair<v1::NetworkInfo, std::string>> network =
        client->FetchNetwork(job_id);
    if (network.ok()) {
      network_note = absl::StrFormat("network of learner step %d (sha256 %s)",
                                     network->first.learner_steps(),
                                     network->first.sha256());
      members.push_back({"network.json", ToJson(network->first)});
      members.push_back({"network.pt", std::move(network->second)});
    } else if (absl::IsNotFound(network.status())) {
      network_note = "no network: its learner has reported none";
    } else {
      return network.status();
    }
  }
  members.push_back({"SHA256SUMS", Checksums(members)});

  ASSIGN_OR_RETURN(std::unique_ptr<AtomicFileWriter> file,
                   AtomicFileWriter::Open(out));
  TarWriter tar([&file](std::string_view bytes) { return file->Append(bytes); },
                absl::ToUnixSeconds(absl::Now()));
  for (const Member& member : members) {
    RETURN_IF_ERROR(
        tar.AddFile(absl::StrCat(job_id, "/", member.name), member.bytes));
  }
  RETURN_IF_ERROR(tar.Finish());
  RETURN_IF_ERROR(file->Commit());

  const v1::JobStatus& job = details.job();
  const bool ended = rpc::IsFinalJobState(job.state());
  if (line.Has("json")) {
    nlohmann::ordered_json json = {{"job_id", job_id},
                                   {"state", rpc::JobStateName(job.state())},
                                   {"out", out},
                                   {"bytes", tar.bytes_written()},
                                   {"snapshot_of_unended_job", !ended}};
    nlohmann::ordered_json files = nlohmann::ordered_json::array();
    for (const Member& member : members) {
      files.push_back({{"name", absl::StrCat(job_id, "/", member.name)},
                       {"bytes", member.bytes.size()}});
    }
    json["files"] = std::move(files);
    std::cout << json.dump() << "\n";
    return absl::OkStatus();
  }
  std::cout << absl::StrFormat("archived %s (%s) to %s: %d bytes, %d files\n",
                               job_id, rpc::JobStateName(job.state()), out,
                               tar.bytes_written(), members.size());
  std::cout << absl::StrFormat("  %s; %d history samples; %s\n",
                               best.has_value() ? "best solution validated here"
                                                : "no best solution yet",
                               details.history_size(), network_note);
  if (!ended) {
    std::cout << "  the job has not ended: this is how it stood now\n";
  }
  std::cout << absl::StrFormat(
      "  read it with: tar -xf %s; cd %s && "
      "sha256sum -c SHA256SUMS\n",
      out, job_id);
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
