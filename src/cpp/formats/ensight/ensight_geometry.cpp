// An EnSight Gold geometry file: its parts, each with its own nodes and element sections
// (unstructured) or a structured block (ensight_internal.hpp: Geometry).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>

#include "formats/ensight/ensight_internal.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::ensight {
namespace {

struct ElementType {
  std::string_view ensight;
  std::string_view meshio;
  int nodes;  // 0: nsided / nfaced
};

// EnSight's node orders of these elements are VTK's (and meshio's), corner nodes first, then
// the mid-edge nodes edge by edge as VTK lists them.
constexpr ElementType kElementTypes[] = {
    {"point", "vertex", 1},          {"bar2", "line", 2},          {"bar3", "line3", 3},
    {"tria3", "triangle", 3},        {"tria6", "triangle6", 6},    {"quad4", "quad", 4},
    {"quad8", "quad8", 8},           {"tetra4", "tetra", 4},       {"tetra10", "tetra10", 10},
    {"pyramid5", "pyramid", 5},      {"pyramid13", "pyramid13", 13}, {"penta6", "wedge", 6},
    {"penta15", "wedge15", 15},      {"hexa8", "hexahedron", 8},   {"hexa20", "hexahedron20", 20},
    {"nsided", "polygon", 0},        {"nfaced", "polyhedron", 0},
};

const ElementType* element_type(std::string_view name) {
  if (name.starts_with("g_")) name.remove_prefix(2);
  for (const ElementType& type : kElementTypes)
    if (type.ensight == name) return &type;
  return nullptr;
}

bool ids_listed(const std::string& line) {
  // "node id off|given|assign|ignore": ids follow the counts for given and ignore.
  return line.find("given") != std::string::npos || line.find("ignore") != std::string::npos;
}

std::int64_t checked_count(Stream& stream, const std::string& what, std::size_t bytes_each) {
  const std::int64_t count = stream.read_int();
  if (count < 0) stream.fail(what + ": negative count " + std::to_string(count));
  io::check_claim(stream.path(), kFormat, what, static_cast<std::uint64_t>(count), 1, stream.values_left(bytes_each) + 1,
                  8, {stream.offset(), std::nullopt});
  return count;
}

void skip_ids(Stream& stream, std::int64_t count) {
  std::vector<std::int32_t> ids(static_cast<std::size_t>(std::min<std::int64_t>(count, 1 << 16)));
  for (std::int64_t done = 0; done < count;) {
    const std::size_t piece = static_cast<std::size_t>(std::min<std::int64_t>(count - done, 1 << 16));
    stream.read_ints(ids.data(), piece);
    done += static_cast<std::int64_t>(piece);
  }
}

// Component-major coordinates (all x, all y, all z) into (n, 3) float64.
NDArray read_coordinates(Stream& stream, std::int64_t count) {
  NDArray points = NDArray::allocate(DType::float64, {count, 3});
  auto* xyz = points.data_as<double>();
  std::vector<double> column(static_cast<std::size_t>(count));
  for (int axis = 0; axis < 3; ++axis) {
    stream.read_doubles(column.data(), column.size());
    for (std::int64_t k = 0; k < count; ++k) xyz[3 * k + axis] = column[static_cast<std::size_t>(k)];
  }
  return points;
}

// 1-based node numbers of the part → 0-based, each checked against the part's node count.
NDArray node_indices(Stream& stream, const std::vector<std::int32_t>& one_based, std::int64_t num_nodes,
                     std::int64_t rows, std::int64_t columns) {
  NDArray indices = NDArray::allocate(DType::int64, columns ? Shape{rows, columns} : Shape{rows});
  auto* out = indices.data_as<std::int64_t>();
  for (std::size_t k = 0; k < one_based.size(); ++k) {
    const std::int64_t node = one_based[k];
    if (node < 1 || node > num_nodes)
      stream.fail("node " + std::to_string(node) + " out of the part's range 1.." + std::to_string(num_nodes));
    out[k] = node - 1;
  }
  return indices;
}

NDArray offsets_from_counts(Stream& stream, const std::vector<std::int32_t>& counts, const std::string& what) {
  NDArray offsets = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(counts.size()) + 1});
  auto* out = offsets.data_as<std::int64_t>();
  out[0] = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    if (counts[k] < 0) stream.fail(what + ": a negative count");
    out[k + 1] = out[k] + counts[k];
  }
  return offsets;
}

// Sizes of the arrays an nsided/nfaced section lists before its nodes, summed.
std::int64_t summed_counts(Stream& stream, std::int64_t count, const std::string& what) {
  std::vector<std::int32_t> counts(static_cast<std::size_t>(count));
  stream.read_ints(counts.data(), counts.size());
  std::int64_t total = 0;
  for (const std::int32_t value : counts) {
    if (value < 0) stream.fail(what + ": a negative count");
    total += value;
  }
  return total;
}

// A section's element counts kept, its connectivity passed over (GeometryDetail::points/counts).
Section pass_over_section(Stream& stream, const std::string& type_name, const ElementType& type, bool element_ids) {
  Section section;
  section.type = type_name;
  section.ghost = type_name.starts_with("g_");
  const std::int64_t count = checked_count(stream, type_name + " elements", 4);
  if (element_ids) stream.skip_values(static_cast<std::size_t>(count));
  section.file_cells = count;
  section.block.type = std::string(type.meshio);
  std::uint64_t values = static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(std::max(type.nodes, 0));
  if (type.nodes == 0) {
    const std::int64_t listed = summed_counts(stream, count, type_name + " counts");
    values = type.meshio == "polygon" ? static_cast<std::uint64_t>(listed)
                                      : static_cast<std::uint64_t>(summed_counts(stream, listed, "nfaced node counts"));
  }
  io::check_claim(stream.path(), kFormat, type_name + " connectivity", values, 1, stream.values_left(4) + 1, 8,
                  {stream.offset(), std::nullopt});
  stream.skip_values(static_cast<std::size_t>(values));
  return section;
}

Section read_section(Stream& stream, const std::string& type_name, const ElementType& type, const Part& part,
                     bool element_ids) {
  Section section;
  section.type = type_name;
  section.ghost = type_name.starts_with("g_");
  const std::int64_t count = checked_count(stream, type_name + " elements", 4);
  if (element_ids) skip_ids(stream, count);
  section.file_cells = count;
  CellBlock& block = section.block;
  block.type = std::string(type.meshio);
  if (type.nodes > 0) {
    const std::uint64_t values = static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(type.nodes);
    io::check_claim(stream.path(), kFormat, type_name + " connectivity", values, 1, stream.values_left(4) + 1, 8,
                    {stream.offset(), std::nullopt});
    std::vector<std::int32_t> nodes(values);
    stream.read_ints(nodes.data(), nodes.size());
    block.connectivity = node_indices(stream, nodes, part.num_points(), count, type.nodes);
    return section;
  }
  std::vector<std::int32_t> counts(static_cast<std::size_t>(count));
  stream.read_ints(counts.data(), counts.size());
  if (type.meshio == "polygon") {
    block.offsets = offsets_from_counts(stream, counts, "nsided node counts");
    const std::int64_t total = block.offsets.data_as<std::int64_t>()[count];
    io::check_claim(stream.path(), kFormat, "nsided connectivity", static_cast<std::uint64_t>(total), 1,
                    stream.values_left(4) + 1, 8, {stream.offset(), std::nullopt});
    std::vector<std::int32_t> nodes(static_cast<std::size_t>(total));
    stream.read_ints(nodes.data(), nodes.size());
    block.connectivity = node_indices(stream, nodes, part.num_points(), total, 0);
    return section;
  }
  // nfaced: faces per element, nodes per face, then the nodes.
  block.offsets = offsets_from_counts(stream, counts, "nfaced face counts");
  const std::int64_t faces = block.offsets.data_as<std::int64_t>()[count];
  io::check_claim(stream.path(), kFormat, "nfaced faces", static_cast<std::uint64_t>(faces), 1,
                  stream.values_left(4) + 1, 8, {stream.offset(), std::nullopt});
  std::vector<std::int32_t> face_counts(static_cast<std::size_t>(faces));
  stream.read_ints(face_counts.data(), face_counts.size());
  block.face_offsets = offsets_from_counts(stream, face_counts, "nfaced node counts");
  const std::int64_t total = block.face_offsets.data_as<std::int64_t>()[faces];
  io::check_claim(stream.path(), kFormat, "nfaced connectivity", static_cast<std::uint64_t>(total), 1,
                  stream.values_left(4) + 1, 8, {stream.offset(), std::nullopt});
  std::vector<std::int32_t> nodes(static_cast<std::size_t>(total));
  stream.read_ints(nodes.data(), nodes.size());
  block.connectivity = node_indices(stream, nodes, part.num_points(), total, 0);
  return section;
}

// `block [iblanked] [with_ghost] [range] [curvilinear|rectilinear|uniform]`: the nodes of the
// grid (i fastest) and its cells as hexahedra, quads or lines by how many of i, j, k exceed 1.
// Blanked-out cells (a node with iblank 0) are left out; ghost cells flagged.
void read_block(Stream& stream, const std::string& line, Part& part, bool node_ids, bool element_ids) {
  const bool iblanked = line.find("iblanked") != std::string::npos;
  const bool with_ghost = line.find("with_ghost") != std::string::npos;
  const bool range = line.find("range") != std::string::npos;
  const bool rectilinear = line.find("rectilinear") != std::string::npos;
  const bool uniform = line.find("uniform") != std::string::npos;
  std::array<std::int64_t, 3> dims{};
  for (std::int64_t& dim : dims) {
    dim = stream.read_int();
    if (dim < 1) stream.fail("a block dimension below 1");
  }
  if (range) {
    std::array<std::int64_t, 6> bounds{};
    for (std::int64_t& bound : bounds) bound = stream.read_int();
    for (int axis = 0; axis < 3; ++axis) {
      if (bounds[2 * axis] < 1 || bounds[2 * axis + 1] > dims[axis] || bounds[2 * axis] > bounds[2 * axis + 1])
        stream.fail("a block range outside its dimensions");
      dims[axis] = bounds[2 * axis + 1] - bounds[2 * axis] + 1;  // the nodes given are the range's
    }
  }
  const std::uint64_t nodes64 = static_cast<std::uint64_t>(dims[0]) * dims[1] * dims[2];
  io::check_claim_fits_limit(stream.path(), kFormat, "block nodes", nodes64, 24, {stream.offset(), std::nullopt});
  const std::int64_t nodes = static_cast<std::int64_t>(nodes64);
  part.point_count = nodes;
  if (!uniform && !rectilinear)
    io::check_claim_fits_file(stream.path(), kFormat, "block coordinates", nodes64 * 3, 1, stream.values_left(4) + 1,
                              {stream.offset(), std::nullopt});
  part.points = NDArray::allocate(DType::float64, {nodes, 3});
  auto* xyz = part.points.data_as<double>();
  const auto node_at = [&](std::int64_t i, std::int64_t j, std::int64_t k) { return i + dims[0] * (j + dims[1] * k); };
  if (uniform) {
    double origin[3], delta[3];
    stream.read_doubles(origin, 3);
    stream.read_doubles(delta, 3);
    for (std::int64_t k = 0; k < dims[2]; ++k)
      for (std::int64_t j = 0; j < dims[1]; ++j)
        for (std::int64_t i = 0; i < dims[0]; ++i) {
          double* p = xyz + 3 * node_at(i, j, k);
          p[0] = origin[0] + i * delta[0], p[1] = origin[1] + j * delta[1], p[2] = origin[2] + k * delta[2];
        }
  } else if (rectilinear) {
    std::vector<double> axes[3];
    for (int axis = 0; axis < 3; ++axis) {
      axes[axis].resize(static_cast<std::size_t>(dims[axis]));
      stream.read_doubles(axes[axis].data(), axes[axis].size());
    }
    for (std::int64_t k = 0; k < dims[2]; ++k)
      for (std::int64_t j = 0; j < dims[1]; ++j)
        for (std::int64_t i = 0; i < dims[0]; ++i) {
          double* p = xyz + 3 * node_at(i, j, k);
          p[0] = axes[0][i], p[1] = axes[1][j], p[2] = axes[2][k];
        }
  } else {
    part.points = read_coordinates(stream, nodes);
    xyz = part.points.data_as<double>();
  }
  std::vector<std::int32_t> iblank;
  if (iblanked) {
    iblank.resize(static_cast<std::size_t>(nodes));
    stream.read_ints(iblank.data(), iblank.size());
  }
  // The cells: one per (i, j, k) step along each axis longer than one node.
  std::vector<int> axes;
  for (int axis = 0; axis < 3; ++axis)
    if (dims[axis] > 1) axes.push_back(axis);
  std::array<std::int64_t, 3> cell_dims{};
  for (int axis = 0; axis < 3; ++axis) cell_dims[axis] = std::max<std::int64_t>(dims[axis] - 1, 1);
  const std::int64_t cells = axes.empty() ? 0 : cell_dims[0] * cell_dims[1] * cell_dims[2];
  // Then, each behind its optional header: ghost flags per cell, node ids, element ids.
  std::vector<std::int32_t> ghost_flags;
  if (with_ghost) {
    stream.skip_optional("ghost_flags");
    ghost_flags.resize(static_cast<std::size_t>(cells));
    stream.read_ints(ghost_flags.data(), ghost_flags.size());
  }
  if (node_ids) {
    stream.skip_optional("node_ids");
    skip_ids(stream, nodes);
  }
  if (element_ids) {
    stream.skip_optional("element_ids");
    skip_ids(stream, cells);
  }
  const int corners = axes.size() == 3 ? 8 : axes.size() == 2 ? 4 : 2;
  Section section;
  section.type = "block";
  section.block.type = corners == 8 ? "hexahedron" : corners == 4 ? "quad" : "line";
  std::vector<std::int64_t> connectivity;
  connectivity.reserve(static_cast<std::size_t>(cells) * corners);
  std::int64_t kept = 0, file_cell = 0;
  section.file_cells = cells;
  for (std::int64_t k = 0; k < cell_dims[2]; ++k)
    for (std::int64_t j = 0; j < cell_dims[1]; ++j)
      for (std::int64_t i = 0; i < cell_dims[0] && cells > 0; ++i) {
        std::array<std::int64_t, 8> cell{};
        const std::int64_t d[3] = {dims[0] > 1, dims[1] > 1, dims[2] > 1};
        if (corners == 8) {
          cell = {node_at(i, j, k),         node_at(i + 1, j, k),         node_at(i + 1, j + 1, k),
                  node_at(i, j + 1, k),     node_at(i, j, k + 1),         node_at(i + 1, j, k + 1),
                  node_at(i + 1, j + 1, k + 1), node_at(i, j + 1, k + 1)};
        } else if (corners == 4) {
          // The two axes in use, (a, b): corners in the plane they span.
          const auto step = [&](int a_step, int b_step) {
            std::int64_t index[3] = {i, j, k};
            index[axes[0]] += a_step;
            index[axes[1]] += b_step;
            return node_at(index[0], index[1], index[2]);
          };
          cell = {step(0, 0), step(1, 0), step(1, 1), step(0, 1)};
        } else {
          cell = {node_at(i, j, k), node_at(i + d[0], j + d[1], k + d[2])};
        }
        const bool blanked = iblanked && std::any_of(cell.begin(), cell.begin() + corners,
                                                     [&](std::int64_t node) { return iblank[node] == 0; });
        ++file_cell;
        if (blanked) continue;
        if (iblanked) section.kept_cells.push_back(file_cell - 1);
        if (with_ghost) section.ghost_flags.push_back(ghost_flags[file_cell - 1] != 0 ? 1 : 0);
        connectivity.insert(connectivity.end(), cell.begin(), cell.begin() + corners);
        ++kept;
      }
  section.block.connectivity = NDArray::allocate(DType::int64, {kept, corners});
  std::copy(connectivity.begin(), connectivity.end(), section.block.connectivity.data_as<std::int64_t>());
  part.sections.push_back(std::move(section));
}

}  // namespace

Geometry read_geometry(const std::string& path, std::optional<std::int64_t> step_in_file, GeometryDetail detail) {
  const io::MappedFile file(path, kFormat);
  Stream stream(file.bytes(), path);
  if (stream.encoding() != Encoding::ascii) stream.read_line();  // "C Binary" / "Fortran Binary"
  if (step_in_file) stream.seek_step(*step_in_file);
  stream.read_line();  // two description lines
  stream.read_line();
  const bool node_ids = ids_listed(stream.read_keyword());
  const bool element_ids = ids_listed(stream.read_keyword());
  Geometry geometry;
  geometry.encoding = stream.encoding();
  std::string keyword = stream.at_end() ? std::string() : stream.read_keyword();
  if (keyword.starts_with("extents")) {
    stream.skip_values(6);  // the bounding box: the points say the same
    keyword = stream.at_end() ? std::string() : stream.read_keyword();
  }
  while (!keyword.empty()) {
    if (keyword.starts_with("END TIME STEP")) break;
    if (!keyword.starts_with("part")) stream.fail("'part' expected, found '" + keyword + "'");
    Part part;
    part.number = stream.read_int();
    part.name = stream.read_keyword();
    std::string next = stream.read_keyword();
    if (next.starts_with("block")) {
      read_block(stream, next, part, node_ids, element_ids);
      keyword = stream.at_end() ? std::string() : stream.read_keyword();
    } else {
      if (next != "coordinates") stream.fail("'coordinates' or 'block' expected in part " + std::to_string(part.number));
      const std::int64_t nodes = checked_count(stream, "coordinates", 12);
      part.point_count = nodes;
      if (node_ids) stream.skip_values(static_cast<std::size_t>(nodes));
      if (detail == GeometryDetail::counts) {
        io::check_claim(stream.path(), kFormat, "coordinates", static_cast<std::uint64_t>(nodes) * 3, 1,
                        stream.values_left(4) + 1, 8, {stream.offset(), std::nullopt});
        stream.skip_values(static_cast<std::size_t>(nodes) * 3);
      } else {
        part.points = read_coordinates(stream, nodes);
      }
      keyword = stream.at_end() ? std::string() : stream.read_keyword();
      while (!keyword.empty() && !keyword.starts_with("part") && !keyword.starts_with("END TIME STEP")) {
        const ElementType* type = element_type(keyword);
        if (type == nullptr) stream.fail("unknown element type '" + keyword + "'");
        part.sections.push_back(detail == GeometryDetail::full ? read_section(stream, keyword, *type, part, element_ids)
                                                               : pass_over_section(stream, keyword, *type, element_ids));
        keyword = stream.at_end() ? std::string() : stream.read_keyword();
      }
    }
    geometry.parts.push_back(std::move(part));
  }
  return geometry;
}

}  // namespace meshioplusplus::ensight
