// Floor 2: zlib, an optional build feature (MESHIOPLUSPLUS_HAVE_ZLIB). Without it the
// functions throw std::runtime_error saying the build lacks zlib.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace meshioplusplus::io {

bool zlib_available() noexcept;

// Appends the zlib stream of `data` to `out`.
void zlib_compress_append(const void* data, std::size_t size, int level, std::vector<std::uint8_t>& out);

// Inflates `input` into exactly `output_size` bytes at `output`. False when the stream is
// corrupt or does not inflate to exactly that size.
bool zlib_decompress(const void* input, std::size_t input_size, void* output,
                     std::size_t output_size) noexcept;

}  // namespace meshioplusplus::io
