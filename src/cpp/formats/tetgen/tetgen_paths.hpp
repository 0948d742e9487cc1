// The two file names of a TetGen pair (private to the TetGen reader and writer).
#pragma once

#include <cctype>
#include <optional>
#include <string>
#include <string_view>

namespace meshioplusplus::tetgen::detail {

// The stem X of X.node / X.ele (extension in any case), or nullopt for any other name.
inline std::optional<std::string> pair_stem(const std::string& path) {
  const auto ends_with = [&](std::string_view suffix) {
    if (path.size() < suffix.size()) return false;
    for (std::size_t i = 0; i < suffix.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(path[path.size() - suffix.size() + i])) != suffix[i]) return false;
    return true;
  };
  if (ends_with(".node")) return path.substr(0, path.size() - 5);
  if (ends_with(".ele")) return path.substr(0, path.size() - 4);
  return std::nullopt;
}

}  // namespace meshioplusplus::tetgen::detail
