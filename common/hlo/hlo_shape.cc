#include "common/hlo/hlo_shape.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/hlo/hlo_lexer.h"
#include "common/workload/workload_limits.h"

namespace mmapzero::hlo {
namespace {

// Tuples nest this deep at most: real modules nest two or three levels, and
// each level is one recursion and one scan for its closing bracket.
constexpr int kMaxTupleDepth = 64;

struct TypeBits {
  const char* name;
  int bits;
};

constexpr TypeBits kTypes[] = {
    {"pred", 8}, {"s2", 2},   {"u2", 2},   {"s4", 4},     {"u4", 4},
    {"s8", 8},   {"u8", 8},   {"s16", 16}, {"u16", 16},   {"s32", 32},
    {"u32", 32}, {"s64", 64}, {"u64", 64}, {"f16", 16},   {"bf16", 16},
    {"f32", 32}, {"f64", 64}, {"c64", 64}, {"c128", 128}, {"tf32", 32},
};

void SkipBlanks(std::string_view text, size_t* pos) {
  while (*pos < text.size() &&
         std::isspace(static_cast<unsigned char>(text[*pos]))) {
    ++*pos;
  }
}

absl::Status ShapeError(std::string_view text, size_t pos,
                        std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("bad shape: ", std::string(what), " at \"",
                   std::string(text.substr(pos, 40)), "\""));
}

absl::StatusOr<HloShape> ParseShapeAt(std::string_view text, size_t* pos,
                                      int depth);
absl::StatusOr<HloShape> ParseWholeShape(std::string_view text, int depth);

absl::StatusOr<HloShape> ParseTuple(std::string_view text, size_t* pos,
                                    int depth) {
  if (depth >= kMaxTupleDepth) {
    return ShapeError(text, *pos,
                      absl::StrCat("tuples nested deeper than ",
                                   kMaxTupleDepth));
  }
  const size_t close = FindClosing(text, *pos);
  if (close == std::string_view::npos) {
    return ShapeError(text, *pos, "unclosed tuple");
  }
  HloShape shape;
  shape.kind = HloShape::Kind::kTuple;
  std::string_view inner = text.substr(*pos + 1, close - *pos - 1);
  int64_t bytes = 0;
  for (std::string_view piece : SplitTopLevel(inner, ',')) {
    auto element = ParseWholeShape(piece, depth + 1);
    if (!element.ok()) return element.status();
    // Each element is at most kMaxBytes: the sum cannot overflow first.
    bytes += element->ByteSize();
    if (bytes > kMaxBytes) return ShapeError(text, *pos, "tuple too large");
    shape.elements.push_back(*std::move(element));
  }
  *pos = close + 1;
  return shape;
}

absl::Status ParseDims(std::string_view text, size_t* pos, HloShape* shape) {
  const size_t close = text.find(']', *pos);
  if (close == std::string_view::npos) {
    return ShapeError(text, *pos, "missing ']'");
  }
  for (std::string_view dim :
       SplitTopLevel(text.substr(*pos + 1, close - *pos - 1), ',')) {
    ConsumePrefix(&dim, "<=");  // dynamic: sized at its bound
    if (dim == "?") return ShapeError(text, *pos, "unbounded dimension '?'");
    int64_t value = 0;
    if (dim.empty()) return ShapeError(text, *pos, "empty dimension");
    for (char c : dim) {
      if (!std::isdigit(static_cast<unsigned char>(c)) ||
          value > kMaxBytes / 10) {
        return ShapeError(text, *pos, "dimension is not a size");
      }
      value = value * 10 + (c - '0');
    }
    shape->dims.push_back(value);
  }
  shape->dims_text = std::string(text.substr(*pos, close - *pos + 1));
  *pos = close + 1;
  return absl::OkStatus();
}

// Layout `{minor_to_major[:T(..)..S(n)]}`: only tiles and memory space
// matter to the importer.
absl::Status ParseLayout(std::string_view text, size_t* pos, HloShape* shape) {
  if (*pos >= text.size() || text[*pos] != '{') return absl::OkStatus();
  const size_t close = FindClosing(text, *pos);
  if (close == std::string_view::npos) {
    return ShapeError(text, *pos, "unclosed layout");
  }
  const std::string_view layout = text.substr(*pos, close - *pos + 1);
  shape->layout_text = std::string(layout);
  shape->tiled = layout.find("T(") != std::string_view::npos;
  if (size_t s = layout.find("S("); s != std::string_view::npos) {
    const std::vector<int64_t> space = IntegersIn(layout.substr(s));
    if (!space.empty()) shape->memory_space = space.front();
  }
  *pos = close + 1;
  return absl::OkStatus();
}

}  // namespace

int ElementTypeBits(std::string_view name) {
  for (const TypeBits& type : kTypes) {
    if (name == type.name) return type.bits;
  }
  if (name.substr(0, 2) == "f8") return 8;  // f8e5m2, f8e4m3fn, ...
  if (name.substr(0, 2) == "f6") return 8;  // f6e2m3fn, f6e3m2fn: one byte
  if (name.substr(0, 2) == "f4") return 4;  // f4e2m1fn: packed
  return 0;
}

int64_t HloShape::ElementCount() const {
  if (kind != Kind::kArray) return 0;
  int64_t count = 1;
  for (int64_t dim : dims) count *= dim;
  return count;
}

int64_t HloShape::ByteSize() const {
  switch (kind) {
    case Kind::kArray:
      return (ElementCount() * element_bits + 7) / 8;
    case Kind::kTuple: {
      int64_t bytes = 0;
      for (const HloShape& element : elements) bytes += element.ByteSize();
      return bytes;
    }
    default:
      return 0;
  }
}

void HloShape::AppendLeaves(std::vector<const HloShape*>* leaves) const {
  if (!IsTuple()) {
    leaves->push_back(this);
    return;
  }
  for (const HloShape& element : elements) element.AppendLeaves(leaves);
}

int HloShape::LeafCount() const {
  if (!IsTuple()) return 1;
  int count = 0;
  for (const HloShape& element : elements) count += element.LeafCount();
  return count;
}

namespace {

// `layout_text` (e.g. "{1,0:T(8,128)S(1)}", or "" for none) with its memory
// space set to `space`: S(n) removed, and "S(space)" added for space != 0.
// No layout gets XLA's default, the dimensions major to minor.
std::string LayoutWithSpace(const std::string& layout_text, size_t rank,
                            int64_t space) {
  std::string order, details;
  if (layout_text.size() >= 2) {
    const std::string inner = layout_text.substr(1, layout_text.size() - 2);
    const size_t colon = inner.find(':');
    order = inner.substr(0, colon);
    if (colon != std::string::npos) details = inner.substr(colon + 1);
  } else {
    std::vector<std::string> dims;
    for (size_t i = rank; i-- > 0;) dims.push_back(absl::StrCat(i));
    order = absl::StrJoin(dims, ",");
  }
  // Drop any S(n) already there.
  for (size_t s = details.find("S("); s != std::string::npos;
       s = details.find("S(")) {
    const size_t end = details.find(')', s);
    details.erase(s, end == std::string::npos ? std::string::npos : end - s + 1);
  }
  if (space != 0) absl::StrAppend(&details, "S(", space, ")");
  if (details.empty()) {
    // XLA prints no layout for a scalar.
    return rank == 0 ? std::string() : absl::StrCat("{", order, "}");
  }
  return absl::StrCat("{", order, ":", details, "}");
}

void PrintShapeTo(const HloShape& shape, const std::vector<int64_t>& spaces,
                  size_t* leaf, std::string* out) {
  switch (shape.kind) {
    case HloShape::Kind::kTuple: {
      out->push_back('(');
      for (size_t i = 0; i < shape.elements.size(); ++i) {
        if (i > 0) out->append(", ");
        PrintShapeTo(shape.elements[i], spaces, leaf, out);
      }
      out->push_back(')');
      return;
    }
    case HloShape::Kind::kToken:
      ++*leaf;
      out->append("token[]");
      return;
    case HloShape::Kind::kOpaque:
      ++*leaf;
      out->append("opaque[]");
      return;
    case HloShape::Kind::kArray: {
      const int64_t space = *leaf < spaces.size() ? spaces[*leaf] : 0;
      ++*leaf;
      absl::StrAppend(out, shape.element_type,
                      shape.dims_text.empty()
                          ? absl::StrCat("[", absl::StrJoin(shape.dims, ","), "]")
                          : shape.dims_text,
                      LayoutWithSpace(shape.layout_text, shape.dims.size(),
                                      space));
      return;
    }
  }
}

}  // namespace

std::string PrintShapeWithSpaces(const HloShape& shape,
                                 const std::vector<int64_t>& leaf_spaces) {
  std::string out;
  size_t leaf = 0;
  PrintShapeTo(shape, leaf_spaces, &leaf, &out);
  return out;
}

void HloShape::AppendLeafSpaces(std::vector<int64_t>* spaces) const {
  if (!IsTuple()) {
    spaces->push_back(memory_space);
    return;
  }
  for (const HloShape& element : elements) element.AppendLeafSpaces(spaces);
}

std::string HloShape::ToString() const {
  switch (kind) {
    case Kind::kArray:
      return absl::StrCat(element_type, "[", absl::StrJoin(dims, ","), "]");
    case Kind::kTuple: {
      std::vector<std::string> parts;
      for (const HloShape& element : elements) {
        parts.push_back(element.ToString());
      }
      return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
    }
    case Kind::kToken:
      return "token[]";
    case Kind::kOpaque:
      return "opaque[]";
  }
  return "";
}

namespace {

absl::StatusOr<HloShape> ParseShapeAt(std::string_view text, size_t* pos,
                                      int depth) {
  SkipBlanks(text, pos);
  if (*pos >= text.size()) return ShapeError(text, *pos, "missing shape");
  if (text[*pos] == '(') return ParseTuple(text, pos, depth);
  size_t end = *pos;
  while (end < text.size() &&
         std::isalnum(static_cast<unsigned char>(text[end]))) {
    ++end;
  }
  const std::string_view type = text.substr(*pos, end - *pos);
  HloShape shape;
  if (type == "token" || type == "opaque") {
    shape.kind =
        type == "token" ? HloShape::Kind::kToken : HloShape::Kind::kOpaque;
  } else {
    shape.element_bits = ElementTypeBits(type);
    if (shape.element_bits == 0) {
      return ShapeError(text, *pos, "unknown element type");
    }
    shape.element_type = std::string(type);
  }
  *pos = end;
  if (*pos >= text.size() || text[*pos] != '[') {
    return ShapeError(text, *pos, "expected '[' after the element type");
  }
  if (auto status = ParseDims(text, pos, &shape); !status.ok()) return status;
  if (shape.kind == HloShape::Kind::kArray) {
    double elements = 1;
    for (int64_t dim : shape.dims) elements *= static_cast<double>(dim);
    if (elements * shape.element_bits / 8 > static_cast<double>(kMaxBytes)) {
      return ShapeError(text, *pos, "array too large");
    }
  }
  if (auto status = ParseLayout(text, pos, &shape); !status.ok()) {
    return status;
  }
  return shape;
}

absl::StatusOr<HloShape> ParseWholeShape(std::string_view text, int depth) {
  size_t pos = 0;
  auto shape = ParseShapeAt(text, &pos, depth);
  if (!shape.ok()) return shape.status();
  SkipBlanks(text, &pos);
  if (pos != text.size()) return ShapeError(text, pos, "text after the shape");
  return shape;
}

}  // namespace

absl::StatusOr<HloShape> ParseShape(std::string_view text, size_t* pos) {
  return ParseShapeAt(text, pos, /*depth=*/0);
}

absl::StatusOr<HloShape> ParseShapeText(std::string_view text) {
  return ParseWholeShape(text, /*depth=*/0);
}

}  // namespace mmapzero::hlo
