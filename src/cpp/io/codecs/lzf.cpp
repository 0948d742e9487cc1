// LZF streams (see lzf.hpp): a bounds-checked decoder and a greedy hash-chain-free encoder
// (one candidate per 3-byte hash, as liblzf's fast mode), both written from the format's
// description. Speed: the decoder copies literals and far references in fixed 32/16-byte
// pieces where the buffers have room (over-copying bytes that later items overwrite); the
// encoder compares matches 8 bytes at a time and, after a long run without a match (noise
// such as random coordinates' low bytes), looks at fewer positions, as LZ4 does.
#include "io/codecs/lzf.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "io/source/parallel.hpp"

namespace meshioplusplus::io {
namespace {

constexpr std::size_t kMaxLiteral = 32;        // a control byte below 32 holds run - 1
constexpr std::size_t kMaxDistance = 8192;     // 13 bits of distance, plus one
constexpr std::size_t kMaxMatch = 2 + 7 + 255;  // 3 bits of length, one extra byte, plus two
constexpr int kHashBits = 16;

inline std::uint32_t hash_of(const std::uint8_t* p) noexcept {
  const std::uint32_t v = static_cast<std::uint32_t>(p[0]) << 16 | static_cast<std::uint32_t>(p[1]) << 8 | p[2];
  return (v * 2654435761u) >> (32 - kHashBits);
}

}  // namespace

std::size_t lzf_decompress(const std::uint8_t* input, std::size_t input_size, std::uint8_t* output,
                           std::size_t output_capacity) noexcept {
  constexpr std::size_t kCorrupt = static_cast<std::size_t>(-1);
  constexpr std::size_t kWide = 16;  // one vector register
  std::size_t in = 0, out = 0;
  while (in < input_size) {
    const std::size_t control = input[in++];
    if (control < kMaxLiteral) {
      const std::size_t run = control + 1;
      if (run > input_size - in || run > output_capacity - out) return kCorrupt;
      if (input_size - in >= kMaxLiteral && output_capacity - out >= kMaxLiteral) [[likely]]
        std::memcpy(output + out, input + in, kMaxLiteral);  // fixed size: two moves, no call
      else
        std::memcpy(output + out, input + in, run);
      in += run;
      out += run;
      continue;
    }
    std::size_t length = control >> 5;
    if (length == 7) {
      if (in >= input_size) return kCorrupt;
      length += input[in++];
    }
    length += 2;
    if (in >= input_size) return kCorrupt;
    const std::size_t distance = ((control & 31) << 8 | input[in++]) + 1;
    if (distance > out || length > output_capacity - out) return kCorrupt;
    const std::uint8_t* from = output + out - distance;
    std::uint8_t* to = output + out;
    if (distance >= kWide && output_capacity - out >= length + kWide) [[likely]] {
      // Each piece reads bytes at least 16 before the ones it writes: all final already.
      for (std::size_t i = 0; i < length; i += kWide) std::memcpy(to + i, from + i, kWide);
    } else if (distance >= length) {
      std::memcpy(to, from, length);
    } else if (distance == 1) {
      std::memset(to, *from, length);  // a run of one byte (zeros, NaN padding)
    } else {
      for (std::size_t i = 0; i < length; ++i) to[i] = from[i];  // overlapping: a repeated pattern
    }
    out += length;
  }
  return out;
}

namespace {

// Bytes from `a` and `b` that agree, up to `limit`, 8 at a time.
inline std::size_t common_length(const std::uint8_t* a, const std::uint8_t* b, std::size_t limit) noexcept {
  std::size_t length = 0;
  while (length + 8 <= limit) {
    std::uint64_t x, y;
    std::memcpy(&x, a + length, 8);
    std::memcpy(&y, b + length, 8);
    if (x != y) {
      if constexpr (std::endian::native == std::endian::little) return length + static_cast<std::size_t>(std::countr_zero(x ^ y)) / 8;
      break;
    }
    length += 8;
  }
  while (length < limit && a[length] == b[length]) ++length;
  return length;
}

// After 2^kSkipAfterBits positions in a row without a match, the encoder steps over 2, then 3 …
// positions at a time until the next match: liblzf tries every position, which on
// incompressible data (most of a random cloud's planes) is nearly all of its time.
constexpr int kSkipAfterBits = 6;

void compress_one(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& out) {
  out.clear();
  out.resize(size + size / kMaxLiteral + 16);  // the worst case: all literals
  std::uint8_t* const base = out.data();
  std::size_t written = 0;
  std::vector<std::uint32_t> table(std::size_t{1} << kHashBits, 0);  // position + 1; 0: empty
  std::size_t literal_start = 0;
  const auto flush_literals = [&](std::size_t until) {
    while (literal_start < until) {
      const std::size_t run = std::min(kMaxLiteral, until - literal_start);
      base[written++] = static_cast<std::uint8_t>(run - 1);
      std::memcpy(base + written, data + literal_start, run);
      written += run;
      literal_start += run;
    }
  };
  // Positions past 4 GiB would not fit the table; PCD's sizes are 32-bit anyway, and longer
  // inputs simply find no matches beyond that (still a valid stream).
  std::size_t position = 0;
  std::size_t misses = 0;
  while (size >= 3 && position + 2 < size) {
    const std::uint32_t h = hash_of(data + position);
    const std::size_t candidate = table[h];
    if (position < 0xFFFFFFFFu) table[h] = static_cast<std::uint32_t>(position + 1);
    if (candidate != 0) {
      const std::size_t reference = candidate - 1;
      const std::size_t distance = position - reference;
      if (distance <= kMaxDistance && data[reference] == data[position] && data[reference + 1] == data[position + 1] &&
          data[reference + 2] == data[position + 2]) {
        const std::size_t longest = std::min(kMaxMatch, size - position);
        const std::size_t length = 3 + common_length(data + reference + 3, data + position + 3, longest - 3);
        flush_literals(position);
        const std::size_t code = length - 2, back = distance - 1;
        if (code < 7) {
          base[written++] = static_cast<std::uint8_t>(code << 5 | back >> 8);
        } else {
          base[written++] = static_cast<std::uint8_t>(7 << 5 | back >> 8);
          base[written++] = static_cast<std::uint8_t>(code - 7);
        }
        base[written++] = static_cast<std::uint8_t>(back & 0xFF);
        // Index the match's last positions too, so the next repetition finds it.
        const std::size_t end = position + length;
        for (std::size_t p = std::max(position + 1, end >= 2 ? end - 2 : 0); p + 2 < size && p < end; ++p)
          if (p < 0xFFFFFFFFu) table[hash_of(data + p)] = static_cast<std::uint32_t>(p + 1);
        position = end;
        literal_start = end;
        misses = 0;
        continue;
      }
    }
    position += 1 + (misses++ >> kSkipAfterBits);
  }
  flush_literals(size);
  out.resize(written);
}

}  // namespace

// An LZF stream has no framing and its references are relative to the output position, so
// blocks compressed on their own and laid end to end are one valid stream (a little larger:
// no reference crosses a block boundary). Inputs over a block are compressed so, on every
// core, and in blocks whatever the thread count: the file is the same bytes on any machine.
std::vector<std::vector<std::uint8_t>> lzf_compress_pieces(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kBlock = std::size_t{1} << 20;
  const std::size_t blocks = std::max<std::size_t>(1, (size + kBlock - 1) / kBlock);
  std::vector<std::vector<std::uint8_t>> pieces(blocks);
  parallel_ranges(blocks, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t b = first; b < last; ++b) compress_one(data + b * kBlock, std::min(kBlock, size - b * kBlock), pieces[b]);
  });
  return pieces;
}

void lzf_compress(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& out) {
  std::vector<std::vector<std::uint8_t>> pieces = lzf_compress_pieces(data, size);
  if (pieces.size() == 1) {
    out = std::move(pieces.front());
    return;
  }
  std::size_t total = 0;
  for (const auto& piece : pieces) total += piece.size();
  out.resize(total);
  std::size_t at = 0;
  for (const auto& piece : pieces) {
    std::memcpy(out.data() + at, piece.data(), piece.size());
    at += piece.size();
  }
}

}  // namespace meshioplusplus::io
