#include "cli/loopback_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <optional>

#include "absl/random/random.h"
#include "absl/status/status.h"

namespace mmapzero::cli {
namespace {

// Binds 127.0.0.1:`port` (0: a port the kernel picks) and closes it again;
// the port it bound, or nothing when something else holds it.
std::optional<int> BindOnce(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return std::nullopt;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  socklen_t length = sizeof(address);
  const bool ok =
      bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  close(fd);
  if (!ok) return std::nullopt;
  return ntohs(address.sin_port);
}

}  // namespace

std::pair<int, int> EphemeralPortRange() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 0;
  int high = 0;
  if (in >> low >> high && 0 < low && low <= high) return {low, high};
  return {32768, 60999};
}

absl::StatusOr<int> FreeLoopbackPort() {
  constexpr int kLowest = 10000;
  const int ephemeral_low = EphemeralPortRange().first;
  if (ephemeral_low > kLowest + 100) {
    absl::BitGen bits;
    for (int attempt = 0; attempt < 100; ++attempt) {
      if (const std::optional<int> port =
              BindOnce(absl::Uniform(bits, kLowest, ephemeral_low))) {
        return *port;
      }
    }
  }
  // The range is unusual, or full: any free port.
  const std::optional<int> port = BindOnce(0);
  if (!port) return absl::UnavailableError("no free port on 127.0.0.1");
  return *port;
}

}  // namespace mmapzero::cli
