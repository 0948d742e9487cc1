// OpenFOAM writer, the `0/` time directory: cell data of the volume cells as volScalarField /
// volVectorField / volTensorField (widths 1, 3, 9) and point data as the point*Field of the same
// widths, values written as double ("nonuniform List<...>"), dimensions left dimensionless.
// Every patch's boundary condition is zeroGradient (the cell's own value at the face: what a
// post-processor shows for data that has no boundary values), or the patch's own type for
// OpenFOAM's constraint types (empty, symmetry, wedge, cyclic, processor), which require it.
// Other widths (symmetric tensors, whose component order differs between VTK and OpenFOAM, or
// any other) are not written. A point array named like a cell array is written as
// "<name>_point". Each file is written through AtomicFile, so a case's other files in 0/ stay.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "formats/openfoam/openfoam_writer_internal.hpp"
#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus::openfoam::writing {
namespace {

std::string_view value_type(std::int64_t width) noexcept {
  switch (width) {
    case 1: return "Scalar";
    case 3: return "Vector";
    case 9: return "Tensor";
    default: return {};
  }
}

bool is_constraint_type(std::string_view type) noexcept {
  return type == "empty" || type == "symmetry" || type == "symmetryPlane" || type == "wedge" || type == "cyclic" ||
         type == "cyclicAMI" || type == "processor";
}

// The rows of `array` appended to `values` as double.
void append_rows(const NDArray& array, std::vector<double>& values) {
  visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* source = array.data_as<T>();
    const std::size_t count = array.size();
    for (std::size_t i = 0; i < count; ++i) values.push_back(static_cast<double>(source[i]));
  });
}

void write_field(const std::string& path, std::string_view object, bool on_points, std::int64_t count,
                 std::int64_t width, const std::vector<double>& values, const std::vector<Patch>& patches,
                 const Encoding& encoding) {
  const std::string kind(value_type(width));
  std::string lower = kind;
  lower[0] = static_cast<char>(lower[0] - 'A' + 'a');
  const std::string class_name = (on_points ? "point" : "vol") + kind + "Field";
  FoamFile file(path, encoding, class_name, "0", object);
  io::OutputBuffer& out = file.out();
  out.text("dimensions      [0 0 0 0 0 0 0];\n\ninternalField   nonuniform List<");
  out.text(lower);
  out.text("> \n");  // the count on a line of its own, as OpenFOAM writes it (17.21 reads no other)
  file.scalars(count, static_cast<int>(width), values.data());
  out.text(";\n\nboundaryField\n{\n");
  for (const Patch& patch : patches) {
    out.text("    ");
    out.text(patch.name);
    out.text("\n    {\n        type            ");
    out.text(is_constraint_type(patch.type) ? std::string_view(patch.type) : std::string_view("zeroGradient"));
    out.text(";\n    }\n");
  }
  out.text("}\n");
  file.commit();
}

}  // namespace

void write_fields(const std::string& time_directory, const Mesh& mesh, const io::FaceTopology& topology,
                  const std::vector<Patch>& patches, const Encoding& encoding) {
  std::vector<std::string> written;
  std::vector<double> values;
  for (const auto& [name, arrays] : mesh.cell_data) {
    if (arrays.size() != mesh.cells.size()) continue;
    std::int64_t width = -1;
    values.clear();
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
      const CellTypeInfo* info = find_cell_type(mesh.cells[b].type);
      if (info == nullptr || info->dimension != topology.dimension) continue;  // not volume cells
      const std::int64_t row_width = arrays[b].row_width();
      if (width >= 0 && row_width != width) width = 0;  // blocks disagree: not a field
      if (width != 0) width = row_width;
      append_rows(arrays[b], values);
    }
    if (value_type(width).empty()) continue;
    const std::string object = foam_word(name, "cellData");
    write_field(time_directory + object, object, false, topology.num_cells(), width, values, patches, encoding);
    written.push_back(object);
  }
  for (const auto& [name, array] : mesh.point_data) {
    const std::int64_t width = array.row_width();
    if (value_type(width).empty()) continue;
    std::string object = foam_word(name, "pointData");
    if (std::find(written.begin(), written.end(), object) != written.end()) object += "_point";
    values.clear();
    append_rows(array, values);
    write_field(time_directory + object, object, true, mesh.num_points(), width, values, patches, encoding);
    written.push_back(object);
  }
}

}  // namespace meshioplusplus::openfoam::writing
