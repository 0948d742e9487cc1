// Gmsh tag → dense 0-based index. MSH node and element tags may be sparse and unordered;
// the common case (tags 1..n in order) costs no memory at all.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace meshioplusplus::gmsh {

class TagIndex {
 public:
  explicit TagIndex(std::int64_t expected_count = 0) : expected_count_(expected_count) {}

  // Records that `tag` names `index`. Cheap while tag == index + 1 and indices arrive in
  // order; otherwise the pairs are kept until finish().
  void add(std::uint64_t tag, std::int64_t index) {
    if (identity_ && index == count_ && tag == static_cast<std::uint64_t>(index) + 1) {
      ++count_;
      return;
    }
    if (identity_) leave_identity();
    pairs_.emplace_back(tag, index);
    ++count_;
  }

  // Builds the lookup. Returns a tag that occurs twice, if any (the caller reports it).
  std::optional<std::uint64_t> finish();

  // The index of `tag`, or -1 when no node/element has it.
  std::int64_t find(std::uint64_t tag) const noexcept {
    if (identity_) return tag - 1 < static_cast<std::uint64_t>(count_) ? static_cast<std::int64_t>(tag - 1) : -1;
    if (!dense_.empty() || sorted_.empty()) return tag < dense_.size() ? dense_[tag] : -1;
    return find_sorted(tag);
  }

  std::int64_t size() const noexcept { return count_; }

 private:
  void leave_identity();
  std::int64_t find_sorted(std::uint64_t tag) const noexcept;

  std::int64_t expected_count_;
  std::int64_t count_ = 0;
  bool identity_ = true;
  std::vector<std::pair<std::uint64_t, std::int64_t>> pairs_;   // until finish()
  std::vector<std::int64_t> dense_;                             // tag → index, -1 for holes
  std::vector<std::pair<std::uint64_t, std::int64_t>> sorted_;  // when tags are too sparse
};

}  // namespace meshioplusplus::gmsh
