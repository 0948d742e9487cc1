// TetGen and Triangle (both of Shewchuk's family of file layouts) share .node and .ele: the
// header's second number tells them apart — a .node's dimension (3: TetGen, 2: Triangle) or
// an .ele's nodes per element (4/10: TetGen, 3/6: Triangle). A 3 is either a TetGen .node
// or a Triangle .ele; the first records decide: an .ele's records are integers with distinct
// corners, a .node's hold coordinates (a non-integer, or repeated values such as a point at
// the origin). Content only (the sniff never sees the name), noexcept, cheap.
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>
#include <vector>

namespace meshioplusplus::io {

enum class ShewchukKind { unknown, tetgen, triangle };

namespace shewchuk_detail {

// The whitespace-separated tokens of each significant line ('#' comments, blank lines dropped)
// of `head`; the last line is dropped when `head` may have cut it short.
inline std::vector<std::vector<std::string_view>> head_lines(std::string_view head, bool cut) {
  std::vector<std::vector<std::string_view>> lines;
  std::size_t pos = 0;
  while (pos < head.size()) {
    std::size_t end = head.find('\n', pos);
    const bool complete = end != std::string_view::npos;
    if (!complete) end = head.size();
    std::string_view line = head.substr(pos, end - pos);
    pos = end + 1;
    if (!complete && cut) break;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    std::vector<std::string_view> tokens;
    std::size_t t = 0;
    while (t < line.size()) {
      while (t < line.size() && (line[t] == ' ' || line[t] == '\t' || line[t] == '\r')) ++t;
      std::size_t u = t;
      while (u < line.size() && line[u] != ' ' && line[u] != '\t' && line[u] != '\r') ++u;
      if (u > t) tokens.push_back(line.substr(t, u - t));
      t = u;
    }
    if (!tokens.empty()) lines.push_back(std::move(tokens));
  }
  return lines;
}

inline bool integer(std::string_view token, std::int64_t& value) noexcept {
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  return error == std::errc{} && end == token.data() + token.size();
}

}  // namespace shewchuk_detail

inline ShewchukKind classify_node_ele(std::string_view head, std::size_t sniff_bytes) noexcept {
  try {
    using namespace shewchuk_detail;
    const auto lines = head_lines(head, head.size() >= sniff_bytes);
    if (lines.empty()) return ShewchukKind::unknown;
    const auto& header = lines.front();
    std::int64_t count = 0, second = 0;
    if (header.size() < 2 || header.size() > 4 || !integer(header[0], count) || !integer(header[1], second) || count < 0)
      return ShewchukKind::unknown;
    for (const std::string_view token : header) {
      std::int64_t value = 0;
      if (!integer(token, value) || value < 0) return ShewchukKind::unknown;
    }
    if (second == 2 || second == 6) return ShewchukKind::triangle;
    if (second == 4 || second == 10) return ShewchukKind::tetgen;
    if (second != 3) return ShewchukKind::unknown;
    if (header.size() == 4) return ShewchukKind::tetgen;  // "points 3 attributes markers": an .ele has 3 values
    if (lines.size() < 2) return ShewchukKind::tetgen;   // no record to look at: TetGen's row keeps it, as before
    for (std::size_t r = 1; r < lines.size(); ++r) {
      const auto& record = lines[r];
      if (record.size() < 4) return ShewchukKind::tetgen;
      std::int64_t corner[3] = {};
      for (std::size_t k = 0; k < record.size(); ++k) {
        std::int64_t value = 0;
        if (!integer(record[k], value)) {
          if (k <= 3) return ShewchukKind::tetgen;  // a coordinate; an .ele's attributes may be reals
          continue;
        }
        if (k >= 1 && k <= 3) corner[k - 1] = value;
      }
      if (corner[0] == corner[1] || corner[1] == corner[2] || corner[0] == corner[2] || corner[0] < 0 ||
          corner[1] < 0 || corner[2] < 0)
        return ShewchukKind::tetgen;
    }
    return ShewchukKind::triangle;
  } catch (...) {
    return ShewchukKind::unknown;
  }
}

}  // namespace meshioplusplus::io
