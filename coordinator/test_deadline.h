// A client context whose deadline is `timeout` from now, for the
// coordinator's tests that call its services over real channels.
#ifndef MMAPZERO_COORDINATOR_TEST_DEADLINE_H_
#define MMAPZERO_COORDINATOR_TEST_DEADLINE_H_

#include <grpcpp/client_context.h>

#include <chrono>
#include <memory>

#include "absl/time/time.h"

namespace mmapzero::coordinator {

inline std::unique_ptr<grpc::ClientContext> Deadlined(
    absl::Duration timeout = absl::Seconds(30)) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() +
                        absl::ToChronoMilliseconds(timeout));
  return context;
}

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_TEST_DEADLINE_H_
