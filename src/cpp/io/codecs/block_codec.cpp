#include "io/codecs/block_codec.hpp"

#include <array>
#include <limits>
#include <stdexcept>

#include "io/codecs/zlib_codec.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_LZMA
#include <lzma.h>
#endif
#ifdef MESHIOPLUSPLUS_HAVE_LZ4
#include <lz4.h>
#endif

namespace meshioplusplus::io {
namespace {

[[noreturn]] void missing_library(std::string_view library) {
  throw std::runtime_error("this meshio++ build has no " + std::string(library));
}

// ---- zlib: the stream compress2() writes, as vtkZLibDataCompressor and meshio do

#ifdef MESHIOPLUSPLUS_HAVE_ZLIB
constexpr bool kHaveZlib = true;
#else
constexpr bool kHaveZlib = false;
#endif

void zlib_compress(const void* data, std::size_t size, int level, std::vector<std::uint8_t>& out) {
  if (!kHaveZlib) missing_library("zlib");
  zlib_compress_append(data, size, level, out);
}

// The fastest inflater the build has (ISA-L, libdeflate or zlib itself: zlib_codec.hpp).
bool zlib_inflate(const void* input, std::size_t input_size, void* output, std::size_t output_size) noexcept {
  return kHaveZlib && zlib_decompress_fast(input, input_size, output, output_size);
}

// ---- LZMA: one .xz stream per block with a CRC64 check, as vtkLZMADataCompressor
// (lzma_easy_buffer_encode) and Python's lzma.compress write it.

#ifdef MESHIOPLUSPLUS_HAVE_LZMA
constexpr bool kHaveLzma = true;

void lzma_compress(const void* data, std::size_t size, int level, std::vector<std::uint8_t>& out) {
  const std::size_t start = out.size();
  const std::size_t capacity = lzma_stream_buffer_bound(size);
  out.resize(start + capacity);
  std::size_t written = 0;
  const lzma_ret status = lzma_easy_buffer_encode(static_cast<std::uint32_t>(level), LZMA_CHECK_CRC64, nullptr,
                                                  static_cast<const std::uint8_t*>(data), size, out.data() + start,
                                                  &written, capacity);
  if (status != LZMA_OK) throw std::runtime_error("lzma compression failed (liblzma status " + std::to_string(status) + ")");
  out.resize(start + written);
}

bool lzma_decode(const void* input, std::size_t input_size, void* output, std::size_t output_size) noexcept {
  std::uint64_t memory_limit = std::numeric_limits<std::uint64_t>::max();
  std::size_t in_position = 0, out_position = 0;
  // An empty block is still one complete .xz stream; the one spare byte lets liblzma tell
  // "exactly this size" from "more than this size".
  std::uint8_t sink = 0;
  auto* target = output_size == 0 ? &sink : static_cast<std::uint8_t*>(output);
  const lzma_ret status = lzma_stream_buffer_decode(&memory_limit, 0, nullptr, static_cast<const std::uint8_t*>(input),
                                                    &in_position, input_size, target, &out_position,
                                                    output_size == 0 ? 0 : output_size);
  return status == LZMA_OK && in_position == input_size && out_position == output_size;
}
#else
constexpr bool kHaveLzma = false;

void lzma_compress(const void*, std::size_t, int, std::vector<std::uint8_t>&) { missing_library("liblzma"); }
bool lzma_decode(const void*, std::size_t, void*, std::size_t) noexcept { return false; }
#endif

// ---- LZ4: one raw LZ4 block (no frame) per block, as vtkLZ4DataCompressor writes it.

#ifdef MESHIOPLUSPLUS_HAVE_LZ4
constexpr bool kHaveLz4 = true;

void lz4_compress(const void* data, std::size_t size, int level, std::vector<std::uint8_t>& out) {
  if (size > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) throw std::runtime_error("lz4 block larger than LZ4 allows");
  const std::size_t start = out.size();
  const int capacity = LZ4_compressBound(static_cast<int>(size));
  out.resize(start + static_cast<std::size_t>(capacity));
  // `level` is LZ4's acceleration: 1 is its default, larger is faster and larger.
  const int written = LZ4_compress_fast(static_cast<const char*>(data), reinterpret_cast<char*>(out.data() + start),
                                        static_cast<int>(size), capacity, level < 1 ? 1 : level);
  if (written <= 0) throw std::runtime_error("lz4 compression failed");
  out.resize(start + static_cast<std::size_t>(written));
}

bool lz4_decode(const void* input, std::size_t input_size, void* output, std::size_t output_size) noexcept {
  constexpr auto kLimit = static_cast<std::size_t>(std::numeric_limits<int>::max());
  if (input_size > kLimit || output_size > kLimit) return false;
  char sink = 0;
  char* target = output_size == 0 ? &sink : static_cast<char*>(output);
  const int produced = LZ4_decompress_safe(static_cast<const char*>(input), target, static_cast<int>(input_size),
                                           static_cast<int>(output_size));
  return produced >= 0 && static_cast<std::size_t>(produced) == output_size;
}
#else
constexpr bool kHaveLz4 = false;

void lz4_compress(const void*, std::size_t, int, std::vector<std::uint8_t>&) { missing_library("liblz4"); }
bool lz4_decode(const void*, std::size_t, void*, std::size_t) noexcept { return false; }
#endif

// Expansion bounds: deflate tops out near 1032:1, LZ4 near 255:1; LZMA reaches about
// 6900:1 on a 256 MiB block of zeros (measured with xz -9), so 16384 leaves room.
constexpr std::array kCodecs{
    BlockCodec{"zlib", "zlib", kHaveZlib, 1032, 1, zlib_compress, zlib_inflate},
    BlockCodec{"lzma", "liblzma", kHaveLzma, 16384, 1, lzma_compress, lzma_decode},
    BlockCodec{"lz4", "liblz4", kHaveLz4, 256, 1, lz4_compress, lz4_decode},
};

}  // namespace

std::span<const BlockCodec> block_codecs() noexcept { return kCodecs; }

const BlockCodec* find_block_codec(std::string_view name) noexcept {
  for (const BlockCodec& codec : kCodecs)
    if (codec.name == name) return &codec;
  return nullptr;
}

}  // namespace meshioplusplus::io
