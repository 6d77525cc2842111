// HLO shapes as the text form prints them: `f32[128,10]{1,0}`, tuples
// `(s32[], bf16[2,4]{1,0})`, `token[]`, dynamic dimensions `f32[<=8]`
// (sized at their bound), and layouts with tiles and memory spaces
// `{1,0:T(8,128)(2,1)S(1)}`.
//
// Sizes are logical: ceil(elements x bits per element / 8) bytes, with
// sub-byte types (s4, u4, f4) packed. Tiling can pad an array in device
// memory; the importer does not pad to tiles (docs/hlo-import.md), so a
// tiled shape counts the same bytes as an untiled one.
#ifndef MMAPZERO_COMMON_HLO_HLO_SHAPE_H_
#define MMAPZERO_COMMON_HLO_HLO_SHAPE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace mmapzero::hlo {

struct HloShape {
  enum class Kind { kArray, kTuple, kToken, kOpaque };
  Kind kind = Kind::kArray;
  std::string element_type;  // arrays: "f32", "bf16", "pred", "s4", ...
  int element_bits = 0;      // arrays: storage bits of one element
  std::vector<int64_t> dims;
  std::vector<HloShape> elements;  // tuples
  bool tiled = false;              // layout has T(...) tiles
  int64_t memory_space = 0;        // layout's S(n); 0 = default
  // The text as written, for printing the shape back: "[4,<=8]" and the
  // layout "{1,0:T(8,128)S(1)}" ("" when the module gives none).
  std::string dims_text;
  std::string layout_text;

  bool IsTuple() const { return kind == Kind::kTuple; }
  int64_t ElementCount() const;  // arrays; 0 for others
  // Arrays: logical bytes; tuples: sum over leaves; tokens, opaque: 0.
  int64_t ByteSize() const;
  // Leaves in depth-first order (a non-tuple shape is its own only leaf).
  void AppendLeaves(std::vector<const HloShape*>* leaves) const;
  int LeafCount() const;
  std::string ToString() const;  // without layout, e.g. "(f32[2], s32[])"
  // Each leaf's memory space, depth first (tokens count as leaves).
  void AppendLeafSpaces(std::vector<int64_t>* spaces) const;
};

// The shape as HLO text with layouts, leaf k (depth first) in memory space
// leaf_spaces[k] (0 when missing): S(n) written into the leaf's layout, or
// taken out for 0; a leaf without a layout gets XLA's default one.
std::string PrintShapeWithSpaces(const HloShape& shape,
                                 const std::vector<int64_t>& leaf_spaces);

// Storage bits of an element type ("f32" -> 32, "pred" -> 8, "s4" -> 4), or
// 0 when the name is not an HLO element type.
int ElementTypeBits(std::string_view name);

// Parses the shape that starts at text[*pos] and moves *pos past it (and
// its layout). Errors say what was expected and quote the text.
absl::StatusOr<HloShape> ParseShape(std::string_view text, size_t* pos);

// ParseShape on the whole of `text` (surrounding blanks allowed).
absl::StatusOr<HloShape> ParseShapeText(std::string_view text);

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_SHAPE_H_
