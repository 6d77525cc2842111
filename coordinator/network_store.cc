// JobStore's network registry and jobs' networks (schema v7).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "coordinator/job_store.h"

namespace mmapzero::coordinator {

absl::Status JobStore::PutNetwork(const v1::NetworkInfo& info,
                                  const std::string& bytes) {
  return db_->InTransaction([&]() -> absl::Status {
    ASSIGN_OR_RETURN(Statement exists,
                     db_->Prepare("SELECT 1 FROM networks WHERE name = ?"));
    exists.Bind(1, info.name());
    ASSIGN_OR_RETURN(const bool taken, exists.Step());
    if (taken) {
      return absl::AlreadyExistsError(
          absl::StrCat("a network named '", info.name(), "' exists"));
    }
    return Write("INSERT INTO networks (name, info, bytes) VALUES (?, ?, ?)",
                 [&](Statement& insert) {
                   insert.Bind(1, info.name())
                       .BindBlob(2, info.SerializeAsString())
                       .BindBlob(3, bytes);
                 });
  });
}

absl::StatusOr<std::vector<v1::NetworkInfo>> JobStore::ListNetworks() {
  ASSIGN_OR_RETURN(Statement select,
                   db_->Prepare("SELECT info FROM networks ORDER BY name"));
  std::vector<v1::NetworkInfo> networks;
  while (true) {
    ASSIGN_OR_RETURN(const bool row, select.Step());
    if (!row) break;
    v1::NetworkInfo info;
    RETURN_IF_ERROR(ParseBlob(select.ColumnBlob(0), "networks.info", &info));
    networks.push_back(std::move(info));
  }
  return networks;
}

absl::StatusOr<std::string> JobStore::SelectNetworkColumn(
    const std::string& name, absl::string_view column) {
  ASSIGN_OR_RETURN(Statement select,
                   db_->Prepare(absl::StrCat("SELECT ", column,
                                             " FROM networks WHERE name = ?")));
  select.Bind(1, name);
  ASSIGN_OR_RETURN(const bool row, select.Step());
  if (!row) {
    return absl::NotFoundError(
        absl::StrCat("no network named '", name, "' in the registry"));
  }
  return select.ColumnBlob(0);
}

absl::StatusOr<v1::NetworkInfo> JobStore::GetNetworkInfo(
    const std::string& name) {
  ASSIGN_OR_RETURN(const std::string bytes, SelectNetworkColumn(name, "info"));
  v1::NetworkInfo info;
  RETURN_IF_ERROR(ParseBlob(bytes, "networks.info", &info));
  return info;
}

absl::StatusOr<std::string> JobStore::GetNetworkBytes(
    const std::string& name) {
  return SelectNetworkColumn(name, "bytes");
}

absl::StatusOr<bool> JobStore::DeleteNetwork(const std::string& name) {
  RETURN_IF_ERROR(Write("DELETE FROM networks WHERE name = ?",
                        [&](Statement& remove) { remove.Bind(1, name); }));
  return db_->Changes() > 0;
}

absl::Status JobStore::PutJobNetwork(const JobNetwork& network) {
  return Write(
      "INSERT OR REPLACE INTO job_networks (job_id, kind, sha256, "
      "learner_step, saved_ms, lineage, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)",
      [&](Statement& insert) {
        insert.Bind(1, network.job_id)
            .Bind(2, static_cast<int64_t>(network.kind))
            .Bind(3, network.sha256)
            .Bind(4, network.learner_step)
            .Bind(5, network.saved_ms)
            .BindBlob(6, network.lineage.SerializeAsString())
            .BindBlob(7, network.bytes);
      });
}

absl::StatusOr<JobNetwork> JobStore::GetJobNetwork(int64_t job_id,
                                                   JobNetworkKind kind,
                                                   bool with_bytes) {
  ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare(absl::StrCat(
          "SELECT sha256, learner_step, saved_ms, lineage",
          with_bytes ? ", bytes" : "",
          " FROM job_networks WHERE job_id = ? AND kind = ?")));
  select.Bind(1, job_id).Bind(2, static_cast<int64_t>(kind));
  ASSIGN_OR_RETURN(const bool row, select.Step());
  if (!row) {
    return absl::NotFoundError(absl::StrCat(
        "job ", job_id, " has no ",
        kind == JobNetworkKind::kStart ? "starting network" : "network yet"));
  }
  JobNetwork network;
  network.job_id = job_id;
  network.kind = kind;
  network.sha256 = select.ColumnText(0);
  network.learner_step = select.ColumnInt(1);
  network.saved_ms = select.ColumnInt(2);
  RETURN_IF_ERROR(ParseBlob(select.ColumnBlob(3), "job_networks.lineage",
                            &network.lineage));
  if (with_bytes) network.bytes = select.ColumnBlob(4);
  return network;
}

}  // namespace mmapzero::coordinator
