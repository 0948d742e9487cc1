// Floor 1: WriteOptions (include/meshioplusplus/registry.hpp), on its own so code below the
// format table (io/ helpers, a single reader linked alone as in fuzz/) can use it without
// pulling in every format.
#include <cctype>
#include <stdexcept>
#include <string>

#include "meshioplusplus/registry.hpp"

namespace meshioplusplus {

void WriteOptions::set(std::string name, std::string value) {
  for (auto& entry : values_)
    if (entry.first == name) {
      entry.second = std::move(value);
      return;
    }
  values_.emplace_back(std::move(name), std::move(value));
}

const std::string* WriteOptions::find(std::string_view name) const noexcept {
  for (const auto& entry : values_)
    if (entry.first == name) return &entry.second;
  return nullptr;
}

std::string_view WriteOptions::get(std::string_view name, std::string_view fallback) const noexcept {
  const std::string* value = find(name);
  return value ? std::string_view(*value) : fallback;
}

bool WriteOptions::get_bool(std::string_view name, bool fallback) const {
  const std::string* value = find(name);
  if (value == nullptr) return fallback;
  std::string text = *value;
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (text == "true" || text == "1" || text == "yes") return true;
  if (text == "false" || text == "0" || text == "no") return false;
  throw std::invalid_argument("option '" + std::string(name) + "' expects true or false, got '" +
                              *value + "'");
}

}  // namespace meshioplusplus
