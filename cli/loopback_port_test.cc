#include "cli/loopback_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>

#include "gtest/gtest.h"

namespace mmapzero::cli {
namespace {

// Listens on 127.0.0.1:`port`; the socket, or -1.
int ListenOn(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(fd, 1) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

TEST(LoopbackPortTest, EphemeralRangeIsTheKernelsOrItsDefault) {
  const auto [low, high] = EphemeralPortRange();
  EXPECT_GT(low, 0);
  EXPECT_LE(low, high);
  EXPECT_LE(high, 65535);
}

// The race this avoids: a service of the same start listening on port 0
// is handed, from the ephemeral range, the port just chosen for another.
TEST(LoopbackPortTest, PortsAreFreeAndBelowTheEphemeralRange) {
  const int ephemeral_low = EphemeralPortRange().first;
  std::set<int> seen;
  for (int i = 0; i < 50; ++i) {
    const absl::StatusOr<int> port = FreeLoopbackPort();
    ASSERT_TRUE(port.ok()) << port.status();
    if (ephemeral_low > 10100) {
      EXPECT_GE(*port, 10000);
      EXPECT_LT(*port, ephemeral_low);
    }
    const int fd = ListenOn(*port);
    EXPECT_GE(fd, 0) << "port " << *port << " was not free";
    if (fd >= 0) close(fd);
    seen.insert(*port);
  }
  EXPECT_GT(seen.size(), 40u) << "drawn at random, not the same few";
}

TEST(LoopbackPortTest, APortInUseIsNotChosen) {
  // Hold 200 ports of the range; none of them may come back.
  const int ephemeral_low = EphemeralPortRange().first;
  std::set<int> held;
  std::vector<int> sockets;
  for (int port = 10000; port < ephemeral_low && held.size() < 200; ++port) {
    const int fd = ListenOn(port);
    if (fd < 0) continue;
    held.insert(port);
    sockets.push_back(fd);
  }
  for (int i = 0; i < 200; ++i) {
    const absl::StatusOr<int> port = FreeLoopbackPort();
    ASSERT_TRUE(port.ok()) << port.status();
    EXPECT_EQ(held.count(*port), 0u) << "port " << *port << " is in use";
  }
  for (const int fd : sockets) close(fd);
}

}  // namespace
}  // namespace mmapzero::cli
