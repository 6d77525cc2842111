// Every method of every service the project defines, against the roles
// that may call it. The methods come from the protos' descriptors, so a
// method added to a .proto fails here until this table says who may call
// it, and the policy refuses it meanwhile (deny by default).
#include <map>
#include <set>
#include <string>

#include "common/security/access_policy.h"
#include "common/security/access_role.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "proto/job.pb.h"
#include "proto/network.pb.h"
#include "proto/parameters.pb.h"
#include "proto/replay.pb.h"
#include "proto/worker.pb.h"

namespace mmapzero::security {
namespace {

struct Allowed {
  bool client = false;
  bool worker = false;
};

// Who may call each method, "Service.Method". The admin may call all.
std::map<std::string, Allowed> ExpectedTable() {
  const Allowed client{.client = true, .worker = false};
  const Allowed worker{.client = false, .worker = true};
  const Allowed both{.client = true, .worker = true};
  return {
      {"JobService.SubmitJob", client},
      {"JobService.ListJobs", client},
      {"JobService.GetJob", client},
      {"JobService.WatchJob", client},
      {"JobService.CancelJob", client},
      {"JobService.GetBestSolution", client},
      {"JobService.DeleteJob", client},
      {"JobService.ExtendJob", client},
      {"JobService.ResumeJob", client},
      {"JobService.GetJobDetails", client},
      {"NetworkRegistry.ListNetworks", client},
      {"NetworkRegistry.GetNetwork", client},
      {"NetworkRegistry.ExportNetwork", client},
      {"NetworkRegistry.ImportNetwork", client},
      {"NetworkRegistry.DeleteNetwork", client},
      {"WorkerService.Register", worker},
      {"WorkerService.Heartbeat", worker},
      {"WorkerService.ReportSolution", worker},
      {"WorkerService.FetchWorkload", worker},
      {"WorkerService.FetchJobNetwork", worker},
      {"WorkerService.ReportJobNetwork", worker},
      {"ReplayService.InsertTrajectories", worker},
      {"ReplayService.SampleBatch", worker},
      {"ReplayService.SampleForReanalyse", worker},
      {"ReplayService.UpdateTargets", worker},
      {"ReplayService.GetStats", both},
      {"ParameterService.GetLatestVersion", worker},
      {"ParameterService.FetchParameters", worker},
  };
}

// The files that define the services, reached through one message each so
// that the linker keeps them and the generated pool holds them.
std::set<const google::protobuf::FileDescriptor*> ServiceFiles() {
  return {v1::SubmitJobRequest::descriptor()->file(),
          v1::ListNetworksRequest::descriptor()->file(),
          v1::GetLatestVersionRequest::descriptor()->file(),
          v1::InsertTrajectoriesRequest::descriptor()->file(),
          v1::HeartbeatRequest::descriptor()->file()};
}

TEST(AccessTableTest, EveryMethodOfEveryServiceHasItsRolesAndNoMore) {
  const std::map<std::string, Allowed> expected = ExpectedTable();
  std::set<std::string> seen;
  for (const google::protobuf::FileDescriptor* file : ServiceFiles()) {
    for (int s = 0; s < file->service_count(); ++s) {
      const google::protobuf::ServiceDescriptor* service = file->service(s);
      for (int m = 0; m < service->method_count(); ++m) {
        const std::string method = service->method(m)->name();
        const std::string key = service->name() + "." + method;
        seen.insert(key);
        const auto row = expected.find(key);
        if (row == expected.end()) {
          ADD_FAILURE() << key
                        << " is in the protos but not in this table: say "
                           "who may call it (access_policy.cc and here)";
          EXPECT_FALSE(RoleMayCall(Role::kClient, method)) << key;
          EXPECT_FALSE(RoleMayCall(Role::kWorker, method)) << key;
          continue;
        }
        EXPECT_EQ(RoleMayCall(Role::kClient, method), row->second.client)
            << key;
        EXPECT_EQ(RoleMayCall(Role::kWorker, method), row->second.worker)
            << key;
        EXPECT_TRUE(RoleMayCall(Role::kAdmin, method)) << key;
      }
    }
  }
  for (const auto& [key, allowed] : expected) {
    EXPECT_TRUE(seen.contains(key)) << key << " is no longer in the protos";
  }
}

TEST(AccessTableTest, AMethodNoServiceDefinesIsRefusedToEveryRole) {
  for (const Role role : {Role::kClient, Role::kWorker, Role::kAdmin}) {
    EXPECT_FALSE(RoleMayCall(role, "SomeNewMethod"));
    EXPECT_FALSE(RoleMayCall(role, ""));
  }
}

}  // namespace
}  // namespace mmapzero::security
