// VTKHDF reader and writer. What becomes what:
//   /VTKHDF (attributes Type = UnstructuredGrid | PolyData, Version = [1|2, x])
//   Points (all partitions stacked)                        → points (partitions merged; the
//                                                            connectivity of partition p is
//                                                            shifted by the points before it)
//   UnstructuredGrid Types/Offsets/Connectivity            → cell blocks (runs of one VTK type,
//                                                            as for .vtu; wedge order converted)
//   PolyData Vertices/Lines/Polygons groups                → vertex / line / triangle, quad,
//                                                            polygon blocks, in that order
//   PointData/<name>, CellData/<name>                      → point_data, cell_data (split over
//                                                            the blocks)
//   FieldData/<name>                                       → field_data (strings: string field data)
//   Steps (temporal files)                                 → read(path): the first step (its
//                                                            NumberOfParts[0] partitions at the
//                                                            step-0 offsets); every step through
//                                                            read(path, Selection) and the
//                                                            time-series reader (hyperslabs of
//                                                            that step only)
// Not read: polyhedra (FaceConnectivity …), PolyData Strips, other VTKHDF types
// (ImageData, OverlappingAMR, PartitionedDataSetCollection): ReadError naming the type.
// The writer writes an UnstructuredGrid, version 2.0, one partition; the time-series writer
// adds Steps (a static mesh, or one geometry per write_mesh()); write_partitioned_main writes
// the main file of a partitioned dataset as virtual datasets over one file per partition.
//
// The writer is vtkhdf_writer.cpp; what both know of the layout is vtkhdf_internal.hpp. This
// file is the reader: the partitions and Steps of a file (Layout), the hyperslab reads of a
// selection, the time-series reader and the read entry points.
#include "formats/vtkhdf/vtkhdf.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "formats/vtkhdf/vtkhdf_internal.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "io/source/parallel.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "io/vtk/vtk_type_runs.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::vtkhdf {

namespace detail {

std::string at(std::string_view name) { return std::string(kRoot) + "/" + std::string(name); }

std::vector<std::int64_t> int_values(const io::hdf5::File& file, const std::string& dataset) {
  const NDArray array = file.read(dataset, DType::int64);
  const auto values = array.values<std::int64_t>();
  return {values.begin(), values.end()};
}

std::string folder_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

}  // namespace detail

namespace {

// The VTK cell stream of one topology (UnstructuredGrid, or one PolyData group) over the
// partitions [first, first + count): offsets made global, connectivity shifted by each
// partition's first point. `cell_row`/`id_row` are where the first partition's cells and
// connectivity ids start in their datasets (a step's offset plus the partitions before).
struct Topology {
  NDArray types;         // uint8 (cells,)
  NDArray offsets;       // int64 (cells + 1,) global
  NDArray connectivity;  // int64 (ids,)
};

std::int64_t sum_range(const std::vector<std::int64_t>& values, std::int64_t first, std::int64_t count) {
  std::int64_t total = 0;
  for (std::int64_t i = first; i < first + count; ++i) total += values[static_cast<std::size_t>(i)];
  return total;
}

NDArray read_rows_counted(const io::hdf5::File& file, const std::string& dataset, std::int64_t first,
                          std::int64_t count, std::optional<DType> dtype, const std::string& offsets_from,
                          std::int64_t* bytes_read) {
  // read_rows checks the range itself; the rows are looked up first (a second open of the
  // dataset) only to name the Steps offset that put them out of range.
  if (!offsets_from.empty()) {
    const io::hdf5::DatasetInfo info = file.dataset_info(dataset);
    const std::int64_t rows = info.shape.empty() ? 0 : info.shape[0];
    if (first < 0 || count < 0 || first > rows || count > rows - first)
      file.fail(dataset, "rows [" + std::to_string(first) + ", " + std::to_string(first + count) + ") outside its " +
                             std::to_string(rows) + " rows (offset from " + offsets_from + ")");
  }
  NDArray array = file.read_rows(dataset, first, count, dtype);
  if (bytes_read) *bytes_read += static_cast<std::int64_t>(array.nbytes());
  return array;
}

Topology read_topology(const io::hdf5::File& file, const std::string& group, std::int64_t first, std::int64_t count,
                       const std::vector<std::int64_t>& cells, const std::vector<std::int64_t>& ids,
                       const std::vector<std::int64_t>& points_per_part, std::int64_t cell_row, std::int64_t id_row,
                       const std::string& offsets_from, std::int64_t* bytes_read) {
  if (cells.size() < static_cast<std::size_t>(first + count) || ids.size() < static_cast<std::size_t>(first + count))
    file.fail(group, "fewer partition counts than the " + std::to_string(first + count) + " partitions");
  const std::int64_t total_cells = sum_range(cells, first, count), total_ids = sum_range(ids, first, count);
  // Offsets holds cells + 1 rows per partition: the partitions before add one row each.
  const NDArray local_offsets = read_rows_counted(file, group + "/Offsets", cell_row + first, total_cells + count,
                                                  DType::int64, offsets_from, bytes_read);
  Topology topology;
  topology.connectivity = read_rows_counted(file, group + "/Connectivity", id_row, total_ids, DType::int64,
                                            offsets_from, bytes_read);
  // One partition's offsets are already the global ones (n + 1 rows from 0 to its ids).
  const bool single = count == 1;
  topology.offsets = single ? local_offsets : NDArray::allocate_scratch(DType::int64, {total_cells + 1});
  std::int64_t* offsets = topology.offsets.data_as<std::int64_t>();
  std::int64_t* connectivity = topology.connectivity.data_as<std::int64_t>();
  const std::int64_t* local = local_offsets.data_as<std::int64_t>();
  std::int64_t cell = 0, id_base = 0, point_base = 0, row = 0;
  for (std::int64_t p = first; p < first + count; ++p) {
    const std::int64_t n = cells[p], k = ids[p], points = points_per_part[p];
    if (n < 0 || k < 0) file.fail(group, "negative counts for partition " + std::to_string(p));
    if (local[row] != 0 || local[row + n] != k)
      file.fail(group + "/Offsets", "partition " + std::to_string(p) + " offsets do not run from 0 to its " +
                                        std::to_string(k) + " connectivity ids");
    // Branch-free passes on every core; the offender is looked for only when there is one.
    const std::int64_t* at = local + row;
    if (any_in_parallel(static_cast<std::size_t>(n), [at](std::size_t c) { return at[c + 1] < at[c]; }))
      for (std::int64_t c = 0; c < n; ++c)
        if (at[c + 1] < at[c]) file.fail(group + "/Offsets", "offsets decrease at cell " + std::to_string(cell + c));
    if (!single)
      parallel_ranges(static_cast<std::size_t>(n), std::size_t{1} << 16, [&](std::size_t lo, std::size_t hi) {
        for (std::size_t c = lo; c < hi; ++c) offsets[cell + static_cast<std::int64_t>(c)] = id_base + at[c];
      });
    std::int64_t* part = connectivity + id_base;
    if (const std::size_t bad = first_index_outside({part, static_cast<std::size_t>(k)}, points);
        bad != static_cast<std::size_t>(k))
      file.fail(group + "/Connectivity", "point id " + std::to_string(part[bad]) + " outside partition " +
                                             std::to_string(p) + "'s " + std::to_string(points) + " points");
    if (point_base != 0)
      parallel_ranges(static_cast<std::size_t>(k), std::size_t{1} << 16, [&](std::size_t lo, std::size_t hi) {
        for (std::size_t i = lo; i < hi; ++i) part[i] += point_base;
      });
    cell += n;
    id_base += k;
    point_base += points;
    row += n + 1;
  }
  offsets[total_cells] = total_ids;
  if (file.exists(group + "/Types"))
    topology.types = read_rows_counted(file, group + "/Types", cell_row, total_cells, DType::uint8, offsets_from,
                                       bytes_read);
  return topology;
}

// PolyData groups carry no types: they follow from the group and the cell size.
NDArray polydata_types(const Topology& topology, std::string_view group) {
  const std::int64_t cells = topology.offsets.rows() - 1;
  NDArray types = NDArray::allocate_scratch(DType::uint8, {cells});
  const std::int64_t* offsets = topology.offsets.data_as<std::int64_t>();
  for (std::int64_t c = 0; c < cells; ++c) {
    const std::int64_t size = offsets[c + 1] - offsets[c];
    std::uint8_t type = 7;  // polygon
    if (group == "Vertices") type = size == 1 ? 1 : 2;
    else if (group == "Lines") type = size == 2 ? 3 : 4;
    else if (size == 3) type = 5;
    else if (size == 4) type = 9;
    types.data_as<std::uint8_t>()[c] = type;
  }
  return types;
}

void append_blocks(const io::hdf5::File& file, const std::string& where, const Topology& topology,
                   std::int64_t num_points, Mesh& mesh, std::vector<io::CellRun>& runs, std::int64_t first_cell) {
  io::VtkCellStream stream;
  stream.types = topology.types.values<std::uint8_t>();
  stream.offsets = topology.offsets.values<std::int64_t>();
  stream.connectivity = topology.connectivity;
  stream.connectivity_is_shareable = true;  // read through the hook, already global ids
  stream.num_points = num_points;
  stream.indices_checked = true;  // read_topology checked each partition's ids against its points
  io::VtkCells cells;
  try {
    cells = io::cells_from_vtk(stream);
  } catch (const io::CellStreamError& error) {
    file.fail(where, error.what());
  }
  for (std::size_t b = 0; b < cells.blocks.size(); ++b) {
    mesh.cells.push_back(std::move(cells.blocks[b]));
    runs.push_back({cells.runs[b].first_cell + first_cell, cells.runs[b].cell_count});
  }
}

// The kind of `name` among a group's members (File::members), missing when absent.
io::hdf5::ObjectKind kind_of(const std::vector<io::hdf5::Member>& members, std::string_view name) {
  for (const io::hdf5::Member& member : members)
    if (member.name == name) return member.kind;
  return io::hdf5::ObjectKind::missing;
}

constexpr std::array<std::string_view, 4> kPolyGroups{"Vertices", "Lines", "Polygons", "Strips"};
// The members of /VTKHDF whose presence and kind the reader asks about (Layout::root_kind).
constexpr std::array<std::string_view, 9> kRootNamesAsked{"FaceConnectivity", "Steps",    "PointData",
                                                          "CellData",         "FieldData", "Vertices",
                                                          "Lines",            "Polygons", "Strips"};

// What a read touched: bytes of the rows read, and the files they came from (the file itself
// and, for virtual datasets, the partition files behind the rows).
struct Accounting {
  std::int64_t bytes = 0;
  std::set<std::string> files;
};

struct Group {
  std::string path;  // the dataset prefix: /VTKHDF or /VTKHDF/<PolyData group>
  std::string name;  // "" for an UnstructuredGrid
  std::size_t column = 0;  // in Steps/CellOffsets and ConnectivityIdOffsets
  std::vector<std::int64_t> cells, ids;
};

// The partitions of one step that a selection covers.
struct Range {
  std::int64_t step = 0;
  std::int64_t step_first = 0;  // the step's first partition (Steps/PartOffsets)
  std::int64_t first = 0;       // absolute partition numbers [first, first + count)
  std::int64_t count = 0;
  bool operator==(const Range&) const = default;
};

struct Geometry {
  Mesh mesh;  // points and cells only
  std::vector<io::CellRun> runs;
  std::int64_t num_cells = 0;
};

// The structure of a VTKHDF file: partition counts and the Steps offsets. Reads only small
// datasets; every mesh or data read afterwards is a hyperslab of the selected partitions.
class Layout {
 public:
  explicit Layout(const std::string& path) : file(io::hdf5::File::open(path, kFormat)) {
    if (file.kind(kRoot) != io::hdf5::ObjectKind::group) file.fail(kRoot, "no such group: not a VTKHDF file");
    // Only the names the reader asks about are looked at (the big datasets' headers are not).
    for (const std::string& name : file.children(kRoot))
      if (std::find(kRootNamesAsked.begin(), kRootNamesAsked.end(), name) != kRootNamesAsked.end())
        root_members.push_back({name, file.kind(at(name))});
    type = file.string_attribute(kRoot, "Type").value_or("");
    const std::int64_t major = file.integer_attribute(kRoot, "Version").value_or(0);
    if (major < 1 || major > 2)
      file.fail(kRoot, "VTKHDF version " + std::to_string(major) + " is not supported (1 or 2)");
    if (type != "UnstructuredGrid" && type != "PolyData")
      file.fail(kRoot, "VTKHDF Type '" + type + "' is not read (UnstructuredGrid or PolyData)");
    if (root_kind("FaceConnectivity") != io::hdf5::ObjectKind::missing) file.fail(at("FaceConnectivity"), "polyhedra are not read");
    points_per_part = int_values(file, at("NumberOfPoints"));
    if (type == "UnstructuredGrid") {
      groups.push_back({std::string(kRoot), "", 0, int_values(file, at("NumberOfCells")),
                        int_values(file, at("NumberOfConnectivityIds"))});
    } else {
      for (std::size_t g = 0; g < kPolyGroups.size(); ++g) {
        if (root_kind(kPolyGroups[g]) != io::hdf5::ObjectKind::group) continue;
        const std::string where = at(kPolyGroups[g]);
        groups.push_back({where, std::string(kPolyGroups[g]), g, int_values(file, where + "/NumberOfCells"),
                          int_values(file, where + "/NumberOfConnectivityIds")});
      }
    }
    for (const Group& group : groups)
      if (group.cells.size() < points_per_part.size() || group.ids.size() < points_per_part.size())
        file.fail(group.path, "fewer partition counts than the " + std::to_string(points_per_part.size()) +
                                  " partitions of NumberOfPoints");
    // Counts are sizes of datasets: a negative or absurd one is forged (and would overflow sums).
    constexpr std::int64_t kMaxCount = std::int64_t{1} << 48;
    auto check_counts = [&](const std::vector<std::int64_t>& counts, const std::string& dataset) {
      std::int64_t total = 0;
      for (std::size_t p = 0; p < counts.size(); ++p) {
        if (counts[p] < 0 || counts[p] > kMaxCount - total)
          file.fail(dataset, "partition " + std::to_string(p) + " has count " + std::to_string(counts[p]));
        total += counts[p];
      }
    };
    check_counts(points_per_part, at("NumberOfPoints"));
    for (const Group& group : groups) {
      check_counts(group.cells, group.path + "/NumberOfCells");
      check_counts(group.ids, group.path + "/NumberOfConnectivityIds");
    }
    const std::int64_t parts = static_cast<std::int64_t>(points_per_part.size());
    temporal = root_kind("Steps") == io::hdf5::ObjectKind::group;
    if (!temporal) {
      values = {0.0};
      part_offsets = {0};
      parts_in_step = {parts};
      point_offsets = {0};
      cell_offsets.assign(4, 0);
      id_offsets.assign(4, 0);
      offsets_width = 4;
      return;
    }
    const std::string steps_group = at("Steps");
    const std::vector<io::hdf5::Member> steps_members = file.members(steps_group);
    std::optional<std::int64_t> declared = file.integer_attribute(steps_group, "NSteps");
    if (!declared) declared = file.integer_attribute(steps_group, "NumberOfSteps");
    if (kind_of(steps_members, "Values") != io::hdf5::ObjectKind::missing) {
      const NDArray times = file.read(steps_group + "/Values", DType::float64);
      values.assign(times.values<double>().begin(), times.values<double>().end());
    }
    steps = declared.value_or(static_cast<std::int64_t>(values.size()));
    if (steps < 0) file.fail(steps_group, "a negative number of steps");
    if (values.size() < static_cast<std::size_t>(steps)) {
      if (!values.empty())
        file.fail(steps_group + "/Values", "holds " + std::to_string(values.size()) + " times for " +
                                               std::to_string(steps) + " steps");
      for (std::int64_t k = 0; k < steps; ++k) values.push_back(static_cast<double>(k));
    }
    auto check_offsets = [&](const std::vector<std::int64_t>& offsets, const std::string& dataset) {
      for (std::size_t k = 0; k < offsets.size(); ++k)
        if (offsets[k] < 0 || offsets[k] > kMaxCount)
          file.fail(dataset, "entry " + std::to_string(k) + " is " + std::to_string(offsets[k]));
    };
    auto per_step = [&](std::string_view name, std::int64_t fallback) {
      const std::string dataset = steps_group + "/" + std::string(name);
      if (kind_of(steps_members, name) == io::hdf5::ObjectKind::missing)
        return std::vector<std::int64_t>(static_cast<std::size_t>(steps), fallback);
      std::vector<std::int64_t> result = int_values(file, dataset);
      if (result.size() < static_cast<std::size_t>(steps))
        file.fail(dataset, "holds " + std::to_string(result.size()) + " values for " + std::to_string(steps) + " steps");
      check_offsets(result, dataset);
      return result;
    };
    part_offsets = per_step("PartOffsets", 0);
    parts_in_step = per_step("NumberOfParts", -1);
    point_offsets = per_step("PointOffsets", 0);
    cell_offsets = per_step("CellOffsets", 0);
    id_offsets = per_step("ConnectivityIdOffsets", 0);
    offsets_width = steps > 0 ? std::max<std::size_t>(1, cell_offsets.size() / static_cast<std::size_t>(steps)) : 1;
    if (id_offsets.size() < offsets_width * static_cast<std::size_t>(steps))
      file.fail(steps_group + "/ConnectivityIdOffsets", "fewer columns than Steps/CellOffsets");
    for (const auto& [group_name, target] : {std::pair{"PointDataOffsets", &point_data_offsets},
                                             std::pair{"CellDataOffsets", &cell_data_offsets}}) {
      const std::string where = steps_group + "/" + group_name;
      if (kind_of(steps_members, group_name) != io::hdf5::ObjectKind::group) continue;
      for (const std::string& name : file.children(where)) {
        std::vector<std::int64_t> offsets = int_values(file, where + "/" + name);
        check_offsets(offsets, where + "/" + name);
        if (offsets.size() < static_cast<std::size_t>(steps))
          file.fail(where + "/" + name, "holds " + std::to_string(offsets.size()) + " offsets for " +
                                            std::to_string(steps) + " steps");
        (*target)[name] = std::move(offsets);
      }
    }
  }

  std::int64_t num_steps() const { return steps; }

  double time(std::size_t step) const {
    if (step >= static_cast<std::size_t>(steps))
      file.fail(at("Steps"), "step " + std::to_string(step) + " out of range (the file has " +
                                 std::to_string(steps) + ")");
    return values[step];
  }

  Range range(const Selection& selection) const {
    const std::int64_t k = selection.step;
    if (k < 0 || k >= steps)
      file.fail(temporal ? at("Steps") : std::string(kRoot),
                "step " + std::to_string(k) + " out of range (the file has " + std::to_string(steps) + ")");
    const std::int64_t parts = static_cast<std::int64_t>(points_per_part.size());
    const std::int64_t step_first = part_offsets[k];
    const std::int64_t step_parts = parts_in_step[k] < 0 ? parts - step_first : parts_in_step[k];
    if (step_first < 0 || step_parts < 0 || step_first > parts || step_parts > parts - step_first)
      file.fail(at("Steps/PartOffsets"), "step " + std::to_string(k) + "'s partitions [" + std::to_string(step_first) +
                                             ", " + std::to_string(step_first + step_parts) + ") outside the " +
                                             std::to_string(parts) + " partitions of NumberOfPoints");
    const std::int64_t count = selection.num_parts < 0 ? step_parts - selection.first_part : selection.num_parts;
    if (selection.first_part < 0 || count < 0 || selection.first_part + count > step_parts)
      file.fail(at("NumberOfPoints"), "partitions [" + std::to_string(selection.first_part) + ", " +
                                          std::to_string(selection.first_part + count) + ") outside step " +
                                          std::to_string(k) + "'s " + std::to_string(step_parts));
    return {k, step_first, step_first + selection.first_part, count};
  }

  // Where the geometry of a step starts: equal keys mean the same mesh.
  std::vector<std::int64_t> geometry_key(const Range& range) const {
    std::vector<std::int64_t> key{range.first, range.count, point_offsets[range.step]};
    for (const Group& group : groups) {
      key.push_back(cell_offset(range.step, group));
      key.push_back(id_offset(range.step, group));
    }
    return key;
  }

  // `with_cells` false: the points alone (a points_only read touches no topology dataset).
  Geometry read_geometry(const Range& range, Accounting& accounting, bool with_cells = true) const {
    Geometry geometry;
    const std::string from = temporal ? at("Steps/PointOffsets") : std::string();
    const std::int64_t point_row = point_offsets[range.step] + sum_range(points_per_part, range.step_first,
                                                                         range.first - range.step_first);
    const std::int64_t num_points = sum_range(points_per_part, range.first, range.count);
    geometry.mesh.points = read_rows(at("Points"), point_row, num_points, std::nullopt, from, accounting);
    if (geometry.mesh.points.ndim() != 2) file.fail(at("Points"), "expected (points, 3)");
    if (!with_cells) return geometry;
    for (const Group& group : groups) {
      const std::int64_t cells_before = sum_range(group.cells, range.step_first, range.first - range.step_first);
      const std::int64_t ids_before = sum_range(group.ids, range.step_first, range.first - range.step_first);
      const std::int64_t cell_row = cell_offset(range.step, group) + cells_before;
      const std::int64_t id_row = id_offset(range.step, group) + ids_before;
      if (group.name == "Strips") {
        if (sum_range(group.cells, range.first, range.count) > 0) file.fail(group.path, "triangle strips are not read");
        continue;
      }
      Topology topology = read_topology(file, group.path, range.first, range.count, group.cells, group.ids,
                                        points_per_part, cell_row, id_row,
                                        temporal ? at("Steps/CellOffsets") : std::string(), &accounting.bytes);
      note_files(group.path + "/Connectivity", id_row, topology.connectivity.rows(), accounting);
      if (group.name.empty()) {
        if (topology.types.empty_handle()) file.fail(at("Types"), "no such dataset");
      } else {
        topology.types = polydata_types(topology, group.name);
      }
      append_blocks(file, group.path, topology, num_points, geometry.mesh, geometry.runs, geometry.num_cells);
      geometry.num_cells += topology.offsets.rows() - 1;
    }
    return geometry;
  }

  // Point and cell data of the range's step, cell data split over `geometry`'s blocks.
  TimeStep read_data(const Range& range, const Geometry& geometry, Accounting& accounting) const {
    TimeStep step;
    step.time = values[range.step];
    const std::int64_t before = range.first - range.step_first;
    if (root_kind("PointData") == io::hdf5::ObjectKind::group) {
      const std::int64_t num_points = sum_range(points_per_part, range.first, range.count);
      const std::int64_t within = sum_range(points_per_part, range.step_first, before);
      for (const auto& [name, kind] : file.members(at("PointData"))) {
        if (kind != io::hdf5::ObjectKind::dataset || !wanted(name)) continue;
        const std::string dataset = at("PointData/" + name);
        std::int64_t base = 0;
        std::string from;
        if (temporal) {
          auto found = point_data_offsets.find(name);
          base = found != point_data_offsets.end() ? found->second[range.step] : point_offsets[range.step];
          from = found != point_data_offsets.end() ? at("Steps/PointDataOffsets/" + name) : at("Steps/PointOffsets");
        }
        step.point_data.set(name, read_rows(dataset, base + within, num_points, std::nullopt, from, accounting));
      }
    }
    if (root_kind("CellData") == io::hdf5::ObjectKind::group) {
      // Per partition, cell data runs over that partition's groups in order (PolyData:
      // vertices, lines, polygons, strips); the mesh's blocks run group by group.
      std::int64_t within = 0, total = 0;
      for (const Group& group : groups) {
        within += sum_range(group.cells, range.step_first, before);
        total += sum_range(group.cells, range.first, range.count);
      }
      std::int64_t default_base = 0;
      for (const Group& group : groups) default_base += cell_offset(range.step, group);
      for (const auto& [name, kind] : file.members(at("CellData"))) {
        if (kind != io::hdf5::ObjectKind::dataset || !wanted(name)) continue;
        const std::string dataset = at("CellData/" + name);
        std::int64_t base = 0;
        std::string from;
        if (temporal) {
          auto found = cell_data_offsets.find(name);
          base = found != cell_data_offsets.end() ? found->second[range.step] : default_base;
          from = found != cell_data_offsets.end() ? at("Steps/CellDataOffsets/" + name) : at("Steps/CellOffsets");
        }
        NDArray data = read_rows(dataset, base + within, total, std::nullopt, from, accounting);
        data = group_major(data, range);
        if (data.rows() != geometry.num_cells)
          file.fail(dataset, "holds " + std::to_string(data.rows()) + " rows for " +
                                 std::to_string(geometry.num_cells) + " cells");
        step.cell_data.set(name, io::split_cell_data(data, geometry.runs));
      }
    }
    return step;
  }

  void read_field_data(Mesh& mesh) const {
    if (root_kind("FieldData") != io::hdf5::ObjectKind::group) return;
    for (const auto& [name, kind] : file.members(at("FieldData"))) {
      if (kind != io::hdf5::ObjectKind::dataset || !wanted(name)) continue;
      const std::string object = at("FieldData/" + name);
      if (temporal && file.exists(at("Steps/FieldDataOffsets/" + name))) continue;  // per-step field data: not read
      const io::hdf5::DatasetInfo info = file.dataset_info(object);
      if (info.string) mesh.string_field_data.set(name, file.read_strings(object));
      else if (!info.compound) mesh.field_data.set(name, file.read(object));
    }
  }

  // global_ids as the whole step read numbers them: points by partition, cells group by group.
  void add_global_ids(const Range& range, const Geometry& geometry, Mesh& mesh) const {
    const std::int64_t before = range.first - range.step_first;
    if (!file.exists(at("PointData/global_ids"))) {
      const std::int64_t first = sum_range(points_per_part, range.step_first, before);
      NDArray ids = NDArray::allocate(DType::int64, {mesh.points.rows()});
      for (std::int64_t i = 0; i < mesh.points.rows(); ++i) ids.data_as<std::int64_t>()[i] = first + i;
      mesh.point_data.set("global_ids", ids);
    }
    if (!file.exists(at("CellData/global_ids"))) {
      NDArray ids = NDArray::allocate_scratch(DType::int64, {geometry.num_cells});
      std::int64_t* out = ids.data_as<std::int64_t>();
      std::int64_t group_base = 0, row = 0;
      const std::int64_t step_parts = parts_in_step[range.step] < 0
                                          ? static_cast<std::int64_t>(points_per_part.size()) - range.step_first
                                          : parts_in_step[range.step];
      for (const Group& group : groups) {
        if (group.name == "Strips") continue;
        const std::int64_t first = group_base + sum_range(group.cells, range.step_first, before);
        const std::int64_t count = sum_range(group.cells, range.first, range.count);
        for (std::int64_t c = 0; c < count; ++c) out[row++] = first + c;
        group_base += sum_range(group.cells, range.step_first, step_parts);
      }
      mesh.cell_data.set("global_ids", io::split_cell_data(ids, geometry.runs));
    }
  }

  // What read() gives for step 0, from the counts, the dataset shapes and the cell types (one
  // byte a cell; PolyData and Lagrange cells: the offsets, whose sizes split the blocks). No
  // points, connectivity or data are read.
  MeshMetadata metadata() const {
    MeshMetadata summary;
    summary.header_only = true;
    summary.variant = type;
    summary.times.assign(values.begin(), values.begin() + steps);
    const Range range = this->range(Selection{});
    summary.num_points = sum_range(points_per_part, range.first, range.count);
    const io::hdf5::DatasetInfo points = file.dataset_info(at("Points"));
    if (points.shape.size() != 2) file.fail(at("Points"), "expected (points, 3)");
    summary.point_dim = static_cast<int>(points.shape[1]);
    const std::int64_t before = range.first - range.step_first;
    std::int64_t total_cells = 0;
    for (const Group& group : groups) {
      const std::int64_t count = sum_range(group.cells, range.first, range.count);
      if (group.name == "Strips") {
        if (count > 0) file.fail(group.path, "triangle strips are not read");
        continue;
      }
      const std::int64_t cell_row = cell_offset(range.step, group) + sum_range(group.cells, range.step_first, before);
      NDArray types;
      if (group.name.empty()) {
        types = read_rows_counted(file, at("Types"), cell_row, count, DType::uint8, std::string(), nullptr);
        // Lagrange cells (any node count) split runs by size: only then are the Offsets read.
        // The runs are found once: they are the blocks unless sizes must split them.
        std::array<bool, 256> present{};
        std::vector<std::int64_t> run_ends;
        const std::span<const std::uint8_t> ids = types.values<std::uint8_t>();
        for (std::size_t first = 0; first < ids.size(); first = static_cast<std::size_t>(run_ends.back())) {
          present[ids[first]] = true;
          run_ends.push_back(static_cast<std::int64_t>(io::vtk_type_run_end(ids, first)));
        }
        bool any_count = false;
        for (int id = 0; id < 256; ++id) {
          const CellTypeInfo* info = present[id] ? cell_type_from_vtk(id, 0) : nullptr;
          any_count |= info != nullptr && info->num_nodes == kAnyNodeCount;
        }
        add_blocks(summary, group, range, cell_row, types, any_count, run_ends);
      } else {
        add_blocks(summary, group, range, cell_row, types, true, {});
      }
      total_cells += count;
    }
    const auto add_arrays = [&](std::string_view where, DataAssociation association, std::int64_t rows) {
      if (root_kind(where) != io::hdf5::ObjectKind::group) return;
      for (const auto& [name, kind] : file.members(at(where))) {
        if (kind != io::hdf5::ObjectKind::dataset) continue;
        const std::string dataset = at(std::string(where) + "/" + name);
        const io::hdf5::DatasetInfo info = file.dataset_info(dataset);
        std::vector<std::int64_t> shape{rows};
        if (!info.shape.empty()) shape.insert(shape.end(), info.shape.begin() + 1, info.shape.end());
        summary.arrays.push_back({name, association, info.dtype, std::move(shape)});
      }
    };
    add_arrays("PointData", DataAssociation::point, summary.num_points);
    add_arrays("CellData", DataAssociation::cell, total_cells);
    if (root_kind("FieldData") == io::hdf5::ObjectKind::group) {
      for (const auto& [name, kind] : file.members(at("FieldData"))) {
        if (kind != io::hdf5::ObjectKind::dataset) continue;
        const std::string object = at("FieldData/" + name);
        if (temporal && file.exists(at("Steps/FieldDataOffsets/" + name))) continue;
        const io::hdf5::DatasetInfo info = file.dataset_info(object);
        if (info.string || info.compound) continue;
        std::vector<std::int64_t> shape(info.shape.begin(), info.shape.end());
        if (shape.empty()) shape.push_back(1);
        summary.arrays.push_back({name, DataAssociation::field, info.dtype, std::move(shape)});
      }
    }
    return summary;
  }

  // Data arrays a selective read keeps (nullopt: all).
  std::optional<std::vector<std::string>> keep;
  bool wanted(const std::string& name) const {
    return !keep || std::find(keep->begin(), keep->end(), name) != keep->end();
  }

  io::hdf5::File file;
  // /VTKHDF's members among kRootNamesAsked, listed once: which of them exist is asked of this.
  std::vector<io::hdf5::Member> root_members;
  io::hdf5::ObjectKind root_kind(std::string_view name) const { return kind_of(root_members, name); }
  std::string type;
  std::vector<std::int64_t> points_per_part;
  std::vector<Group> groups;
  bool temporal = false;
  std::int64_t steps = 1;
  std::vector<double> values;
  std::vector<std::int64_t> part_offsets, parts_in_step, point_offsets, cell_offsets, id_offsets;
  std::size_t offsets_width = 1;
  std::map<std::string, std::vector<std::int64_t>> point_data_offsets, cell_data_offsets;

 private:
  std::int64_t cell_offset(std::int64_t step, const Group& group) const {
    return column_value(cell_offsets, "CellOffsets", step, group);
  }
  std::int64_t id_offset(std::int64_t step, const Group& group) const {
    return column_value(id_offsets, "ConnectivityIdOffsets", step, group);
  }
  std::int64_t column_value(const std::vector<std::int64_t>& table, std::string_view name, std::int64_t step,
                            const Group& group) const {
    if (!temporal) return 0;
    const std::size_t column = offsets_width == 1 ? 0 : group.column;
    if (column >= offsets_width)
      file.fail(at("Steps/" + std::string(name)), "no column for the " + group.name + " group");
    return table[static_cast<std::size_t>(step) * offsets_width + column];
  }

  NDArray read_rows(const std::string& dataset, std::int64_t first, std::int64_t count, std::optional<DType> dtype,
                    const std::string& from, Accounting& accounting) const {
    NDArray array = read_rows_counted(file, dataset, first, count, dtype, from, &accounting.bytes);
    note_files(dataset, first, count, accounting);
    return array;
  }

  // The partition files behind rows [first, first + count) of a virtual dataset: recorded,
  // and a missing one is an error (HDF5 would quietly give fill values).
  void note_files(const std::string& dataset, std::int64_t first, std::int64_t count, Accounting& accounting) const {
    accounting.files.insert(std::filesystem::absolute(file.path()).lexically_normal().string());
    if (count == 0) return;
    for (const io::hdf5::VirtualSource& source : file.virtual_sources(dataset)) {
      if (source.first_row + source.rows <= first || source.first_row >= first + count) continue;
      std::filesystem::path where(source.file);
      if (source.file == ".") where = file.path();
      else if (where.is_relative()) where = std::filesystem::path(folder_of(file.path())) / where;
      std::error_code error;
      if (!std::filesystem::exists(where, error))
        file.fail(dataset, "rows [" + std::to_string(source.first_row) + ", " +
                               std::to_string(source.first_row + source.rows) + ") come from partition file " +
                               where.string() + ", which is missing");
      accounting.files.insert(std::filesystem::absolute(where).lexically_normal().string());
    }
  }

  // The blocks cells_from_vtk makes of a group's cells (io/vtk/vtk_cells.hpp): runs of one type
  // and, but for polygons, one node count. `types` of a PolyData group is empty (they follow
  // from the sizes); `with_sizes` reads the Offsets for the sizes. Without them, the blocks are
  // the runs of one type byte, which end at `run_ends`.
  void add_blocks(MeshMetadata& summary, const Group& group, const Range& range, std::int64_t cell_row,
                  const NDArray& types, bool with_sizes, const std::vector<std::int64_t>& run_ends) const {
    const std::int64_t count = sum_range(group.cells, range.first, range.count);
    std::vector<std::int64_t> sizes;
    if (with_sizes) {
      const NDArray offsets = read_rows_counted(file, group.path + "/Offsets", cell_row + range.first, count + range.count,
                                                DType::int64, std::string(), nullptr);
      const std::int64_t* local = offsets.data_as<std::int64_t>();
      std::int64_t row = 0;
      for (std::int64_t p = range.first; p < range.first + range.count; ++p) {
        for (std::int64_t c = 0; c < group.cells[p]; ++c) sizes.push_back(local[row + c + 1] - local[row + c]);
        row += group.cells[p] + 1;
      }
    }
    const auto type_of = [&](std::int64_t c) -> int {
      if (!group.name.empty()) {
        const std::int64_t size = sizes[c];
        if (group.name == "Vertices") return size == 1 ? 1 : 2;
        if (group.name == "Lines") return size == 2 ? 3 : 4;
        return size == 3 ? 5 : size == 4 ? 9 : kVtkPolygon;
      }
      return types.data_as<std::uint8_t>()[c];
    };
    std::int64_t first = 0;
    std::size_t run = 0;
    while (first < count) {
      const int id = type_of(first);
      const bool ragged = id == kVtkPolygon || id == kVtkPolyhedron;
      std::int64_t stop = first + 1;
      if (sizes.empty()) {  // types alone: the run ends at the first other byte
        if (run >= run_ends.size()) file.fail(group.path, "cell types and counts disagree");
        stop = run_ends[run++];
      } else {
        while (stop < count && type_of(stop) == id && (ragged || sizes[stop] == sizes[first])) ++stop;
      }
      const CellTypeInfo* info = id == kVtkPolygon ? find_cell_type("polygon") : cell_type_from_vtk(id, sizes.empty() ? 0 : sizes[first]);
      if (info == nullptr) file.fail(group.path, "unknown VTK cell type " + std::to_string(id));
      summary.cell_blocks.push_back({std::string(info->name), stop - first});
      first = stop;
    }
  }

  // PolyData cell data of several partitions, partition-major in the file, to the mesh's
  // group-major order.
  NDArray group_major(const NDArray& data, const Range& range) const {
    std::size_t nonempty = 0;
    for (const Group& group : groups) nonempty += sum_range(group.cells, range.first, range.count) > 0;
    if (range.count <= 1 || nonempty <= 1) return data;
    NDArray out = NDArray::allocate(data.dtype(), data.shape());
    const std::size_t row_bytes = static_cast<std::size_t>(data.row_width()) * dtype_size(data.dtype());
    const char* in = static_cast<const char*>(data.data());
    char* to = static_cast<char*>(out.data());
    std::int64_t written = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      std::int64_t source = 0;
      for (std::int64_t p = range.first; p < range.first + range.count; ++p) {
        std::int64_t skip = 0;
        for (std::size_t h = 0; h < g; ++h) skip += groups[h].cells[p];
        const std::int64_t n = groups[g].cells[p];
        std::memcpy(to + written * row_bytes, in + (source + skip) * row_bytes, n * row_bytes);
        written += n;
        for (const Group& group : groups) source += group.cells[p];
      }
    }
    return out;
  }
};

class SeriesReader final : public TimeSeriesReader {
 public:
  SeriesReader(const std::string& path, const Selection& parts, bool share) : layout_(path), parts_(parts), share_(share) {}

  std::size_t num_steps() const override { return static_cast<std::size_t>(layout_.num_steps()); }
  double time(std::size_t step) const override { return layout_.time(step); }

  Mesh read_mesh() override {
    const Range range = range_of(current_);
    const Geometry& geometry = geometry_for(range);
    Mesh mesh = geometry.mesh;
    layout_.read_field_data(mesh);
    if (share_) {
      layout_.add_global_ids(range, geometry, mesh);
      mesh.field_data.set("vtkhdf:bytes_read", NDArray::from_values<std::int64_t>({accounting_.bytes}));
      mesh.string_field_data.set("vtkhdf:files_read",
                                 std::vector<std::string>(accounting_.files.begin(), accounting_.files.end()));
    }
    return mesh;
  }

  TimeStep read_step(std::size_t step) override {
    if (step >= num_steps())
      layout_.file.fail(layout_.temporal ? at("Steps") : std::string(kRoot),
                        "step " + std::to_string(step) + " out of range (the series has " +
                            std::to_string(num_steps()) + ")");
    const Range range = range_of(static_cast<std::int64_t>(step));
    const Geometry& geometry = geometry_for(range);
    current_ = static_cast<std::int64_t>(step);
    return layout_.read_data(range, geometry, accounting_);
  }

 private:
  Range range_of(std::int64_t step) const {
    Selection selection = parts_;
    selection.step = step;
    return layout_.range(selection);
  }

  const Geometry& geometry_for(const Range& range) {
    std::vector<std::int64_t> key = layout_.geometry_key(range);
    if (!geometry_ || key != key_) {
      geometry_ = layout_.read_geometry(range, accounting_);
      key_ = std::move(key);
    }
    return *geometry_;
  }

  Layout layout_;
  Selection parts_;
  bool share_ = false;
  std::int64_t current_ = 0;
  std::optional<Geometry> geometry_;
  std::vector<std::int64_t> key_;
  Accounting accounting_;
};

}  // namespace

Mesh read(const std::string& path, const Selection& selection) {
  const Layout layout(path);
  const Range range = layout.range(selection);
  Accounting accounting;
  Geometry geometry = layout.read_geometry(range, accounting);
  TimeStep data = layout.read_data(range, geometry, accounting);
  Mesh mesh = std::move(geometry.mesh);
  mesh.point_data = std::move(data.point_data);
  mesh.cell_data = std::move(data.cell_data);
  layout.read_field_data(mesh);
  return mesh;
}

Mesh read(const std::string& path) { return read(path, Selection{}); }

Mesh read_selected(const std::string& path, const ReadRequest& request) {
  Layout layout(path);
  if (request.arrays) layout.keep = *request.arrays;
  else if (request.points_only) layout.keep = std::vector<std::string>{};
  // points_only skips the topology, unless a cell array is asked for (the request then names
  // an array of the file, which the narrowing afterwards checks against the mesh).
  bool with_cells = !request.points_only;
  if (request.arrays)
    for (const std::string& name : *request.arrays)
      with_cells |= layout.file.exists(at("CellData/" + name));
  const Range range = layout.range(Selection{});
  Accounting accounting;
  Geometry geometry = layout.read_geometry(range, accounting, with_cells);
  TimeStep data = layout.read_data(range, geometry, accounting);
  Mesh mesh = std::move(geometry.mesh);
  mesh.point_data = std::move(data.point_data);
  mesh.cell_data = std::move(data.cell_data);
  layout.read_field_data(mesh);
  return mesh;
}

MeshMetadata read_metadata(const std::string& path) { return Layout(path).metadata(); }

std::int64_t num_steps(const std::string& path) { return Layout(path).num_steps(); }

std::int64_t num_partitions(const std::string& path, std::int64_t step) {
  const Layout layout(path);
  return layout.range(Selection{step, 0, -1}).count;
}

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path, const Selection& parts) {
  return std::make_unique<SeriesReader>(path, parts, false);
}

std::unique_ptr<TimeSeriesReader> open_share(const std::string& path, std::int64_t rank, std::int64_t size) {
  if (size < 1 || rank < 0 || rank >= size)
    throw ReadError(path, std::string(kFormat), "rank " + std::to_string(rank) + " of " + std::to_string(size));
  const std::int64_t parts = num_partitions(path, 0);
  const std::int64_t base = parts / size, extra = parts % size;
  const Selection selection{0, rank * base + std::min(rank, extra), base + (rank < extra ? 1 : 0)};
  return std::make_unique<SeriesReader>(path, selection, true);
}

}  // namespace meshioplusplus::vtkhdf
