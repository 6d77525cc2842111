// Scanning helpers for the text form of HLO: brackets that nest, strings
// with backslash escapes (metadata, backend_config) and /*...*/ comments
// (the `/*index=5*/` markers in long tuples). Every HLO text parser here
// splits a line with these, so a comma or brace inside a string or a nested
// attribute never ends a field early.
#ifndef MMAPZERO_COMMON_HLO_HLO_LEXER_H_
#define MMAPZERO_COMMON_HLO_HLO_LEXER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mmapzero::hlo {

std::string_view Trim(std::string_view text);

// `line` without its comments outside strings: /*...*/ anywhere, and // to
// the end of the line (current dumps close a computation with `} // name`).
std::string StripComments(std::string_view line);

// Index of the bracket that closes the one at `open` ('(', '{' or '['),
// skipping strings and nested brackets; npos when it is missing or a
// bracket of another kind closes first.
size_t FindClosing(std::string_view text, size_t open);

// Splits at `separator` outside brackets and strings; pieces are trimmed,
// and an empty text gives no pieces.
std::vector<std::string_view> SplitTopLevel(std::string_view text,
                                            char separator);

// Removes `prefix` from the front of `*text` when it is there.
bool ConsumePrefix(std::string_view* text, std::string_view prefix);

// The integers in `text` in order, e.g. "{1,0}" or "[\"1\", \"2\"]" give
// {1, 0} and {1, 2}; other characters are separators.
std::vector<int64_t> IntegersIn(std::string_view text);

// The integer written after `key` in a free-form attribute blob, in any of
// the spellings XLA uses: `key=3`, `key = 3 : i64`, `"key":3`, `"key":"3"`,
// `\"key\":\"3\"`. nullopt when absent.
std::optional<int64_t> IntegerAfterKey(std::string_view blob,
                                       std::string_view key);

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_LEXER_H_
