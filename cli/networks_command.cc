// `mmapctl networks list|show|export|import|delete`: the coordinator's
// network registry (proto/network.proto). A registered network is a
// learner's network file with what it was trained on; a job starts from
// one with `mmapctl submit --network NAME` (or `solve --solver muzero
// --set network=NAME` on a cluster).
//
//   networks list [--json]
//   networks show NAME [--json]
//   networks export NAME --out FILE      (checked against its sha256)
//   networks import FILE --name NAME [--description TEXT] [--json]
//   networks import --from-job JOB --name NAME [--description TEXT]
//   networks delete NAME                 (its owner or an admin)
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/job_client.h"
#include "common/base/atomic_file.h"
#include "common/base/read_file.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/rpc/network_stream.h"
#include "common/security/sha256.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "networks list | show NAME | export NAME --out FILE | import FILE --name "
    "NAME [--description TEXT] | import --from-job JOB --name NAME | delete "
    "NAME  [--coordinator HOST:PORT] [--json]";

std::string Date(int64_t unix_ms) {
  return absl::FormatTime("%Y-%m-%d %H:%M", absl::FromUnixMillis(unix_ms),
                          absl::UTCTimeZone());
}

void PrintSummary(const v1::NetworkInfo& info) {
  std::cout << absl::StrFormat(
      "%-24s %9d bytes %8d steps %3d workloads  %-10s %s  %s\n", info.name(),
      info.size_bytes(), info.learner_steps(), info.trained_on_size(),
      info.source(), Date(info.created_unix_ms()),
      info.owner().empty() ? "-" : info.owner());
}

void PrintDetails(const v1::NetworkInfo& info) {
  std::cout << "name:          " << info.name() << "\n"
            << "owner:         " << (info.owner().empty() ? "-" : info.owner())
            << "\n"
            << "created:       " << Date(info.created_unix_ms()) << " UTC\n"
            << "source:        " << info.source() << "\n"
            << "sha256:        " << info.sha256() << "\n"
            << "size:          " << info.size_bytes() << " bytes\n"
            << "learner steps: " << info.learner_steps() << "\n";
  if (!info.description().empty()) {
    std::cout << "description:   " << info.description() << "\n";
  }
  std::cout << "trained on (" << info.trained_on_size() << "):\n";
  for (const v1::TrainedOn& entry : info.trained_on()) {
    std::cout << absl::StrFormat(
        "  %-40s %-10s %-11s %7d steps  %s\n", entry.workload_name(),
        entry.hardware_profile().empty() ? "-" : entry.hardware_profile(),
        entry.job_id().empty() ? "-" : entry.job_id(), entry.learner_steps(),
        entry.workload_sha256().empty() ? "-" : entry.workload_sha256());
  }
}

absl::Status Import(const CommandLine& line, JobClient& client) {
  const std::string name = line.GetString("name", "");
  RETURN_IF_ERROR(features::CheckNetworkName(name, "--name"));
  v1::ImportNetworkRequest first;
  first.mutable_info()->set_name(name);
  first.mutable_info()->set_description(line.GetString("description", ""));
  std::string bytes;
  if (line.Has("from-job")) {
    if (line.positional().size() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("--from-job takes no file; usage: ", kUsage));
    }
    first.set_from_job(line.GetString("from-job", ""));
  } else {
    RETURN_IF_ERROR(line.ExpectPositional(2, kUsage));
    const std::string& file = line.positional()[1];
    ASSIGN_OR_RETURN(bytes, ReadWholeFile(file));
    // Checked here first, so that a wrong file is named before any byte
    // is sent; the learner that loads it checks its sizes and features.
    if (!rpc::LooksLikeNetworkFile(bytes)) {
      return absl::InvalidArgumentError(absl::StrCat(
          file,
          ": not a network file (a learner's network.pt is a LibTorch zip "
          "archive)"));
    }
    first.mutable_info()->set_sha256(security::Sha256Hex(bytes));
  }
  ASSIGN_OR_RETURN(const v1::NetworkInfo info,
                   client.ImportNetwork(std::move(first), bytes));
  if (line.Has("json")) {
    std::cout << ToJson(info) << "\n";
  } else {
    std::cout << "registered " << info.name() << " (" << info.size_bytes()
              << " bytes, sha256 " << info.sha256() << ", from "
              << info.source() << ")\n";
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunNetworks(const Args& args) {
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(args,
                         WithClientFlags({"out", "name", "description",
                                          "from-job"}),
                         {"json"}));
  if (line.positional().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("usage: ", kUsage));
  }
  const std::string& verb = line.positional()[0];
  ASSIGN_OR_RETURN(const std::unique_ptr<JobClient> client,
                   JobClient::Connect(line));
  if (verb == "list") {
    RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
    ASSIGN_OR_RETURN(const v1::ListNetworksResponse list,
                     client->ListNetworks());
    if (line.Has("json")) {
      std::cout << ToJson(list) << "\n";
    } else if (list.networks().empty()) {
      std::cout << "no networks registered (mmapctl networks import)\n";
    } else {
      for (const v1::NetworkInfo& info : list.networks()) PrintSummary(info);
    }
    return absl::OkStatus();
  }
  if (verb == "import") return Import(line, *client);
  RETURN_IF_ERROR(line.ExpectPositional(2, kUsage));
  const std::string& name = line.positional()[1];
  if (verb == "show") {
    ASSIGN_OR_RETURN(const v1::NetworkInfo info, client->GetNetwork(name));
    if (line.Has("json")) {
      std::cout << ToJson(info) << "\n";
    } else {
      PrintDetails(info);
    }
    return absl::OkStatus();
  }
  if (verb == "export") {
    if (!line.Has("out")) {
      return absl::InvalidArgumentError(
          absl::StrCat("--out: required; usage: ", kUsage));
    }
    const std::string out = line.GetString("out", "");
    ASSIGN_OR_RETURN(const auto network, client->FetchNetwork(name));
    RETURN_IF_ERROR(WriteFileAtomically(out, network.second));
    std::cout << "wrote " << out << " (" << network.second.size()
              << " bytes, sha256 " << network.first.sha256() << ")\n";
    return absl::OkStatus();
  }
  if (verb == "delete") {
    RETURN_IF_ERROR(client->DeleteNetwork(name));
    std::cout << "deleted " << name << "\n";
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "networks: unknown action '", verb, "'; usage: ", kUsage));
}

}  // namespace mmapzero::cli
