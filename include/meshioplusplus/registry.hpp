// Floor 1 interface, floor 3 table: which formats exist and how to reach them.
// The table itself lives in src/cpp/formats/registry.cpp — one row per format.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/read_selection.hpp"

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
// A read that skips what `request` leaves out (points_only, arrays) without touching its bytes;
// the registry narrows its result further (cell_types) and handles time_step itself.
using SelectiveReadFunction = Mesh (*)(const std::string& path, const ReadRequest& request);
// A summary from the file's header (MeshMetadata::header_only), without reading the arrays.
using MetadataFunction = MeshMetadata (*)(const std::string& path);
// Whether a file's first bytes (up to kSniffBytes, fewer for a short file) are this format's.
using SniffFunction = bool (*)(std::string_view head) noexcept;
inline constexpr std::size_t kSniffBytes = 512;

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
  // Set by formats that share an extension with another (.msh: Gmsh, ANSYS): a read without a
  // format name tries the sniffs of the formats claiming the file's extension, in table order.
  SniffFunction sniff = nullptr;
  // Set by formats whose cells are implied by the file's structure and never written (VTK's
  // structured grids): a write checks the cells' shapes but does not read their node indices.
  bool cells_implied = false;
  // Set by formats whose writer copies node indices into the file as values and never uses one
  // to address memory: write() then checks the indices on another core while the writer writes,
  // and the file is published only once the check has passed (core/deferred_check.hpp).
  bool index_check_beside_write = false;
  // Set by formats whose layout lets a read skip arrays on disk (read_selection.hpp); the
  // others are read whole and narrowed.
  SelectiveReadFunction read_selected = nullptr;
  // Set by formats whose header states counts and arrays; the others are read and summarised.
  MetadataFunction read_metadata = nullptr;
};

std::span<const FormatInfo> registered_formats() noexcept;
// Throws std::invalid_argument listing the known names.
const FormatInfo& format_by_name(std::string_view name);
// The longest registered extension that ends `path` (case-insensitive); nullptr if none. A
// directory holding an OpenFOAM case (or a polyMesh directory) is openfoam's.
const FormatInfo* format_for_path(std::string_view path) noexcept;

// `format` empty: deduced from the extension, and where several formats claim it, from the
// file's first bytes (their sniffs). Unknown format or option → ReadError/WriteError. Writing
// to a shared extension picks the first format claiming it (.msh → Gmsh).
Mesh read(const std::string& path, std::string_view format = {});
void write(const std::string& path, const Mesh& mesh, std::string_view format = {},
           const WriteOptions& options = {});

}  // namespace meshioplusplus
