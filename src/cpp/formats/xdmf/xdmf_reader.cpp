// XDMF reader. What becomes what:
//   <Geometry> (XYZ, XY, X_Y_Z, X_Y)                    → points (n, 3) / (n, 2)
//   <Topology> of one type                               → one cell block
//   2D/3D SMesh, RectMesh (VXVY[VZ]), CoRectMesh         → points x fastest + one block of quads /
//     (ORIGIN_DXDY[DZ], listed slowest axis first)         hexahedra in VTK's order; (nz, ny, nx …)
//                                                          attributes flattened to rows
//   <Topology Type="Mixed">                              → one block per run of equal types
//                                                          (Polygon runs → a ragged polygon block,
//                                                          id 16 runs → a polyhedron block)
//   <Topology Type="Polyhedron"> (face streams)          → one polyhedron block (xdmf_polyhedra.hpp)
//   <Attribute Center="Node|Cell|Grid">                  → point_data / cell_data (split over the
//                                                          blocks) / field_data
//   <Attribute ItemType="FiniteElementFunction">         → CG1 → point_data, DG0 → cell data, other
//     (DOLFIN's write_checkpoint: dof map + values)        spaces → field_data with their dof maps
//                                                          (xdmf_fe_function.cpp)
//   <Information> holding <map key= dim=>tag</map>       → field_data[key] = [tag, dim] (meshio)
//   Grid Collection Temporal                             → read(): the first step's mesh and data;
//                                                          open_time_series(): every step, lazily;
//                                                          times from each step's <Time Value> or
//                                                          the collection's List/HyperSlab <Time>
//   mesh grid(s) + temporal collections (DOLFINx:        → read(): the merged grids with every
//     one per write_function, steps XIncluding the mesh)   collection's first step; series: the
//                                                          collections with equal times joined
//   DOLFINx meshtags: grids sharing the first grid's     → cell tags: Cell regions "<name>:<value>"
//     Geometry, one Topology of tagged entities and one    + cell_data[name] (0 where untagged);
//     integer Cell Attribute                               facet tags: Side regions (cell, local
//                                                          facet); other entities: a block of their
//                                                          own + Cell regions (xdmf_meshtags.cpp)
//   Grid Collection Spatial, or several Uniform grids    → merged into one mesh; other grids that
//                                                          share the first grid's Geometry add
//                                                          blocks without new points; cell data a
//                                                          grid lacks is 0 on its blocks
//   heavy data: inline XML, Binary (Endian, Seek), HDF ("file.h5:/path"); DataItems of
//   ItemType HyperSlab and Function (xdmf_document.hpp)
//   XInclude (href and/or xpointer) and Reference="XML" / Reference="/xpath" are followed.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <limits>
#include <span>

#include "formats/xdmf/xdmf.hpp"
#include "formats/xdmf/xdmf_document.hpp"
#include "formats/xdmf/xdmf_dolfin.hpp"
#include "formats/xdmf/xdmf_polyhedra.hpp"
#include "io/vtk/vtk_face_stream.hpp"
#include "io/cells/xdmf_cell_types.hpp"
#include "io/source/parallel.hpp"
#include "io/text/text_scanner.hpp"
#include "io/text/xml_scanner.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::xdmf {

using io::topology_from_xdmf;
using io::topology_from_ours;
using io::mixed_from_id;
using io::mixed_from_ours;
using io::TopologyName;
using io::MixedId;

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && io::is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && io::is_space(text.back())) text.remove_suffix(1);
  return text;
}

const std::string* either_attribute(const Context& context, const Node& node, std::string_view xdmf3,
                                    std::string_view xdmf2) {
  const std::string* first = node.attribute(xdmf3);
  const std::string* second = node.attribute(xdmf2);
  if (first != nullptr && second != nullptr && *first != *second)
    context.fail(node, "both " + std::string(xdmf3) + " and " + std::string(xdmf2) + " given, and they differ");
  return first != nullptr ? first : second;
}

// One grid's contribution before merging.
struct Piece {
  Mesh mesh;
  std::optional<Node> geometry;  // the resolved <Geometry>, to spot grids sharing points
  std::vector<std::pair<std::string, NDArray>> raw_cell_data;  // all blocks concatenated
  std::optional<double> time;
  std::vector<Node> functions;  // FiniteElementFunction Attributes, mapped once the cells are read
};

class GridReader {
 public:
  explicit GridReader(Context& context) : context_(context) {}

  // `structured`: the node extents (XDMF order, slowest first) of a structured topology, which
  // the VXVYVZ and ORIGIN_DXDYDZ geometries need.
  NDArray read_points(const Node& geometry_reference, const std::optional<Shape>& structured = std::nullopt) {
    const Node geometry = context_.resolve(geometry_reference);
    const std::string* type_text = either_attribute(context_, geometry, "Type", "GeometryType");
    const std::string type = type_text ? *type_text : "XYZ";
    const std::vector<Node> items = context_.children_named(geometry, "DataItem");
    if (type == "VXVYVZ" || type == "VXVY" || type == "ORIGIN_DXDYDZ" || type == "ORIGIN_DXDY")
      return structured_points(geometry, type, items, structured);
    if (type == "XYZ" || type == "XY") {
      if (items.size() != 1) context_.fail(geometry, "expected one <DataItem> for GeometryType " + type);
      NDArray points = context_.read_data_item(items[0]);
      const std::int64_t dim = static_cast<std::int64_t>(type.size());
      if (points.size() % static_cast<std::size_t>(dim) != 0)
        context_.fail(geometry, "coordinate count " + std::to_string(points.size()) + " is not a multiple of " +
                                    std::to_string(dim));
      return points.reshaped({static_cast<std::int64_t>(points.size()) / dim, dim});
    }
    if (type == "X_Y_Z" || type == "X_Y") {
      const std::size_t dim = type.size() == 5 ? 3 : 2;
      if (items.size() != dim) context_.fail(geometry, "expected " + std::to_string(dim) + " <DataItem>s for " + type);
      std::vector<NDArray> columns;
      for (const Node& item : items) columns.push_back(context_.read_data_item(item));
      const std::int64_t n = static_cast<std::int64_t>(columns[0].size());
      const DType dtype = std::any_of(columns.begin(), columns.end(), [](const NDArray& c) { return c.dtype() == DType::float64; })
                              ? DType::float64
                              : columns[0].dtype();
      NDArray points = NDArray::allocate(dtype, {n, static_cast<std::int64_t>(dim)});
      for (std::size_t axis = 0; axis < dim; ++axis) {
        if (static_cast<std::int64_t>(columns[axis].size()) != n) context_.fail(geometry, "coordinate arrays differ in length");
        const NDArray column = columns[axis].dtype() == dtype ? columns[axis] : columns[axis].astype(dtype);
        visit_dtype(dtype, [&](auto zero) {
          using T = decltype(zero);
          const T* source = column.data_as<T>();
          T* target = points.data_as<T>();
          for (std::int64_t i = 0; i < n; ++i) target[i * static_cast<std::int64_t>(dim) + axis] = source[i];
        });
      }
      return points;
    }
    context_.fail(geometry, "GeometryType '" + type + "' is not supported");
  }

  // Points of a rectilinear (VXVYVZ, VXVY) or regular (ORIGIN_DXDYDZ, ORIGIN_DXDY) grid, x fastest
  // (VTK's order). ORIGIN_DXDYDZ lists origin and spacing slowest axis first (Z Y X), as the
  // Dimensions do; VTK's Xdmf reader reads them so.
  NDArray structured_points(const Node& geometry, const std::string& type, const std::vector<Node>& items,
                            const std::optional<Shape>& structured) {
    const bool three = type == "VXVYVZ" || type == "ORIGIN_DXDYDZ";
    const std::size_t dim = three ? 3 : 2;
    if (!structured) context_.fail(geometry, "GeometryType " + type + " needs a structured Topology (RectMesh or CoRectMesh)");
    if (structured->size() != dim)
      context_.fail(geometry, "GeometryType " + type + " with a Topology of " + std::to_string(structured->size()) + " dimensions");
    std::vector<std::vector<double>> axes(dim);  // x, y, z coordinates along each axis
    if (type.starts_with("VX")) {
      if (items.size() != dim) context_.fail(geometry, "expected " + std::to_string(dim) + " <DataItem>s for " + type);
      for (std::size_t axis = 0; axis < dim; ++axis) {
        const NDArray values = context_.read_data_item(items[axis], DType::float64);
        const std::int64_t extent = (*structured)[dim - 1 - axis];
        if (static_cast<std::int64_t>(values.size()) != extent)
          context_.fail(items[axis], "axis " + std::to_string(axis) + " has " + std::to_string(values.size()) +
                                         " coordinates, the Topology's Dimensions say " + std::to_string(extent));
        axes[axis].assign(values.data_as<double>(), values.data_as<double>() + values.size());
      }
    } else {
      if (items.size() != 2) context_.fail(geometry, "expected two <DataItem>s (origin, spacing) for " + type);
      const NDArray origin = context_.read_data_item(items[0], DType::float64);
      const NDArray spacing = context_.read_data_item(items[1], DType::float64);
      if (origin.size() != dim || spacing.size() != dim)
        context_.fail(geometry, type + " needs " + std::to_string(dim) + " origin and spacing values");
      for (std::size_t axis = 0; axis < dim; ++axis) {
        const std::size_t slot = dim - 1 - axis;  // Z Y X order in the file
        const std::int64_t extent = (*structured)[slot];
        for (std::int64_t i = 0; i < extent; ++i)
          axes[axis].push_back(origin.data_as<double>()[slot] + static_cast<double>(i) * spacing.data_as<double>()[slot]);
      }
    }
    std::int64_t n = 1;
    for (const auto& axis : axes) n *= static_cast<std::int64_t>(axis.size());
    NDArray points = NDArray::allocate(DType::float64, {n, static_cast<std::int64_t>(dim)});
    double* out = points.data_as<double>();
    const std::int64_t nx = static_cast<std::int64_t>(axes[0].size()), ny = static_cast<std::int64_t>(axes[1].size());
    for (std::int64_t p = 0; p < n; ++p) {
      out[p * static_cast<std::int64_t>(dim)] = axes[0][static_cast<std::size_t>(p % nx)];
      out[p * static_cast<std::int64_t>(dim) + 1] = axes[1][static_cast<std::size_t>((p / nx) % ny)];
      if (dim == 3) out[p * 3 + 2] = axes[2][static_cast<std::size_t>(p / (nx * ny))];
    }
    return points;
  }

  // The node extents (slowest first) of a 2D/3D SMesh, RectMesh or CoRectMesh Topology.
  std::optional<Shape> structured_extents(const Node& topology_reference) {
    const Node topology = context_.resolve(topology_reference);
    const std::string* type_text = either_attribute(context_, topology, "Type", "TopologyType");
    std::string type = type_text ? *type_text : std::string();
    for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!(type.ends_with("smesh") || type.ends_with("rectmesh"))) return std::nullopt;
    const std::size_t rank = type.starts_with("3d") ? 3 : type.starts_with("2d") ? 2 : 0;
    if (rank == 0) context_.fail(topology, "unknown TopologyType '" + *type_text + "'");
    const std::string* dimensions = topology.attribute("Dimensions");
    if (dimensions == nullptr) dimensions = topology.attribute("NumberOfElements");
    if (dimensions == nullptr) context_.fail(topology, *type_text + " Topology without Dimensions");
    const Shape extents = parse_dimensions(*dimensions, context_, topology);
    if (extents.size() != rank)
      context_.fail(topology, *type_text + " with Dimensions '" + *dimensions + "' (" + std::to_string(rank) + " extents needed)");
    return extents;
  }

  // The cells of a structured grid with node extents `extents` (slowest first): hexahedra, quads,
  // lines or vertices by how many axes have more than one node, in VTK's point and cell order.
  static CellBlock structured_cells(const Shape& extents) {
    std::vector<std::int64_t> n(extents.rbegin(), extents.rend());  // x, y, z
    while (n.size() < 3) n.push_back(1);
    std::vector<std::size_t> active;
    for (std::size_t axis = 0; axis < 3; ++axis)
      if (n[axis] > 1) active.push_back(axis);
    static constexpr const char* kTypes[] = {"vertex", "line", "quad", "hexahedron"};
    CellBlock block;
    block.type = kTypes[active.size()];
    const std::int64_t corners = std::int64_t{1} << active.size();
    std::int64_t cells = 1;
    for (std::size_t axis : active) cells *= n[axis] - 1;
    block.connectivity = NDArray::allocate(DType::int64, {cells, corners});
    std::int64_t* out = block.connectivity.data_as<std::int64_t>();
    const std::int64_t stride[3] = {1, n[0], n[0] * n[1]};
    // Corner offsets in VTK order: (0,0,0) (1,0,0) (1,1,0) (0,1,0), then the same at +z.
    static constexpr int kCorner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    std::vector<std::int64_t> offsets;
    for (std::int64_t c = 0; c < corners; ++c) {
      std::int64_t offset = 0;
      const int* corner = kCorner[c];
      for (std::size_t a = 0; a < active.size(); ++a) offset += corner[a] * stride[active[a]];
      offsets.push_back(offset);
    }
    std::vector<std::int64_t> index(active.size(), 0);
    for (std::int64_t cell = 0; cell < cells; ++cell) {
      std::int64_t base = 0;
      for (std::size_t a = 0; a < active.size(); ++a) base += index[a] * stride[active[a]];
      for (std::int64_t c = 0; c < corners; ++c) out[cell * corners + c] = base + offsets[static_cast<std::size_t>(c)];
      for (std::size_t a = 0; a < active.size(); ++a) {
        if (++index[a] < n[active[a]] - 1) break;
        index[a] = 0;
      }
    }
    return block;
  }

  std::vector<CellBlock> read_cells(const Node& topology_reference) {
    const Node topology = context_.resolve(topology_reference);
    const std::string* type_text = either_attribute(context_, topology, "Type", "TopologyType");
    if (type_text == nullptr) context_.fail(topology, "Topology without a type");
    if (const std::optional<Shape> extents = structured_extents(topology)) return {structured_cells(*extents)};
    const std::vector<Node> items = context_.children_named(topology, "DataItem");
    if (items.size() != 1)
      context_.fail(topology, "expected one <DataItem> in <Topology>, found " + std::to_string(items.size()));
    NDArray data = context_.read_data_item(items[0], DType::int64);
    if (*type_text == "Mixed") return split_mixed(data, topology);
    if (*type_text == "Polyhedron") return {read_polyhedra(data, topology)};
    const TopologyName* name = topology_from_xdmf(*type_text);
    std::int64_t nodes = 0;
    std::string ours;
    if (name != nullptr) {
      ours = std::string(name->ours);
      nodes = cell_type(ours).num_nodes;
      if (ours == "line" || ours == "vertex") {  // NodesPerElement may say otherwise
        if (const std::string* per = topology.attribute("NodesPerElement")) {
          std::int64_t value = 0;
          std::from_chars(per->data(), per->data() + per->size(), value);
          if (ours == "line" && value != 2) {
            if (value == 3) ours = "line3";
            else context_.fail(topology, "Polyline with NodesPerElement " + *per + " is not supported");
          }
          if (ours == "vertex" && value != 1) context_.fail(topology, "Polyvertex with NodesPerElement " + *per + " is not supported");
          nodes = value;
        }
      }
    } else {
      context_.fail(topology, "unknown TopologyType '" + *type_text + "'");
    }
    if (data.size() % static_cast<std::size_t>(nodes) != 0)
      context_.fail(topology, std::to_string(data.size()) + " node indices do not make whole " + *type_text + " cells");
    const std::int64_t count = static_cast<std::int64_t>(data.size()) / nodes;
    if (const std::string* declared = topology.attribute("NumberOfElements")) {
      std::int64_t value = -1;
      std::from_chars(declared->data(), declared->data() + declared->size(), value);
      if (value != count)
        context_.fail(topology, "NumberOfElements " + *declared + " but the data holds " + std::to_string(count) + " cells");
    }
    CellBlock block;
    block.type = ours;
    block.connectivity = data.reshaped({count, nodes});
    return {std::move(block)};
  }

  CellBlock read_polyhedra(const NDArray& data, const Node& topology) {
    CellBlock block;
    try {
      block = polyhedra_from_streams(data.values<std::int64_t>());
    } catch (const io::CellStreamError& error) {
      context_.fail(topology, std::string("Polyhedron topology: ") + error.what());
    }
    check_declared_count(topology, block.num_cells(), "Polyhedron");
    return block;
  }

  void check_declared_count(const Node& topology, std::int64_t count, std::string_view type) {
    if (const std::string* declared = topology.attribute("NumberOfElements")) {
      std::int64_t value = -1;
      std::from_chars(declared->data(), declared->data() + declared->size(), value);
      if (value != count)
        context_.fail(topology, "NumberOfElements " + *declared + " but the " + std::string(type) + " data holds " +
                                    std::to_string(count) + " cells");
    }
  }

  // The length of the Mixed polyhedron entry (id 16) at `pos`, id included.
  std::int64_t mixed_polyhedron_length(const std::int64_t* values, std::int64_t size, std::int64_t pos,
                                       const Node& topology) {
    try {
      return 1 + io::polyhedron_face_stream_length(
                     std::span<const std::int64_t>(values + pos + 1, static_cast<std::size_t>(size - pos - 1)));
    } catch (const io::CellStreamError& error) {
      context_.fail(topology, "Mixed topology: the polyhedron at entry " + std::to_string(pos) + ": " + error.what());
    }
  }

  std::vector<CellBlock> split_mixed(const NDArray& data, const Node& topology) {
    const std::int64_t* values = data.data_as<std::int64_t>();
    const std::int64_t size = static_cast<std::int64_t>(data.size());
    struct Run {
      const MixedId* type;
      std::int64_t first = 0;  // position of the first cell's id
      std::int64_t cells = 0;
      std::int64_t nodes = 0;  // fixed node count, or total nodes for polygons
    };
    std::vector<Run> runs;
    for (std::int64_t pos = 0; pos < size;) {
      if (values[pos] == kMixedPolyhedron.id) {
        if (runs.empty() || runs.back().type != &kMixedPolyhedron) runs.push_back({&kMixedPolyhedron, pos, 0, 0});
        ++runs.back().cells;
        pos += mixed_polyhedron_length(values, size, pos, topology);
        continue;
      }
      const MixedId* type = mixed_from_id(values[pos]);
      if (type == nullptr) context_.fail(topology, "unknown cell id " + std::to_string(values[pos]) + " in Mixed topology at entry " + std::to_string(pos));
      std::int64_t nodes = type->nodes;
      std::int64_t header = 1;
      if (nodes == 0) {
        if (pos + 1 >= size) context_.fail(topology, "Mixed topology ends inside a cell");
        nodes = values[pos + 1];
        header = 2;
        if (nodes < 1 || (type->ours == "line" && nodes != 2 && nodes != 3) || (type->ours == "vertex" && nodes != 1))
          context_.fail(topology, "unsupported node count " + std::to_string(nodes) + " for a " + std::string(type->ours));
      }
      if (nodes > size - pos - header) context_.fail(topology, "Mixed topology ends inside a cell");
      const MixedId* effective = type;
      if (type->ours == "line" && nodes == 3) effective = mixed_from_ours("line3");
      const bool ragged = effective->ours == "polygon";
      if (runs.empty() || runs.back().type != effective || (!ragged && runs.back().nodes != nodes)) {
        runs.push_back({effective, pos, 0, 0});
      }
      Run& run = runs.back();
      ++run.cells;
      run.nodes = ragged ? run.nodes + nodes : nodes;
      pos += header + nodes;
    }
    std::vector<CellBlock> blocks;
    for (const Run& run : runs) {
      if (run.type == &kMixedPolyhedron) {
        blocks.push_back(mixed_polyhedra(values, size, run.first, run.cells, topology));
        continue;
      }
      CellBlock block;
      block.type = std::string(run.type->ours);
      const bool ragged = run.type->ours == "polygon";
      const bool counted = run.type->nodes == 0;
      if (ragged) {
        block.connectivity = NDArray::allocate(DType::int64, {run.nodes});
        block.offsets = NDArray::allocate(DType::int64, {run.cells + 1});
      } else {
        block.connectivity = NDArray::allocate(DType::int64, {run.cells, run.nodes});
      }
      std::int64_t* out = block.connectivity.data_as<std::int64_t>();
      std::int64_t* offsets = ragged ? block.offsets.data_as<std::int64_t>() : nullptr;
      std::int64_t pos = run.first, written = 0;
      for (std::int64_t cell = 0; cell < run.cells; ++cell) {
        const std::int64_t nodes = counted ? values[pos + 1] : run.type->nodes;
        const std::int64_t header = counted ? 2 : 1;
        if (offsets) offsets[cell] = written;
        std::memcpy(out + written, values + pos + header, static_cast<std::size_t>(nodes) * sizeof(std::int64_t));
        written += nodes;
        pos += header + nodes;
      }
      if (offsets) offsets[run.cells] = written;
      blocks.push_back(std::move(block));
    }
    std::int64_t total = 0;
    for (const CellBlock& block : blocks) total += block.num_cells();
    check_declared_count(topology, total, "Mixed");
    return blocks;
  }

  // A run of `cells` polyhedra from entry `pos` on (lengths already checked by the scan).
  CellBlock mixed_polyhedra(const std::int64_t* values, std::int64_t size, std::int64_t pos, std::int64_t cells,
                            const Node& topology) {
    io::PolyhedronBlockBuilder builder(std::numeric_limits<std::int64_t>::max());
    try {
      for (std::int64_t cell = 0; cell < cells; ++cell) {
        const std::int64_t length = mixed_polyhedron_length(values, size, pos, topology);
        builder.add_cell(std::span<const std::int64_t>(values + pos + 1, static_cast<std::size_t>(length - 1)), cell);
        pos += length;
      }
    } catch (const io::CellStreamError& error) {
      context_.fail(topology, std::string("Mixed topology: ") + error.what());
    }
    return builder.finish();
  }

  // meshio's field data: <Information> whose text (usually CDATA) holds <map key= dim=>tag</map>.
  void read_information(const Node& information, NamedList<NDArray>& field_data) {
    std::string_view text = trim(information.text());
    if (text.starts_with("<![CDATA[") && text.ends_with("]]>")) text = text.substr(9, text.size() - 12);
    if (text.find("<map") == std::string_view::npos) return;
    const std::string document(text);
    io::XmlScanner scanner(document, 0, information.document->path, kFormat);
    while (auto tag = scanner.next_tag()) {
      if (tag->closing || tag->name != "map") continue;
      const std::string_view* key = tag->attribute("key");
      const std::string_view* dim = tag->attribute("dim");
      if (key == nullptr || dim == nullptr || tag->self_closing) context_.fail(information, "<map> without key, dim or tag");
      const std::size_t close = document.find('<', tag->end);
      std::int64_t tag_value = 0, dim_value = 0;
      const std::string_view value_text = trim(std::string_view(document).substr(tag->end, close - tag->end));
      const auto tag_result = std::from_chars(value_text.data(), value_text.data() + value_text.size(), tag_value);
      const auto dim_result = std::from_chars(dim->data(), dim->data() + dim->size(), dim_value);
      if (tag_result.ec != std::errc{} || dim_result.ec != std::errc{})
        context_.fail(information, "<map> with a non-integer tag or dim");
      field_data.set(io::decode_xml_entities(*key), NDArray::from_values<std::int64_t>({tag_value, dim_value}));
    }
  }

  // What a Uniform grid holds; `with_mesh` false reads only Attributes and Time (a time step),
  // and the grid's mesh only when a FiniteElementFunction needs its cells; `with_data` false
  // skips the Attributes (a series' mesh, whose first step may hold it).
  Piece read_uniform(const Node& grid, bool with_mesh = true, bool with_data = true) {
    Piece piece;
    const std::vector<Node> children = context_.children(grid);
    const bool keep_mesh = with_mesh;
    const bool has_functions = std::any_of(children.begin(), children.end(), [](const Node& child) {
      return child.name() == "Attribute" && is_finite_element_function(child);
    });
    with_mesh = with_mesh || (with_data && has_functions);
    std::optional<Shape> structured;
    for (const Node& child : children)
      if (child.name() == "Topology" && !structured) structured = structured_extents(child);
    std::optional<Node> topology;  // the last <Topology> read, for errors about its indices
    for (const Node& child : children) {
      const std::string_view name = child.name();
      if (name == "Geometry") {
        if (!with_mesh) continue;
        piece.geometry = context_.resolve(child);
        piece.mesh.points = read_points(child, structured);
      } else if (name == "Topology") {
        if (!with_mesh || (skipping_cells && !has_functions)) continue;
        topology = child;
        for (CellBlock& block : read_cells(child)) piece.mesh.cells.push_back(std::move(block));
      } else if (name == "Attribute") {
        if (with_data) read_attribute(child, piece);
      } else if (name == "Information") {
        read_information(child, piece.mesh.field_data);
      } else if (name == "Time") {
        piece.time = read_time(child);
      }
      // Set, Map, Region, Grid-level DataItems …: nothing in our model; skipped.
    }
    if (with_mesh && piece.mesh.points.empty_handle()) context_.fail(grid, "Grid without <Geometry>");
    // Every cell names points of this grid (the Topology may come before the Geometry).
    if (topology && !structured)
      for (const CellBlock& block : piece.mesh.cells) {
        const std::span<const std::int64_t> indices = block.connectivity.values<std::int64_t>();
        if (const std::size_t bad = io::first_index_outside(indices, piece.mesh.points.rows()); bad != indices.size())
          context_.fail(*topology, "node index " + std::to_string(indices[bad]) + " (entry " + std::to_string(bad) +
                                       ") outside the grid's " + std::to_string(piece.mesh.points.rows()) + " points");
      }
    if (structured) flatten_structured(piece, *structured);
    for (const Node& function : piece.functions)
      read_finite_element_function(context_, function, piece.mesh.cells, piece.mesh.points.rows(),
                                   {piece.mesh.point_data, piece.raw_cell_data, piece.mesh.field_data, &piece.mesh.string_field_data});
    if (!keep_mesh) {
      piece.mesh.points = NDArray();
      piece.mesh.cells.clear();
      piece.geometry.reset();
    }
    return piece;
  }

  // Structured grids' attributes come as (nz, ny, nx[, components]) arrays: rows become points
  // or cells (x fastest, as VTK and the cells above count them).
  static void flatten_structured(Piece& piece, const Shape& extents) {
    Shape cell_extents;
    for (std::int64_t extent : extents)
      if (extent > 1) cell_extents.push_back(extent - 1);
    auto flatten = [](NDArray& array, const Shape& lead) {
      if (lead.size() < 2 || array.ndim() < lead.size() || !std::equal(lead.begin(), lead.end(), array.shape().begin())) return;
      std::int64_t rows = 1;
      for (std::int64_t extent : lead) rows *= extent;
      Shape shape{rows};
      shape.insert(shape.end(), array.shape().begin() + static_cast<std::ptrdiff_t>(lead.size()), array.shape().end());
      array = array.reshaped(shape);
    };
    NamedList<NDArray> point_data;
    for (auto& [name, array] : piece.mesh.point_data) {
      NDArray flat = array;
      flatten(flat, extents);
      point_data.set(name, std::move(flat));
    }
    piece.mesh.point_data = std::move(point_data);
    for (auto& [name, array] : piece.raw_cell_data) {
      flatten(array, cell_extents);
      Shape all_minus_one;
      for (std::int64_t extent : extents) all_minus_one.push_back(std::max<std::int64_t>(extent - 1, 1));
      flatten(array, all_minus_one);
    }
  }

  // The times a temporal collection's own <Time TimeType="List|HyperSlab"> gives its steps
  // (HyperSlab: start, stride, count), or nothing when it has none.
  std::optional<std::vector<double>> collection_times(const Node& collection, std::size_t steps) {
    for (const Node& child : context_.children(collection)) {
      if (child.name() != "Time") continue;
      const std::string* type_text = child.attribute("TimeType");
      if (type_text == nullptr) type_text = child.attribute("Type");
      const std::string type = type_text ? *type_text : "Single";
      if (type != "List" && type != "HyperSlab") return std::nullopt;
      const std::vector<Node> items = context_.children_named(child, "DataItem");
      if (items.size() != 1) context_.fail(child, "a " + type + " <Time> needs one <DataItem>");
      const NDArray values = context_.read_data_item(items[0], DType::float64);
      const double* v = values.data_as<double>();
      std::vector<double> times;
      if (type == "List") {
        times.assign(v, v + values.size());
      } else {
        if (values.size() != 3) context_.fail(child, "a HyperSlab <Time> needs three values (start, stride, count)");
        for (std::int64_t k = 0; k < static_cast<std::int64_t>(v[2]); ++k) times.push_back(v[0] + static_cast<double>(k) * v[1]);
      }
      if (times.size() != steps)
        context_.fail(child, "the " + type + " <Time> gives " + std::to_string(times.size()) + " times for " +
                                 std::to_string(steps) + " grids");
      return times;
    }
    return std::nullopt;
  }

  double read_time(const Node& time) {
    const std::string* value = time.attribute("Value");
    if (value == nullptr) {
      const std::vector<Node> items = context_.children_named(time, "DataItem");
      if (items.size() == 1) {
        const NDArray values = context_.read_data_item(items[0], DType::float64);
        if (values.size() == 1) return values.data_as<double>()[0];
      }
      context_.fail(time, "<Time> without Value (a List or HyperSlab Time belongs on the temporal collection)");
    }
    double result = 0;
    const std::string_view text = trim(*value);
    const auto parsed = std::from_chars(text.data(), text.data() + text.size(), result);
    if (parsed.ec != std::errc{} || parsed.ptr != text.data() + text.size())
      context_.fail(time, "invalid time value '" + *value + "'");
    return result;
  }

  void read_attribute(const Node& attribute, Piece& piece) {
    if (is_finite_element_function(attribute)) {
      piece.functions.push_back(attribute);
      return;
    }
    const std::string* name = attribute.attribute("Name");
    if (name == nullptr) context_.fail(attribute, "Attribute without Name");
    if (skipping && std::find(keep->begin(), keep->end(), *name) == keep->end()) return;  // never read
    const std::string* center_text = attribute.attribute("Center");
    const std::string center = center_text ? *center_text : "Node";
    const std::vector<Node> items = context_.children_named(attribute, "DataItem");
    if (items.size() != 1) context_.fail(attribute, "expected one <DataItem> in Attribute '" + *name + "'");
    NDArray data = context_.read_data_item(items[0]);
    if (center == "Node") {
      piece.mesh.point_data.set(*name, std::move(data));
    } else if (center == "Cell") {
      piece.raw_cell_data.emplace_back(*name, std::move(data));
    } else if (center == "Grid") {
      piece.mesh.field_data.set(*name, std::move(data));
    } else {
      context_.fail(attribute, "Attribute Center '" + center + "' is not supported (Node, Cell or Grid)");
    }
  }

  Context& context() { return context_; }

  // A selective read's arrays (read_selected): Attributes of other names are not read while
  // `skipping` is on — only in grids whose data cannot change how grids merge (see read_requested).
  std::optional<std::vector<std::string>> keep;
  bool skipping = false, points_only = false, skipping_cells = false;
  // `alone`: no other grid merges with this one (DOLFINx meshtags need the mesh grid's cells).
  void skip_unwanted(bool on, bool alone = true) {
    skipping = on && keep.has_value();
    skipping_cells = on && alone && points_only;  // a points_only read without arrays: no Topology either
  }

 private:
  Context& context_;
};

// Splits concatenated cell data over `blocks` (rows in block order).
std::vector<NDArray> split_cell_data(const NDArray& raw, const std::vector<CellBlock>& blocks, const std::string& name,
                                     const std::string& path) {
  std::int64_t total = 0;
  for (const CellBlock& block : blocks) total += block.num_cells();
  if (raw.rows() != total)
    throw ReadError(path, std::string(kFormat),
                    "cell data '" + name + "' has " + std::to_string(raw.rows()) + " rows for " + std::to_string(total) + " cells");
  std::vector<NDArray> parts;
  if (blocks.size() == 1) {
    parts.push_back(raw);
    return parts;
  }
  const std::size_t row_bytes = static_cast<std::size_t>(raw.row_width()) * dtype_size(raw.dtype());
  std::int64_t row = 0;
  for (const CellBlock& block : blocks) {
    Shape shape = raw.shape();
    shape[0] = block.num_cells();
    NDArray part = NDArray::allocate(raw.dtype(), shape);
    if (part.size() > 0)
      std::memcpy(part.data(), static_cast<const char*>(raw.data()) + static_cast<std::size_t>(row) * row_bytes,
                  static_cast<std::size_t>(block.num_cells()) * row_bytes);
    parts.push_back(std::move(part));
    row += block.num_cells();
  }
  return parts;
}

void finish_piece(Piece& piece, const std::string& path) {
  for (auto& [name, raw] : piece.raw_cell_data)
    piece.mesh.cell_data.set(name, split_cell_data(raw, piece.mesh.cells, name, path));
  piece.raw_cell_data.clear();
}

NDArray zeros_like_rows(const NDArray& model, std::int64_t rows) {
  Shape shape = model.shape();
  if (shape.empty()) shape.push_back(rows);
  shape[0] = rows;
  return NDArray::zeros(model.dtype(), shape);
}

NDArray concatenate_rows(const NDArray& a, const NDArray& b) {
  const NDArray second = b.dtype() == a.dtype() ? b : b.astype(a.dtype());
  Shape shape = a.shape();
  shape[0] = a.rows() + second.rows();
  NDArray result = NDArray::allocate(a.dtype(), shape);
  std::memcpy(result.data(), a.data(), a.nbytes());
  std::memcpy(static_cast<char*>(result.data()) + a.nbytes(), second.data(), second.nbytes());
  return result;
}

// A piece's region renumbered for the merged mesh.
Region shifted(Region region, std::int64_t cell_base, std::int64_t point_base) {
  const std::int64_t by = region.kind == RegionKind::Point ? point_base : cell_base;
  if (by == 0) return region;
  region.entries = region.entries.copy();
  std::int64_t* entries = region.entries.data_as<std::int64_t>();
  const std::int64_t stride = region.kind == RegionKind::Side ? 2 : 1;  // (cell, local facet) pairs
  for (std::size_t i = 0; i < region.entries.size(); i += static_cast<std::size_t>(stride)) entries[i] += by;
  return region;
}

bool shares_geometry(const Piece& piece, const Piece& first) {
  return piece.geometry && first.geometry && *piece.geometry == *first.geometry;
}

// Several grids into one mesh (see the header comment for the rules).
Mesh merge(std::vector<Piece>& pieces, const std::string& path) {
  // DOLFINx meshtags grids (sharing the first grid's Geometry) become the first grid's regions.
  std::vector<Piece> kept;
  for (Piece& piece : pieces) {
    if (!kept.empty() && shares_geometry(piece, kept[0]) && absorb_meshtags(kept[0].mesh, piece.mesh)) continue;
    kept.push_back(std::move(piece));
  }
  pieces = std::move(kept);
  if (pieces.size() == 1) return std::move(pieces[0].mesh);
  Mesh merged;
  merged.points = pieces[0].mesh.points;
  std::vector<std::int64_t> block_owner;  // piece index per merged block
  std::vector<std::string> cell_names;
  for (const Piece& piece : pieces)
    for (const auto& [name, arrays] : piece.mesh.cell_data)
      if (std::find(cell_names.begin(), cell_names.end(), name) == cell_names.end()) cell_names.push_back(name);
  for (std::size_t p = 0; p < pieces.size(); ++p) {
    Piece& piece = pieces[p];
    std::int64_t point_offset = 0;
    const std::int64_t cell_base = merged.num_cells();
    const bool shares_points = p == 0 || shares_geometry(piece, pieces[0]);
    if (!shares_points) {
      if (piece.mesh.points.dim(1) != merged.points.dim(1))
        throw ReadError(path, std::string(kFormat), "grids to merge have points of different dimensions");
      point_offset = merged.points.rows();
      merged.points = concatenate_rows(merged.points, piece.mesh.points);
    }
    for (CellBlock& block : piece.mesh.cells) {
      if (point_offset != 0) {
        NDArray shifted = block.connectivity.copy();
        for (std::int64_t& index : shifted.values<std::int64_t>()) index += point_offset;
        block.connectivity = shifted;
      }
      merged.cells.push_back(block);
      block_owner.push_back(static_cast<std::int64_t>(p));
    }
    for (const auto& [name, array] : piece.mesh.point_data) {
      if (shares_points) {
        if (!merged.point_data.contains(name)) merged.point_data.set(name, array);
      } else if (const NDArray* existing = merged.point_data.find(name)) {
        merged.point_data.set(name, concatenate_rows(*existing, array));
      }
    }
    for (const auto& [name, array] : piece.mesh.field_data) merged.field_data.set(name, array);
    for (const auto& [name, strings] : piece.mesh.string_field_data) merged.string_field_data.set(name, strings);
    for (Region& region : piece.mesh.regions) merged.regions.push_back(shifted(std::move(region), cell_base, point_offset));
  }
  // Point data that some piece with its own points lacks cannot be kept whole: drop it.
  NamedList<NDArray> point_data;
  for (const auto& [name, array] : merged.point_data)
    if (array.rows() == merged.points.rows()) point_data.set(name, array);
  merged.point_data = std::move(point_data);
  for (const std::string& name : cell_names) {
    const NDArray* model = nullptr;
    for (const Piece& piece : pieces)
      if (const auto* arrays = piece.mesh.cell_data.find(name); arrays && !arrays->empty()) {
        model = &arrays->front();
        break;
      }
    if (model == nullptr) continue;
    std::vector<NDArray> per_block;
    std::vector<std::size_t> used(pieces.size(), 0);
    for (std::size_t b = 0; b < merged.cells.size(); ++b) {
      const Piece& owner = pieces[static_cast<std::size_t>(block_owner[b])];
      const auto* arrays = owner.mesh.cell_data.find(name);
      const std::size_t index = used[static_cast<std::size_t>(block_owner[b])]++;
      if (arrays != nullptr && index < arrays->size()) per_block.push_back((*arrays)[index]);
      else per_block.push_back(zeros_like_rows(*model, merged.cells[b].num_cells()));
    }
    merged.cell_data.set(name, std::move(per_block));
  }
  return merged;
}

std::string grid_type(const Node& grid) {
  const std::string* type = grid.attribute("GridType");
  if (type == nullptr) type = grid.attribute("Type");
  return type ? *type : "Uniform";
}

std::string collection_type(const Node& grid) {
  const std::string* type = grid.attribute("CollectionType");
  return type ? *type : "Spatial";
}

Node domain_of(Context& context) {
  const Node root = context.root();
  if (root.name() != "Xdmf") context.fail(root, "the root element is <" + std::string(root.name()) + ">, not <Xdmf>");
  if (const std::string* version = root.attribute("Version")) {
    if (!version->starts_with("2") && !version->starts_with("3") && !version->starts_with("1"))
      context.fail(root, "unknown XDMF version '" + *version + "'");
  }
  const std::vector<Node> domains = context.children_named(root, "Domain");
  if (domains.empty()) context.fail(root, "no <Domain>");
  return domains.front();
}

// The grids of a temporal collection: its child Grids.
std::vector<Node> steps_of(Context& context, const Node& collection) { return context.children_named(collection, "Grid"); }

Mesh read_any_grid(GridReader& reader, const Node& grid);

Piece piece_of(GridReader& reader, const Node& grid) {
  const std::string type = grid_type(grid);
  if (type == "Uniform") {
    Piece piece = reader.read_uniform(grid);
    finish_piece(piece, reader.context().path());
    return piece;
  }
  Piece piece;
  piece.mesh = read_any_grid(reader, grid);
  return piece;
}

Mesh read_any_grid(GridReader& reader, const Node& grid) {
  Context& context = reader.context();
  const std::string type = grid_type(grid);
  if (type == "Uniform") return piece_of(reader, grid).mesh;
  if (type != "Collection") context.fail(grid, "GridType '" + type + "' is not supported (Uniform or Collection)");
  const std::vector<Node> children = context.children_named(grid, "Grid");
  if (children.empty()) context.fail(grid, "an empty Grid collection");
  if (collection_type(grid) == "Temporal") return piece_of(reader, children.front()).mesh;
  std::vector<Piece> pieces;
  for (const Node& child : children) pieces.push_back(piece_of(reader, child));
  return merge(pieces, context.path());
}

}  // namespace

// read() and read_selected(): `request` (may be null) skips the Attributes not asked for in the
// first grid and in temporal steps, never in the other grids, whose arrays decide whether they
// are DOLFINx meshtags and how they merge; the registry narrows the rest afterwards.
static Mesh read_requested(const std::string& path, const ReadRequest* request) {
  Context context(path);
  GridReader reader(context);
  if (request != nullptr && (request->arrays || request->points_only))
    reader.keep = request->arrays.value_or(std::vector<std::string>{});
  reader.points_only = request != nullptr && request->points_only && !request->arrays;
  const Node domain = domain_of(context);
  const std::vector<Node> grids = context.children_named(domain, "Grid");
  if (grids.empty()) context.fail(domain, "no <Grid> in the <Domain>");
  std::vector<Node> temporal, uniform;
  for (const Node& grid : grids) {
    if (grid_type(grid) == "Collection" && collection_type(grid) == "Temporal") temporal.push_back(grid);
    else if (grid_type(grid) == "Uniform") uniform.push_back(grid);
  }
  if (!temporal.empty() && !uniform.empty()) {
    // meshio's and DOLFINx's layout: the mesh grid (DOLFINx: + meshtags grids sharing its
    // Geometry) beside one temporal collection per function: the mesh with every function's
    // first step.
    std::vector<Piece> pieces;
    for (const Node& grid : uniform) {
      reader.skip_unwanted(pieces.empty(), uniform.size() == 1);
      pieces.push_back(reader.read_uniform(grid));
    }
    reader.skip_unwanted(true);
    for (const Node& collection : temporal) {
      const std::vector<Node> steps = steps_of(context, collection);
      if (steps.empty()) continue;
      Piece step = reader.read_uniform(steps.front(), false);
      // Only arrays that fit the mesh grid (a collection over other geometry adds nothing).
      std::int64_t cells = 0;
      for (const CellBlock& block : pieces[0].mesh.cells) cells += block.num_cells();
      for (auto& [name, array] : step.mesh.point_data)
        if (array.rows() == pieces[0].mesh.points.rows()) pieces[0].mesh.point_data.set(name, std::move(array));
      for (auto& entry : step.raw_cell_data)
        if (entry.second.rows() == cells) pieces[0].raw_cell_data.push_back(std::move(entry));
      for (auto& [name, array] : step.mesh.field_data) pieces[0].mesh.field_data.set(name, std::move(array));
    }
    for (Piece& piece : pieces) finish_piece(piece, path);
    return merge(pieces, path);
  }
  reader.skip_unwanted(!temporal.empty() || (grids.size() == 1 && grid_type(grids.front()) == "Uniform"));
  if (!temporal.empty()) return read_any_grid(reader, temporal.front());
  if (grids.size() == 1) return read_any_grid(reader, grids.front());
  std::vector<Piece> pieces;
  for (const Node& grid : grids) pieces.push_back(piece_of(reader, grid));
  return merge(pieces, path);
}

Mesh read(const std::string& path) { return read_requested(path, nullptr); }

Mesh read_selected(const std::string& path, const ReadRequest& request) { return read_requested(path, &request); }

// ---- time series ----------------------------------------------------------------------------

namespace {

class XdmfTimeSeriesReader final : public TimeSeriesReader {
 public:
  explicit XdmfTimeSeriesReader(const std::string& path) : context_(path), reader_(context_) {
    const Node domain = domain_of(context_);
    std::vector<Node> collections;
    std::optional<Node> mesh_grid;
    for (const Node& grid : context_.children_named(domain, "Grid")) {
      if (grid_type(grid) == "Collection" && collection_type(grid) == "Temporal") {
        collections.push_back(grid);
      } else if (grid_type(grid) == "Uniform") {
        if (mesh_grid) tag_grids_.push_back(grid);
        else mesh_grid = grid;
      }
    }
    if (collections.empty()) context_.fail(domain, "no temporal Grid collection: not a time series");
    steps_ = steps_of(context_, collections.front());
    if (steps_.empty()) context_.fail(collections.front(), "a time series without steps");
    mesh_grid_ = mesh_grid ? *mesh_grid : steps_.front();
    times_ = times_of(collections.front(), steps_);
    // DOLFINx writes one temporal collection per function: those with the same times join the
    // steps (their arrays added to each step's); others are not part of this series.
    for (std::size_t c = 1; c < collections.size(); ++c) {
      std::vector<Node> steps = steps_of(context_, collections[c]);
      if (steps.size() != steps_.size() || times_of(collections[c], steps) != times_) continue;
      extra_steps_.push_back(std::move(steps));
    }
  }

  std::size_t num_steps() const override { return steps_.size(); }
  double time(std::size_t step) const override {
    check(step);
    return times_[step];
  }

  Mesh read_mesh() override {
    Piece piece = reader_.read_uniform(mesh_grid_, true, false);
    // DOLFINx meshtags beside the mesh grid: their regions (the steps' data are on the mesh's blocks).
    for (const Node& grid : tag_grids_) {
      Piece tags = reader_.read_uniform(grid);
      if (!shares_geometry(tags, piece)) continue;
      finish_piece(tags, context_.path());
      absorb_meshtags(piece.mesh, tags.mesh);
    }
    Mesh mesh;
    mesh.points = std::move(piece.mesh.points);
    mesh.cells = std::move(piece.mesh.cells);
    mesh.field_data = std::move(piece.mesh.field_data);
    mesh.regions = std::move(piece.mesh.regions);
    blocks_ = mesh.cells;
    have_blocks_ = true;
    return mesh;
  }

  TimeStep read_step(std::size_t step) override {
    check(step);
    if (!have_blocks_) read_mesh();
    Piece piece = reader_.read_uniform(steps_[step], false);
    for (const std::vector<Node>& steps : extra_steps_) {
      Piece extra = reader_.read_uniform(steps[step], false);
      for (auto& [name, array] : extra.mesh.point_data) piece.mesh.point_data.set(name, std::move(array));
      for (auto& entry : extra.raw_cell_data) piece.raw_cell_data.push_back(std::move(entry));
      for (auto& [name, array] : extra.mesh.field_data) piece.mesh.field_data.set(name, std::move(array));
    }
    TimeStep result;
    result.time = times_[step];
    result.point_data = std::move(piece.mesh.point_data);
    result.field_data = std::move(piece.mesh.field_data);
    for (auto& [name, raw] : piece.raw_cell_data)
      result.cell_data.set(name, split_cell_data(raw, blocks_, name, context_.path()));
    return result;
  }

 private:
  std::vector<double> times_of(const Node& collection, const std::vector<Node>& steps) {
    if (auto times = reader_.collection_times(collection, steps.size())) return std::move(*times);
    std::vector<double> times;
    for (std::size_t k = 0; k < steps.size(); ++k) {
      std::optional<double> time;
      for (const Node& child : context_.children(steps[k]))
        if (child.name() == "Time") time = reader_.read_time(child);
      if (!time) context_.fail(steps[k], "time step " + std::to_string(k) + " has no <Time>");
      times.push_back(*time);
    }
    return times;
  }

  void check(std::size_t step) const {
    if (step >= steps_.size())
      throw ReadError(context_.path(), std::string(kFormat),
                      "time step " + std::to_string(step) + " requested, the file has " + std::to_string(steps_.size()));
  }

  Context context_;
  GridReader reader_;
  std::vector<Node> steps_;
  std::vector<std::vector<Node>> extra_steps_;  // the steps of further functions' collections
  std::vector<Node> tag_grids_;                  // Uniform grids after the mesh grid (meshtags)
  std::vector<double> times_;
  Node mesh_grid_;
  std::vector<CellBlock> blocks_;
  bool have_blocks_ = false;
};

}  // namespace

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) {
  return std::make_unique<XdmfTimeSeriesReader>(path);
}

}  // namespace meshioplusplus::xdmf
