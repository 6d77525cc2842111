#include "common/base/address_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/base/atomic_file.h"

namespace mmapzero {

std::string ListenHost(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) return kDefaultListenHost;
  return listen.substr(0, colon);
}

std::string DialableAddress(const std::string& listen, int port) {
  std::string host = ListenHost(listen);
  if (host == "0.0.0.0" || host == "[::]" || host == "::" || host == "*") {
    host = "127.0.0.1";
  }
  return absl::StrCat(host, ":", port);
}

std::string MetricsListenAddress(const std::string& host, int port) {
  return port > 0 ? absl::StrCat(host, ":", port) : std::string();
}

absl::Status WriteAddressFile(const std::string& path,
                              const std::string& listen, int port) {
  return WriteFileAtomically(path,
                             absl::StrCat(DialableAddress(listen, port), "\n"));
}

absl::StatusOr<std::string> ReadAddressFile(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  }
  std::ifstream in(path);
  if (!in) {
    return absl::PermissionDeniedError(absl::StrCat(path, ": cannot read"));
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string address(absl::StripAsciiWhitespace(text.str()));
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a host:port address: '", address, "'"));
  }
  return address;
}

}  // namespace mmapzero
