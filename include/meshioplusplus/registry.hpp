// Floor 1 interface, floor 3 table: which formats exist and how to reach them.
// The table itself lives in src/cpp/formats/registry.cpp — one row per format.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus {

// Writer options as text ("true"/"false", "zlib", "5.1" …); each format documents its own.
class WriteOptions {
 public:
  WriteOptions() = default;
  void set(std::string name, std::string value);
  const std::string* find(std::string_view name) const noexcept;
  std::string_view get(std::string_view name, std::string_view fallback) const noexcept;
  // Accepts true/false/1/0/yes/no; throws std::invalid_argument on anything else.
  bool get_bool(std::string_view name, bool fallback) const;
  const std::vector<std::pair<std::string, std::string>>& items() const noexcept { return values_; }

 private:
  std::vector<std::pair<std::string, std::string>> values_;
};

using ReadFunction = Mesh (*)(const std::string& path);
using WriteFunction = void (*)(const std::string& path, const Mesh& mesh,
                               const WriteOptions& options);

struct WriteOptionSpec {
  std::string_view name;
  std::string_view default_value;  // "" means: chosen by the writer (meshio's None)
  std::string_view help;
};

struct FormatInfo {
  std::string_view name;
  std::span<const std::string_view> extensions;  // with the dot, lower case
  std::string_view description;
  ReadFunction read = nullptr;    // nullptr: write-only format
  WriteFunction write = nullptr;  // nullptr: read-only format
  std::span<const WriteOptionSpec> write_options;
};

std::span<const FormatInfo> registered_formats() noexcept;
// Throws std::invalid_argument listing the known names.
const FormatInfo& format_by_name(std::string_view name);
// The longest registered extension that ends `path` (case-insensitive); nullptr if none.
const FormatInfo* format_for_path(std::string_view path) noexcept;

// `format` empty: deduced from the extension. Unknown format or option → ReadError/WriteError.
Mesh read(const std::string& path, std::string_view format = {});
void write(const std::string& path, const Mesh& mesh, std::string_view format = {},
           const WriteOptions& options = {});

}  // namespace meshioplusplus
