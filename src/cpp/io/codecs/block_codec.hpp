// Floor 2: the block compressors VTK's XML formats use — zlib, LZMA (xz container) and LZ4
// (raw block) — behind one small interface, so the DataArray layer compresses and inflates
// blocks without knowing which library does it.
//
// Each library is an optional build feature (MESHIOPLUSPLUS_HAVE_ZLIB / _LZMA / _LZ4). A
// codec whose library is compiled out is still listed, with available == false, so that
// callers can name the missing library in their ReadError/WriteError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace meshioplusplus::io {

struct BlockCodec {
  std::string_view name;     // "zlib", "lzma", "lz4": the user-facing option value
  std::string_view library;  // the library a build needs for it: "zlib", "liblzma", "liblz4"
  bool available;            // whether this build links that library
  // The most a valid stream can expand (decoded / compressed bytes, plus a small per-block
  // allowance the caller adds): a size header claiming more is lying, and believing it
  // would let a tiny file request a huge allocation.
  std::uint64_t max_expansion;
  int default_level;  // what writers use: each library's fast end (output a few % larger)

  // Appends the compressed form of `data` to `out`; throws std::runtime_error on failure.
  void (*compress_append)(const void* data, std::size_t size, int level, std::vector<std::uint8_t>& out);
  // Decodes `input` into exactly `output_size` bytes at `output`; false when the stream is
  // corrupt or does not decode to exactly that size.
  bool (*decompress)(const void* input, std::size_t input_size, void* output, std::size_t output_size) noexcept;
};

// Every codec, available or not.
std::span<const BlockCodec> block_codecs() noexcept;
// nullptr when no codec has that name.
const BlockCodec* find_block_codec(std::string_view name) noexcept;

}  // namespace meshioplusplus::io
