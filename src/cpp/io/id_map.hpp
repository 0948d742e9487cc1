// File ids (node, element, zone numbers) -> 0-based positions. Most files number their
// records 1..n, so a contiguous run is answered by arithmetic and needs no table; only
// files with gaps or shuffled ids pay for a hash map.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace meshioplusplus::io {

class IdMap {
 public:
  // `ids` in file order; returns the position of the first repeated id, if any.
  std::optional<std::size_t> build(const std::vector<std::int64_t>& ids) {
    count_ = static_cast<std::int64_t>(ids.size());
    first_ = ids.empty() ? 0 : ids.front();
    contiguous_ = true;
    for (std::size_t i = 0; i < ids.size() && contiguous_; ++i)
      contiguous_ = ids[i] == first_ + static_cast<std::int64_t>(i);
    table_.clear();
    if (contiguous_) return std::nullopt;
    table_.reserve(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (!table_.emplace(ids[i], static_cast<std::int64_t>(i)).second) return i;
    return std::nullopt;
  }

  // The position of `id`, -1 when the file has no such id.
  std::int64_t find(std::int64_t id) const {
    if (contiguous_) {
      // Unsigned arithmetic: no overflow for ids near the int64 limits.
      const std::uint64_t k = static_cast<std::uint64_t>(id) - static_cast<std::uint64_t>(first_);
      return k < static_cast<std::uint64_t>(count_) ? static_cast<std::int64_t>(k) : -1;
    }
    const auto it = table_.find(id);
    return it == table_.end() ? -1 : it->second;
  }

  std::int64_t size() const noexcept { return count_; }

 private:
  bool contiguous_ = true;
  std::int64_t first_ = 0;
  std::int64_t count_ = 0;
  std::unordered_map<std::int64_t, std::int64_t> table_;
};

}  // namespace meshioplusplus::io
