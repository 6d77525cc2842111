#include "common/base/crc32c.h"

#include <array>
#include <cstring>

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

// `crc` already inverted, as both loops keep it.
uint32_t ExtendByTable(uint32_t crc, std::string_view bytes) {
  for (const char c : bytes) {
    crc = kCrcTable[(crc ^ static_cast<uint8_t>(c)) & 0xFF] ^ (crc >> 8);
  }
  return crc;
}

#if defined(__x86_64__)
// The CPU's own CRC32C instruction (SSE4.2), eight bytes at a time: about
// 20 times the table's speed. Compiled for SSE4.2 only here and used only
// where the CPU has it.
__attribute__((target("sse4.2"))) uint32_t ExtendByInstruction(
    uint32_t crc, std::string_view bytes) {
  uint64_t wide = crc;
  while (bytes.size() >= sizeof(uint64_t)) {
    uint64_t word;
    std::memcpy(&word, bytes.data(), sizeof(word));
    wide = __builtin_ia32_crc32di(wide, word);
    bytes.remove_prefix(sizeof(word));
  }
  crc = static_cast<uint32_t>(wide);
  for (const char c : bytes) {
    crc = __builtin_ia32_crc32qi(crc, static_cast<uint8_t>(c));
  }
  return crc;
}

bool HasCrcInstruction() {
  static const bool has = [] {
    __builtin_cpu_init();  // may run before libgcc's own initialiser
    return __builtin_cpu_supports("sse4.2") != 0;
  }();
  return has;
}
#endif

}  // namespace

uint32_t Crc32cExtend(uint32_t crc, std::string_view bytes) {
#if defined(__x86_64__)
  if (HasCrcInstruction()) return ~ExtendByInstruction(~crc, bytes);
#endif
  return ~ExtendByTable(~crc, bytes);
}

uint32_t Crc32c(std::string_view bytes) { return Crc32cExtend(0, bytes); }

}  // namespace mmapzero
