#include "meshioplusplus/errors.hpp"

namespace meshioplusplus {
namespace {

// Length of the valid UTF-8 sequence starting at text[i], 0 when the byte there starts none
// (stray continuation byte, overlong form, surrogate, beyond U+10FFFF, cut short).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return length;
}

std::string describe_read_error(const std::string& path, const std::string& format,
                                const std::string& message,
                                std::optional<std::uint64_t> byte_offset,
                                std::optional<std::uint64_t> line) {
  std::string text = path;
  if (line) text += ":" + std::to_string(*line);
  if (byte_offset) text += " (byte " + std::to_string(*byte_offset) + ")";
  text += ": ";
  if (!format.empty()) text += format + ": ";
  return text + message;
}

}  // namespace

std::string escape_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && static_cast<unsigned char>(text[i]) < 0x80) ++i;  // the usual case: ASCII
  if (i == text.size()) return std::string(text);
  std::string out(text.substr(0, i));
  static constexpr char kHex[] = "0123456789abcdef";
  while (i < text.size()) {
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      const auto value = static_cast<unsigned char>(text[i]);
      out += "\\x";
      out += kHex[value >> 4];
      out += kHex[value & 15];
      ++i;
    } else {
      out.append(text, i, length);
      i += length;
    }
  }
  return out;
}

ReadError::ReadError(std::string path, std::string format, std::string message,
                     std::optional<std::uint64_t> byte_offset, std::optional<std::uint64_t> line)
    : MeshIOError(escape_invalid_utf8(describe_read_error(path, format, message, byte_offset, line))),
      path_(std::move(path)),
      format_(std::move(format)),
      reason_(escape_invalid_utf8(message)),
      byte_offset_(byte_offset),
      line_(line) {}

WriteError::WriteError(std::string path, std::string format, std::string message)
    : MeshIOError(escape_invalid_utf8(path + ": " + (format.empty() ? std::string() : format + ": ") + message)),
      path_(std::move(path)),
      format_(std::move(format)) {}

}  // namespace meshioplusplus
