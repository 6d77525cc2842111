#include "common/base/crc32c.h"

#include <array>

namespace mmapzero {
namespace {

// Reflected Castagnoli polynomial.
constexpr uint32_t kCastagnoli = 0x82F63B78u;

constexpr std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 1) ? (crc >> 1) ^ kCastagnoli : crc >> 1;
    }
    table[i] = crc;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kCrcTable = MakeCrcTable();

}  // namespace

uint32_t Crc32cExtend(uint32_t crc, std::string_view bytes) {
  crc = ~crc;
  for (const char c : bytes) {
    crc = kCrcTable[(crc ^ static_cast<uint8_t>(c)) & 0xFF] ^ (crc >> 8);
  }
  return ~crc;
}

uint32_t Crc32c(std::string_view bytes) { return Crc32cExtend(0, bytes); }

}  // namespace mmapzero
