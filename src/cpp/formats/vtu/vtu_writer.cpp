// VTK XML UnstructuredGrid writer.
//
// The mesh is turned into a plan for the shared DataArray layer (io/vtk/vtk_xml_data.hpp): every
// array to write, as byte segments that point into the mesh's own buffers (cell data of
// several blocks is several segments, so nothing is concatenated up front). What is
// particular to an UnstructuredGrid is the Cells section — types, offsets, connectivity and
// polyhedron faces from io::cells_to_vtk. The layer streams the plan into an AtomicFile, so a
// failure at any point leaves an existing file untouched.
#include <optional>
#include <string>
#include <vector>

#include "formats/vtu/vtu.hpp"
#include "formats/vtu/vtu_common.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "io/vtk/vtk_xml_data.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::vtu {

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  io::vtk_xml::parse_write_settings(options);  // bad options fail first
  // The registry validates too, but this entry point is public and must not trust its input.
  validate(mesh);
  write_validated(path, mesh, options);
}

void write_validated(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  namespace xml = io::vtk_xml;
  const xml::WriteSettings settings = xml::parse_write_settings(options);
  xml::DocumentPlan plan;
  plan.type = "UnstructuredGrid";
  xml::plan_field_data(mesh, plan, plan.field_data);
  xml::PiecePlan& piece = plan.pieces.emplace_back();
  piece.attributes = "NumberOfPoints=\"" + std::to_string(mesh.num_points()) + "\" NumberOfCells=\"" +
                     std::to_string(mesh.num_cells()) + "\"";

  xml::SectionPlan point_data{"PointData", {}, false}, cell_data{"CellData", {}, false};
  xml::SectionPlan points{"Points", {}, false}, cells{"Cells", {}, false};
  xml::plan_point_data(mesh, point_data.arrays);
  std::vector<xml::BlockRows> all_blocks;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) all_blocks.push_back({b, 0, mesh.cells[b].num_cells()});
  xml::plan_cell_data(mesh, all_blocks, plan, cell_data.arrays);
  points.arrays.push_back(xml::plan_points(mesh.points, plan));

  const auto keep = [&plan](NDArray array) { return xml::bytes_of(plan.converted.emplace_back(std::move(array))); };
  if (std::optional<io::VtkCellSegments> stream = io::cells_to_vtk_segments(mesh.cells)) {
    // Each block's connectivity is written from the block itself: no copy of the largest array.
    std::vector<xml::ByteSpan> connectivity;
    for (NDArray& block : stream->connectivity) connectivity.push_back(keep(std::move(block)));
    cells.arrays.push_back(xml::numeric_plan("connectivity", DType::int64, 1, std::move(connectivity)));
    cells.arrays.push_back(xml::numeric_plan("offsets", DType::int64, 1, {keep(std::move(stream->offsets))}));
    cells.arrays.push_back(xml::numeric_plan("types", DType::uint8, 1, {keep(std::move(stream->types))}));
  } else {
    io::VtkCellArrays arrays = io::cells_to_vtk(mesh.cells);
    cells.arrays.push_back(xml::numeric_plan("connectivity", DType::int64, 1, {keep(std::move(arrays.connectivity))}));
    cells.arrays.push_back(xml::numeric_plan("offsets", DType::int64, 1, {keep(std::move(arrays.offsets))}));
    cells.arrays.push_back(xml::numeric_plan("types", DType::uint8, 1, {keep(std::move(arrays.types))}));
    cells.arrays.push_back(xml::numeric_plan("faces", DType::int64, 1, {keep(std::move(arrays.faces))}));
    cells.arrays.push_back(xml::numeric_plan("faceoffsets", DType::int64, 1, {keep(std::move(arrays.face_offsets))}));
  }
  piece.sections.push_back(std::move(point_data));
  piece.sections.push_back(std::move(cell_data));
  piece.sections.push_back(std::move(points));
  piece.sections.push_back(std::move(cells));
  xml::write_document(path, detail::kFormatName, plan, settings);
}

}  // namespace meshioplusplus::vtu
