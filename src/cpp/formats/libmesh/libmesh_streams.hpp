// The two encodings of libMesh's Xdr class (src/utils/xdr_cxx.C) as one reading interface,
// so the XdrIO layout is walked once (libmesh_reader.cpp) over either.
//
// ASCII (.xda): a header value is a number followed by a comment to the end of its line
// ("8\t # type size"); a string is a whole line up to its first tab; a vector is a length
// line, then its items separated by blanks, then the rest of that line; streams of ids and
// coordinates are blank-separated numbers across lines.
// XDR (.xdr, RFC 4506): big-endian; integers of the file's field width (4 or 8 bytes);
// doubles of 8 bytes; a string is a 4-byte length and its bytes padded to a multiple of 4; a
// vector a 4-byte length and its items; an unsigned short takes 4 bytes.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "formats/libmesh/libmesh_types.hpp"
#include "io/source/byte_order.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::libmesh::detail {

class AsciiStream {
 public:
  AsciiStream(std::string_view bytes, const std::string& path) : scanner_(bytes, path, kFormat) {}

  std::string_view string_line() {
    std::string_view line = scanner_.next_line();
    line = line.substr(0, line.find('\t'));
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    return line;
  }
  std::uint64_t header_value(int /*width*/) {
    const auto value = scanner_.next_number<std::uint64_t>();
    scanner_.next_line();
    return value;
  }
  std::uint64_t item(int /*width*/) { return scanner_.next_number<std::uint64_t>(); }
  void items(std::uint64_t* out, std::size_t count, int /*width*/) { scanner_.next_numbers(out, count); }
  double real() { return scanner_.next_number<double>(); }
  void reals(double* out, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) out[i] = scanner_.next_number<double>();
  }
  std::uint64_t vector_length() { return header_value(4); }
  void end_vector() { scanner_.next_line(); }
  std::string_view string_item() {
    const std::string_view token = scanner_.next_token();
    if (token.empty()) fail("unexpected end of the file in a list of names");
    return token;
  }
  std::size_t position() const noexcept { return scanner_.position(); }
  std::size_t bytes_left() const noexcept { return scanner_.end() - scanner_.position(); }
  std::string_view document() const noexcept { return scanner_.document(); }
  void seek(std::size_t position) noexcept { scanner_.seek(position); }
  // The fewest bytes one item of `width` takes: a digit and a separator.
  static constexpr std::size_t min_item_bytes(int /*width*/) noexcept { return 2; }
  [[noreturn]] void fail(const std::string& message) const { scanner_.fail(message); }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const { scanner_.fail_at(offset, message); }

 private:
  io::TextScanner scanner_;
};

class XdrStream {
 public:
  XdrStream(std::string_view bytes, const std::string& path) : bytes_(bytes), path_(path) {}

  std::string_view string_line() {
    const std::uint64_t length = load<std::uint32_t>();
    if (length > bytes_left()) fail("a string of " + std::to_string(length) + " bytes runs past the end of the file");
    const std::string_view text = bytes_.substr(pos_, length);
    pos_ += (length + 3) / 4 * 4;
    if (pos_ > bytes_.size()) pos_ = bytes_.size();
    return text.substr(0, text.find('\0'));
  }
  std::uint64_t header_value(int width) { return item(width); }
  std::uint64_t item(int width) { return width == 8 ? load<std::uint64_t>() : load<std::uint32_t>(); }
  void items(std::uint64_t* out, std::size_t count, int width) {
    need(count * static_cast<std::size_t>(width));
    const auto* p = reinterpret_cast<const unsigned char*>(bytes_.data() + pos_);
    if (width == 8)
      for (std::size_t i = 0; i < count; ++i) out[i] = io::load_integer<std::uint64_t, io::kHostIsLittleEndian>(p + 8 * i);
    else
      for (std::size_t i = 0; i < count; ++i) out[i] = io::load_integer<std::uint32_t, io::kHostIsLittleEndian>(p + 4 * i);
    pos_ += count * static_cast<std::size_t>(width);
  }
  double real() { return std::bit_cast<double>(load<std::uint64_t>()); }
  void reals(double* out, std::size_t count) {
    need(count * 8);
    const auto* p = reinterpret_cast<const unsigned char*>(bytes_.data() + pos_);
    for (std::size_t i = 0; i < count; ++i)
      out[i] = std::bit_cast<double>(io::load_integer<std::uint64_t, io::kHostIsLittleEndian>(p + 8 * i));
    pos_ += count * 8;
  }
  std::uint64_t vector_length() { return load<std::uint32_t>(); }
  void end_vector() {}
  std::string_view string_item() { return string_line(); }
  std::size_t position() const noexcept { return pos_; }
  std::size_t bytes_left() const noexcept { return bytes_.size() - pos_; }
  static constexpr std::size_t min_item_bytes(int width) noexcept { return static_cast<std::size_t>(width); }
  [[noreturn]] void fail(const std::string& message) const { fail_at(pos_, message); }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, offset);
  }

 private:
  void need(std::size_t count) const {
    if (count > bytes_left()) fail("unexpected end of the file (" + std::to_string(count) + " more bytes needed)");
  }
  template <class T> T load() {
    need(sizeof(T));
    const T value = io::load_integer<T, io::kHostIsLittleEndian>(reinterpret_cast<const unsigned char*>(bytes_.data() + pos_));
    pos_ += sizeof(T);
    return value;
  }

  std::string_view bytes_;
  std::size_t pos_ = 0;
  const std::string& path_;
};

}  // namespace meshioplusplus::libmesh::detail
