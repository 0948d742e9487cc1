// Floor 1: the two exceptions every reader and writer raises. Both name the file; a
// ReadError also names where in it (byte offset, and the line for text formats). Their
// texts are always valid UTF-8: bytes quoted from a file that are not (a Latin-1 name, a
// corrupted token) appear escaped as \xNN (docs/errors.md, "Text and names").
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace meshioplusplus {

// `text` with every byte that does not belong to a valid UTF-8 sequence written as \xNN
// (lower-case hex); valid text comes back unchanged.
std::string escape_invalid_utf8(std::string_view text);

class MeshIOError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ReadError : public MeshIOError {
 public:
  ReadError(std::string path, std::string format, std::string message,
            std::optional<std::uint64_t> byte_offset = std::nullopt,
            std::optional<std::uint64_t> line = std::nullopt);

  const std::string& path() const noexcept { return path_; }
  const std::string& format() const noexcept { return format_; }
  const std::string& reason() const noexcept { return reason_; }
  std::optional<std::uint64_t> byte_offset() const noexcept { return byte_offset_; }
  std::optional<std::uint64_t> line() const noexcept { return line_; }

 private:
  std::string path_, format_, reason_;
  std::optional<std::uint64_t> byte_offset_, line_;
};

class WriteError : public MeshIOError {
 public:
  WriteError(std::string path, std::string format, std::string message);
  const std::string& path() const noexcept { return path_; }
  const std::string& format() const noexcept { return format_; }

 private:
  std::string path_, format_;
};

}  // namespace meshioplusplus
