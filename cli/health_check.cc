#include "cli/health_check.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/rpc/client_channel.h"
#include "common/rpc/health_check_client.h"

namespace mmapzero::cli {

HealthResult CheckHealth(const std::string& address, absl::Duration deadline) {
  const absl::StatusOr<rpc::ServingStatus> status = rpc::CheckServingStatus(
      rpc::MakeClientChannel(address), /*service=*/"", deadline);
  if (!status.ok()) {
    if (status.status().code() == absl::StatusCode::kInternal) {
      return {false, "unreadable health response"};
    }
    return {false, absl::StrCat("unreachable: ", status.status().message())};
  }
  switch (*status) {
    case rpc::ServingStatus::kServing:
      return {true, "SERVING"};
    case rpc::ServingStatus::kNotServing:
      return {false, "NOT_SERVING"};
    case rpc::ServingStatus::kUnknown:
    case rpc::ServingStatus::kServiceUnknown:
      return {false, "UNKNOWN"};
  }
  return {false, "UNKNOWN"};
}

}  // namespace mmapzero::cli
