// Names that travel in files, flags and requests (request ids, registered
// networks, client certificates): only ASCII letters, digits, '.', '_' and
// '-', so that they are safe as file names and in log lines as they are.
#ifndef MMAPZERO_COMMON_BASE_PLAIN_NAME_H_
#define MMAPZERO_COMMON_BASE_PLAIN_NAME_H_

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"

namespace mmapzero {

// Whether every character of `name` is a letter, digit, '.', '_' or '-'
// (true for ""; callers bound the length themselves).
inline bool IsPlainName(absl::string_view name) {
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' ||
           c == '_' || c == '-';
  });
}

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_PLAIN_NAME_H_
