// A position in an MSH file that reads values in the file's encoding: text tokens in ASCII
// files, host-order raw bytes in binary ones (the reader has already rejected a foreign byte
// order). Section headers and data-section headers are text in both encodings; the
// text_*() calls read those. Errors name the byte offset (and the line for ASCII files).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "formats/gmsh/gmsh.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::gmsh {

class Cursor {
 public:
  Cursor(std::string_view document, const std::string& path)
      : document_(document), path_(path), text_(document, path, kFormatName) {}

  void set_binary(bool binary) noexcept { binary_ = binary; }
  bool binary() const noexcept { return binary_; }
  std::string_view document() const noexcept { return document_; }
  std::size_t position() const noexcept { return text_.position(); }
  void seek(std::size_t offset) noexcept { text_.seek(offset); }
  std::size_t remaining() const noexcept { return document_.size() - text_.position(); }
  bool at_end() const noexcept { return text_.at_end(); }
  io::TextScanner& text() noexcept { return text_; }

  // --- text, whatever the file's encoding -------------------------------------------------
  template <class T> T text_number() { return text_.next_number<T>(); }
  std::string_view text_token() { return text_.next_token(); }
  void skip_whitespace() noexcept { text_.skip_whitespace(); }
  // Ends a text line before a binary payload: blanks, then exactly one '\n'. Unlike
  // skip_whitespace() this never eats payload bytes that happen to look like spaces.
  void end_text_line() {
    text_.skip_blanks();
    if (text_.at_end() || document_[text_.position()] != '\n') fail("expected the end of the line");
    text_.seek(text_.position() + 1);
  }
  // A string tag or physical name: "quoted text" (may hold spaces) or a bare token.
  std::string text_quoted() {
    text_.skip_whitespace();
    const std::size_t start = text_.position();
    if (start < document_.size() && document_[start] == '"') {
      const std::size_t close = document_.find('"', start + 1);
      const std::size_t line_end = document_.find('\n', start + 1);
      if (close == std::string_view::npos || close > line_end) fail_at(start, "unterminated quoted string");
      text_.seek(close + 1);
      return std::string(document_.substr(start + 1, close - start - 1));
    }
    return std::string(text_.next_token());
  }

  // --- values in the file's encoding ------------------------------------------------------
  std::int32_t int32() { return binary_ ? raw<std::int32_t>() : text_number<std::int32_t>(); }
  // MSH size_t: 8 bytes in binary (data-size 8 is checked in $MeshFormat).
  std::uint64_t size_value() { return binary_ ? raw<std::uint64_t>() : text_number<std::uint64_t>(); }
  double real() { return binary_ ? raw<double>() : text_number<double>(); }
  // Skips `count` values of `binary_size` bytes (one token each in ASCII).
  void skip_values(std::uint64_t count, std::size_t binary_size) {
    if (binary_) {
      take(checked_bytes(count, binary_size));
      return;
    }
    // The element pre-scan skips most of an ASCII file this way, so it is a tight loop:
    // every byte up to ' ' separates tokens (whitespace; other control bytes are no data).
    const char* data = document_.data();
    std::size_t at = text_.position();
    const std::size_t end = document_.size();
    const auto separator = [](char c) { return static_cast<unsigned char>(c) <= ' '; };
    for (std::uint64_t i = 0; i < count; ++i) {
      while (at < end && separator(data[at])) ++at;
      if (at == end) fail_at(at, "unexpected end of file");
      while (at < end && !separator(data[at])) ++at;
    }
    text_.seek(at);
  }

  template <class T> T raw() {
    T value;
    std::memcpy(&value, take(sizeof(T)), sizeof(T));
    return value;
  }
  // Returns the next `bytes` bytes and moves past them; a ReadError if the file is shorter.
  const char* take(std::size_t bytes) {
    if (bytes > remaining())
      fail("truncated binary data: " + std::to_string(bytes) + " bytes needed, " +
           std::to_string(remaining()) + " left in the file");
    const char* data = document_.data() + text_.position();
    text_.seek(text_.position() + bytes);
    return data;
  }
  // count * size, refusing products that cannot fit in the file (corrupt counts).
  std::size_t checked_bytes(std::uint64_t count, std::size_t size) {
    if (size != 0 && count > remaining() / size)
      fail("a count of " + std::to_string(count) + " needs more data than the file holds");
    return static_cast<std::size_t>(count) * size;
  }
  // Rejects a count whose records, at `min_bytes` each, cannot fit in what is left.
  void check_count(std::uint64_t count, std::size_t min_bytes, std::string_view what) {
    if (min_bytes != 0 && count > remaining() / min_bytes)
      fail(std::string(what) + " count " + std::to_string(count) + " exceeds what the file can hold");
  }

  [[noreturn]] void fail(const std::string& message) const { fail_at(text_.position(), message); }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    if (binary_) throw ReadError(path_, std::string(kFormatName), message, offset);
    text_.fail_at(offset, message);
  }

 private:
  std::string_view document_;
  const std::string& path_;
  io::TextScanner text_;
  bool binary_ = false;
};

}  // namespace meshioplusplus::gmsh
