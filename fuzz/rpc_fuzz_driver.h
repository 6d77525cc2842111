// Plays a fuzzer's input as gRPC calls to a running service, the way a
// hostile or broken client would send them: the method of each call is
// chosen from the input among every method of the services named (read
// from the protos' descriptors, so a method added to a .proto is fuzzed
// the day it is added), and its request messages are the input's raw
// bytes, parsed by the server as it parses what arrives from the network.
// The calls go through the server's real handlers and access checks over
// an in-process channel, one after the other.
//
// An input is up to kMaxCalls calls, each:
//   method (1 byte, taken modulo the number of methods),
//   message count (1 byte; 1 to 8 for a client-streaming method, else 1),
//   per message: length (2 bytes, little-endian), then that many bytes.
// Bytes missing at the end are empty messages. EncodeRpcCalls writes the
// same format from method names (the seed corpus).
#ifndef MMAPZERO_FUZZ_RPC_FUZZ_DRIVER_H_
#define MMAPZERO_FUZZ_RPC_FUZZ_DRIVER_H_

#include <grpcpp/channel.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace mmapzero::fuzz {

struct RpcCall {
  std::string method;                 // "JobService.SubmitJob"
  std::vector<std::string> messages;  // serialised requests
};

class RpcFuzzDriver {
 public:
  static constexpr int kMaxCalls = 8;

  // `services`: full names ("mmapzero.v1.JobService"); each must be in the
  // generated descriptor pool (abort otherwise: a broken target).
  explicit RpcFuzzDriver(const std::vector<std::string>& services);

  // Plays `data` on `channel`. Each call has `deadline`: 100 ms is ample
  // for any handler here and keeps a long poll (SampleBatch waiting for
  // positions) from stalling the fuzzer; a handler still running when it
  // passes goes on beside the next call, as with a client that gave up.
  // A server stream
  // is read to its end or for at most 16 messages (1 for methods that
  // stream until their job ends, such as WatchJob), then cancelled.
  void Play(const std::shared_ptr<grpc::Channel>& channel, const uint8_t* data,
            size_t size,
            absl::Duration deadline = absl::Milliseconds(100)) const;

  // The input that makes `calls`; aborts on a method it does not know.
  std::string Encode(const std::vector<RpcCall>& calls) const;

  int method_count() const { return static_cast<int>(methods_.size()); }

 private:
  struct Method {
    std::string name;  // "JobService.SubmitJob"
    std::string path;  // "/mmapzero.v1.JobService/SubmitJob"
    bool client_streaming = false;
    bool server_streaming = false;
    int max_reads = 16;
  };

  void Call(const std::shared_ptr<grpc::Channel>& channel, const Method& method,
            const std::vector<std::string>& messages,
            absl::Duration deadline) const;

  std::vector<Method> methods_;
};

// The server a handler target plays its inputs on: started by `start`,
// and again (the old one shut down first) after every
// MMAPZERO_FUZZ_INPUTS_PER_SERVER inputs (default 64), so that state
// stays bounded; 1 replays each input on a fresh server.
template <typename Server>
class RecycledServer {
 public:
  explicit RecycledServer(std::function<std::unique_ptr<Server>()> start)
      : start_(std::move(start)), inputs_per_server_(InputsPerServer()) {}

  // Plays one input on the server of this input (RpcFuzzDriver::Play) and
  // returns the channel it used, for the target's check that the server
  // still serves.
  std::shared_ptr<grpc::Channel> PlayNext(const RpcFuzzDriver& driver,
                                          const uint8_t* data, size_t size) {
    if (server_ == nullptr || inputs_ % inputs_per_server_ == 0) {
      server_.reset();
      server_ = start_();
    }
    ++inputs_;
    std::shared_ptr<grpc::Channel> channel = server_->InProcessChannel();
    driver.Play(channel, data, size);
    return channel;
  }

 private:
  static int InputsPerServer() {
    const char* value = std::getenv("MMAPZERO_FUZZ_INPUTS_PER_SERVER");
    const int inputs = value == nullptr ? 64 : std::atoi(value);
    return inputs < 1 ? 1 : inputs;
  }

  std::function<std::unique_ptr<Server>()> start_;
  int inputs_per_server_;
  std::unique_ptr<Server> server_;
  int64_t inputs_ = 0;
};

// Writes `input` to DIR/NAME (the seed corpus); false on an I/O error.
bool WriteSeed(const std::string& dir, const std::string& name,
               const std::string& input);

}  // namespace mmapzero::fuzz

#endif  // MMAPZERO_FUZZ_RPC_FUZZ_DRIVER_H_
