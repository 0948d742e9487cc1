// Floor 2: record names (code_aster's node and element names "N1", "M12", "NB001001" …) ->
// 0-based positions, while the file is still being read. Most writers name records with one
// prefix and a decimal number: those names go to a LabelIndex by their number (no string is
// hashed); any other name — another prefix, leading zeros, no digits — goes to a hash map
// of views into the file, which must outlive the index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "io/cells/id_map.hpp"

namespace meshioplusplus::io {

class NameIndex {
 public:
  // False when `name` is already known (the old position is kept).
  bool insert(std::string_view name, std::int64_t position) {
    if (!prefix_set_) {
      prefix_ = name.substr(0, digits_start(name));
      prefix_set_ = true;
    }
    std::int64_t number = 0;
    if (numbered(name, number)) return numbers_.insert(number, position);
    return others_.emplace(name, position).second;
  }

  // The position of `name`, -1 when it was never inserted.
  std::int64_t find(std::string_view name) const {
    std::int64_t number = 0;
    if (numbered(name, number)) return numbers_.find(number);
    if (others_.empty()) return -1;
    const auto it = others_.find(name);
    return it == others_.end() ? -1 : it->second;
  }

 private:
  static std::size_t digits_start(std::string_view name) noexcept {
    std::size_t at = name.size();
    while (at > 0 && name[at - 1] >= '0' && name[at - 1] <= '9') --at;
    return at;
  }
  // The prefix, then 1-18 digits without a leading zero (so each number has one spelling).
  bool numbered(std::string_view name, std::int64_t& number) const noexcept {
    if (!prefix_set_ || name.size() <= prefix_.size() || name.size() - prefix_.size() > 18) return false;
    // A byte loop, not compare(): the prefix is a letter or two, and this runs per name read.
    for (std::size_t i = 0; i < prefix_.size(); ++i)
      if (name[i] != prefix_[i]) return false;
    const std::string_view digits = name.substr(prefix_.size());
    if (digits[0] == '0' && digits.size() > 1) return false;
    std::int64_t value = 0;
    for (const char c : digits) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + (c - '0');
    }
    number = value;
    return true;
  }

  bool prefix_set_ = false;
  std::string prefix_;
  LabelIndex numbers_;
  std::unordered_map<std::string_view, std::int64_t> others_;
};

}  // namespace meshioplusplus::io
