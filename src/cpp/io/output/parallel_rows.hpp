// Text writers' bulk sections (one line or card group per node or cell) formatted on all
// cores: rows are formatted a window at a time into one buffer per thread, with
// std::to_chars and no per-value allocation, and written to the file in row order, so the
// file is byte for byte what a sequential loop writes. Small sections stay on one thread.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "io/output/atomic_file.hpp"
#include "io/source/parallel.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus::io {

// Writes rows [0, rows) after what `out` holds (flushed first): `format(p, row)` writes row's
// text at p, at most `longest` bytes, and returns its end. `format` runs on several threads
// at once, for distinct rows: it must only read shared state.
template <class Format>
void write_rows_in_parallel(OutputBuffer& out, AtomicFile& file, std::int64_t rows, std::size_t longest, const Format& format) {
  if (rows <= 0) return;
  constexpr std::int64_t kWindow = std::int64_t{1} << 15;
  const auto parts = static_cast<std::int64_t>(std::max(1u, thread_count()));
  const std::int64_t per_part = (std::min(kWindow, rows) + parts - 1) / parts;
  std::vector<std::unique_ptr<char[]>> buffers;
  for (std::int64_t part = 0; part < parts; ++part)
    buffers.emplace_back(new char[static_cast<std::size_t>(per_part) * longest]);
  std::vector<std::size_t> sizes(static_cast<std::size_t>(parts));
  out.flush();
  for (std::int64_t start = 0; start < rows; start += kWindow) {
    const std::int64_t stop = std::min(rows, start + kWindow);
    const std::size_t grain = stop - start >= 4096 ? 1 : static_cast<std::size_t>(parts);  // small: one thread
    parallel_ranges(static_cast<std::size_t>(parts), grain, [&](std::size_t first, std::size_t last) {
      for (std::size_t part = first; part < last; ++part) {
        const std::int64_t a = std::min(stop, start + per_part * static_cast<std::int64_t>(part));
        const std::int64_t b = std::min(stop, a + per_part);
        char* const begin = buffers[part].get();
        char* p = begin;
        for (std::int64_t row = a; row < b; ++row) p = format(p, row);
        sizes[part] = static_cast<std::size_t>(p - begin);
      }
    });
    for (std::size_t part = 0; part < sizes.size(); ++part) file.write(buffers[part].get(), sizes[part]);
  }
}

// `value` as OutputBuffer::number writes it (std::to_chars: integers in decimal, floats in
// the shortest form that reads back to the same bits) at p; returns the end. At most
// kMaxNumberChars bytes.
inline constexpr std::size_t kMaxNumberChars = 32;
template <class T> [[gnu::always_inline]] inline char* put_number(char* p, T value) noexcept {
  return std::to_chars(p, p + kMaxNumberChars, value).ptr;
}

}  // namespace meshioplusplus::io
