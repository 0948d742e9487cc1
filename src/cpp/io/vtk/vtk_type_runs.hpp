// Runs of equal VTK cell-type ids (one byte a cell): what read_metadata of the legacy .vtk,
// VTU and VTKHDF readers counts its blocks from without converting any cell. A mesh of one type
// is one run of a million equal bytes, so a run's end is looked for 32 bytes at a time (four
// 8-byte words against the id repeated) and only the 32 that differ byte by byte; a short run
// (mixed types) costs a few byte compares.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace meshioplusplus::io {

// The index of the first id after `first` that differs from ids[first] (ids.size() when none).
inline std::size_t vtk_type_run_end(std::span<const std::uint8_t> ids, std::size_t first) {
  const std::uint8_t id = ids[first];
  std::size_t at = first + 1;
  for (const std::size_t short_end = std::min(ids.size(), at + 32); at < short_end; ++at)
    if (ids[at] != id) return at;
  const std::uint64_t repeated = 0x0101010101010101ULL * id;
  const auto word = [&](std::size_t k) {
    std::uint64_t value;
    std::memcpy(&value, ids.data() + k, sizeof value);
    return value ^ repeated;
  };
  while (ids.size() - at >= 32 && (word(at) | word(at + 8) | word(at + 16) | word(at + 24)) == 0) at += 32;
  while (at < ids.size() && ids[at] == id) ++at;
  return at;
}

// Cells per type id, and the ids in the order the array first has them.
struct VtkTypeCounts {
  std::array<std::int64_t, 256> cells{};
  std::vector<std::uint8_t> first_seen;

  void add(std::span<const std::uint8_t> ids) {
    for (std::size_t first = 0; first < ids.size();) {
      const std::size_t end = vtk_type_run_end(ids, first);
      if (cells[ids[first]] == 0) first_seen.push_back(ids[first]);
      cells[ids[first]] += static_cast<std::int64_t>(end - first);
      first = end;
    }
  }
};

}  // namespace meshioplusplus::io
