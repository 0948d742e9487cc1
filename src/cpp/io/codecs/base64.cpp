#include "io/codecs/base64.hpp"

#include <array>

namespace meshioplusplus::io {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::uint8_t kInvalid = 0xFF, kPad = 0xFE, kSpace = 0xFD;

constexpr std::array<std::uint8_t, 256> make_decode_table() {
  std::array<std::uint8_t, 256> table{};
  for (auto& v : table) v = kInvalid;
  for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::uint8_t>(i);
  table['='] = kPad;
  for (unsigned char c : {' ', '\n', '\r', '\t'}) table[c] = kSpace;
  return table;
}
constexpr auto kDecode = make_decode_table();

}  // namespace

std::optional<std::size_t> base64_decode(std::string_view text, std::uint8_t* out,
                                         std::size_t* bad_offset) noexcept {
  std::size_t written = 0;
  std::uint32_t accumulator = 0;
  int quantum = 0;  // sextets in the accumulator
  int padding = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::uint8_t code = kDecode[static_cast<unsigned char>(text[i])];
    if (code == kSpace) continue;
    if (code == kPad) {
      ++padding;
      ++quantum;
    } else if (code == kInvalid || padding > 0) {
      // Concatenated base64 streams (VTK encodes header and data separately) restart
      // after padding; anything else after '=' is corrupt.
      if (code != kInvalid && quantum == 0) {
        padding = 0;
        accumulator = code;
        quantum = 1;
        continue;
      }
      if (bad_offset) *bad_offset = i;
      return std::nullopt;
    } else {
      accumulator = (accumulator << 6) | code;
      ++quantum;
    }
    if (quantum == 4) {
      if (padding == 0) {
        out[written++] = static_cast<std::uint8_t>(accumulator >> 16);
        out[written++] = static_cast<std::uint8_t>(accumulator >> 8);
        out[written++] = static_cast<std::uint8_t>(accumulator);
      } else {
        // Check before shifting: runs of '=' across quanta can count past 3, and a
        // shift by 6 * padding >= 32 would be undefined.
        if (padding > 2) {
          if (bad_offset) *bad_offset = i;
          return std::nullopt;
        }
        accumulator <<= 6 * padding;
        out[written++] = static_cast<std::uint8_t>(accumulator >> 16);
        if (padding == 1) out[written++] = static_cast<std::uint8_t>(accumulator >> 8);
      }
      accumulator = 0;
      quantum = 0;
    }
  }
  if (quantum != 0) {
    if (bad_offset) *bad_offset = text.size();
    return std::nullopt;
  }
  return written;
}

std::optional<std::size_t> base64_decode_prefix(std::string_view text, std::uint8_t* out,
                                                std::size_t count) noexcept {
  const std::size_t characters = base64_encoded_size(count);
  if (text.size() < characters) return std::nullopt;
  std::uint8_t scratch[3];
  std::size_t written = 0;
  for (std::size_t i = 0; i < characters; i += 4) {
    std::uint32_t accumulator = 0;
    int padding = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const std::uint8_t code = kDecode[static_cast<unsigned char>(text[i + k])];
      if (code == kPad) {
        ++padding;
        accumulator <<= 6;
      } else if (code < 64 && padding == 0) {
        accumulator = (accumulator << 6) | code;
      } else {
        return std::nullopt;
      }
    }
    scratch[0] = static_cast<std::uint8_t>(accumulator >> 16);
    scratch[1] = static_cast<std::uint8_t>(accumulator >> 8);
    scratch[2] = static_cast<std::uint8_t>(accumulator);
    for (int k = 0; k < 3 - padding && written < count; ++k) out[written++] = scratch[k];
  }
  return written == count ? std::optional<std::size_t>(characters) : std::nullopt;
}

void base64_encode_append(const void* data, std::size_t size, std::string& out) {
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  const std::size_t start = out.size();
  out.resize(start + base64_encoded_size(size));
  char* target = out.data() + start;
  std::size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    const std::uint32_t v = (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    *target++ = kAlphabet[(v >> 18) & 63];
    *target++ = kAlphabet[(v >> 12) & 63];
    *target++ = kAlphabet[(v >> 6) & 63];
    *target++ = kAlphabet[v & 63];
  }
  const std::size_t rest = size - i;
  if (rest > 0) {
    std::uint32_t v = std::uint32_t{bytes[i]} << 16;
    if (rest == 2) v |= std::uint32_t{bytes[i + 1]} << 8;
    *target++ = kAlphabet[(v >> 18) & 63];
    *target++ = kAlphabet[(v >> 12) & 63];
    *target++ = rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    *target++ = '=';
  }
}

}  // namespace meshioplusplus::io
