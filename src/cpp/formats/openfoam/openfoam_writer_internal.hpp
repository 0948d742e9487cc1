// Private to the OpenFOAM writer (openfoam_writer*.cpp): one FoamFile being written, in
// ASCII or binary, and what the mesh and field files share.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/cells/faces_from_cells.hpp"
#include "io/output/atomic_file.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::openfoam::writing {

inline constexpr std::string_view kFormat = "openfoam";

struct Encoding {
  bool binary = false;
  int label_bytes = 4;  // "label=32"; 8 once a count or index passes 2^31 - 1
};

struct Patch {
  std::string name;
  std::string type;
  std::int64_t start = 0;  // first face
  std::int64_t size = 0;
  std::string groups;  // inGroups, space-separated, as the reader records them ("" for none)
};

// `name` as an OpenFOAM word (no blanks, quotes, braces, parentheses, semicolons or slashes:
// those become '_'); `fallback` when it is empty.
std::string foam_word(std::string_view name, std::string_view fallback);

// One FoamFile through an AtomicFile: header, then lists, then commit().
class FoamFile {
 public:
  FoamFile(const std::string& path, const Encoding& encoding, std::string_view class_name, std::string_view location,
           std::string_view object, std::string_view note = {});
  io::OutputBuffer& out() noexcept { return out_; }
  // "N\n(\n...\n)\n" (ASCII: one label a line; binary: the raw labels between the parentheses).
  void labels(std::span<const std::int64_t> values);
  // A List<bool> of 0/1 (binary: one byte each).
  void bools(std::span<const std::int64_t> values);
  // A list of `count` scalars (width 1) or vectors/tensors (width > 1) read from `row(i, out)`.
  void scalars(std::int64_t count, int width, const double* values);
  void commit();

 private:
  io::AtomicFile file_;
  io::OutputBuffer out_;
  Encoding encoding_;
};

// Cell data of the volume cells (block order) and point data as fields in the `0/` time
// directory, one file per array; arrays of other widths than 1, 3, 6 and 9 are not written.
void write_fields(const std::string& time_directory, const Mesh& mesh, const io::FaceTopology& topology,
                  const std::vector<Patch>& patches, const Encoding& encoding);

}  // namespace meshioplusplus::openfoam::writing
