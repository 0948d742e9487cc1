// /NASTRAN/INPUT of an MSC Nastran HDF5 file -> points, cells, ids and property regions.
//
// Every table is a 1-D dataset of records (HDF5 compound types), read one member at a time
// through io::hdf5::File::read_member. GRID: ID, CP, X[3], CD, PS, SEID, DOMAIN_ID. Element
// tables: EID, then PID (not CONROD, whose second field is a material), then the grid ids as
// an array member G[n] (CTRIA3, CQUAD4, CHEXA, CROD …) or as scalars GA/GB (CBAR, CBEAM) or
// G1/G2 (CONROD); what each card becomes is io/cells/nastran_element_types.hpp's table.
#include <algorithm>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "formats/nastran_h5/nastran_h5_internal.hpp"
#include "io/cells/nastran_blocks.hpp"
#include "io/cells/nastran_element_types.hpp"
#include "io/cells/node_orders.hpp"
#include "io/geometry/nastran_coordinates.hpp"

namespace meshioplusplus::nastran_h5::detail {
namespace {

constexpr std::string_view kGrid = "/NASTRAN/INPUT/NODE/GRID";
constexpr std::string_view kElements = "/NASTRAN/INPUT/ELEMENT";
constexpr std::string_view kCoordinateSystems = "/NASTRAN/INPUT/COORDINATE_SYSTEM";

using BlockBuilder = io::NastranBlock;

NDArray int64_array(const std::vector<std::int64_t>& values, Shape shape) {
  NDArray array = NDArray::allocate(DType::int64, std::move(shape));
  std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
  return array;
}

bool has(const std::vector<std::string>& members, std::string_view name) {
  return std::find(members.begin(), members.end(), name) != members.end();
}

// The grid ids of a card's rows as (rows, width): G[n], or GA/GB, or G1/G2 side by side.
NDArray grid_ids(const io::hdf5::File& file, const std::string& path, const std::vector<std::string>& members,
                 std::int64_t rows) {
  if (has(members, "G")) {
    NDArray g = file.read_member(path, "G", DType::int64);
    if (g.ndim() == 1) g = g.reshaped({rows, 1});
    if (g.ndim() != 2) file.fail(path, "member G has the shape " + shape_text(g.shape()) + ", expected (rows, nodes)");
    return g;
  }
  for (const auto& [a, b] : {std::pair{"GA", "GB"}, std::pair{"G1", "G2"}})
    if (has(members, a) && has(members, b)) {
      const NDArray first = file.read_member(path, a, DType::int64);
      const NDArray second = file.read_member(path, b, DType::int64);
      NDArray g = NDArray::allocate(DType::int64, {rows, 2});
      auto* out = g.data_as<std::int64_t>();
      for (std::int64_t i = 0; i < rows; ++i) {
        out[2 * i] = first.data_as<std::int64_t>()[i];
        out[2 * i + 1] = second.data_as<std::int64_t>()[i];
      }
      return g;
    }
  file.fail(path, "the records name no grids (no member G, GA/GB or G1/G2)");
}

void read_card(const io::hdf5::File& file, const io::NastranElementType& type, const std::string& path,
               const io::IdMap& grids, std::vector<BlockBuilder>& blocks) {
  const std::vector<std::string> members = file.member_names(path);
  const NDArray eids = file.read_member(path, "EID", DType::int64);
  const std::int64_t rows = eids.shape()[0];
  NDArray pids;
  if (type.has_property) pids = file.read_member(path, "PID", DType::int64);
  const NDArray g = grid_ids(file, path, members, rows);
  const std::int64_t width = g.shape()[1];
  const int full = type.shapes[0].nodes, linear = type.shapes[1].nodes;
  if (width < full && !(linear != 0 && width == linear))
    file.fail(path, "the records hold " + std::to_string(width) + " grid ids, " + std::string(type.card) + " needs " +
                        std::to_string(full));
  const auto* ids = g.data_as<std::int64_t>();
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t* row = ids + i * width;
    const io::NastranCellShape& shape =
        io::nastran_cell_shape(type, [&](int k) { return k < width ? row[k] : std::int64_t{0}; });
    auto block = std::find_if(blocks.begin(), blocks.end(), [&](const BlockBuilder& b) { return b.type == shape.cell; });
    if (block == blocks.end()) {
      blocks.push_back({std::string(shape.cell), shape.nodes, {}, {}, {}});
      block = blocks.end() - 1;
    }
    const std::span<const std::int8_t> order = io::vertical_edges_before_top_order(shape.cell);
    for (int k = 0; k < shape.nodes; ++k) {
      const std::int64_t id = row[order.empty() ? k : order[static_cast<std::size_t>(k)]];
      const std::int64_t point = grids.find(id);
      if (point < 0)
        file.fail(path, "element " + std::to_string(eids.data_as<std::int64_t>()[i]) + " names grid " +
                            std::to_string(id) + ", which " + std::string(kGrid) + " lacks");
      block->connectivity.push_back(point);
    }
    block->element_ids.push_back(eids.data_as<std::int64_t>()[i]);
    block->properties.push_back(type.has_property ? pids.data_as<std::int64_t>()[i] : 0);
  }
}

// /NASTRAN/INPUT/COORDINATE_SYSTEM/CORD2R|C|S (CID, RID, A1 … C3) and CORD1R|C|S (CID, G1,
// G2, G3): the systems GRIDs are given in.
std::vector<io::NastranCoordinateSystem> read_coordinate_systems(const io::hdf5::File& file) {
  using Kind = io::NastranCoordinateKind;
  std::vector<io::NastranCoordinateSystem> systems;
  const std::pair<std::string_view, Kind> kinds[] = {{"R", Kind::rectangular}, {"C", Kind::cylindrical}, {"S", Kind::spherical}};
  for (const auto& [letter, kind] : kinds) {
    for (const bool by_grids : {false, true}) {
      const std::string path = std::string(kCoordinateSystems) + (by_grids ? "/CORD1" : "/CORD2") + std::string(letter);
      if (file.kind(path) != io::hdf5::ObjectKind::dataset) continue;
      const NDArray cid = file.read_member(path, "CID", DType::int64);
      const auto count = static_cast<std::size_t>(cid.shape()[0]);
      std::vector<NDArray> columns;
      for (const char* member : by_grids ? std::vector<const char*>{"G1", "G2", "G3"}
                                         : std::vector<const char*>{"RID", "A1", "A2", "A3", "B1", "B2", "B3", "C1", "C2", "C3"})
        columns.push_back(file.read_member(path, member, by_grids || std::string_view(member) == "RID" ? DType::int64 : DType::float64));
      for (const NDArray& column : columns)
        if (static_cast<std::size_t>(column.shape()[0]) != count) file.fail(path, "members of different lengths");
      for (std::size_t i = 0; i < count; ++i) {
        io::NastranCoordinateSystem system;
        system.id = cid.data_as<std::int64_t>()[i];
        system.kind = kind;
        system.by_grids = by_grids;
        if (by_grids) {
          for (std::size_t k = 0; k < 3; ++k) system.grids[k] = columns[k].data_as<std::int64_t>()[i];
        } else {
          system.reference = columns[0].data_as<std::int64_t>()[i];
          for (std::size_t k = 0; k < 9; ++k) system.points[k] = columns[k + 1].data_as<double>()[i];
        }
        systems.push_back(system);
      }
    }
  }
  return systems;
}

}  // namespace

Model read_model(const io::hdf5::File& file) {
  if (file.kind("/NASTRAN") != io::hdf5::ObjectKind::group)
    file.fail("/NASTRAN", "not an MSC Nastran HDF5 file (no /NASTRAN group)");
  if (file.kind(kGrid) != io::hdf5::ObjectKind::dataset)
    file.fail(kGrid, "the file holds no grids (the table is missing)");
  Model model;
  const std::string grid(kGrid);
  const NDArray ids_array = file.read_member(grid, "ID", DType::int64);
  const NDArray cp = file.read_member(grid, "CP", DType::int64);
  NDArray xyz = file.read_member(grid, "X", DType::float64);
  const std::int64_t n = ids_array.shape()[0];
  if (xyz.shape() != Shape{n, 3}) file.fail(grid, "member X has the shape " + shape_text(xyz.shape()) + ", expected (n, 3)");
  const auto* id = ids_array.data_as<std::int64_t>();
  std::vector<std::int64_t> ids(id, id + n);
  if (const auto repeated = model.grids.build(ids)) file.fail(grid, "GRID " + std::to_string(ids[*repeated]) + " is given twice");
  const std::span<const std::int64_t> cps(cp.data_as<std::int64_t>(), static_cast<std::size_t>(n));
  const bool local = std::any_of(cps.begin(), cps.end(), [](std::int64_t c) { return c != 0; });
  if (local) {
    // Placed in basic, as the OP2 reader places them; "nastran:cp" keeps the system given.
    const std::string why = io::nastran_positions_to_basic(
        read_coordinate_systems(file), ids, cps, {xyz.data_as<double>(), static_cast<std::size_t>(3 * n)});
    if (!why.empty()) file.fail(grid, why);
  }
  Mesh& mesh = model.mesh;
  mesh.points = std::move(xyz);
  mesh.point_data.append_new("nastran:grid_id", int64_array(ids, {n}));
  if (local) mesh.point_data.append_new("nastran:cp", int64_array(std::vector<std::int64_t>(cps.begin(), cps.end()), {n}));

  std::vector<BlockBuilder> blocks;
  if (file.kind(kElements) == io::hdf5::ObjectKind::group)
    for (const std::string& card : file.children(kElements)) {
      const io::NastranElementType* type = io::nastran_element_type(card);
      const std::string path = std::string(kElements) + "/" + card;
      if (type == nullptr || file.kind(path) != io::hdf5::ObjectKind::dataset) continue;
      read_card(file, *type, path, model.grids, blocks);
    }
  io::NastranElements elements = io::add_nastran_blocks(blocks, mesh);
  if (const auto repeated = model.elements.build(elements.ids))
    file.fail(kElements, "element " + std::to_string(elements.ids[*repeated]) + " is given twice");
  model.element_block = std::move(elements.block);
  model.element_row = std::move(elements.row);
  return model;
}

}  // namespace meshioplusplus::nastran_h5::detail
