// Exodus II reader: see exodus.hpp for what becomes what.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "formats/exodus/exodus.hpp"
#include "formats/exodus/exodus_types.hpp"
#include "io/cells/polyhedron_orientation.hpp"
#include "io/netcdf/netcdf_file.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/read_selection.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus::exodus {

namespace {

constexpr std::string_view kFormat = "exodus";

using io::NetcdfReader;
using io::NetcdfVariable;

// Exodus text is ASCII by the book; real files carry Latin-1 (Cubit's QA records, the file
// meshio fails on). Valid UTF-8 stays as it is, anything else is read as Latin-1.
std::string as_utf8(const std::string& bytes) {
  std::size_t i = 0;
  bool valid = true;
  while (i < bytes.size() && valid) {
    const auto byte = static_cast<unsigned char>(bytes[i]);
    const std::size_t length = byte < 0x80 ? 1 : (byte >> 5) == 6 ? 2 : (byte >> 4) == 14 ? 3 : (byte >> 3) == 30 ? 4 : 0;
    if (length == 0 || i + length > bytes.size()) valid = false;
    for (std::size_t k = 1; valid && k < length; ++k)
      valid = (static_cast<unsigned char>(bytes[i + k]) >> 6) == 2;
    i += length;
  }
  if (valid) return bytes;
  std::string text;
  for (char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80) {
      text += c;
    } else {
      text += static_cast<char>(0xC0 | (byte >> 6));
      text += static_cast<char>(0x80 | (byte & 0x3F));
    }
  }
  return text;
}

std::optional<DType> dtype_of_nc(int nc_type) {
  switch (nc_type) {
    case 1: return DType::int8;     // NC_BYTE
    case 3: return DType::int16;    // NC_SHORT
    case 4: return DType::int32;    // NC_INT
    case 5: return DType::float32;  // NC_FLOAT
    case 6: return DType::float64;  // NC_DOUBLE
    case 7: return DType::uint8;    // NC_UBYTE
    case 8: return DType::uint16;   // NC_USHORT
    case 9: return DType::uint32;   // NC_UINT
    case 10: return DType::int64;   // NC_INT64
    case 11: return DType::uint64;  // NC_UINT64
    default: return std::nullopt;
  }
}

struct Block {
  std::string exodus_name;
  std::string name;  // the region's: eb_names, or block_<id>
  std::string type;  // ours
  std::int64_t id = 0;
  std::int64_t first_cell = 0;  // block-major index of its first cell
  std::int64_t count = 0;
  std::size_t exodus_index = 0;  // 1-based k of connect<k>, vals_elem_var<v>eb<k>
  SideRule sides = SideRule::none;
};

class Reader {
 public:
  explicit Reader(const std::string& path) : file_(path, kFormat), path_(path) {}

  std::vector<double> times() const {
    const NetcdfVariable* time = file_.find("time_whole");
    if (time == nullptr || time->shape.size() != 1) return {};
    std::vector<double> values(time->shape[0]);
    file_.read_into(*time, DType::float64, values.data());
    return values;
  }

  // Points, cells, regions and records: everything but the variables of a step.
  Mesh read_structure() {
    Mesh mesh;
    read_points(mesh);
    read_blocks(mesh);
    read_sets(mesh);
    read_records(mesh);
    return mesh;
  }

  Mesh read(std::optional<std::size_t> step) {
    Mesh mesh;
    read_points(mesh);
    read_blocks(mesh);
    read_sets(mesh);
    read_records(mesh);
    const std::size_t steps = times().size();
    if (step && *step >= steps)
      file_.fail("time_whole", "time step " + std::to_string(*step) + " requested, the file has " + std::to_string(steps));
    const std::size_t chosen = step.value_or(0);
    if (chosen < steps) {
      read_nodal_variables(mesh, chosen);
      read_element_variables(mesh, chosen);
      read_global_variables(mesh, chosen);
    }
    return mesh;
  }

  // read() narrowed on disk: variables not asked for are never read, and with points_only
  // neither connectivity nor side or element sets (the block layout comes from the dimensions).
  Mesh read_selected(const ReadRequest& request) {
    request_ = &request;
    Mesh mesh;
    read_points(mesh);
    if (request.points_only) {
      scan_blocks();
      read_node_sets(mesh);
    } else {
      read_blocks(mesh);
      read_sets(mesh);
    }
    read_records(mesh);
    if (!times().empty()) {
      read_nodal_variables(mesh, 0);
      read_element_variables(mesh, 0);
      read_global_variables(mesh, 0);
    }
    return mesh;
  }

  // What read() gives, from the dimensions, variable shapes and names, and the (small) set
  // lists: no coordinates, connectivity or variable values are read.
  MeshMetadata metadata() {
    MeshMetadata summary;
    summary.header_only = true;
    summary.variant = file_.kind();
    summary.times = times();
    const std::size_t num_dim = dim("num_dim");
    if (num_dim == 0 || num_dim > 3) file_.fail("", "dimension num_dim is " + std::to_string(num_dim) + ", expected 1-3");
    summary.num_points = static_cast<std::int64_t>(dim("num_nodes"));
    summary.point_dim = static_cast<int>(num_dim);
    scan_blocks();
    for (const Block& block : blocks_) {
      summary.cell_blocks.push_back({block.type, block.count});
      const CellTypeInfo* info = find_cell_type(block.type);
      summary.regions.push_back({block.name, RegionKind::Cell, info ? info->dimension : -1, block.id, block.count});
    }
    set_summaries(summary);
    if (!summary.times.empty()) variable_summaries(summary);
    return summary;
  }

  // The variables of one step only, for the time-series reader: the block layout comes from
  // the dimensions, no coordinates or connectivity are read.
  TimeStep read_variables(std::size_t step) {
    const std::vector<double> all_times = times();
    if (step >= all_times.size())
      file_.fail("time_whole", "time step " + std::to_string(step) + " requested, the file has " +
                                   std::to_string(all_times.size()));
    scan_blocks();
    Mesh data;
    // Only the point count is needed (a view of nothing, shaped (num_nodes, num_dim)).
    data.points = NDArray::view(nullptr, DType::float64,
                                {static_cast<std::int64_t>(dim("num_nodes")), std::max<std::int64_t>(1, dim("num_dim"))});
    for (const Block& block : blocks_) data.cells.push_back({block.type, NDArray::view(nullptr, DType::int64, {block.count, 1}), {}, {}});
    read_nodal_variables(data, step);
    read_element_variables(data, step);
    read_global_variables(data, step);
    return {all_times[step], std::move(data.point_data), std::move(data.cell_data), std::move(data.field_data)};
  }

 private:
  std::size_t dim(std::string_view name) const { return file_.dimension(name).value_or(0); }

  // The blocks as read_blocks() makes them, from the dimensions and attributes alone.
  void scan_blocks() {
    blocks_.clear();
    mesh_dimension_ = static_cast<int>(dim("num_dim"));
    const std::size_t num_blocks = dim("num_el_blk");
    const std::vector<std::string> block_names = names("eb_names", num_blocks);
    const std::vector<std::int64_t> block_ids = ids("eb_prop1", num_blocks);
    std::int64_t first_cell = 0;
    for (std::size_t k = 1; k <= num_blocks; ++k) {
      Block block;
      const NetcdfVariable* connect = block_connectivity(k, block.exodus_name);
      if (connect == nullptr || connect->shape.empty()) continue;
      block.exodus_index = k;
      block.id = block_ids[k - 1];
      block.name = block_names[k - 1].empty() ? "block_" + std::to_string(block.id) : block_names[k - 1];
      const bool ragged = is_ragged(block.exodus_name);
      const auto nodes = static_cast<std::int64_t>(!ragged && connect->shape.size() == 2 ? connect->shape[1] : 0);
      block.type = std::string(cell_type_for(block.exodus_name, nodes));
      if (block.type.empty())
        file_.fail(connect->name, "element block " + std::to_string(block.id) + " ('" + block.name + "'): element type '" +
                                      block.exodus_name + "' has no meshio++ cell type");
      block.sides = side_rule(block.type, block.exodus_name, mesh_dimension_);
      const NetcdfVariable* counts = ragged ? file_.find("ebepecnt" + std::to_string(k)) : nullptr;
      if (counts != nullptr && counts->shape.size() != 1) file_.fail(counts->name, "expected one dimension (the entries of the block)");
      block.count = static_cast<std::int64_t>(counts ? counts->shape[0] : connect->shape[0]);
      block.first_cell = first_cell;
      first_cell += block.count;
      blocks_.push_back(block);
    }
    num_cells_ = first_cell;
  }

  // Block k's connectivity and its element name: connect<k>, or for an NFACED block (whose
  // entries are faces, not nodes) facconn<k>, which then carries the elem_type attribute;
  // nullptr for an empty block, for which Exodus stores neither.
  const NetcdfVariable* block_connectivity(std::size_t k, std::string& exodus_name) const {
    const NetcdfVariable* connect = file_.find("connect" + std::to_string(k));
    if (connect == nullptr) {
      connect = file_.find("facconn" + std::to_string(k));
      if (connect != nullptr && cell_type_for(file_.text_attribute(connect, "elem_type").value_or(""), 0) != "polyhedron")
        connect = nullptr;  // the face connectivity of an ordinary block without nodes: nothing to read
    }
    if (connect != nullptr) exodus_name = as_utf8(file_.text_attribute(connect, "elem_type").value_or(""));
    return connect;
  }

  // NSIDED and NFACED blocks: a flat list sized per element by ebepecnt<k>.
  static bool is_ragged(std::string_view exodus_name) {
    const std::string_view type = cell_type_for(exodus_name, 0);
    return type == "polygon" || type == "polyhedron";
  }

  std::vector<std::string> names(std::string_view variable, std::size_t expected) const {
    std::vector<std::string> result;
    if (const NetcdfVariable* names = file_.find(variable)) result = file_.read_strings(*names);
    for (std::string& name : result) name = as_utf8(name);
    result.resize(std::max(result.size(), expected));
    return result;
  }

  std::vector<std::int64_t> ids(std::string_view variable, std::size_t count) const {
    std::vector<std::int64_t> result(count);
    for (std::size_t k = 0; k < count; ++k) result[k] = static_cast<std::int64_t>(k + 1);
    const NetcdfVariable* prop = file_.find(variable);
    if (prop != nullptr && prop->shape.size() == 1 && prop->shape[0] == count)
      file_.read_into(*prop, DType::int64, result.data());
    return result;
  }

  void read_points(Mesh& mesh) {
    const std::size_t num_nodes = dim("num_nodes");
    std::size_t num_dim = dim("num_dim");
    if (num_dim == 0 || num_dim > 3) file_.fail("", "dimension num_dim is " + std::to_string(num_dim) + ", expected 1-3");
    mesh_dimension_ = static_cast<int>(num_dim);
    const NetcdfVariable* coord = file_.find("coord");
    static constexpr std::string_view kSeparate[3] = {"coordx", "coordy", "coordz"};
    const NetcdfVariable* first = coord ? coord : file_.find(kSeparate[0]);
    if (num_nodes == 0) {
      mesh.points = NDArray::allocate(DType::float64, {0, static_cast<std::int64_t>(num_dim)});
      return;
    }
    if (first == nullptr) file_.fail("coordx", "missing (the file has num_nodes but no coordinates)");
    const DType dtype = first->type == 5 ? DType::float32 : DType::float64;
    mesh.points = NDArray::allocate(dtype, {static_cast<std::int64_t>(num_nodes), static_cast<std::int64_t>(num_dim)});
    // Each coordinate is one contiguous run in the file; read it into scratch, then interleave.
    file_.check_stored_size(*first, num_nodes);
    NDArray column = NDArray::allocate_scratch(dtype, {static_cast<std::int64_t>(num_nodes)});
    for (std::size_t axis = 0; axis < num_dim; ++axis) {
      if (coord) {
        if (coord->shape.size() != 2 || coord->shape[0] < num_dim || coord->shape[1] != num_nodes)
          file_.fail("coord", "expected shape (num_dim, num_nodes)");
        const std::size_t start[2] = {axis, 0}, count[2] = {1, num_nodes};
        file_.read_into(*coord, dtype, column.data(), start, count);
      } else {
        const NetcdfVariable& variable = file_.require(kSeparate[axis]);
        if (variable.shape.size() != 1 || variable.shape[0] != num_nodes)
          file_.fail(variable.name, "expected shape (num_nodes)");
        file_.read_into(variable, dtype, column.data());
      }
      visit_dtype(dtype, [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_floating_point_v<T>) {
          const T* in = column.data_as<T>();
          T* out = mesh.points.data_as<T>() + axis;
          for (std::size_t i = 0; i < num_nodes; ++i) out[i * num_dim] = in[i];
        }
      });
    }
  }

  void read_blocks(Mesh& mesh) {
    const std::size_t num_blocks = dim("num_el_blk");
    const std::vector<std::string> block_names = names("eb_names", num_blocks);
    const std::vector<std::int64_t> block_ids = ids("eb_prop1", num_blocks);
    const std::int64_t num_points = mesh.num_points();
    std::int64_t first_cell = 0;
    for (std::size_t k = 1; k <= num_blocks; ++k) {
      Block block;
      const NetcdfVariable* connect = block_connectivity(k, block.exodus_name);
      if (connect == nullptr) continue;  // an empty block: Exodus stores no connectivity
      block.exodus_index = k;
      block.id = block_ids[k - 1];
      const std::string block_name = block_names[k - 1].empty() ? "block_" + std::to_string(block.id) : block_names[k - 1];
      CellBlock cells;
      const std::string_view ragged_type = cell_type_for(block.exodus_name, 0);
      if (ragged_type == "polygon") {
        cells = read_polygons(*connect, k, num_points);
      } else if (ragged_type == "polyhedron") {
        cells = read_polyhedra(*connect, k, num_points);
        // NFACED faces carry no sign (a face two polyhedra share is stored once): ours point out.
        io::orient_polyhedron_faces_outward(mesh.points, cells);
      } else {
        if (connect->shape.size() != 2) file_.fail(connect->name, "expected shape (num_el_in_blk, num_nod_per_el)");
        const auto count = static_cast<std::int64_t>(connect->shape[0]);
        const auto nodes = static_cast<std::int64_t>(connect->shape[1]);
        const std::string_view type = cell_type_for(block.exodus_name, nodes);
        if (type.empty())
          file_.fail(connect->name, "element block " + std::to_string(block.id) + " ('" + block_name + "'): element type '" +
                                        block.exodus_name + "' with " + std::to_string(nodes) +
                                        " nodes has no meshio++ cell type");
        cells.type = std::string(type);
        cells.connectivity = file_.read(*connect, DType::int64, {count, nodes});
        to_zero_based(cells.connectivity.values<std::int64_t>(), num_points, connect->name);
        permute_nodes(cells);
      }
      block.count = cells.num_cells();
      block.first_cell = first_cell;
      block.sides = side_rule(cells.type, block.exodus_name, mesh_dimension_);
      block.type = cells.type;
      first_cell += block.count;
      const CellTypeInfo* info = find_cell_type(cells.type);
      Region region;
      region.name = block_name;
      region.kind = RegionKind::Cell;
      region.dim = info ? info->dimension : -1;
      region.tag = block.id;
      region.entries = NDArray::allocate(DType::int64, {block.count});
      std::int64_t* entries = region.entries.data_as<std::int64_t>();
      for (std::int64_t i = 0; i < block.count; ++i) entries[i] = block.first_cell + i;
      mesh.regions.push_back(std::move(region));
      mesh.cells.push_back(std::move(cells));
      blocks_.push_back(block);
    }
    num_cells_ = first_cell;
  }

  static std::size_t element_count(const NetcdfVariable& variable) {
    std::size_t total = 1;
    for (std::size_t extent : variable.shape) total *= extent;
    return total;
  }

  // ebepecnt<k> / fbepecnt<k>, the entities (nodes, faces) of each element or face, as offsets
  // (n+1) into `flat`, the run of those entities, whose length they must add up to exactly.
  NDArray entity_offsets(const NetcdfVariable& counts, const NetcdfVariable& flat, std::string_view entity,
                         bool scratch) const {
    if (counts.shape.size() != 1) file_.fail(counts.name, "expected one dimension (the entries of the block)");
    const std::size_t n = counts.shape[0];
    file_.check_stored_size(counts, n);
    const Shape shape{static_cast<std::int64_t>(n) + 1};
    NDArray offsets = scratch ? NDArray::allocate_scratch(DType::int64, shape) : NDArray::allocate(DType::int64, shape);
    std::int64_t* out = offsets.data_as<std::int64_t>();
    out[0] = 0;
    file_.read_into(counts, DType::int64, out + 1);
    const auto total = static_cast<std::int64_t>(element_count(flat));
    for (std::size_t i = 0; i < n; ++i) {
      if (out[i + 1] < 1)
        file_.fail(counts.name, "entry " + std::to_string(i) + " is not a positive " + std::string(entity) + " count");
      if (out[i + 1] > total - out[i])  // also keeps the running sum from overflowing
        file_.fail(counts.name, "adds up to more than the " + std::to_string(total) + " entries of " + flat.name);
      out[i + 1] += out[i];
    }
    if (out[n] != total)
      file_.fail(flat.name, "holds " + std::to_string(total) + " entries, " + counts.name + " adds up to " + std::to_string(out[n]));
    return offsets;
  }

  // All of `variable` as 0-based numbers below `limit`, in scratch.
  std::vector<std::int64_t> read_numbers(const NetcdfVariable& variable, std::int64_t limit) const {
    const std::size_t total = element_count(variable);
    file_.check_stored_size(variable, total);
    std::vector<std::int64_t> numbers(total);
    file_.read_into(variable, DType::int64, numbers.data());
    to_zero_based(numbers, limit, variable.name);
    return numbers;
  }

  // NSIDED: connect<k> is the flat node list, ebepecnt<k> the nodes of each polygon.
  CellBlock read_polygons(const NetcdfVariable& connect, std::size_t k, std::int64_t num_points) {
    CellBlock cells;
    cells.type = "polygon";
    cells.offsets = entity_offsets(file_.require("ebepecnt" + std::to_string(k)), connect, "node", false);
    const auto total = static_cast<std::int64_t>(element_count(connect));
    cells.connectivity = file_.read(connect, DType::int64, {total});
    to_zero_based(cells.connectivity.values<std::int64_t>(), num_points, connect.name);
    return cells;
  }

  // The faces of every face block (fbconn<j>) in block order: NFACED blocks number faces
  // 1.. across all face blocks, as element numbers run across element blocks. An NSIDED (or
  // NFACED) face block is ragged (fbepecnt<j>), any other has fixed-width rows.
  struct Faces {
    std::vector<std::int64_t> offsets{0}, nodes;  // offsets (faces+1) into 0-based nodes
  };
  const Faces& faces(std::int64_t num_points) {
    if (faces_) return *faces_;
    Faces all;
    for (std::size_t j = 1; j <= dim("num_fa_blk"); ++j) {
      const NetcdfVariable* conn = file_.find("fbconn" + std::to_string(j));
      if (conn == nullptr) continue;  // an empty face block
      const std::string name = file_.text_attribute(conn, "elem_type").value_or("");
      const std::int64_t base = all.offsets.back();
      const std::vector<std::int64_t> nodes = read_numbers(*conn, num_points);  // checks the sizes below
      if (is_ragged(name)) {
        const NDArray offsets = entity_offsets(file_.require("fbepecnt" + std::to_string(j)), *conn, "node", true);
        for (std::int64_t offset : offsets.values<std::int64_t>().subspan(1)) all.offsets.push_back(base + offset);
      } else {
        if (conn->shape.size() != 2 || conn->shape[1] == 0)
          file_.fail(conn->name, "expected shape (num_fa_in_blk, num_nod_per_fa) for face type '" + name + "'");
        for (std::size_t face = 1; face <= conn->shape[0]; ++face)
          all.offsets.push_back(base + static_cast<std::int64_t>(face * conn->shape[1]));
      }
      all.nodes.insert(all.nodes.end(), nodes.begin(), nodes.end());
    }
    return *(faces_ = std::move(all));
  }

  // NFACED: facconn<k> lists the faces of each polyhedron (ebepecnt<k> of them), each face
  // copied from the face blocks into the polyhedron as our layout stores it.
  CellBlock read_polyhedra(const NetcdfVariable& facconn, std::size_t k, std::int64_t num_points) {
    CellBlock cells;
    cells.type = "polyhedron";
    cells.offsets = entity_offsets(file_.require("ebepecnt" + std::to_string(k)), facconn, "face", false);
    const Faces& all = faces(num_points);
    const std::vector<std::int64_t> face_numbers =
        read_numbers(facconn, static_cast<std::int64_t>(all.offsets.size()) - 1);
    std::optional<std::int64_t> num_nodes = 0;  // faces shared by polyhedra are stored once per polyhedron
    for (std::size_t i = 0; i < face_numbers.size() && num_nodes; ++i)
      num_nodes = io::checked_sum(*num_nodes, all.offsets[face_numbers[i] + 1] - all.offsets[face_numbers[i]]);
    io::check_claim_fits_limit(path_, kFormat, "the face nodes of the polyhedra of " + facconn.name,
                               num_nodes ? static_cast<std::uint64_t>(*num_nodes) : UINT64_MAX, sizeof(std::int64_t));
    cells.face_offsets = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(face_numbers.size()) + 1});
    cells.connectivity = NDArray::allocate(DType::int64, {*num_nodes});
    std::int64_t* face_offsets = cells.face_offsets.data_as<std::int64_t>();
    std::int64_t* nodes = cells.connectivity.data_as<std::int64_t>();
    face_offsets[0] = 0;
    for (std::size_t i = 0; i < face_numbers.size(); ++i) {
      const std::int64_t face = face_numbers[i];
      nodes = std::copy(all.nodes.begin() + all.offsets[face], all.nodes.begin() + all.offsets[face + 1], nodes);
      face_offsets[i + 1] = face_offsets[i] + all.offsets[face + 1] - all.offsets[face];
    }
    return cells;
  }

  void to_zero_based(std::span<std::int64_t> indices, std::int64_t limit, const std::string& variable) const {
    bool bad = false;
    for (std::int64_t& index : indices) {
      index = io::zero_based(index);
      bad |= !io::id_within(index, limit);
    }
    if (!bad) return;
    for (std::size_t i = 0; i < indices.size(); ++i)
      if (!io::id_within(indices[i], limit))
        file_.fail(variable, "entry " + std::to_string(i) + " is " + std::to_string(io::one_based(indices[i])) +
                                 ", outside 1.." + std::to_string(limit));
  }

  static void permute_nodes(CellBlock& cells) {
    const std::span<const std::int8_t> order = node_permutation(cells.type);
    if (order.empty()) return;
    const std::int64_t width = cells.connectivity.row_width();
    std::int64_t* data = cells.connectivity.data_as<std::int64_t>();
    std::int64_t scratch[32];
    for (std::int64_t cell = 0; cell < cells.connectivity.rows(); ++cell) {
      std::int64_t* row = data + cell * width;
      std::copy(row, row + width, scratch);
      for (std::int64_t i = 0; i < width; ++i) row[i] = scratch[order[i]];
    }
  }

  void read_sets(Mesh& mesh) {
    read_node_sets(mesh);
    read_side_and_element_sets(mesh);
  }

  // Node sets → Point regions.
  void read_node_sets(Mesh& mesh) {
    const std::int64_t num_points = mesh.num_points();
    const std::size_t num_node_sets = dim("num_node_sets");
    const std::vector<std::string> node_set_names = names("ns_names", num_node_sets);
    const std::vector<std::int64_t> node_set_ids = ids("ns_prop1", num_node_sets);
    for (std::size_t k = 1; k <= num_node_sets; ++k) {
      const NetcdfVariable* nodes = file_.find("node_ns" + std::to_string(k));
      Region region;
      region.name = node_set_names[k - 1].empty() ? "nodeset_" + std::to_string(node_set_ids[k - 1]) : node_set_names[k - 1];
      region.kind = RegionKind::Point;
      region.dim = 0;
      region.tag = node_set_ids[k - 1];
      const auto count = nodes ? static_cast<std::int64_t>(nodes->shape.at(0)) : 0;
      region.entries = nodes ? file_.read(*nodes, DType::int64, {count}) : NDArray::allocate(DType::int64, {0});
      if (nodes) to_zero_based(region.entries.values<std::int64_t>(), num_points, nodes->name);
      mesh.regions.push_back(std::move(region));
    }
  }

  void read_side_and_element_sets(Mesh& mesh) {
    // Side sets → Side regions.
    const std::size_t num_side_sets = dim("num_side_sets");
    const std::vector<std::string> side_set_names = names("ss_names", num_side_sets);
    const std::vector<std::int64_t> side_set_ids = ids("ss_prop1", num_side_sets);
    for (std::size_t k = 1; k <= num_side_sets; ++k) {
      const NetcdfVariable* elements = file_.find("elem_ss" + std::to_string(k));
      const NetcdfVariable* sides = file_.find("side_ss" + std::to_string(k));
      Region region;
      region.name = side_set_names[k - 1].empty() ? "sideset_" + std::to_string(side_set_ids[k - 1]) : side_set_names[k - 1];
      region.kind = RegionKind::Side;
      region.tag = side_set_ids[k - 1];
      region.entries = read_side_pairs(elements, sides, region.dim);
      mesh.regions.push_back(std::move(region));
    }
    // Element sets → Cell regions.
    const std::size_t num_elem_sets = dim("num_elem_sets");
    const std::vector<std::string> elem_set_names = names("els_names", num_elem_sets);
    const std::vector<std::int64_t> elem_set_ids = ids("els_prop1", num_elem_sets);
    for (std::size_t k = 1; k <= num_elem_sets; ++k) {
      const NetcdfVariable* elements = file_.find("elem_els" + std::to_string(k));
      Region region;
      region.name = elem_set_names[k - 1].empty() ? "elemset_" + std::to_string(elem_set_ids[k - 1]) : elem_set_names[k - 1];
      region.kind = RegionKind::Cell;
      region.tag = elem_set_ids[k - 1];
      const auto count = elements ? static_cast<std::int64_t>(elements->shape.at(0)) : 0;
      region.entries = elements ? file_.read(*elements, DType::int64, {count}) : NDArray::allocate(DType::int64, {0});
      if (elements) to_zero_based(region.entries.values<std::int64_t>(), num_cells_, elements->name);
      mesh.regions.push_back(std::move(region));
    }
  }

  const Block& block_of(std::int64_t cell) const {
    auto it = std::upper_bound(blocks_.begin(), blocks_.end(), cell,
                               [](std::int64_t value, const Block& block) { return value < block.first_cell; });
    return *(it - 1);
  }

  NDArray read_side_pairs(const NetcdfVariable* elements, const NetcdfVariable* sides, int& dim) const {
    if (elements == nullptr || sides == nullptr) return NDArray::allocate(DType::int64, {0, 2});
    if (elements->shape.size() != 1 || sides->shape != elements->shape)
      file_.fail(sides->name, "expected the shape of " + elements->name);
    const std::size_t count = elements->shape[0];
    file_.check_stored_size(*elements, count);
    NDArray element_ids = NDArray::allocate_scratch(DType::int64, {static_cast<std::int64_t>(count)});
    NDArray side_ids = NDArray::allocate_scratch(DType::int64, {static_cast<std::int64_t>(count)});
    file_.read_into(*elements, DType::int64, element_ids.data());
    file_.read_into(*sides, DType::int64, side_ids.data());
    std::span<std::int64_t> cells = element_ids.values<std::int64_t>();
    to_zero_based(cells, num_cells_, elements->name);
    const std::int64_t* side = side_ids.data_as<std::int64_t>();
    // Pairs whose side has no facet of ours (shell faces, bars) are left out: count first.
    std::vector<std::int64_t> facets(count);
    std::int64_t kept = 0;
    int side_dim = -1;
    for (std::size_t i = 0; i < count; ++i) {
      const Block& block = block_of(cells[i]);
      const auto facet_count = static_cast<std::int64_t>(cell_facets(block.type).size());
      std::int64_t facet = -1;
      if (block.sides == SideRule::facet) facet = io::zero_based(side[i]);  // range-checked below
      else if (block.sides == SideRule::shell) facet = side[i] >= 3 ? side[i] - 3 : -1;
      const std::int64_t sides_in_exodus = block.sides == SideRule::shell ? facet_count + 2 : facet_count;
      if (block.sides != SideRule::none && (side[i] < 1 || side[i] > sides_in_exodus))
        file_.fail(sides->name, "entry " + std::to_string(i) + " is side " + std::to_string(side[i]) + " of a " +
                                    block.exodus_name + " element, which has sides 1.." + std::to_string(sides_in_exodus));
      facets[i] = facet;
      if (facet >= 0) {
        ++kept;
        const CellTypeInfo* info = find_cell_type(block.type);
        const int facet_dim = info ? info->dimension - 1 : -1;
        side_dim = side_dim == -1 || side_dim == facet_dim ? facet_dim : -2;
      }
    }
    dim = side_dim < 0 ? -1 : side_dim;
    NDArray pairs = NDArray::allocate(DType::int64, {kept, 2});
    std::int64_t* out = pairs.data_as<std::int64_t>();
    for (std::size_t i = 0; i < count; ++i) {
      if (facets[i] < 0) continue;
      *out++ = cells[i];
      *out++ = facets[i];
    }
    return pairs;
  }

  void read_records(Mesh& mesh) {
    if (const NetcdfVariable* qa = file_.find("qa_records")) {
      std::vector<std::string> records = file_.read_strings(*qa);
      for (std::string& record : records) record = as_utf8(record);
      mesh.string_field_data.set("exodus:qa_records", std::move(records));
    }
    if (const NetcdfVariable* info = file_.find("info_records")) {
      std::vector<std::string> records = file_.read_strings(*info);
      for (std::string& record : records) record = as_utf8(record);
      mesh.string_field_data.set("exodus:info_records", std::move(records));
    }
  }

  // One step of a (time_step, rows, extra…) variable as an array (rows, extra…) in its dtype.
  // `scratch`: a temporary (a vector component about to be joined), kept off the allocator hook.
  NDArray read_step_slice(const NetcdfVariable& variable, std::size_t step, std::size_t rows,
                          bool scratch = false) const {
    if (variable.shape.size() < 2 || variable.shape[1] != rows)
      file_.fail(variable.name, "expected shape (time_step, " + std::to_string(rows) + ", …)");
    const DType dtype = dtype_of_nc(variable.type).value_or(DType::float64);
    Shape shape{static_cast<std::int64_t>(rows)};
    std::vector<std::size_t> start(variable.shape.size(), 0), count = variable.shape;
    start[0] = step;
    count[0] = 1;
    for (std::size_t axis = 2; axis < variable.shape.size(); ++axis)
      shape.push_back(static_cast<std::int64_t>(variable.shape[axis]));
    if (!scratch) return file_.read(variable, dtype, shape, start, count);
    std::size_t elements = 1;
    for (std::int64_t extent : shape) elements *= static_cast<std::size_t>(extent);
    file_.check_stored_size(variable, elements);
    NDArray out = NDArray::allocate_scratch(dtype, shape);
    file_.read_into(variable, dtype, out.data(), start, count);
    return out;
  }

  void read_nodal_variables(Mesh& mesh, std::size_t step) {
    const std::size_t num_nodes = static_cast<std::size_t>(mesh.num_points());
    const std::size_t num_vars = dim("num_nod_var");
    if (num_vars == 0 || num_nodes == 0) return;
    const std::vector<std::string> var_names = names("name_nod_var", num_vars);
    const NetcdfVariable* combined = file_.find("vals_nod_var");  // the pre-2005 layout
    auto column = [&](std::size_t index, bool scratch) -> NDArray {
      if (combined) {
        if (combined->shape.size() != 3 || combined->shape[1] != num_vars || combined->shape[2] != num_nodes)
          file_.fail("vals_nod_var", "expected shape (time_step, num_nod_var, num_nodes)");
        const std::size_t start[3] = {step, index, 0}, count[3] = {1, 1, num_nodes};
        const DType dtype = dtype_of_nc(combined->type).value_or(DType::float64);
        const Shape shape{static_cast<std::int64_t>(num_nodes)};
        if (!scratch) return file_.read(*combined, dtype, shape, start, count);
        file_.check_stored_size(*combined, num_nodes);
        NDArray out = NDArray::allocate_scratch(dtype, shape);
        file_.read_into(*combined, dtype, out.data(), start, count);
        return out;
      }
      return read_step_slice(file_.require("vals_nod_var" + std::to_string(index + 1)), step, num_nodes, scratch);
    };
    for (const NodalGroup& nodal : nodal_groups(var_names)) {
      const std::string& joined = nodal.name;
      const std::vector<std::size_t>& group = nodal.members;
      const std::size_t i = group[0];
      if (!wanted(joined)) continue;
      if (group.size() == 1) {
        mesh.point_data.set(joined, column(i, false));
        continue;
      }
      NDArray first = column(group[0], true);
      NDArray joined_array = NDArray::allocate(first.dtype(), {static_cast<std::int64_t>(num_nodes),
                                                              static_cast<std::int64_t>(group.size())});
      for (std::size_t c = 0; c < group.size(); ++c) {
        NDArray part = c == 0 ? first : column(group[c], true);
        if (part.ndim() != 1) file_.fail("vals_nod_var" + std::to_string(group[c] + 1), "a vector component is not scalar");
        if (part.dtype() != first.dtype()) part = part.astype(first.dtype());
        const std::size_t width = dtype_size(first.dtype());
        auto* out = static_cast<char*>(joined_array.data()) + c * width;
        const auto* in = static_cast<const char*>(part.data());
        for (std::size_t node = 0; node < num_nodes; ++node)
          std::copy(in + node * width, in + (node + 1) * width, out + node * group.size() * width);
      }
      mesh.point_data.set(joined, std::move(joined_array));
    }
  }

  void read_element_variables(Mesh& mesh, std::size_t step) {
    const std::size_t num_vars = dim("num_elem_var");
    if (num_vars == 0 || blocks_.empty()) return;
    const std::vector<std::string> var_names = names("name_elem_var", num_vars);
    for (std::size_t v = 0; v < num_vars; ++v) {
      if (!wanted(var_names[v])) continue;
      std::vector<NDArray> per_block;
      per_block.reserve(blocks_.size());
      for (const Block& block : blocks_) {
        const NetcdfVariable* values =
            file_.find("vals_elem_var" + std::to_string(v + 1) + "eb" + std::to_string(block.exodus_index));
        if (values) {
          per_block.push_back(read_step_slice(*values, step, static_cast<std::size_t>(block.count)));
        } else {  // the truth table leaves this block out
          NDArray missing = NDArray::allocate(DType::float64, {block.count});
          std::fill_n(missing.data_as<double>(), block.count, std::numeric_limits<double>::quiet_NaN());
          per_block.push_back(std::move(missing));
        }
      }
      mesh.cell_data.set(var_names[v], std::move(per_block));
    }
  }

  void read_global_variables(Mesh& mesh, std::size_t step) {
    const std::size_t num_vars = dim("num_glo_var");
    const NetcdfVariable* values = file_.find("vals_glo_var");
    if (num_vars == 0 || values == nullptr) return;
    if (values->shape.size() != 2 || values->shape[1] != num_vars)
      file_.fail("vals_glo_var", "expected shape (time_step, num_glo_var)");
    const std::vector<std::string> var_names = names("name_glo_var", num_vars);
    for (std::size_t v = 0; v < num_vars; ++v) {
      if (!wanted(var_names[v])) continue;
      const std::size_t start[2] = {step, v}, count[2] = {1, 1};
      mesh.field_data.set(var_names[v], file_.read(*values, DType::float64, {1}, start, count));
    }
  }

  // Whether a read_selected() keeps the array `name` (a plain read keeps all).
  bool wanted(const std::string& name) const {
    if (request_ == nullptr) return true;
    if (request_->arrays) return std::find(request_->arrays->begin(), request_->arrays->end(), name) != request_->arrays->end();
    return !request_->points_only;
  }

  // meshio's grouping of nodal variables: <name>X, <name>Y, <name>Z → <name> (n, 3);
  // <name>_R, <name>_Z → <name> (n, 2); any other is one column.
  struct NodalGroup {
    std::string name;
    std::vector<std::size_t> members;  // indices into name_nod_var, in component order
  };
  static std::vector<NodalGroup> nodal_groups(const std::vector<std::string>& var_names) {
    const std::size_t num_vars = var_names.size();
    std::vector<bool> used(num_vars, false);
    auto index_of = [&](const std::string& name) -> std::optional<std::size_t> {
      for (std::size_t i = 0; i < num_vars; ++i)
        if (!used[i] && var_names[i] == name) return i;
      return std::nullopt;
    };
    std::vector<NodalGroup> groups;
    for (std::size_t i = 0; i < num_vars; ++i) {
      if (used[i]) continue;
      const std::string& name = var_names[i];
      NodalGroup group{name, {i}};
      used[i] = true;
      if (name.size() > 1 && name.back() == 'X') {
        const std::string stem = name.substr(0, name.size() - 1);
        const auto y = index_of(stem + "Y"), z = index_of(stem + "Z");
        if (y && z) group = {stem, {i, *y, *z}};
      } else if (name.size() > 2 && name.ends_with("_R")) {
        const std::string stem = name.substr(0, name.size() - 2);
        if (const auto z = index_of(stem + "_Z")) group = {stem, {i, *z}};
      }
      for (std::size_t member : group.members) used[member] = true;
      groups.push_back(std::move(group));
    }
    return groups;
  }

  // The regions read_sets() makes: node and element set sizes from their dimensions; side sets
  // are read (element and side numbers, boundary-sized) since sides without a facet of ours
  // are left out.
  void set_summaries(MeshMetadata& summary) const {
    const std::size_t num_node_sets = dim("num_node_sets");
    const std::vector<std::string> node_set_names = names("ns_names", num_node_sets);
    const std::vector<std::int64_t> node_set_ids = ids("ns_prop1", num_node_sets);
    for (std::size_t k = 1; k <= num_node_sets; ++k) {
      const NetcdfVariable* nodes = file_.find("node_ns" + std::to_string(k));
      const std::string name =
          node_set_names[k - 1].empty() ? "nodeset_" + std::to_string(node_set_ids[k - 1]) : node_set_names[k - 1];
      if (nodes != nullptr && nodes->shape.size() != 1) file_.fail(nodes->name, "expected one dimension (the set's nodes)");
      summary.regions.push_back({name, RegionKind::Point, 0, node_set_ids[k - 1],
                                 nodes ? static_cast<std::int64_t>(nodes->shape[0]) : 0});
    }
    const std::size_t num_side_sets = dim("num_side_sets");
    const std::vector<std::string> side_set_names = names("ss_names", num_side_sets);
    const std::vector<std::int64_t> side_set_ids = ids("ss_prop1", num_side_sets);
    for (std::size_t k = 1; k <= num_side_sets; ++k) {
      int side_dim = -1;
      const NDArray pairs =
          read_side_pairs(file_.find("elem_ss" + std::to_string(k)), file_.find("side_ss" + std::to_string(k)), side_dim);
      const std::string name =
          side_set_names[k - 1].empty() ? "sideset_" + std::to_string(side_set_ids[k - 1]) : side_set_names[k - 1];
      summary.regions.push_back({name, RegionKind::Side, side_dim, side_set_ids[k - 1], pairs.rows()});
    }
    const std::size_t num_elem_sets = dim("num_elem_sets");
    const std::vector<std::string> elem_set_names = names("els_names", num_elem_sets);
    const std::vector<std::int64_t> elem_set_ids = ids("els_prop1", num_elem_sets);
    for (std::size_t k = 1; k <= num_elem_sets; ++k) {
      const NetcdfVariable* elements = file_.find("elem_els" + std::to_string(k));
      const std::string name =
          elem_set_names[k - 1].empty() ? "elemset_" + std::to_string(elem_set_ids[k - 1]) : elem_set_names[k - 1];
      if (elements != nullptr && elements->shape.size() != 1) file_.fail(elements->name, "expected one dimension (the set's elements)");
      summary.regions.push_back({name, RegionKind::Cell, Region{}.dim, elem_set_ids[k - 1],
                                 elements ? static_cast<std::int64_t>(elements->shape[0]) : 0});
    }
  }

  // The arrays read() gives for step 0, named, typed and shaped from the variables' headers.
  void variable_summaries(MeshMetadata& summary) const {
    const auto trailing = [](const NetcdfVariable& variable, std::vector<std::int64_t> shape) {
      for (std::size_t axis = 2; axis < variable.shape.size(); ++axis)
        shape.push_back(static_cast<std::int64_t>(variable.shape[axis]));
      return shape;
    };
    const std::size_t num_nodal = dim("num_nod_var");
    if (num_nodal > 0 && summary.num_points > 0) {
      const NetcdfVariable* combined = file_.find("vals_nod_var");
      for (const NodalGroup& group : nodal_groups(names("name_nod_var", num_nodal))) {
        const NetcdfVariable& first =
            combined ? *combined : file_.require("vals_nod_var" + std::to_string(group.members[0] + 1));
        const DType dtype = dtype_of_nc(first.type).value_or(DType::float64);
        std::vector<std::int64_t> shape{summary.num_points};
        if (group.members.size() > 1) shape.push_back(static_cast<std::int64_t>(group.members.size()));
        else if (!combined) shape = trailing(first, shape);
        summary.arrays.push_back({group.name, DataAssociation::point, dtype, std::move(shape)});
      }
    }
    const std::size_t num_element = dim("num_elem_var");
    if (num_element > 0 && !blocks_.empty()) {
      const std::vector<std::string> var_names = names("name_elem_var", num_element);
      for (std::size_t v = 0; v < num_element; ++v) {
        const NetcdfVariable* first =
            file_.find("vals_elem_var" + std::to_string(v + 1) + "eb" + std::to_string(blocks_.front().exodus_index));
        const DType dtype = first ? dtype_of_nc(first->type).value_or(DType::float64) : DType::float64;
        const std::vector<std::int64_t> rows{num_cells_};
        summary.arrays.push_back({var_names[v], DataAssociation::cell, dtype, first ? trailing(*first, rows) : rows});
      }
    }
    const std::size_t num_global = dim("num_glo_var");
    if (num_global > 0 && file_.find("vals_glo_var") != nullptr)
      for (const std::string& name : names("name_glo_var", num_global))
        summary.arrays.push_back({name, DataAssociation::field, DType::float64, {1}});
  }

  NetcdfReader file_;
  const ReadRequest* request_ = nullptr;
  std::string path_;
  int mesh_dimension_ = 3;
  std::int64_t num_cells_ = 0;
  std::vector<Block> blocks_;
  std::optional<Faces> faces_;
};

}  // namespace

Mesh read(const std::string& path) { return read_step(path, std::numeric_limits<std::size_t>::max()); }

std::vector<double> time_values(const std::string& path) { return Reader(path).times(); }

namespace {

// Each call opens the file anew: netCDF's lock is held only while reading, not for the life of
// the series object.
class ExodusSeries final : public TimeSeriesReader {
 public:
  explicit ExodusSeries(std::string path) : path_(std::move(path)), times_(time_values(path_)) {}
  std::size_t num_steps() const override { return times_.size(); }
  double time(std::size_t step) const override {
    if (step >= times_.size())
      throw ReadError(path_, std::string(kFormat), "time step " + std::to_string(step) + " requested, the file has " +
                                                       std::to_string(times_.size()));
    return times_[step];
  }
  Mesh read_mesh() override { return read_structure(path_); }  // variables belong to the steps
  TimeStep read_step(std::size_t step) override { return Reader(path_).read_variables(step); }

 private:
  std::string path_;
  std::vector<double> times_;
};

}  // namespace

Mesh read_structure(const std::string& path) { return Reader(path).read_structure(); }

Mesh read_selected(const std::string& path, const ReadRequest& request) { return Reader(path).read_selected(request); }

MeshMetadata read_metadata(const std::string& path) { return Reader(path).metadata(); }

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) {
  return std::make_unique<ExodusSeries>(path);
}

Mesh read_step(const std::string& path, std::size_t step) {
  Reader reader(path);
  return reader.read(step == std::numeric_limits<std::size_t>::max() ? std::nullopt : std::optional(step));
}

}  // namespace meshioplusplus::exodus
