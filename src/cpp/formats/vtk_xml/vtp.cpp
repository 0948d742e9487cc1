// VTK XML PolyData (.vtp), read and write.
//
// What the format holds: pieces of points with four cell lists — Verts, Lines, Strips and
// Polys, each a connectivity + end-offsets pair — plus point, cell and field data. Cells are
// numbered Verts first, then Lines, Strips, Polys; cell data follows that numbering.
//
// What becomes what on read:
//   Verts  → vertex blocks; a poly-vertex of k points becomes k vertex cells.
//   Lines  → line blocks; a polyline of k points becomes its k-1 segments.
//   Strips → triangle blocks: a strip of k points is the k-2 triangles VTK decomposes it
//            into, every second one flipped so all keep the strip's orientation.
//   Polys  → triangle (3 nodes), quad (4) or polygon blocks, one block per run of cells.
// Cell data of a split cell is repeated for every piece it was split into. Several <Piece>s
// are merged: points concatenated, indices shifted.
//
// Writing needs a mesh of vertex, line, triangle, quad and polygon blocks (PolyData has no
// volume or higher-order cells; such a block is a WriteError naming its type). Blocks are
// written grouped by section (Verts, Lines, Polys), so a mesh whose blocks interleave those
// kinds reads back with its blocks in that order.
#include <algorithm>
#include <array>
#include <initializer_list>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/vtk_xml/vtk_xml.hpp"
#include "formats/vtk_xml/vtk_xml_common.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::vtp {
namespace {

using namespace vtk_xml_detail;
using io::vtk_xml::ArrayPlan;
using io::vtk_xml::ByteSpan;
using io::vtk_xml::DocumentPlan;
using io::vtk_xml::PiecePlan;
using io::vtk_xml::SectionPlan;

constexpr std::string_view kFormatName = "vtp";
constexpr std::array<std::string_view, 1> kTypes{"PolyData"};

enum class Topology { verts, lines, strips, polys };
struct TopologyName {
  Topology topology;
  std::string_view section;
  std::string_view count_attribute;
};
constexpr std::array<TopologyName, 4> kTopologies{{
    {Topology::verts, "Verts", "NumberOfVerts"},
    {Topology::lines, "Lines", "NumberOfLines"},
    {Topology::strips, "Strips", "NumberOfStrips"},
    {Topology::polys, "Polys", "NumberOfPolys"},
}};

constexpr std::uint8_t kVtkVertex = 1, kVtkLine = 3, kVtkTriangle = 5, kVtkQuad = 9;

// A cell list rebuilt as VTK's unstructured stream: types, n+1 starts, int64 connectivity,
// and for each new cell the file cell it came from (empty when nothing was split).
struct Expanded {
  std::vector<std::uint8_t> types;
  std::vector<std::int64_t> starts{0};
  std::vector<std::int64_t> connectivity;
  std::vector<std::int64_t> source;
};

class Reader {
 public:
  explicit Reader(const io::MappedFile& file) : reader_(file, kFormatName) {}

  Mesh read() {
    reader_.scan(kTypes);
    const auto& pieces = reader_.layout().pieces;
    std::vector<std::int64_t> points_per_piece;
    for (const Piece& piece : pieces) points_per_piece.push_back(piece_count(reader_, piece, "NumberOfPoints"));
    Mesh mesh;
    mesh.points = read_points(reader_, points_per_piece);
    read_point_data(reader_, points_per_piece, mesh);
    const Piece* reference = nullptr;
    for (const Piece& piece : pieces)
      if (reference == nullptr && piece_cells(piece) > 0) reference = &piece;
    std::int64_t first_point = 0;
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      std::vector<CellBlock> blocks;
      std::vector<RowSelection> rows;
      std::int64_t base = 0;
      for (const TopologyName& topology : kTopologies) {
        const std::int64_t count = piece_count(reader_, pieces[p], topology.count_attribute);
        read_topology(pieces[p], topology, count, base, points_per_piece[p], blocks, rows);
        base += count;
      }
      if (base > 0) append_cell_data(reader_, pieces[p], base, rows, *reference, mesh);
      shift_point_indices(blocks, first_point);
      for (CellBlock& block : blocks) mesh.cells.push_back(std::move(block));
      first_point += points_per_piece[p];
    }
    reader_.read_field_data(mesh);
    return mesh;
  }

 private:
  std::int64_t piece_cells(const Piece& piece) const {
    std::int64_t total = 0;
    for (const TopologyName& topology : kTopologies) total += piece_count(reader_, piece, topology.count_attribute);
    return total;
  }

  void read_topology(const Piece& piece, const TopologyName& topology, std::int64_t count, std::int64_t base,
                     std::int64_t num_points, std::vector<CellBlock>& blocks, std::vector<RowSelection>& rows) const {
    if (count == 0) return;
    const Section* section = piece.section(topology.section);
    const std::size_t at = section ? section->tag_offset : piece.tag_offset;
    if (section == nullptr)
      reader_.fail(at, "piece has " + std::string(topology.count_attribute) + "=" + std::to_string(count) +
                           " but no <" + std::string(topology.section) + ">");
    const ArrayInfo* connectivity_info = section->find("connectivity");
    const ArrayInfo* offsets_info = section->find("offsets");
    if (connectivity_info == nullptr || offsets_info == nullptr)
      reader_.fail(at, "<" + std::string(topology.section) + "> needs 'connectivity' and 'offsets' arrays");
    const NDArray starts_array = reader_.read_starts(*offsets_info, count);
    const std::span<const std::int64_t> starts = starts_array.values<std::int64_t>();
    // Cells that all have one size (all triangles, all vertices, …) need no splitting, and
    // int64 connectivity of such a list becomes the block's array as it is, as in .vtu.
    const std::int64_t first_size = starts[1] - starts[0];
    const bool one_size = !io::any_in_parallel(static_cast<std::size_t>(count), [starts, first_size](std::size_t c) {
      return starts[c + 1] - starts[c] != first_size;
    });
    bool split = false;
    switch (topology.topology) {
      case Topology::verts: split = !(one_size && first_size == 1); break;
      case Topology::lines: split = !(one_size && first_size == 2); break;
      case Topology::strips: split = true; break;
      case Topology::polys: break;
    }
    const bool kept_as_is = !split && one_size && first_size > 0 && *connectivity_info->dtype == DType::int64 &&
                            (topology.topology != Topology::polys || first_size == 3 || first_size == 4);
    const NDArray connectivity = reader_.read_integer_array(*connectivity_info, starts.back(),
                                                            kept_as_is ? Lifetime::result : Lifetime::scratch);

    io::VtkCellStream stream;
    stream.num_points = num_points;
    stream.connectivity_is_shareable = kept_as_is;
    Expanded expanded;
    std::vector<std::uint8_t> types(static_cast<std::size_t>(count));
    try {
      const auto type_of_size = [&topology](std::int64_t nodes) -> std::uint8_t {
        switch (topology.topology) {
          case Topology::verts: return kVtkVertex;
          case Topology::lines: return kVtkLine;
          default: return nodes == 3 ? kVtkTriangle : nodes == 4 ? kVtkQuad : static_cast<std::uint8_t>(kVtkPolygon);
        }
      };
      if (one_size) {
        std::fill(types.begin(), types.end(), type_of_size(first_size));
      } else if (topology.topology == Topology::polys) {
        io::parallel_ranges(types.size(), std::size_t{1} << 18, [&](std::size_t begin, std::size_t end) {
          for (std::size_t c = begin; c < end; ++c) types[c] = type_of_size(starts[c + 1] - starts[c]);
        });
      }
      if (split) {
        expanded = expand(topology.topology, starts, connectivity);
        stream.types = expanded.types;
        stream.offsets = expanded.starts;
        stream.connectivity = NDArray::allocate_scratch(DType::int64, {static_cast<std::int64_t>(expanded.connectivity.size())});
        if (!expanded.connectivity.empty())
          std::memcpy(stream.connectivity.data(), expanded.connectivity.data(), expanded.connectivity.size() * sizeof(std::int64_t));
      } else {
        stream.types = types;
        stream.offsets = starts;
        stream.connectivity = connectivity;
      }
      io::VtkCells cells = io::cells_from_vtk(stream);
      for (std::size_t b = 0; b < cells.blocks.size(); ++b) {
        const io::CellRun& run = cells.runs[b];
        RowSelection selection;
        if (split) {
          selection.rows.assign(expanded.source.begin() + run.first_cell, expanded.source.begin() + run.first_cell + run.cell_count);
          for (std::int64_t& row : selection.rows) row += base;
        } else {
          selection.first = base + run.first_cell;
          selection.count = run.cell_count;
        }
        blocks.push_back(std::move(cells.blocks[b]));
        rows.push_back(std::move(selection));
      }
    } catch (const io::CellStreamError& error) {
      reader_.fail(at, "<" + std::string(topology.section) + ">: " + error.what());
    }
  }

  Expanded expand(Topology topology, std::span<const std::int64_t> starts, const NDArray& connectivity) const {
    Expanded out;
    std::vector<std::int64_t> ids(connectivity.size());
    visit_dtype(connectivity.dtype(), [&](auto tag) {
      using Index = decltype(tag);
      if constexpr (std::is_integral_v<Index>) {
        const Index* source = static_cast<const Index*>(connectivity.data());
        for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int64_t>(source[i]);
      }
    });
    const auto emit = [&](std::uint8_t type, std::initializer_list<std::int64_t> nodes, std::int64_t cell) {
      out.types.push_back(type);
      out.connectivity.insert(out.connectivity.end(), nodes);
      out.starts.push_back(static_cast<std::int64_t>(out.connectivity.size()));
      out.source.push_back(cell);
    };
    for (std::size_t c = 0; c + 1 < starts.size(); ++c) {
      const std::int64_t* p = ids.data() + starts[c];
      const std::int64_t k = starts[c + 1] - starts[c];
      const auto cell = static_cast<std::int64_t>(c);
      switch (topology) {
        case Topology::verts:
          for (std::int64_t i = 0; i < k; ++i) emit(kVtkVertex, {p[i]}, cell);
          break;
        case Topology::lines:
          for (std::int64_t i = 0; i + 1 < k; ++i) emit(kVtkLine, {p[i], p[i + 1]}, cell);
          break;
        case Topology::strips:
          // VTK's decomposition (vtkTriangleStrip): odd triangles swap their first two nodes.
          for (std::int64_t i = 0; i + 2 < k; ++i) {
            if (i % 2 == 0) emit(kVtkTriangle, {p[i], p[i + 1], p[i + 2]}, cell);
            else emit(kVtkTriangle, {p[i + 1], p[i], p[i + 2]}, cell);
          }
          break;
        case Topology::polys: break;
      }
    }
    return out;
  }

  DataArrayReader reader_;
};

// ------------------------------------------------------------------ writing

Topology topology_of(const CellBlock& block) {
  if (block.type == "vertex") return Topology::verts;
  if (block.type == "line") return Topology::lines;
  if (block.type == "triangle" || block.type == "quad" || block.type == "polygon") return Topology::polys;
  throw std::invalid_argument("VTK PolyData cannot hold '" + block.type +
                              "' cells (only vertex, line, triangle, quad and polygon); write .vtu instead");
}

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormatName);
  io::reject_empty_file(file.bytes(), path, kFormatName);
  return Reader(file).read();
}

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  io::vtk_xml::parse_write_settings(options);  // bad options fail first
  validate(mesh);
  write_validated(path, mesh, options);
}

void write_validated(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const io::vtk_xml::WriteSettings settings = io::vtk_xml::parse_write_settings(options);
  DocumentPlan plan;
  plan.type = "PolyData";
  io::vtk_xml::plan_field_data(mesh, plan, plan.field_data);
  PiecePlan& piece = plan.pieces.emplace_back();

  // Blocks grouped by section, in mesh order within each.
  std::array<std::vector<std::size_t>, 4> by_topology;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b)
    by_topology[static_cast<std::size_t>(topology_of(mesh.cells[b]))].push_back(b);
  std::vector<io::vtk_xml::BlockRows> cell_order;
  std::array<std::int64_t, 4> counts{};
  std::vector<SectionPlan> topology_sections;
  for (const TopologyName& topology : kTopologies) {
    const auto t = static_cast<std::size_t>(topology.topology);
    std::int64_t cells = 0;
    for (std::size_t b : by_topology[t]) {
      cells += mesh.cells[b].num_cells();
      cell_order.push_back({b, 0, mesh.cells[b].num_cells()});
    }
    counts[t] = cells;
    NDArray& offsets = plan.converted.emplace_back(NDArray::allocate(DType::int64, {cells}));
    std::int64_t* out = offsets.data_as<std::int64_t>();
    std::vector<ByteSpan> connectivity;
    std::int64_t written = 0;
    for (std::size_t b : by_topology[t]) {
      const CellBlock& block = mesh.cells[b];
      connectivity.push_back(io::vtk_xml::bytes_of(block.connectivity));
      if (block.is_ragged()) {
        const auto* cell_offsets = block.offsets.data_as<std::int64_t>();
        for (std::int64_t c = 0; c < block.num_cells(); ++c) *out++ = written + cell_offsets[c + 1];
      } else {
        const std::int64_t width = block.connectivity.row_width();
        for (std::int64_t c = 0; c < block.num_cells(); ++c) *out++ = written + (c + 1) * width;
      }
      written += static_cast<std::int64_t>(block.connectivity.size());
    }
    SectionPlan section{std::string(topology.section), {}, false};
    section.arrays.push_back(io::vtk_xml::numeric_plan("connectivity", DType::int64, 1, std::move(connectivity)));
    section.arrays.push_back(io::vtk_xml::numeric_plan("offsets", DType::int64, 1, {io::vtk_xml::bytes_of(offsets)}));
    topology_sections.push_back(std::move(section));
  }
  piece.attributes = "NumberOfPoints=\"" + std::to_string(mesh.num_points()) + "\" NumberOfVerts=\"" +
                     std::to_string(counts[0]) + "\" NumberOfLines=\"" + std::to_string(counts[1]) +
                     "\" NumberOfStrips=\"0\" NumberOfPolys=\"" + std::to_string(counts[3]) + "\"";
  SectionPlan point_data{"PointData", {}, false}, cell_data{"CellData", {}, false}, points{"Points", {}, false};
  io::vtk_xml::plan_point_data(mesh, point_data.arrays);
  io::vtk_xml::plan_cell_data(mesh, cell_order, plan, cell_data.arrays);
  points.arrays.push_back(io::vtk_xml::plan_points(mesh.points, plan));
  piece.sections.push_back(std::move(point_data));
  piece.sections.push_back(std::move(cell_data));
  piece.sections.push_back(std::move(points));
  for (SectionPlan& section : topology_sections) piece.sections.push_back(std::move(section));
  io::vtk_xml::write_document(path, kFormatName, plan, settings);
}

}  // namespace meshioplusplus::vtp
