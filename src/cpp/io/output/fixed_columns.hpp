// Floor 2: one line of a fixed-column text deck (Patran cards, I-deas records) assembled in
// place — fields right-aligned in their columns, numbers through std::to_chars — and handed to
// an OutputBuffer or, in a bulk section formatted on all cores (parallel_rows.hpp), to a row
// buffer. Each format adds its own real-number field; `Derived` is that format's line class, so
// calls chain through it (CRTP).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "io/output/atomic_file.hpp"
#include "io/output/right_aligned.hpp"

namespace meshioplusplus::io {

template <class Derived, std::size_t Capacity>
class FixedColumnLine {
 public:
  // The most bytes a line and its line break take (a row buffer's size per line).
  static constexpr std::size_t kMaxBytes = Capacity;

  Derived& integer(std::int64_t value, int width) {
    // The common field (0 <= value < 10^width, room left) in place; others through to_chars.
    if (size_ + kRightAlignedMaxWidth < sizeof line_ && put_right_aligned(line_ + size_, value, width)) [[likely]] {
      size_ += static_cast<std::size_t>(width);
      return static_cast<Derived&>(*this);
    }
    char scratch[24];
    const auto result = std::to_chars(scratch, scratch + sizeof scratch, value);
    return field(std::string_view(scratch, static_cast<std::size_t>(result.ptr - scratch)), width);
  }
  // `value` right-aligned in `width` columns (longer text is not cut).
  Derived& field(std::string_view value, int width) {
    pad(width - static_cast<int>(value.size()));
    append(value.data(), value.size());
    return static_cast<Derived&>(*this);
  }
  Derived& text(std::string_view value) {
    append(value.data(), value.size());
    return static_cast<Derived&>(*this);
  }
  void end(OutputBuffer& out) {
    line_[size_++] = '\n';
    out.bytes(line_, size_);
    size_ = 0;
  }
  // The line and its line break at p (at most kMaxBytes); returns the end.
  char* end(char* p) {
    line_[size_++] = '\n';
    std::memcpy(p, line_, size_);
    p += size_;
    size_ = 0;
    return p;
  }

 private:
  void pad(int count) {
    for (; count > 0 && size_ < sizeof line_ - 1; --count) line_[size_++] = ' ';
  }
  void append(const char* data, std::size_t size) {
    size = std::min(size, sizeof line_ - 1 - size_);
    std::memcpy(line_ + size_, data, size);
    size_ += size;
  }

  char line_[Capacity];
  std::size_t size_ = 0;
};

}  // namespace meshioplusplus::io
