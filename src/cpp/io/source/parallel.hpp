// Floor 2: text scanning and large copies on all cores, on top of the core's parallel_ranges,
// with results identical to a sequential run: the same output and, when something is wrong,
// the same error (that of the earliest failing part).
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include <cerrno>
#include <unistd.h>

#include "core/parallel_ranges.hpp"
#include "meshioplusplus/threads.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace meshioplusplus::io {

// The core's splitting of work over threads (floor 1), used by every reader and writer.
using meshioplusplus::any_in_parallel;
using meshioplusplus::first_index_outside;
using meshioplusplus::parallel_ranges;

// Below this a copy or a pass over values stays on one thread: a thread costs tens of µs.
inline constexpr std::size_t kParallelBytesMin = std::size_t{16} << 20;

// memcpy on all cores for large blocks. Besides the bandwidth of several cores, the threads
// share the page faults: the kernel zeroing a fresh destination's pages and mapping a file's
// pages are paid on first touch, and on a virtual machine they cost more than the copy.
inline void copy_in_parallel(void* destination, const void* source, std::size_t bytes) {
  constexpr std::size_t kPage = 4096;  // pieces start on page boundaries: no page is shared
  auto* to = static_cast<std::uint8_t*>(destination);
  const auto* from = static_cast<const std::uint8_t*>(source);
  if (bytes < kParallelBytesMin) {
    if (bytes != 0) std::memcpy(to, from, bytes);
    return;
  }
  parallel_ranges((bytes + kPage - 1) / kPage, kParallelBytesMin / 4 / kPage, [&](std::size_t first, std::size_t last) {
    const std::size_t begin = first * kPage, end = std::min(bytes, last * kPage);
    std::memcpy(to + begin, from + begin, end - begin);
  });
}

// `bytes` bytes at `offset` of the file `fd` into `destination` with pread: on one thread below
// `parallel_from` bytes (a thread costs more than it saves on a few megabytes: waking a core of
// a virtual machine took a millisecond), else in page-aligned pieces over the cores. pread
// leaves the descriptor's position alone, so pieces may run side by side and a library sharing
// the descriptor is unaffected. Returns 0, the errno of the first failing call, or -1 when the
// file ends first.
inline int pread_in_parallel(int fd, std::uint64_t offset, void* destination, std::uint64_t bytes,
                             std::uint64_t parallel_from = kParallelBytesMin) {
  constexpr std::uint64_t kPage = 4096;
  std::atomic<int> failure{0};
  const auto read_range = [&](std::uint64_t done, std::uint64_t end) {
    auto* to = static_cast<char*>(destination);
    while (done < end && failure.load(std::memory_order_relaxed) == 0) {
      const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(end - done, 1u << 30));
      const ssize_t moved = ::pread(fd, to + done, want, static_cast<off_t>(offset + done));
      if (moved < 0 && errno == EINTR) continue;
      if (moved <= 0) {
        int expected = 0;
        failure.compare_exchange_strong(expected, moved < 0 ? errno : -1);
        return;
      }
      done += static_cast<std::uint64_t>(moved);
    }
  };
  if (bytes < parallel_from) {
    read_range(0, bytes);
    return failure.load();
  }
  const auto grain = static_cast<std::size_t>(std::max<std::uint64_t>(1, parallel_from / 2 / kPage));
  parallel_ranges(static_cast<std::size_t>((bytes + kPage - 1) / kPage), grain, [&](std::size_t first, std::size_t last) {
    read_range(first * kPage, std::min<std::uint64_t>(bytes, last * kPage));
  });
  return failure.load();
}

// The smallest i in [begin, end) for which `breaks(i)` holds, or `end`. The first 64 Ki items
// are searched here (short runs never start a thread); the rest on all cores, each piece
// stopping at its first hit or once an earlier piece has found one.
template <class Breaks> std::size_t find_first_in_parallel(std::size_t begin, std::size_t end, Breaks&& breaks) {
  constexpr std::size_t kHere = std::size_t{1} << 16;
  const std::size_t head_end = std::min(end, begin + kHere);
  for (std::size_t i = begin; i < head_end; ++i)
    if (breaks(i)) return i;
  if (head_end == end) return end;
  std::atomic<std::size_t> first_hit{end};
  parallel_ranges(end - head_end, std::size_t{1} << 20, [&](std::size_t first, std::size_t last) {
    constexpr std::size_t kStride = 4096;  // how often a piece looks at the others' progress
    for (std::size_t block = head_end + first; block < head_end + last; block += kStride) {
      if (block >= first_hit.load(std::memory_order_relaxed)) return;
      const std::size_t block_end = std::min(head_end + last, block + kStride);
      for (std::size_t i = block; i < block_end; ++i) {
        if (!breaks(i)) continue;
        std::size_t seen = first_hit.load(std::memory_order_relaxed);
        while (i < seen && !first_hit.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
        }
        return;
      }
    }
  });
  return first_hit.load();
}

// '\n' bytes in [first, last). The count runs on one thread before any split, so it must run
// near memory speed: 16 bytes per step where SSE2 is there (every x86-64), std::count otherwise.
inline std::uint64_t count_newlines(const char* first, const char* last) noexcept {
  std::uint64_t count = 0;
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n');
  while (last - first >= 16 * 255) {
    // Byte lanes count down (a match is -1) for up to 255 steps, then are summed.
    __m128i lanes = _mm_setzero_si128();
    for (int step = 0; step < 255; ++step, first += 16)
      lanes = _mm_add_epi8(lanes, _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(first)), newline));
    const __m128i sums = _mm_sad_epu8(_mm_sub_epi8(_mm_setzero_si128(), lanes), _mm_setzero_si128());
    count += static_cast<std::uint64_t>(_mm_cvtsi128_si64(sums)) +
             static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  return count + static_cast<std::uint64_t>(std::count(first, last, '\n'));
}

// Whitespace-separated tokens in [first, last), counted 64 (then 16) bytes per step where
// SSE2 is there: a token starts at every non-space byte that follows a space (or the start).
// Whitespace is what is_space() accepts: ' ' and '\t' '\n' '\v' '\f' '\r' (bytes 9-13).
inline std::uint64_t count_tokens(const char* first, const char* last) noexcept {
  std::uint64_t tokens = 0;
  bool after_space = true;
#if defined(__SSE2__)
  const __m128i blank = _mm_set1_epi8(' ');
  const __m128i tab = _mm_set1_epi8('\t');
  const __m128i controls_above_tab = _mm_set1_epi8(4);  // '\n' '\v' '\f' '\r' are tab + 1..4
  const auto space_mask = [&](const char* at) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    const __m128i above_tab = _mm_sub_epi8(bytes, tab);
    const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(above_tab, controls_above_tab), above_tab);
    return static_cast<std::uint64_t>(static_cast<std::uint16_t>(
        _mm_movemask_epi8(_mm_or_si128(control, _mm_cmpeq_epi8(bytes, blank)))));
  };
  while (last - first >= 64) {
    const std::uint64_t spaces = space_mask(first) | space_mask(first + 16) << 16 | space_mask(first + 32) << 32 |
                                 space_mask(first + 48) << 48;
    const std::uint64_t follows_space = spaces << 1 | static_cast<std::uint64_t>(after_space);
    tokens += static_cast<std::uint64_t>(std::popcount(~spaces & follows_space));
    after_space = (spaces >> 63) != 0;
    first += 64;
  }
  while (last - first >= 16) {  // the rest of a long section, or a whole short line
    const std::uint64_t spaces = space_mask(first);
    const std::uint64_t follows_space = (spaces << 1 | static_cast<std::uint64_t>(after_space)) & 0xFFFF;
    tokens += static_cast<std::uint64_t>(std::popcount(~spaces & follows_space));
    after_space = (spaces >> 15) != 0;
    first += 16;
  }
#endif
  for (; first < last; ++first) {
    const bool space = *first == ' ' || static_cast<unsigned char>(*first - '\t') <= 4;
    tokens += after_space && !space;
    after_space = space;
  }
  return tokens;
}

// Sections smaller than this parse faster on one thread than the split costs.
inline constexpr std::size_t kParallelLinesMinBytes = std::size_t{4} << 20;

namespace detail {

// The parse of parse_lines_in_parallel and parse_section_lines_in_parallel: piece p covers the
// lines in [starts[p], starts[p + 1]), the first being record first_record[p]. False when a
// line is not one record; any other error is rethrown as the earliest piece's.
template <class ParseRecord>
bool parse_line_pieces(const char* text, const std::vector<std::size_t>& starts, const std::vector<std::uint64_t>& first_record,
                       std::uint64_t records, ParseRecord& parse_record) {
  std::atomic<bool> laid_out_per_line{true};
  try {
    parallel_ranges(starts.size() - 1, 1, [&](std::size_t first_piece, std::size_t last_piece) {
      for (std::size_t p = first_piece; p < last_piece && laid_out_per_line; ++p) {
        std::uint64_t index = first_record[p];
        for (std::size_t line = starts[p]; line < starts[p + 1] && laid_out_per_line; ++index) {
          const void* newline = std::memchr(text + line, '\n', starts[p + 1] - line);
          const std::size_t stop = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - text) : starts[p + 1];
          if (index >= records || !parse_record(index, line, stop)) laid_out_per_line = false;
          line = stop + 1;
        }
      }
    });
  } catch (...) {
    if (!laid_out_per_line) return false;  // a layout question first: the sequential parse answers both
    throw;
  }
  return laid_out_per_line;
}

// `parts` line-aligned cuts of [begin, end): starts[0] = begin, starts[parts] = end.
inline std::vector<std::size_t> line_cuts(const char* text, std::size_t begin, std::size_t end, std::size_t parts) {
  std::vector<std::size_t> starts(parts + 1, end);
  starts[0] = begin;
  for (std::size_t p = 1; p < parts; ++p) {
    std::size_t at = std::max(starts[p - 1], begin + (end - begin) / parts * p);
    const void* newline = std::memchr(text + at, '\n', end - at);
    starts[p] = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - text) + 1 : end;
  }
  return starts;
}

}  // namespace detail

// '\n' bytes in [first, last), counted on all cores when there are many.
inline std::uint64_t count_newlines_in_parallel(const char* first, const char* last) {
  const auto bytes = static_cast<std::size_t>(last - first);
  if (thread_count() < 2 || bytes < kParallelLinesMinBytes) return count_newlines(first, last);
  const std::size_t parts = thread_count();
  std::vector<std::uint64_t> counts(parts, 0);
  parallel_ranges(parts, 1, [&](std::size_t first_part, std::size_t last_part) {
    for (std::size_t p = first_part; p < last_part; ++p)
      counts[p] = count_newlines(first + bytes * p / parts, first + bytes * (p + 1) / parts);
  });
  std::uint64_t total = 0;
  for (const std::uint64_t count : counts) total += count;
  return total;
}

// Text sections holding `records` records of one per line — what every writer produces —
// parse on all cores: the section is cut at line boundaries, each piece learns the number
// of its first record from a newline count, and `parse_record(index, line_begin, line_end)`
// (offsets into `document`, the line without its '\n') fills record `index` in place.
//
// Returns the offset just past the section's last line, or nullopt when the caller must
// parse sequentially instead — the section is small, the file ends early, or
// `parse_record` returned false for a line not laid out as one record (blank, wrapped,
// several records): only the sequential parser decides such layouts and words their
// errors. Any other error is thrown as a sequential parse would (the earliest piece's).
template <class ParseRecord>
std::optional<std::size_t> parse_lines_in_parallel(std::string_view document, std::size_t begin, std::uint64_t records,
                                                   ParseRecord&& parse_record) {
  if (thread_count() < 2 || records < 2 || document.size() - begin < kParallelLinesMinBytes) return std::nullopt;

  // Find the end of the section, keeping (offset, records before it) checkpoints.
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  struct Checkpoint {
    std::size_t offset;
    std::uint64_t lines_before;
  };
  std::vector<Checkpoint> checkpoints{{begin, 0}};
  std::size_t position = begin;
  std::uint64_t seen = 0;
  const char* const text = document.data();
  while (seen < records) {
    const std::size_t chunk = std::min(kChunk, document.size() - position);
    if (chunk == 0) return std::nullopt;  // fewer lines than records: the sequential parse says where
    const std::uint64_t in_chunk = count_newlines(text + position, text + position + chunk);
    if (seen + in_chunk < records || (seen + in_chunk == records && text[position + chunk - 1] == '\n')) {
      seen += in_chunk;
      position += chunk;
      checkpoints.push_back({position, seen});
      continue;
    }
    // The last newline is in this chunk: find it exactly.
    const std::size_t limit = position + chunk;
    while (seen < records) {
      position = static_cast<std::size_t>(static_cast<const char*>(std::memchr(text + position, '\n', limit - position)) - text) + 1;
      ++seen;
    }
  }
  const std::size_t end = position;
  if (end - begin < kParallelLinesMinBytes) return std::nullopt;

  // Pieces start at line starts; each counts its first record from the nearest checkpoint.
  const std::size_t pieces = std::min<std::size_t>(thread_count(), (end - begin) / (kParallelLinesMinBytes / 2));
  std::vector<std::size_t> starts(pieces + 1, end);
  std::vector<std::uint64_t> first_record(pieces + 1, records);
  starts[0] = begin;
  first_record[0] = 0;
  for (std::size_t p = 1; p < pieces; ++p) {
    std::size_t at = std::max(starts[p - 1], begin + (end - begin) / pieces * p);
    const void* newline = std::memchr(text + at, '\n', end - at);
    at = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - text) + 1 : end;
    const auto checkpoint = std::upper_bound(checkpoints.begin(), checkpoints.end(), at,
                                             [](std::size_t value, const Checkpoint& c) { return value < c.offset; }) - 1;
    starts[p] = at;
    first_record[p] = checkpoint->lines_before + count_newlines(text + checkpoint->offset, text + at);
  }

  if (!detail::parse_line_pieces(text, starts, first_record, records, parse_record)) return std::nullopt;
  return end;
}

// parse_lines_in_parallel for a section whose extent is known: [begin, end) holds the
// `records` lines (the last may lack its '\n' where `end` is the document's end). Each piece
// counts its own lines, on all cores, so no pass over the section runs on one thread. The
// same nullopt cases, and nullopt when the section holds another number of lines.
template <class ParseRecord>
std::optional<std::size_t> parse_section_lines_in_parallel(std::string_view document, std::size_t begin, std::size_t end,
                                                           std::uint64_t records, ParseRecord&& parse_record) {
  if (thread_count() < 2 || records < 2 || end - begin < kParallelLinesMinBytes) return std::nullopt;
  const char* const text = document.data();
  const std::size_t pieces = std::min<std::size_t>(thread_count(), (end - begin) / (kParallelLinesMinBytes / 2));
  const std::vector<std::size_t> starts = detail::line_cuts(text, begin, end, pieces);
  std::vector<std::uint64_t> first_record(pieces + 1, 0);
  parallel_ranges(pieces, 1, [&](std::size_t first_piece, std::size_t last_piece) {
    for (std::size_t p = first_piece; p < last_piece; ++p)
      first_record[p + 1] = count_newlines(text + starts[p], text + starts[p + 1]);
  });
  for (std::size_t p = 1; p <= pieces; ++p) first_record[p] += first_record[p - 1];
  const std::uint64_t lines = first_record[pieces] + (text[end - 1] != '\n' ? 1 : 0);
  if (lines != records) return std::nullopt;
  if (!detail::parse_line_pieces(text, starts, first_record, records, parse_record)) return std::nullopt;
  return end;
}

}  // namespace meshioplusplus::io
