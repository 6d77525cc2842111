#include "common/hlo/hlo_lexer.h"

#include <cctype>

namespace mmapzero::hlo {
namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)); }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

char CloserOf(char open) {
  switch (open) {
    case '(':
      return ')';
    case '{':
      return '}';
    case '[':
      return ']';
    default:
      return 0;
  }
}

// Index just past the string that starts at `quote` (a '"'), or npos.
size_t SkipString(std::string_view text, size_t quote) {
  for (size_t i = quote + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

std::string StripComments(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size();) {
    if (line[i] == '"') {
      const size_t end = SkipString(line, i);
      const size_t stop = end == std::string_view::npos ? line.size() : end;
      out.append(line.substr(i, stop - i));
      i = stop;
    } else if (line.compare(i, 2, "/*") == 0) {
      const size_t end = line.find("*/", i + 2);
      i = end == std::string_view::npos ? line.size() : end + 2;
    } else if (line.compare(i, 2, "//") == 0) {
      break;
    } else {
      out.push_back(line[i++]);
    }
  }
  return out;
}

size_t FindClosing(std::string_view text, size_t open) {
  std::string expected;
  for (size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      i = SkipString(text, i);
      if (i == std::string_view::npos) return i;
      --i;
    } else if (const char closer = CloserOf(c); closer != 0) {
      expected.push_back(closer);
    } else if (c == ')' || c == '}' || c == ']') {
      if (expected.empty() || expected.back() != c) {
        return std::string_view::npos;
      }
      expected.pop_back();
      if (expected.empty()) return i;
    }
  }
  return std::string_view::npos;
}

std::vector<std::string_view> SplitTopLevel(std::string_view text,
                                            char separator) {
  std::vector<std::string_view> pieces;
  if (Trim(text).empty()) return pieces;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const size_t end = SkipString(text, i);
      if (end == std::string_view::npos) break;
      i = end - 1;
    } else if (c == '(' || c == '{' || c == '[') {
      ++depth;
    } else if (c == ')' || c == '}' || c == ']') {
      --depth;
    } else if (c == separator && depth == 0) {
      pieces.push_back(Trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  pieces.push_back(Trim(text.substr(start)));
  return pieces;
}

bool ConsumePrefix(std::string_view* text, std::string_view prefix) {
  if (text->substr(0, prefix.size()) != prefix) return false;
  text->remove_prefix(prefix.size());
  return true;
}

std::vector<int64_t> IntegersIn(std::string_view text) {
  std::vector<int64_t> values;
  for (size_t i = 0; i < text.size();) {
    const bool negative =
        text[i] == '-' && i + 1 < text.size() && IsDigit(text[i + 1]);
    if (!IsDigit(text[i]) && !negative) {
      ++i;
      continue;
    }
    if (negative) ++i;
    int64_t value = 0;
    while (i < text.size() && IsDigit(text[i])) {
      if (value < (int64_t{1} << 58)) value = value * 10 + (text[i] - '0');
      ++i;
    }
    values.push_back(negative ? -value : value);
  }
  return values;
}

std::optional<int64_t> IntegerAfterKey(std::string_view blob,
                                       std::string_view key) {
  for (size_t at = blob.find(key); at != std::string_view::npos;
       at = blob.find(key, at + 1)) {
    // The key must not be the tail of a longer name.
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(blob[at - 1])) ||
                   blob[at - 1] == '_')) {
      continue;
    }
    size_t i = at + key.size();
    bool separated = false;
    while (i < blob.size() &&
           (blob[i] == '"' || blob[i] == '\\' || blob[i] == '\'' ||
            blob[i] == ' ' || blob[i] == ':' || blob[i] == '=')) {
      separated |= blob[i] == ':' || blob[i] == '=';
      ++i;
    }
    if (!separated || i >= blob.size()) continue;
    const std::vector<int64_t> values =
        IntegersIn(blob.substr(i, blob.size() - i).substr(0, 24));
    const bool starts_number =
        IsDigit(blob[i]) || (blob[i] == '-' && i + 1 < blob.size());
    if (starts_number && !values.empty()) return values.front();
  }
  return std::nullopt;
}

}  // namespace mmapzero::hlo
