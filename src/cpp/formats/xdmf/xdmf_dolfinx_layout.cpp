// The DOLFINx layout of the XDMF writer: the mesh reduced to what DOLFINx's XDMF reader takes.
// DOLFINx (cpp/dolfinx/io/XDMFFile.cpp, xdmf_utils.cpp, xdmf_mesh.cpp) reads
//   read_mesh(name)      the Grid of that Name under /Xdmf/Domain: its Geometry (XY or XYZ) and
//                        its Topology, which must be ONE cell type (TopologyType from a fixed
//                        table: Polyvertex, Polyline, Edge_3, Triangle(_6), Quadrilateral(_8/_9),
//                        Tetrahedron(_10), Hexahedron(_20/_27), Wedge), nodes in VTK order;
//   read_meshtags(mesh, name, attribute_name=None)
//                        that Grid's Topology (entities by node indices of the mesh's Geometry,
//                        VTK order) and its first Cell Attribute (or the one named), read as int32;
// heavy data as HDF or XML (not Binary). So, as the meshio recipe FEniCS users paste:
//   <path>              Grid "Grid": all points, the cells of the top dimension (several blocks
//                        of that one type concatenated in block order), their tags;
//   <stem>_facets.xdmf  Grid "Grid": the same points (the same HDF5 dataset), the cells of
//                        dimension top - 1, their tags — what read_meshtags gives as facet tags.
// Our cell model's node order is VTK's, which DOLFINx permutes to its own on read (tetra10,
// triangle6 included), so connectivity is written as it is.
// Tags (option tags): a cell-data array (default "gmsh:physical"), "regions" (Cell regions:
// each region's cells get its tag, or its 1-based position among the Cell regions when it has
// none; a later region wins where regions overlap; untagged cells 0), or "none". The default
// falls back to the Cell regions, then to no tags, when the mesh has no "gmsh:physical".
// prune_z: "auto" drops z when every |z| < 1e-13 (mesh_ops' prune_z_0), "true" always,
// "false" never.
#include "formats/xdmf/xdmf_dolfinx_layout.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <string_view>

#include "formats/xdmf/xdmf_document.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh_ops.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus::xdmf {
namespace {

// Our names of the types DOLFINx's xdmf_utils::get_cell_type knows (its TopologyType table).
constexpr std::string_view kDolfinxTypes[] = {"vertex",       "line",         "line3", "triangle", "triangle6",
                                              "quad",         "quad8",        "quad9", "tetra",    "tetra10",
                                              "hexahedron",   "hexahedron20", "hexahedron27", "wedge"};

// The types whose nodes are their corners: a Side region's facet is its corners' nodes.
constexpr std::string_view kFirstOrderTypes[] = {"line", "triangle", "quad", "tetra", "pyramid", "wedge", "hexahedron"};

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

WriteError error(const std::string& path, const std::string& message) {
  return WriteError(path, std::string(kFormat), "layout=dolfinx: " + message);
}

int dimension_of(const std::string& path, const CellBlock& block) {
  const CellTypeInfo* info = find_cell_type(block.type);
  if (info == nullptr) throw error(path, "unknown cell type '" + block.type + "'");
  return info->dimension;
}

// The non-empty blocks of dimension `dim`, which must all be one type DOLFINx reads.
std::vector<std::size_t> blocks_of_dimension(const std::string& path, const Mesh& mesh, int dim) {
  std::vector<std::size_t> blocks;
  std::set<std::string> types;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b)
    if (mesh.cells[b].num_cells() > 0 && dimension_of(path, mesh.cells[b]) == dim) {
      blocks.push_back(b);
      types.insert(mesh.cells[b].type);
    }
  if (types.size() > 1) {
    std::string names;
    for (const std::string& type : types) names += (names.empty() ? "" : ", ") + type;
    throw error(path, "DOLFINx needs one cell type per mesh (and per meshtags file), but the mesh's " +
                          std::to_string(dim) + "-D cells are " + names +
                          "; split it into one mesh per type or convert the cells first");
  }
  if (!types.empty() && std::ranges::find(kDolfinxTypes, *types.begin()) == std::end(kDolfinxTypes))
    throw error(path, "DOLFINx's XDMF reader has no cell type for '" + *types.begin() + "'");
  return blocks;
}

// Rows of `arrays[b]` for b in `blocks`, one after the other (the array itself for one block).
NDArray concatenated(const std::vector<const NDArray*>& arrays) {
  if (arrays.size() == 1) return *arrays[0];
  DType dtype = arrays[0]->dtype();
  for (const NDArray* array : arrays)
    if (array->dtype() != dtype) dtype = DType::int64;
  Shape shape = arrays[0]->shape();
  shape[0] = 0;
  for (const NDArray* array : arrays) shape[0] += array->rows();
  NDArray out = NDArray::allocate(dtype, shape);
  auto* to = static_cast<char*>(out.data());
  for (const NDArray* array : arrays) {
    const NDArray same = array->dtype() == dtype ? *array : array->astype(dtype);
    if (same.nbytes()) std::memcpy(to, same.data(), same.nbytes());
    to += same.nbytes();
  }
  return out;
}

// Per-cell tags over all of the mesh's cells (block-major), from its Cell regions.
NDArray region_tags(const std::string& path, const Mesh& mesh) {
  NDArray tags = NDArray::zeros(DType::int32, {mesh.num_cells()});
  std::int32_t* values = tags.data_as<std::int32_t>();
  std::int64_t position = 0;
  for (const Region& region : mesh.regions) {
    if (region.kind != RegionKind::Cell) continue;
    ++position;
    const std::int64_t tag = region.tag >= 0 ? region.tag : position;
    if (tag > std::numeric_limits<std::int32_t>::max())
      throw error(path, "region '" + region.name + "' has tag " + std::to_string(tag) + ", past DOLFINx's int32 tags");
    const NDArray entries = region.entries.astype(DType::int64);
    for (std::int64_t cell : entries.values<std::int64_t>()) {
      if (cell < 0 || cell >= mesh.num_cells())
        throw error(path, "region '" + region.name + "' names cell " + std::to_string(cell) + " of " +
                              std::to_string(mesh.num_cells()));
      values[cell] = static_cast<std::int32_t>(tag);
    }
  }
  return tags;
}

class TagSource {
 public:
  TagSource(const std::string& path, const Mesh& mesh, std::string_view option) : path_(path), mesh_(mesh) {
    const bool has_cell_regions =
        std::ranges::any_of(mesh.regions, [](const Region& region) { return region.kind == RegionKind::Cell; });
    if (option == "none") return;
    if (option == "regions" || (option == kDefault && !mesh.cell_data.find(option) && has_cell_regions)) {
      all_cells_ = region_tags(path, mesh);
      bases_ = block_bases(mesh.cells);
      kind_ = Kind::regions;
    } else if (const std::vector<NDArray>* arrays = mesh.cell_data.find(option)) {
      name_ = std::string(option);
      arrays_ = arrays;
      kind_ = Kind::cell_data;
    } else if (option != kDefault) {
      std::string names;
      for (const auto& [name, unused] : mesh.cell_data) names += (names.empty() ? "" : ", ") + name;
      throw error(path, "no cell data '" + std::string(option) + "' to take tags from (cell data: " +
                            (names.empty() ? "none" : names) + "; or tags=\"regions\" or \"none\")");
    }
  }

  bool present() const { return kind_ != Kind::none; }

  // The tags of blocks `blocks`, concatenated.
  NDArray of(const std::vector<std::size_t>& blocks) const {
    if (kind_ == Kind::regions) {
      std::int64_t total = 0;
      for (std::size_t b : blocks) total += mesh_.cells[b].num_cells();
      NDArray out = NDArray::allocate(DType::int32, {total});
      std::int32_t* to = out.data_as<std::int32_t>();
      for (std::size_t b : blocks)
        to = std::copy_n(all_cells_.data_as<std::int32_t>() + bases_.data_as<std::int64_t>()[b], mesh_.cells[b].num_cells(), to);
      return out;
    }
    if (arrays_->size() != mesh_.cells.size())
      throw error(path_, "cell data '" + name_ + "' has " + std::to_string(arrays_->size()) + " arrays for " +
                             std::to_string(mesh_.cells.size()) + " cell blocks");
    std::vector<const NDArray*> parts;
    for (std::size_t b : blocks) {
      const NDArray& array = (*arrays_)[b];
      if (dtype_is_float(array.dtype()) || array.row_width() != 1 || array.rows() != mesh_.cells[b].num_cells())
        throw error(path_, "cell data '" + name_ + "' is not one integer per cell (block " + std::to_string(b) +
                               ", " + mesh_.cells[b].type + ")");
      parts.push_back(&array);
    }
    return concatenated(parts);
  }

 private:
  static constexpr std::string_view kDefault = "gmsh:physical";
  enum class Kind { none, cell_data, regions };
  const std::string& path_;
  const Mesh& mesh_;
  Kind kind_ = Kind::none;
  std::string name_;
  const std::vector<NDArray>* arrays_ = nullptr;
  NDArray all_cells_, bases_;
};

// One block of type `blocks[0]`'s holding the cells of all `blocks`, with their tags.
Mesh grid_of(const Mesh& mesh, const std::vector<std::size_t>& blocks, const TagSource& tags,
             const std::string& attribute_name) {
  Mesh grid;
  std::vector<const NDArray*> connectivity;
  for (std::size_t b : blocks) connectivity.push_back(&mesh.cells[b].connectivity);
  CellBlock block;
  block.type = mesh.cells[blocks.front()].type;
  block.connectivity = concatenated(connectivity);
  grid.cells.push_back(std::move(block));
  if (tags.present()) grid.cell_data.set(attribute_name, {tags.of(blocks)});
  return grid;
}

// The facets Side regions name ((cell, local facet) pairs, side_regions.hpp's numbering), each
// once (a facet two cells share, or several regions name, keeps the last region's tag), as one
// block of the facet type with the regions' tags (a region's tag, or its 1-based position among
// the Side regions). First-order cells only: a facet of a tetra10 would need its edge nodes.
std::optional<Mesh> facets_of_side_regions(const std::string& path, const Mesh& mesh, const std::string& attribute_name) {
  const NDArray bases = block_bases(mesh.cells);
  const std::int64_t* base = bases.data_as<std::int64_t>();
  std::map<std::array<std::int64_t, 4>, std::size_t> seen;  // sorted corners → row
  std::vector<std::array<std::int64_t, 4>> rows;
  std::vector<std::int32_t> tags;
  int corners_per_facet = 0;
  std::int64_t position = 0;
  for (const Region& region : mesh.regions) {
    if (region.kind != RegionKind::Side) continue;
    ++position;
    const std::int64_t tag = region.tag >= 0 ? region.tag : position;
    if (tag > std::numeric_limits<std::int32_t>::max())
      throw error(path, "region '" + region.name + "' has tag " + std::to_string(tag) + ", past DOLFINx's int32 tags");
    const NDArray entries = region.entries.astype(DType::int64);
    if (entries.ndim() != 2 || entries.dim(1) != 2) throw error(path, "side region '" + region.name + "' is not (cell, facet) pairs");
    const std::int64_t* pair = entries.data_as<std::int64_t>();
    for (std::int64_t i = 0; i < entries.rows(); ++i, pair += 2) {
      if (pair[0] < 0 || pair[0] >= mesh.num_cells())
        throw error(path, "side region '" + region.name + "' names cell " + std::to_string(pair[0]));
      const std::size_t b = static_cast<std::size_t>(std::upper_bound(base, base + mesh.cells.size() + 1, pair[0]) - base - 1);
      const CellBlock& block = mesh.cells[b];
      const auto facets = cell_facets(block.type);
      if (std::ranges::find(kFirstOrderTypes, block.type) == std::end(kFirstOrderTypes) || pair[1] < 0 ||
          pair[1] >= static_cast<std::int64_t>(facets.size()))
        throw error(path, "side region '" + region.name + "': no facet " + std::to_string(pair[1]) + " of a " + block.type +
                              " cell to write (first-order cells only)");
      const FacetCorners& facet = facets[static_cast<std::size_t>(pair[1])];
      if (corners_per_facet != 0 && corners_per_facet != facet.count)
        throw error(path, "DOLFINx needs one facet type per meshtags file, but the side regions name facets of " +
                              std::to_string(corners_per_facet) + " and " + std::to_string(facet.count) + " corners");
      corners_per_facet = facet.count;
      const NDArray& connectivity = block.connectivity;
      const std::int64_t cell = pair[0] - base[b];
      std::array<std::int64_t, 4> row{-1, -1, -1, -1};
      visit_dtype(connectivity.dtype(), [&](auto zero) {
        const auto* nodes = connectivity.data_as<decltype(zero)>() + cell * connectivity.row_width();
        for (int k = 0; k < facet.count; ++k) row[static_cast<std::size_t>(k)] = static_cast<std::int64_t>(nodes[facet.corners[static_cast<std::size_t>(k)]]);
      });
      std::array<std::int64_t, 4> key = row;
      std::sort(key.begin(), key.begin() + facet.count);
      const auto [where, added] = seen.emplace(key, rows.size());
      if (added) {
        rows.push_back(row);
        tags.push_back(static_cast<std::int32_t>(tag));
      } else {
        tags[where->second] = static_cast<std::int32_t>(tag);
      }
    }
  }
  if (rows.empty()) return std::nullopt;
  static constexpr std::string_view kFacetType[] = {"", "vertex", "line", "triangle", "quad"};
  Mesh grid;
  CellBlock block;
  block.type = std::string(kFacetType[corners_per_facet]);
  block.connectivity = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(rows.size()), corners_per_facet});
  std::int64_t* out = block.connectivity.data_as<std::int64_t>();
  for (const auto& row : rows) out = std::copy_n(row.begin(), corners_per_facet, out);
  grid.cells.push_back(std::move(block));
  NDArray values = NDArray::allocate(DType::int32, {static_cast<std::int64_t>(tags.size())});
  std::copy(tags.begin(), tags.end(), values.data_as<std::int32_t>());
  grid.cell_data.set(attribute_name, {std::move(values)});
  return grid;
}

}  // namespace

bool wants_dolfinx_layout(const std::string& path, const WriteOptions& options) {
  const std::string layout = lowered(options.get("layout", "meshio"));
  if (layout == "dolfinx") return true;
  if (layout == "meshio" || layout == "none") return false;
  throw WriteError(path, std::string(kFormat), "unknown layout '" + std::string(options.get("layout", "")) + "' (meshio or dolfinx)");
}

DolfinxGrids dolfinx_grids(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  int top = -1;
  for (const CellBlock& block : mesh.cells)
    if (block.num_cells() > 0) top = std::max(top, dimension_of(path, block));
  if (top < 0) throw error(path, "the mesh has no cells");
  const std::vector<std::size_t> cell_blocks = blocks_of_dimension(path, mesh, top);
  const std::vector<std::size_t> facet_blocks = top > 0 ? blocks_of_dimension(path, mesh, top - 1) : std::vector<std::size_t>{};

  const TagSource tags(path, mesh, options.get("tags", "gmsh:physical"));
  const std::string attribute_name(options.get("attribute_name", "name_to_read"));
  if (attribute_name.empty()) throw error(path, "attribute_name is empty");

  DolfinxGrids grids;
  grids.cells = grid_of(mesh, cell_blocks, tags, attribute_name);
  grids.cells.points = mesh.points;
  const std::string prune = lowered(options.get("prune_z", "auto"));
  if (prune == "auto" || prune == "none") prune_z_0(grids.cells);
  else if (prune == "true" || prune == "1" || prune == "yes") prune_z_0(grids.cells, std::numeric_limits<double>::infinity());
  else if (prune != "false" && prune != "0" && prune != "no")
    throw error(path, "prune_z is '" + std::string(options.get("prune_z", "")) + "' (auto, true or false)");

  if (facet_blocks.empty() && options.get("tags", "gmsh:physical") != "none")
    grids.facets = facets_of_side_regions(path, mesh, attribute_name);
  else if (!facet_blocks.empty())
    grids.facets = grid_of(mesh, facet_blocks, tags, attribute_name);
  if (grids.facets) {
    grids.facets->points = grids.cells.points;
    const std::filesystem::path where(path);
    grids.facets_path = (where.parent_path() / (where.stem().string() + "_facets" + where.extension().string())).string();
  }
  return grids;
}

}  // namespace meshioplusplus::xdmf
