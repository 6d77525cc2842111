#include "common/rpc/client_channel.h"

#include <utility>
#include <vector>

#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "grpcpp/support/client_interceptor.h"

namespace mmapzero::rpc {
namespace {

// Adds "authorization: Bearer TOKEN" to every call's initial metadata.
class BearerTokenInterceptor : public grpc::experimental::Interceptor {
 public:
  explicit BearerTokenInterceptor(const std::string* header)
      : header_(header) {}

  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::
                PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->insert({"authorization", *header_});
    }
    methods->Proceed();
  }

 private:
  const std::string* header_;  // owned by the factory, which the channel keeps
};

class BearerTokenInterceptorFactory
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit BearerTokenInterceptorFactory(const std::string& token)
      : header_("Bearer " + token) {}

  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new BearerTokenInterceptor(&header_);
  }

 private:
  const std::string header_;
};

}  // namespace

std::shared_ptr<grpc::Channel> MakeClientChannel(const std::string& address) {
  return MakeClientChannel(address, *security::ProcessTransportSecurity());
}

std::shared_ptr<grpc::Channel> MakeClientChannel(
    const std::string& address, const security::TransportSecurity& security) {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(kMaxMessageBytes);
  arguments.SetMaxSendMessageSize(kMaxMessageBytes);
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      security::ChannelCredentialsFor(security, &arguments);
  if (security.bearer_token.empty()) {
    return grpc::CreateCustomChannel(address, credentials, arguments);
  }
  std::vector<
      std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
      interceptors;
  interceptors.push_back(
      std::make_unique<BearerTokenInterceptorFactory>(security.bearer_token));
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      address, credentials, arguments, std::move(interceptors));
}

}  // namespace mmapzero::rpc
