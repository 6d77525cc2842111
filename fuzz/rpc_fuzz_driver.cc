#include "fuzz/rpc_fuzz_driver.h"

#include <google/protobuf/descriptor.h>
#include <grpcpp/completion_queue.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/support/byte_buffer.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "absl/time/clock.h"

namespace mmapzero::fuzz {
namespace {

// Waits for the one operation in flight on `cq`; whether it succeeded.
bool Await(grpc::CompletionQueue& cq) {
  void* tag = nullptr;
  bool ok = false;
  return cq.Next(&tag, &ok) && ok;
}

void* const kTag = reinterpret_cast<void*>(1);

}  // namespace

RpcFuzzDriver::RpcFuzzDriver(const std::vector<std::string>& services) {
  const google::protobuf::DescriptorPool* pool =
      google::protobuf::DescriptorPool::generated_pool();
  for (const std::string& name : services) {
    const google::protobuf::ServiceDescriptor* service =
        pool->FindServiceByName(name);
    if (service == nullptr) std::abort();  // not linked into the target
    for (int i = 0; i < service->method_count(); ++i) {
      const google::protobuf::MethodDescriptor* method = service->method(i);
      Method m;
      m.name = service->name() + "." + method->name();
      m.path = "/" + service->full_name() + "/" + method->name();
      m.client_streaming = method->client_streaming();
      m.server_streaming = method->server_streaming();
      // Streams progress until the job ends: one message shows it served.
      if (method->name() == "WatchJob") m.max_reads = 1;
      methods_.push_back(std::move(m));
    }
  }
  if (methods_.empty() || methods_.size() > 256) std::abort();
}

void RpcFuzzDriver::Play(const std::shared_ptr<grpc::Channel>& channel,
                         const uint8_t* data, size_t size,
                         absl::Duration deadline) const {
  size_t pos = 0;
  auto next_byte = [&]() -> size_t { return pos < size ? data[pos++] : 0; };
  for (int c = 0; c < kMaxCalls && pos < size; ++c) {
    const Method& method = methods_[next_byte() % methods_.size()];
    const size_t count_byte = next_byte();
    const size_t count = method.client_streaming ? 1 + count_byte % 8 : 1;
    std::vector<std::string> messages;
    for (size_t i = 0; i < count; ++i) {
      size_t length = next_byte();
      length |= next_byte() << 8;
      length = std::min(length, size - pos);
      messages.emplace_back(reinterpret_cast<const char*>(data + pos), length);
      pos += length;
    }
    Call(channel, method, messages, deadline);
  }
}

void RpcFuzzDriver::Call(const std::shared_ptr<grpc::Channel>& channel,
                         const Method& method,
                         const std::vector<std::string>& messages,
                         absl::Duration deadline) const {
  grpc::GenericStub stub(channel);
  grpc::CompletionQueue cq;
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call =
      stub.PrepareCall(&context, method.path, &cq);
  call->StartCall(kTag);
  bool open = Await(cq);
  for (const std::string& message : messages) {
    if (!open) break;
    grpc::Slice slice(message);
    grpc::ByteBuffer buffer(&slice, 1);
    call->Write(buffer, kTag);
    open = Await(cq);
  }
  if (open) {
    call->WritesDone(kTag);
    open = Await(cq);
  }
  for (int read = 0; read < method.max_reads; ++read) {
    grpc::ByteBuffer reply;
    call->Read(&reply, kTag);
    if (!Await(cq)) break;
  }
  context.TryCancel();  // a stream not read to its end
  grpc::Status status;
  call->Finish(&status, kTag);
  Await(cq);
  cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
  }
}

std::string RpcFuzzDriver::Encode(const std::vector<RpcCall>& calls) const {
  std::string input;
  for (const RpcCall& call : calls) {
    const auto found =
        std::find_if(methods_.begin(), methods_.end(),
                     [&](const Method& m) { return m.name == call.method; });
    if (found == methods_.end() || call.messages.empty() ||
        call.messages.size() > 8) {
      std::abort();
    }
    input.push_back(static_cast<char>(found - methods_.begin()));
    input.push_back(static_cast<char>(call.messages.size() - 1));
    for (const std::string& message : call.messages) {
      if (message.size() > 0xffff) std::abort();
      input.push_back(static_cast<char>(message.size() & 0xff));
      input.push_back(static_cast<char>(message.size() >> 8));
      input += message;
    }
  }
  return input;
}

bool WriteSeed(const std::string& dir, const std::string& name,
               const std::string& input) {
  std::ofstream out(dir + "/" + name, std::ios::binary | std::ios::trunc);
  out.write(input.data(), static_cast<std::streamsize>(input.size()));
  return static_cast<bool>(out);
}

}  // namespace mmapzero::fuzz
