// Text writers' bulk sections (one line or card group per node or cell) formatted on all
// cores: rows are formatted a chunk at a time, with std::to_chars and no per-value
// allocation, and written to the file in row order, so the file is byte for byte what a
// sequential loop writes, at any thread count. Small sections stay on one thread.
//
// Writing overlaps formatting: each thread claims the next chunk, formats it into its own
// buffer, waits for its turn, writes it, and claims again, so while one thread's chunk is
// copied into the page cache (the kernel's copy and page zeroing: a third of a fast text
// write's time) the other threads format the chunks after it. Formatting a whole window
// first and then writing it, as before, left every other core idle during each write.
#pragma once

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>
#include <type_traits>
#include <vector>

#include "io/output/atomic_file.hpp"
#include "io/source/parallel.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus::io {

// Fewer rows than this stay on one thread (a thread costs more than it saves).
inline constexpr std::int64_t kParallelRowsMin = 4096;
// Bytes of room per chunk (rows of `longest` bytes): large enough that a write's system call
// and the hand-over between threads cost nothing next to the copy, small enough that the
// threads' buffers stay in cache-friendly sizes and a section splits into many chunks.
inline constexpr std::size_t kChunkBytes = std::size_t{1} << 21;

namespace detail {

// Hands the file from chunk to chunk in order: a chunk's thread waits until every earlier
// chunk is written. After a failure in chunk k, chunks after k are dropped (their threads stop
// waiting), chunks before k are still written: the error is the one a sequential loop meets.
class ChunkTurns {
 public:
  // Waits until `chunk` may write; false when a chunk before it failed (nothing to write).
  bool wait_for(std::size_t chunk) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return next_ == chunk || failed_ < chunk; });
    return next_ == chunk;
  }
  void written(std::size_t chunk) {
    {
      std::lock_guard lock(mutex_);
      next_ = chunk + 1;
    }
    changed_.notify_all();
  }
  void failed(std::size_t chunk) {
    {
      std::lock_guard lock(mutex_);
      failed_ = std::min(failed_, chunk);
    }
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t next_ = 0;
  std::size_t failed_ = SIZE_MAX;
};

}  // namespace detail

// Writes rows [0, rows) after what `out` holds (flushed first): `format(p, row)` writes row's
// text at p, at most `longest` bytes, and returns its end. `format` runs on several threads
// at once, for distinct rows: it must only read shared state. An exception from `format` or
// from the file is rethrown once every thread has stopped (the earliest chunk's).
template <class Format>
void write_rows_in_parallel(OutputBuffer& out, AtomicFile& file, std::int64_t rows, std::size_t longest, const Format& format) {
  if (rows <= 0) return;
  out.flush();
  // At most kChunkBytes of room per chunk, and at least four chunks per thread where the
  // section allows, so that a mid-sized section still spreads over every thread.
  const auto parts = static_cast<std::int64_t>(std::max(1u, thread_count()));
  const std::int64_t room_rows = std::max<std::int64_t>(1, static_cast<std::int64_t>(kChunkBytes / std::max<std::size_t>(longest, 1)));
  const std::int64_t chunk_rows = std::clamp<std::int64_t>(rows / (4 * parts), std::min<std::int64_t>(256, room_rows), room_rows);
  const auto chunks = static_cast<std::size_t>((rows + chunk_rows - 1) / chunk_rows);
  detail::ChunkTurns turns;
  // Grain `chunks` below kParallelRowsMin rows: a single worker, claiming chunks in order.
  parallel_claims(chunks, rows >= kParallelRowsMin ? 1 : chunks, [&](auto claim) {
    std::unique_ptr<char[]> buffer;
    for (std::size_t chunk = claim(); chunk < chunks; chunk = claim()) {
      try {
        const std::int64_t first = static_cast<std::int64_t>(chunk) * chunk_rows;
        const std::int64_t last = std::min(rows, first + chunk_rows);
        if (!buffer) buffer.reset(new char[static_cast<std::size_t>(std::min(rows, chunk_rows)) * longest]);
        char* p = buffer.get();
        for (std::int64_t row = first; row < last; ++row) p = format(p, row);
        if (!turns.wait_for(chunk)) return;
        file.write(buffer.get(), static_cast<std::size_t>(p - buffer.get()));
        turns.written(chunk);
      } catch (...) {
        turns.failed(chunk);
        throw;
      }
    }
  });
}

// `value` as OutputBuffer::number writes it (std::to_chars: integers in decimal, floats in
// the shortest form that reads back to the same bits) at p; returns the end. At most
// kMaxNumberChars bytes.
inline constexpr std::size_t kMaxNumberChars = 32;
template <class T> [[gnu::always_inline]] inline char* put_number(char* p, T value) noexcept {
  return std::to_chars(p, p + kMaxNumberChars, value).ptr;
}

// put_row's text at p: `width` values, each preceded by a blank (NaN left out on
// NanValues::skip); returns the end. At most width * (kMaxNumberChars + 1) bytes.
template <class T>
inline char* put_values(char* p, const T* values, std::int64_t width, NanValues nan_values = NanValues::write) noexcept {
  for (std::int64_t i = 0; i < width; ++i) {
    if constexpr (std::is_floating_point_v<T>)
      if (nan_values == NanValues::skip && std::isnan(values[i])) continue;
    *p++ = ' ';
    p = put_number(p, values[i]);
  }
  return p;
}

// `text` at p; returns the end (a row's fixed words: tags, keywords, separators).
[[gnu::always_inline]] inline char* put_text(char* p, std::string_view text) noexcept {
  std::memcpy(p, text.data(), text.size());
  return p + text.size();
}

}  // namespace meshioplusplus::io
