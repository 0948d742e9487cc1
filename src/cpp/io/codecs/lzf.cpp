// LZF streams (see lzf.hpp): a bounds-checked decoder and a greedy hash-chain-free encoder
// (one candidate per 3-byte hash, as liblzf's fast mode), both written from the format's
// description.
#include "io/codecs/lzf.hpp"

#include <algorithm>
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
  std::size_t in = 0, out = 0;
  while (in < input_size) {
    const std::size_t control = input[in++];
    if (control < kMaxLiteral) {
      const std::size_t run = control + 1;
      if (run > input_size - in || run > output_capacity - out) return kCorrupt;
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
    if (distance >= length) {
      std::memcpy(to, from, length);
    } else {
      for (std::size_t i = 0; i < length; ++i) to[i] = from[i];  // overlapping: a repeated pattern
    }
    out += length;
  }
  return out;
}

namespace {

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
  while (size >= 3 && position + 2 < size) {
    const std::uint32_t h = hash_of(data + position);
    const std::size_t candidate = table[h];
    if (position < 0xFFFFFFFFu) table[h] = static_cast<std::uint32_t>(position + 1);
    if (candidate != 0) {
      const std::size_t reference = candidate - 1;
      const std::size_t distance = position - reference;
      if (distance <= kMaxDistance && std::memcmp(data + reference, data + position, 3) == 0) {
        const std::size_t longest = std::min(kMaxMatch, size - position);
        std::size_t length = 3;
        while (length < longest && data[reference + length] == data[position + length]) ++length;
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
        continue;
      }
    }
    ++position;
  }
  flush_literals(size);
  out.resize(written);
}

}  // namespace

// An LZF stream has no framing and its references are relative to the output position, so
// blocks compressed on their own and laid end to end are one valid stream (a little larger:
// no reference crosses a block boundary). Large inputs are compressed so, on every core.
void lzf_compress(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& out) {
  constexpr std::size_t kBlock = std::size_t{1} << 20;
  if (size < 4 * kBlock || thread_count() < 2) return compress_one(data, size, out);
  const std::size_t blocks = (size + kBlock - 1) / kBlock;
  std::vector<std::vector<std::uint8_t>> parts(blocks);
  parallel_ranges(blocks, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t b = first; b < last; ++b) compress_one(data + b * kBlock, std::min(kBlock, size - b * kBlock), parts[b]);
  });
  std::size_t total = 0;
  for (const auto& part : parts) total += part.size();
  out.resize(total);
  std::size_t at = 0;
  for (const auto& part : parts) {
    std::memcpy(out.data() + at, part.data(), part.size());
    at += part.size();
  }
}

}  // namespace meshioplusplus::io
