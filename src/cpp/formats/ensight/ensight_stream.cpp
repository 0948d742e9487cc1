// The bytes of an EnSight Gold geometry or variable file in its three encodings
// (ensight_internal.hpp: Stream).
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "formats/ensight/ensight_internal.hpp"
#include "io/source/byte_order.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::ensight {
namespace {

constexpr std::size_t kStringBytes = 80;

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

std::uint32_t load_u32(const unsigned char* p, bool little) {
  return little ? std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24
                : std::uint32_t(p[3]) | std::uint32_t(p[2]) << 8 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[0]) << 24;
}

std::string trimmed(std::string_view text) {
  std::size_t end = text.find('\0');
  if (end == std::string_view::npos) end = text.size();
  while (end > 0 && is_blank(text[end - 1])) --end;
  std::size_t first = 0;
  while (first < end && is_blank(text[first])) ++first;
  return std::string(text.substr(first, end - first));
}

}  // namespace

Stream::Stream(std::string_view bytes, std::string path, std::optional<Encoding> encoding)
    : bytes_(bytes), path_(std::move(path)) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes_.data());
  if (encoding) {
    encoding_ = *encoding;
  } else if (bytes_.substr(0, 8) == "C Binary") {
    encoding_ = Encoding::c_binary;
  } else if (bytes_.size() >= 11 && bytes_.substr(4, 7) == "Fortran" &&
             (load_u32(p, true) == kStringBytes || load_u32(p, false) == kStringBytes)) {
    encoding_ = Encoding::fortran_binary;
  }
  // A Fortran file starts with an 80-byte string record: its length marker tells the byte order.
  if (encoding_ == Encoding::fortran_binary) {
    if (bytes_.size() < 4) fail("the file is too short for a Fortran record");
    if (load_u32(p, true) == kStringBytes) little_endian_ = true;
    else if (load_u32(p, false) == kStringBytes) little_endian_ = false;
    else fail("the first Fortran record is not an 80-byte string");
  }
}

void Stream::fail(const std::string& message) const { throw ReadError(path_, kFormat, message, position_); }

bool Stream::at_end() {
  if (encoding_ == Encoding::ascii) {
    skip_blank();
    return position_ >= bytes_.size();
  }
  return position_ >= bytes_.size() && record_left_ == 0;
}

std::uint64_t Stream::values_left(std::size_t bytes_each) const noexcept {
  const std::uint64_t left = position_ < bytes_.size() ? bytes_.size() - position_ : 0;
  return encoding_ == Encoding::ascii ? left / 2 : left / bytes_each;
}

void Stream::skip_blank() {
  while (position_ < bytes_.size() && is_blank(bytes_[position_])) ++position_;
}

void Stream::take(void* out, std::size_t size) {
  auto* target = static_cast<unsigned char*>(out);
  while (size > 0) {
    std::size_t available = bytes_.size() - std::min(position_, bytes_.size());
    if (encoding_ == Encoding::fortran_binary) {
      if (record_left_ == 0) {  // open the next record: its leading length marker
        if (available < 4) fail("the file ends inside a record");
        record_left_ = load_u32(reinterpret_cast<const unsigned char*>(bytes_.data() + position_), *little_endian_);
        position_ += 4;
        available -= 4;
        if (record_left_ == 0 || record_left_ + 4 > available) fail("a record's length runs past the end of the file");
      }
      const std::size_t piece = std::min(size, record_left_);
      if (target != nullptr) std::memcpy(target, bytes_.data() + position_, piece), target += piece;
      position_ += piece, size -= piece, record_left_ -= piece;
      if (record_left_ == 0) {  // its trailing marker must repeat the length
        position_ += 4;
      }
      continue;
    }
    if (available < size) fail("the file ends early (" + std::to_string(size) + " more bytes expected)");
    if (target != nullptr) std::memcpy(target, bytes_.data() + position_, size);
    position_ += size;
    size = 0;
  }
}

std::string Stream::read_line() {
  if (encoding_ != Encoding::ascii) {
    char text[kStringBytes];
    if (encoding_ == Encoding::fortran_binary && record_left_ != 0) fail("a string inside a numeric record");
    take(text, kStringBytes);
    return trimmed(std::string_view(text, kStringBytes));
  }
  if (position_ >= bytes_.size()) fail("the file ends where a line was expected");
  const std::size_t end = bytes_.find('\n', position_);
  const std::size_t stop = end == std::string_view::npos ? bytes_.size() : end;
  std::string line = trimmed(bytes_.substr(position_, stop - position_));
  position_ = end == std::string_view::npos ? bytes_.size() : end + 1;
  return line;
}

std::string Stream::read_keyword() {
  if (encoding_ == Encoding::ascii) skip_blank();
  return read_line();
}

void Stream::decide_byte_order(const unsigned char* four) {
  // The first int of a file is a part number or a count: small and positive in the right
  // byte order, huge or negative in the wrong one.
  const std::uint32_t little = load_u32(four, true), big = load_u32(four, false);
  little_endian_ = little <= big;
}

std::int64_t Stream::read_int() {
  if (encoding_ == Encoding::ascii) {
    skip_blank();
    if (position_ >= bytes_.size()) fail("the file ends where an integer was expected");
    std::int64_t value = 0;
    const char* first = bytes_.data() + position_;
    const auto result = std::from_chars(first, bytes_.data() + bytes_.size(), value);
    if (result.ec != std::errc()) fail("an integer was expected");
    position_ += static_cast<std::size_t>(result.ptr - first);
    return value;
  }
  unsigned char four[4];
  take(four, 4);
  if (!little_endian_) decide_byte_order(four);
  return static_cast<std::int32_t>(load_u32(four, *little_endian_));
}

void Stream::read_ints(std::int32_t* out, std::size_t count) {
  if (encoding_ == Encoding::ascii) {
    for (std::size_t k = 0; k < count; ++k) {
      const std::int64_t value = read_int();
      if (value < INT32_MIN || value > INT32_MAX) fail("an integer out of the 32-bit range");
      out[k] = static_cast<std::int32_t>(value);
    }
    return;
  }
  if (count == 0) return;
  if (!little_endian_) {
    unsigned char four[4];
    const std::size_t start = position_, left = record_left_;
    take(four, 4);
    decide_byte_order(four);
    position_ = start, record_left_ = left;
  }
  take(out, count * 4);
  if (*little_endian_ != io::kHostIsLittleEndian) io::swap_bytes_in_place(out, 4, count);
}

void Stream::read_floats(float* out, std::size_t count) {
  if (encoding_ == Encoding::ascii) {
    for (std::size_t k = 0; k < count; ++k) {
      double value;
      read_doubles(&value, 1);
      out[k] = static_cast<float>(value);
    }
    return;
  }
  if (count == 0) return;
  if (!little_endian_) fail("float values before any integer: the byte order is unknown");
  take(out, count * 4);
  if (*little_endian_ != io::kHostIsLittleEndian) io::swap_bytes_in_place(out, 4, count);
}

bool Stream::skip_optional(std::string_view word) {
  const std::size_t position = position_, record_left = record_left_;
  const std::size_t needed = encoding_ == Encoding::ascii ? 1 : kStringBytes + (encoding_ == Encoding::fortran_binary ? 8 : 0);
  if (encoding_ == Encoding::ascii) skip_blank();
  if (bytes_.size() - std::min(position_, bytes_.size()) < needed || record_left_ != 0) {
    position_ = position;
    return false;
  }
  if (read_line() == word) return true;
  position_ = position, record_left_ = record_left;
  return false;
}

void Stream::skip_values(std::size_t count) {
  if (encoding_ == Encoding::ascii) {
    for (std::size_t k = 0; k < count; ++k) {
      double ignored;
      read_doubles(&ignored, 1);
    }
    return;
  }
  // Passed over without being touched (a null target): pages of skipped arrays stay on disk.
  if (count > std::numeric_limits<std::size_t>::max() / 4) fail("a count of values past any file");
  take(nullptr, 4 * count);
}

void Stream::read_doubles(double* out, std::size_t count) {
  if (encoding_ != Encoding::ascii) {
    // Binary Gold files hold float32: widened a buffer at a time.
    float buffer[4096];
    for (std::size_t done = 0; done < count;) {
      const std::size_t piece = std::min<std::size_t>(count - done, 4096);
      read_floats(buffer, piece);
      for (std::size_t k = 0; k < piece; ++k) out[done + k] = static_cast<double>(buffer[k]);
      done += piece;
    }
    return;
  }
  for (std::size_t k = 0; k < count; ++k) {
    skip_blank();
    if (position_ >= bytes_.size()) fail("the file ends where a number was expected");
    const char* first = bytes_.data() + position_;
    const char* end = bytes_.data() + bytes_.size();
    double value = 0;
    auto result = std::from_chars(first, end, value);
    if (result.ec == std::errc::result_out_of_range) {
      value = 0;  // a subnormal written as e-320 and such: the nearest double is what is meant
      result.ec = std::errc();
      while (result.ptr < end && !is_blank(*result.ptr)) ++result.ptr;
    }
    if (result.ec != std::errc()) fail("a number was expected");
    position_ += static_cast<std::size_t>(result.ptr - first);
    out[k] = value;
  }
}

void Stream::seek_step(std::int64_t step) {
  // BEGIN TIME STEP markers are whole lines (ASCII) or 80-byte strings (binary; a Fortran one
  // inside its record markers); the step's marker is found by counting them from the start.
  constexpr std::string_view kMarker = "BEGIN TIME STEP";
  std::int64_t seen = -1;
  std::size_t at = 0;
  while ((at = bytes_.find(kMarker, at)) != std::string_view::npos) {
    const bool line_start = at == 0 || bytes_[at - 1] == '\n' || (encoding_ != Encoding::ascii);
    const bool record_start =
        encoding_ != Encoding::fortran_binary ||
        (at >= 4 && load_u32(reinterpret_cast<const unsigned char*>(bytes_.data() + at - 4), *little_endian_) ==
                        kStringBytes);
    if (line_start && record_start && ++seen == step) {
      record_left_ = 0;
      if (encoding_ == Encoding::ascii) {
        position_ = at;
        read_line();
      } else {
        position_ = at + kStringBytes + (encoding_ == Encoding::fortran_binary ? 4 : 0);
      }
      return;
    }
    at += kMarker.size();
  }
  fail("the file has no step " + std::to_string(step) + " (BEGIN TIME STEP markers: " + std::to_string(seen + 1) +
       ")");
}

}  // namespace meshioplusplus::ensight
