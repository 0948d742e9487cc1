#include "formats/medit/medit_sections.hpp"

#include <array>
#include <cctype>
#include <map>
#include <string>
#include <utility>

#include "io/source/read_limits.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::medit::detail {
namespace {

constexpr std::array kElementSections{
    ElementSection{"Edges", 5, "line", 2},
    ElementSection{"Triangles", 6, "triangle", 3},
    ElementSection{"Quadrilaterals", 7, "quad", 4},
    ElementSection{"Tetrahedra", 8, "tetra", 4},
    ElementSection{"Prisms", 9, "wedge", 6},
    ElementSection{"Hexahedra", 10, "hexahedron", 8},
    ElementSection{"Pyramids", 49, "pyramid", 5},
    ElementSection{"EdgesP2", 25, "line3", 3},
    ElementSection{"TrianglesP2", 24, "triangle6", 6},
    ElementSection{"TetrahedraP2", 30, "tetra10", 10},
};

// Record widths from libMeshb's keyword table for the sections worth stepping over exactly;
// anything else is skipped up to the next keyword. The last group are high-order element
// sections whose node order libMeshb leaves open (see medit.hpp), plus the legacy Medit
// names meshio also skips.
constexpr std::array kSkippedSections{
    SkippedSection{"Corners", 1},
    SkippedSection{"Ridges", 1},
    SkippedSection{"RequiredVertices", 1},
    SkippedSection{"RequiredEdges", 1},
    SkippedSection{"RequiredTriangles", 1},
    SkippedSection{"RequiredQuadrilaterals", 1},
    SkippedSection{"TangentAtEdgeVertices", 3},
    SkippedSection{"NormalAtVertices", 2},
    SkippedSection{"NormalAtTriangleVertices", 3},
    SkippedSection{"NormalAtQuadrilateralVertices", 4},
    SkippedSection{"TangentAtVertices", 2},
    SkippedSection{"Normals", 0, 1},
    SkippedSection{"Tangents", 0, 1},
    SkippedSection{"SubDomainFromGeom", 3},
    SkippedSection{"SubDomainFromMesh", 4},
    SkippedSection{"VerticesOnGeometricVertices", 2},
    SkippedSection{"VerticesOnGeometricEdges", 4},
    SkippedSection{"VerticesOnGeometricTriangles", 5},
    SkippedSection{"VerticesOnGeometricQuadrilaterals", 5},
    SkippedSection{"EdgesOnGeometricEdges", 2},
    SkippedSection{"VertexOnGeometricVertex", 2},
    SkippedSection{"VertexOnGeometricEdge", 3},
    SkippedSection{"EdgeOnGeometricEdge", 2},
    SkippedSection{"Comments", 0, 0, true},
    SkippedSection{"QuadrilateralsQ2", 10},
    SkippedSection{"PrismsP2", 19},
    SkippedSection{"PyramidsP2", 15},
    SkippedSection{"HexahedraQ2", 28},
    SkippedSection{"EdgesP3", 5},
    SkippedSection{"TrianglesP3", 11},
    SkippedSection{"TetrahedraP3", 21},
};

std::int64_t value_at(const NDArray& integers, std::int64_t i) {
  return integers.dtype() == DType::int32 ? integers.data_as<std::int32_t>()[i]
                                          : integers.data_as<std::int64_t>()[i];
}

[[noreturn]] void fail_in_block(const std::string& path, const ParsedBlock& block, const std::string& message) {
  std::optional<std::uint64_t> line;
  if (!block.text.empty()) line = io::line_of_offset(block.text, block.offset);  // counted only now: errors are rare
  throw ReadError(path, "medit", std::string(block.section->keyword) + ": " + message, block.offset, line);
}

void check_node_indices(const ParsedBlock& block, std::int64_t num_points, const std::string& path) {
  const auto ids = block.connectivity.values<std::int64_t>();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= 0 && ids[i] < num_points) continue;
    const std::int64_t element = static_cast<std::int64_t>(i) / block.section->num_nodes;
    fail_in_block(path, block,
                  "element " + std::to_string(element + 1) + " refers to vertex " + std::to_string(io::one_based(ids[i])) +
                      ", but the mesh has " + std::to_string(num_points) + " vertices");
  }
}

// One Cell region per (dimension, non-zero ref), ascending by dimension then ref.
std::vector<Region> ref_regions(const std::vector<ParsedBlock>& blocks) {
  std::map<std::pair<int, std::int64_t>, std::vector<std::int64_t>> members;
  std::int64_t first_cell = 0;
  for (const ParsedBlock& block : blocks) {
    const int dim = cell_type(block.section->cell_type).dimension;
    const std::int64_t count = block.refs.rows();
    // Refs come in runs (often one for the whole block): look the list up once per run.
    std::int64_t last_ref = 0;
    std::vector<std::int64_t>* cells = nullptr;
    for (std::int64_t row = 0; row < count; ++row) {
      const std::int64_t ref = value_at(block.refs, row);
      if (ref == 0) continue;
      if (cells == nullptr || ref != last_ref) {
        cells = &members[{dim, ref}];
        last_ref = ref;
      }
      cells->push_back(first_cell + row);
    }
    first_cell += count;
  }
  std::map<std::int64_t, int> dims_per_ref;
  for (const auto& entry : members) ++dims_per_ref[entry.first.second];

  std::vector<Region> regions;
  regions.reserve(members.size());
  for (const auto& [key, cells] : members) {
    const auto [dim, ref] = key;
    Region region;
    region.name = "medit:ref " + std::to_string(ref);
    if (dims_per_ref[ref] > 1) region.name += ", dim " + std::to_string(dim);
    region.kind = RegionKind::Cell;
    region.dim = dim;
    region.tag = ref;
    region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(cells.size())});
    std::copy(cells.begin(), cells.end(), region.entries.data_as<std::int64_t>());
    regions.push_back(std::move(region));
  }
  return regions;
}

}  // namespace

bool equals_ignoring_case(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

const ElementSection* element_section_by_keyword(std::string_view keyword) noexcept {
  if (equals_ignoring_case(keyword, "Hexaedra")) keyword = "Hexahedra";
  for (const ElementSection& section : kElementSections)
    if (equals_ignoring_case(section.keyword, keyword)) return &section;
  return nullptr;
}

const ElementSection* element_section_by_code(int code) noexcept {
  for (const ElementSection& section : kElementSections)
    if (section.code == code) return &section;
  return nullptr;
}

const ElementSection* element_section_for_cell_type(std::string_view cell_type) noexcept {
  for (const ElementSection& section : kElementSections)
    if (section.cell_type == cell_type) return &section;
  return nullptr;
}

const SkippedSection* skipped_section_by_keyword(std::string_view keyword) noexcept {
  for (const SkippedSection& section : kSkippedSections)
    if (equals_ignoring_case(section.keyword, keyword)) return &section;
  return nullptr;
}

Mesh assemble(ParsedMesh parsed, const std::string& path) {
  const std::int64_t num_points = parsed.points.rows();
  for (const ParsedBlock& block : parsed.blocks) check_node_indices(block, num_points, path);

  Mesh mesh;
  mesh.points = std::move(parsed.points);
  mesh.point_data.set("medit:ref", std::move(parsed.point_refs));
  mesh.regions = ref_regions(parsed.blocks);
  std::vector<NDArray> cell_refs;
  cell_refs.reserve(parsed.blocks.size());
  for (ParsedBlock& block : parsed.blocks) {
    mesh.cells.push_back(CellBlock{std::string(block.section->cell_type), std::move(block.connectivity), {}, {}});
    cell_refs.push_back(std::move(block.refs));
  }
  mesh.cell_data.set("medit:ref", std::move(cell_refs));
  return mesh;
}

}  // namespace meshioplusplus::medit::detail
