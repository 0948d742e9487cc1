// File ids (node, element, zone numbers) -> 0-based positions. Most files number their
// records 1..n, so a contiguous run is answered by arithmetic; ids with gaps that still span
// a range not much larger than their count use a direct table; only scattered ids pay for a
// hash map.
#pragma once

#include <algorithm>
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
    table_.clear();
    scattered_.clear();
    strategy_ = Strategy::contiguous;
    // Unsigned: `first + i` cannot overflow for ids near INT64_MAX (a wrapped value never
    // equals a later id, since ids[i] <= INT64_MAX < the wrap).
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (static_cast<std::uint64_t>(ids[i]) != static_cast<std::uint64_t>(first_) + i ||
          (i != 0 && ids[i] <= ids[i - 1])) {
        strategy_ = Strategy::table;
        break;
      }
    if (strategy_ == Strategy::contiguous) return std::nullopt;

    const auto [low, high] = std::minmax_element(ids.begin(), ids.end());
    first_ = *low;
    // Unsigned: `high - low` cannot overflow. A table at most ~4x the ids stays cheap.
    const std::uint64_t span = static_cast<std::uint64_t>(*high) - static_cast<std::uint64_t>(*low);
    if (span < 4 * ids.size() + 1024) {
      table_.assign(span + 1, -1);
      for (std::size_t i = 0; i < ids.size(); ++i) {
        std::int64_t& slot = table_[static_cast<std::uint64_t>(ids[i]) - static_cast<std::uint64_t>(first_)];
        if (slot >= 0) return i;
        slot = static_cast<std::int64_t>(i);
      }
      return std::nullopt;
    }
    strategy_ = Strategy::scattered;
    scattered_.reserve(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (!scattered_.emplace(ids[i], static_cast<std::int64_t>(i)).second) return i;
    return std::nullopt;
  }

  // The position of `id`, -1 when the file has no such id.
  std::int64_t find(std::int64_t id) const {
    // Unsigned arithmetic: no overflow for ids near the int64 limits.
    const std::uint64_t offset = static_cast<std::uint64_t>(id) - static_cast<std::uint64_t>(first_);
    switch (strategy_) {
      case Strategy::contiguous:
        return offset < static_cast<std::uint64_t>(count_) ? static_cast<std::int64_t>(offset) : -1;
      case Strategy::table:
        return offset < table_.size() ? table_[offset] : -1;
      case Strategy::scattered:
        break;
    }
    const auto it = scattered_.find(id);
    return it == scattered_.end() ? -1 : it->second;
  }

  std::int64_t size() const noexcept { return count_; }

 private:
  enum class Strategy { contiguous, table, scattered };
  Strategy strategy_ = Strategy::contiguous;
  std::int64_t first_ = 0;  // the first id (contiguous) or the smallest (table)
  std::int64_t count_ = 0;
  std::vector<std::int64_t> table_;
  std::unordered_map<std::int64_t, std::int64_t> scattered_;
};

// The same question answered while the file is still being read (Abaqus and Nastran name
// nodes before all of them are known): labels arrive one at a time. Ascending labels — what
// nearly every writer produces — are kept as runs of consecutive labels with consecutive
// positions, one comparison per insert and a binary search per lookup; the first label out
// of order moves everything into a hash map.
class LabelIndex {
 public:
  // False when `label` is already known (the old position is kept).
  bool insert(std::int64_t label, std::int64_t position) {
    if (!scattered_mode_) {
      if (runs_.empty() || after_last(label)) {
        if (!runs_.empty() && extends_last(label, position))
          ++runs_.back().count;
        else
          runs_.push_back({label, position, 1});
        return true;
      }
      spill();
    }
    return scattered_.emplace(label, position).second;
  }

  // The position given with `label`, -1 when it was never inserted.
  std::int64_t find(std::int64_t label) const {
    if (scattered_mode_) {
      const auto it = scattered_.find(label);
      return it == scattered_.end() ? -1 : it->second;
    }
    // The last run starting at or below `label`.
    auto it = std::upper_bound(runs_.begin(), runs_.end(), label,
                               [](std::int64_t value, const Run& run) { return value < run.first_label; });
    if (it == runs_.begin()) return -1;
    --it;
    const std::uint64_t offset = static_cast<std::uint64_t>(label) - static_cast<std::uint64_t>(it->first_label);
    return offset < static_cast<std::uint64_t>(it->count) ? it->first_position + static_cast<std::int64_t>(offset) : -1;
  }

 private:
  struct Run {
    std::int64_t first_label;
    std::int64_t first_position;
    std::int64_t count;
  };

  std::uint64_t last_label() const noexcept {
    return static_cast<std::uint64_t>(runs_.back().first_label) + static_cast<std::uint64_t>(runs_.back().count - 1);
  }
  bool after_last(std::int64_t label) const noexcept {
    return label > static_cast<std::int64_t>(last_label());
  }
  bool extends_last(std::int64_t label, std::int64_t position) const noexcept {
    const Run& last = runs_.back();
    return static_cast<std::uint64_t>(label) == last_label() + 1 && position == last.first_position + last.count;
  }
  void spill() {
    scattered_mode_ = true;
    for (const Run& run : runs_)
      for (std::int64_t k = 0; k < run.count; ++k)
        scattered_.emplace(static_cast<std::int64_t>(static_cast<std::uint64_t>(run.first_label) + static_cast<std::uint64_t>(k)),
                           run.first_position + k);
    runs_.clear();
    runs_.shrink_to_fit();
  }

  bool scattered_mode_ = false;
  std::vector<Run> runs_;
  std::unordered_map<std::int64_t, std::int64_t> scattered_;
};

}  // namespace meshioplusplus::io
