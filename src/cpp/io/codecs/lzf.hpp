// Floor 2: LZF (Marc Lehmann's liblzf), the compressor of PCL's "binary_compressed" PCD data.
//
// The stream is a run of items, each opened by a control byte c:
//  - c < 32: a literal run of c + 1 bytes follows;
//  - otherwise a back-reference: length (c >> 5) + 2, with 7 meaning "add the next byte", and
//    distance ((c & 31) << 8 | next byte) + 1 back from the output position (at most 8192).
// A stream carries no sizes of its own: the container (PCD's 8-byte header) stores both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace meshioplusplus::io {

// The most output one stream byte can give: a 3-byte back-reference expands to 264 bytes.
// A container claiming more decoded bytes than compressed_size * this is lying.
inline constexpr std::uint64_t kLzfMaxExpansion = 88;

// Decodes `input` into at most `output_capacity` bytes at `output`. Returns the decoded
// size, or SIZE_MAX when the stream is corrupt: an item cut off by the end of the input, a
// back-reference reaching before the start of the output, or output past the capacity.
std::size_t lzf_decompress(const std::uint8_t* input, std::size_t input_size, std::uint8_t* output,
                           std::size_t output_capacity) noexcept;

// The LZF stream of `data` (liblzf's format; any LZF decoder reads it) as consecutive pieces
// whose concatenation is the stream: inputs over 1 MiB are compressed a block at a time on
// every core (the same bytes at any thread count), and a writer that writes the pieces one
// after the other saves copying the whole stream.
std::vector<std::vector<std::uint8_t>> lzf_compress_pieces(const std::uint8_t* data, std::size_t size);

// Replaces `out` with the LZF stream of `data` in one piece.
void lzf_compress(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& out);

}  // namespace meshioplusplus::io
