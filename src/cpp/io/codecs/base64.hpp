// Floor 2: RFC 4648 base64 (the VTK XML "binary" encoding).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace meshioplusplus::io {

// Upper bound of the decoded size of `encoded_length` characters.
inline std::size_t base64_decoded_capacity(std::size_t encoded_length) noexcept {
  return encoded_length / 4 * 3 + 3;
}

// Decodes `text` into `out` (capacity base64_decoded_capacity(text.size())), ignoring
// whitespace. Returns the byte count, or the offset in `text` of the first bad character
// through `bad_offset` and std::nullopt.
std::optional<std::size_t> base64_decode(std::string_view text, std::uint8_t* out,
                                         std::size_t* bad_offset = nullptr) noexcept;

// Decodes exactly `count` bytes from the start of `text` (no whitespace allowed inside);
// returns how many characters were consumed, or std::nullopt on bad input. Used to peel a
// header block off a base64 stream whose parts were encoded separately.
std::optional<std::size_t> base64_decode_prefix(std::string_view text, std::uint8_t* out,
                                                std::size_t count) noexcept;

void base64_encode_append(const void* data, std::size_t size, std::string& out);
inline std::size_t base64_encoded_size(std::size_t size) noexcept { return (size + 2) / 3 * 4; }

}  // namespace meshioplusplus::io
