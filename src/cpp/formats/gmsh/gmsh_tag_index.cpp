#include "formats/gmsh/gmsh_tag_index.hpp"

#include <algorithm>

namespace meshioplusplus::gmsh {

void TagIndex::leave_identity() {
  identity_ = false;
  pairs_.reserve(static_cast<std::size_t>(std::max(expected_count_, count_ + 1)));
  for (std::int64_t i = 0; i < count_; ++i) pairs_.emplace_back(static_cast<std::uint64_t>(i) + 1, i);
}

std::optional<std::uint64_t> TagIndex::finish() {
  if (identity_) return std::nullopt;
  std::uint64_t max_tag = 0;
  for (const auto& [tag, index] : pairs_) max_tag = std::max(max_tag, tag);
  // A direct table while it stays within a few entries per tag; binary search beyond.
  const std::uint64_t dense_limit = 4 * static_cast<std::uint64_t>(pairs_.size()) + 1024;
  if (max_tag < dense_limit) {
    dense_.assign(max_tag + 1, -1);
    for (const auto& [tag, index] : pairs_) {
      if (dense_[tag] >= 0) return tag;
      dense_[tag] = index;
    }
  } else {
    sorted_ = std::move(pairs_);
    std::sort(sorted_.begin(), sorted_.end());
    for (std::size_t i = 1; i < sorted_.size(); ++i)
      if (sorted_[i].first == sorted_[i - 1].first) return sorted_[i].first;
  }
  pairs_.clear();
  pairs_.shrink_to_fit();
  return std::nullopt;
}

std::int64_t TagIndex::find_sorted(std::uint64_t tag) const noexcept {
  const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), tag,
                                   [](const auto& entry, std::uint64_t wanted) { return entry.first < wanted; });
  return it != sorted_.end() && it->first == tag ? it->second : -1;
}

}  // namespace meshioplusplus::gmsh
