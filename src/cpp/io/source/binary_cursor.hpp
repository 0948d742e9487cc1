// Floor 2: a bounded reader of fixed-size binary values (Tecplot .plt, FEBio .xplt): every
// read checks the bytes left first and a shortfall is a ReadError naming the file, the format
// and the byte offset — never a read past the end. Byte order is chosen once (set_little_endian)
// and converted on load; arrays go through copy_from_file_order (all cores for large ones).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "io/source/byte_order.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::io {

class BinaryCursor {
 public:
  BinaryCursor(std::string_view bytes, const std::string& path, std::string_view format, bool little_endian = true)
      : bytes_(bytes), path_(&path), format_(format), little_endian_(little_endian) {}

  std::string_view bytes() const noexcept { return bytes_; }
  std::size_t position() const noexcept { return position_; }
  std::size_t left() const noexcept { return bytes_.size() - position_; }
  bool at_end() const noexcept { return position_ >= bytes_.size(); }
  bool little_endian() const noexcept { return little_endian_; }
  void set_little_endian(bool little) noexcept { little_endian_ = little; }
  const std::string& path() const noexcept { return *path_; }

  [[noreturn]] void fail(const std::string& message) const { fail_at(position_, message); }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    throw ReadError(*path_, std::string(format_), message, offset);
  }

  // Moves to `offset` (at most the end of the bytes).
  void seek(std::size_t offset, std::string_view what = "a position") {
    if (offset > bytes_.size()) fail(std::string(what) + " lies past the end of the file");
    position_ = offset;
  }
  // Checks that `count` items of `each` bytes follow, without overflow.
  void need(std::uint64_t count, std::uint64_t each, std::string_view what) const {
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(count, each, &bytes) || bytes > left())
      fail("the file ends inside " + std::string(what) + " (" + std::to_string(count) + " × " + std::to_string(each) +
           " bytes claimed, " + std::to_string(left()) + " left)");
  }
  void skip(std::uint64_t count, std::uint64_t each, std::string_view what) {
    need(count, each, what);
    position_ += static_cast<std::size_t>(count * each);
  }
  std::string_view take(std::size_t size, std::string_view what) {
    need(size, 1, what);
    const std::string_view out = bytes_.substr(position_, size);
    position_ += size;
    return out;
  }

  template <class T> T value(std::string_view what) {
    need(1, sizeof(T), what);
    T out;
    const auto* p = reinterpret_cast<const unsigned char*>(bytes_.data() + position_);
    if (little_endian_ == kHostIsLittleEndian) {
      std::memcpy(&out, p, sizeof(T));
    } else {
      unsigned char reversed[sizeof(T)];
      for (std::size_t k = 0; k < sizeof(T); ++k) reversed[k] = p[sizeof(T) - 1 - k];
      std::memcpy(&out, reversed, sizeof(T));
    }
    position_ += sizeof(T);
    return out;
  }
  std::int32_t i32(std::string_view what = "a 32-bit integer") { return value<std::int32_t>(what); }
  std::uint32_t u32(std::string_view what = "a 32-bit integer") { return value<std::uint32_t>(what); }
  float f32(std::string_view what = "a 32-bit float") { return value<float>(what); }
  double f64(std::string_view what = "a 64-bit float") { return value<double>(what); }

  // `count` values of `element_size` bytes into `target`, converted to the host's byte order.
  void copy(void* target, std::size_t element_size, std::uint64_t count, std::string_view what) {
    need(count, element_size, what);
    copy_from_file_order(target, bytes_.data() + position_, element_size, static_cast<std::size_t>(count),
                         little_endian_);
    position_ += static_cast<std::size_t>(count * element_size);
  }

 private:
  std::string_view bytes_;
  const std::string* path_;
  std::string_view format_;
  std::size_t position_ = 0;
  bool little_endian_ = true;
};

}  // namespace meshioplusplus::io
