// A string as a JSON string literal, for the few places that write JSON by
// hand (reports, the audit log): quotes, backslashes and control
// characters escaped, other bytes as they are.
#ifndef MMAPZERO_COMMON_BASE_JSON_QUOTED_H_
#define MMAPZERO_COMMON_BASE_JSON_QUOTED_H_

#include <string>
#include <string_view>

namespace mmapzero {

// `text` quoted: "a \"b\"\n" for a "b"<newline>.
std::string JsonQuoted(std::string_view text);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_JSON_QUOTED_H_
