// EnSight Gold reader (Ansys EnSight's case format; written by OpenFOAM's foamToEnsight,
// Fluent, STAR-CCM+, code_saturne, LS-DYNA, VTK …).
//
// What the format holds: a `.case` text file naming a geometry file and variable files, with
// time sets (times and file numbers that fill the `*` wildcards of the names) and file sets
// (several steps in one file between BEGIN/END TIME STEP). Geometry and variable files are
// ASCII, C binary or Fortran binary (either byte order; float32 values in binary). The geometry
// is a list of parts, each with its own nodes and either element sections (point, bar2/3,
// tria3/6, quad4/8, tetra4/10, pyramid5/13, penta6/15, hexa8/20, nsided, nfaced, and their
// g_ ghost forms) or a structured block (uniform, rectilinear or curvilinear; iblanked, ghost
// flags, ranges).
//
// What becomes what:
//   - points: every part's nodes, part after part (EnSight parts do not share nodes; the nodes
//     on a part's border appear in each part that has them, as in VTK's multiblock output);
//   - cells: one block per (part, element section), in file order; EnSight's node orders are
//     meshio's; nsided → polygon, nfaced → polyhedron with its faces turned out of the cell
//     (io/cells/polyhedron_orientation); a structured block → hexahedra, quads or lines, the
//     blanked cells (any node with iblank 0) left out;
//   - regions: one Cell region per part, named by its description line (tag: the part number);
//   - point data: per-node variables, cell data: per-element variables, named by the case's
//     descriptions: (n,) scalars, (n, 3) vectors, (n, 6) symmetric tensors in EnSight's order
//     (11 22 33 12 13 23), (n, 9) asymmetric tensors; NaN where a part has no value (a part the
//     variable file leaves out, `undef` values, nodes or elements a `partial` list omits);
//     binary files' float32 values kept as float32, ASCII values parsed into float64;
//   - field data: `constant per case` values (the step's value for a time set's constants);
//   - ghost cells (g_ types, `with_ghost` blocks): cell data `vtkGhostType` (1 = duplicate
//     cell, VTK's flag), present only when the file has ghosts.
// Time: read() gives the first step (as ParaView opens a case); ensight::open_time_series every
// step of the geometry's time set (transient geometry: the mesh follows the step) or else of
// the first variable's; variables on another time set are read at the step with the same time.
// Not read: measured (particle) geometry and complex variables (passed over), EnSight 6
// files (refused by name), time values kept in other files (refused by name).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "formats/ensight/ensight.hpp"
#include "formats/ensight/ensight_internal.hpp"
#include "io/cells/polyhedron_orientation.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/read_selection.hpp"

namespace meshioplusplus::ensight {
namespace {

// The mesh of a geometry: points of all parts, one block per section, a Cell region per part.
Mesh mesh_of(const Geometry& geometry) {
  Mesh mesh;
  std::int64_t num_points = 0;
  for (const Part& part : geometry.parts) num_points += part.num_points();
  mesh.points = NDArray::allocate(DType::float64, {num_points, 3});
  auto* xyz = mesh.points.data_as<double>();
  std::int64_t point_base = 0, cell_base = 0;
  bool ghosts = false;
  for (const Part& part : geometry.parts) {
    std::copy_n(part.points.data_as<double>(), 3 * part.num_points(), xyz + 3 * point_base);
    Region region;
    region.name = part.name.empty() ? "part " + std::to_string(part.number) : part.name;
    region.kind = RegionKind::Cell;
    region.tag = part.number;
    std::vector<std::int64_t> members;
    for (const Section& section : part.sections) {
      CellBlock block = section.block;
      block.connectivity = block.connectivity.copy();
      auto* nodes = block.connectivity.data_as<std::int64_t>();
      const std::int64_t count = static_cast<std::int64_t>(block.connectivity.size());
      for (std::int64_t k = 0; k < count; ++k) nodes[k] += point_base;
      const std::int64_t cells = block.num_cells();
      for (std::int64_t k = 0; k < cells; ++k) members.push_back(cell_base + k);
      cell_base += cells;
      ghosts = ghosts || section.ghost || !section.ghost_flags.empty();
      mesh.cells.push_back(std::move(block));
    }
    region.dim = -1;
    region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(members.size())});
    std::copy(members.begin(), members.end(), region.entries.data_as<std::int64_t>());
    mesh.regions.push_back(std::move(region));
    point_base += part.num_points();
  }
  for (CellBlock& block : mesh.cells)
    if (block.type == "polyhedron") io::orient_polyhedron_faces_outward(mesh.points, block);
  if (ghosts) {
    std::vector<NDArray> flags;
    for (const Part& part : geometry.parts)
      for (const Section& section : part.sections) {
        NDArray flag = NDArray::allocate(DType::uint8, {section.block.num_cells()});
        auto* out = flag.data_as<std::uint8_t>();
        for (std::int64_t k = 0; k < section.block.num_cells(); ++k)
          out[k] = section.ghost ? 1 : section.ghost_flags.empty() ? 0 : section.ghost_flags[static_cast<std::size_t>(k)];
        flags.push_back(std::move(flag));
      }
    mesh.cell_data.set("vtkGhostType", std::move(flags));
  }
  return mesh;
}

NDArray nan_array(DType dtype, std::int64_t rows, int components) {
  NDArray array = NDArray::allocate(dtype, components == 1 ? Shape{rows} : Shape{rows, components});
  const std::size_t count = static_cast<std::size_t>(rows) * components;
  if (dtype == DType::float32) std::fill_n(array.data_as<float>(), count, std::numeric_limits<float>::quiet_NaN());
  else std::fill_n(array.data_as<double>(), count, std::numeric_limits<double>::quiet_NaN());
  return array;
}

class CaseSeries final : public TimeSeriesReader {
 public:
  explicit CaseSeries(const std::string& path) : case_(read_case(path)) {
    // The steps: the geometry's time set when it moves, else the first variable's, else the
    // first constant's, else one step at time 0.
    std::optional<int> set = case_.geometry.time_set;
    for (const CaseVariable& variable : case_.variables)
      if (!set) set = variable.entry.time_set;
    for (const CaseConstant& constant : case_.constants)
      if (!set) set = constant.time_set;
    if (set) {
      const auto found = case_.time_sets.find(*set);
      if (found == case_.time_sets.end())
        throw ReadError(path, kFormat, "time set " + std::to_string(*set) + " is not defined in the TIME section");
      times_ = found->second.times;
    }
    if (times_.empty()) times_.push_back(0.0);
  }

  // What read_selected asks: the variables and constants to read (nullopt: all) and how much
  // of the geometry (element variables need the connectivity's counts only, but a points-only
  // read keeps no cell data, so they are not read then either).
  void narrow(const std::optional<std::vector<std::string>>& names, GeometryDetail detail) {
    wanted_ = names;
    detail_ = detail;
  }

  // Every variable's and constant's name, as the case lists them.
  std::vector<std::string> array_names() const {
    std::vector<std::string> names;
    for (const CaseVariable& variable : case_.variables) names.push_back(variable.name);
    for (const CaseConstant& constant : case_.constants) names.push_back(constant.name);
    return names;
  }

  // The nodes of every part, part after part: the mesh of a points-only read.
  Mesh read_points() {
    load_geometry(current_step_);
    Mesh mesh;
    std::int64_t num_points = 0;
    for (const Part& part : geometry_.parts) num_points += part.num_points();
    mesh.points = NDArray::allocate(DType::float64, {num_points, 3});
    auto* xyz = mesh.points.data_as<double>();
    for (const Part& part : geometry_.parts) {
      std::copy_n(part.points.data_as<double>(), 3 * part.num_points(), xyz);
      xyz += 3 * part.num_points();
    }
    return mesh;
  }

  // read() summarised from the case and the geometry's counts (its arrays passed over).
  MeshMetadata metadata() {
    detail_ = GeometryDetail::counts;
    load_geometry(0);
    MeshMetadata summary;
    summary.header_only = true;
    summary.variant = geometry_.encoding == Encoding::ascii ? "ascii"
                      : geometry_.encoding == Encoding::c_binary ? "C binary" : "Fortran binary";
    summary.times = times_;
    std::int64_t cells = 0;
    bool ghosts = false;
    for (const Part& part : geometry_.parts) {
      summary.num_points += part.num_points();
      std::int64_t part_cells = 0;
      for (const Section& section : part.sections) {
        summary.cell_blocks.push_back({section.block.type, section.num_cells()});
        part_cells += section.num_cells();
        ghosts = ghosts || section.ghost || !section.ghost_flags.empty();
      }
      summary.regions.push_back({part.name.empty() ? "part " + std::to_string(part.number) : part.name,
                                 RegionKind::Cell, -1, part.number, part_cells});
      cells += part_cells;
    }
    const DType dtype = geometry_.encoding == Encoding::ascii ? DType::float64 : DType::float32;
    for (const CaseVariable& variable : case_.variables) {
      if (!step_of(variable.entry.time_set, 0)) continue;  // not defined at the first step: read() has none
      const bool node = variable.site == VariableSite::node;
      std::vector<std::int64_t> shape{node ? summary.num_points : cells};
      if (variable.components() > 1) shape.push_back(variable.components());
      summary.arrays.push_back({variable.name, node ? DataAssociation::point : DataAssociation::cell, dtype, shape});
    }
    if (ghosts) summary.arrays.push_back({"vtkGhostType", DataAssociation::cell, DType::uint8, {cells}});
    for (const CaseConstant& constant : case_.constants)
      if (step_of(constant.time_set, 0)) summary.arrays.push_back({constant.name, DataAssociation::field, DType::float64, {1}});
    return summary;
  }

  std::size_t num_steps() const override { return times_.size(); }
  double time(std::size_t step) const override { return times_.at(check(step)); }

  Mesh read_mesh() override {
    load_geometry(current_step_);
    return mesh_of(geometry_);
  }

  TimeStep read_step(std::size_t step) override {
    check(step);
    load_geometry(step);
    current_step_ = step;
    TimeStep result;
    result.time = times_[step];
    for (const CaseVariable& variable : case_.variables) {
      if (!wanted(variable.name) || (variable.site == VariableSite::element && detail_ != GeometryDetail::full)) continue;
      const std::optional<std::size_t> own_step = step_of(variable.entry.time_set, step);
      if (!own_step) continue;
      const StepFile file = step_file(case_, variable.entry, *own_step);
      std::vector<PartValues> values = read_variable(file.path, file.step_in_file, geometry_, variable);
      add_values(result, variable, values);
    }
    for (const CaseConstant& constant : case_.constants) {
      if (!wanted(constant.name)) continue;
      const std::optional<std::size_t> own_step = step_of(constant.time_set, step);
      if (!own_step) continue;
      const double value = constant.values[std::min(*own_step, constant.values.size() - 1)];
      NDArray array = NDArray::allocate(DType::float64, {1});
      array.data_as<double>()[0] = value;
      result.field_data.set(constant.name, std::move(array));
    }
    return result;
  }

 private:
  bool wanted(const std::string& name) const {
    return !wanted_ || std::find(wanted_->begin(), wanted_->end(), name) != wanted_->end();
  }

  std::size_t check(std::size_t step) const {
    if (step >= times_.size())
      throw ReadError(case_.path, kFormat, "step " + std::to_string(step) + " out of range (" +
                                               std::to_string(times_.size()) + " steps)");
    return step;
  }

  // The step of time set `set` at the time of main step `step` (a set's own numbering).
  std::optional<std::size_t> step_of(std::optional<int> set, std::size_t step) const {
    if (!set) return std::size_t{0};
    const auto found = case_.time_sets.find(*set);
    if (found == case_.time_sets.end())
      throw ReadError(case_.path, kFormat, "time set " + std::to_string(*set) + " is not defined in the TIME section");
    const std::vector<double>& times = found->second.times;
    if (step < times.size() && times[step] == times_[step]) return step;
    const auto same = std::find(times.begin(), times.end(), times_[step]);
    if (same == times.end()) return std::nullopt;
    return static_cast<std::size_t>(same - times.begin());
  }

  void load_geometry(std::size_t step) {
    const std::optional<std::size_t> own_step = step_of(case_.geometry.time_set, step);
    const std::size_t geometry_step = own_step.value_or(0);
    if (loaded_ && geometry_step == geometry_step_) return;
    const StepFile file = step_file(case_, case_.geometry, geometry_step);
    Geometry geometry = read_geometry(file.path, file.step_in_file, detail_);
    if (case_.change_coords_only && loaded_) {
      // Later files give coordinates only: the connectivity stays the first step's.
      for (Part& part : geometry.parts) {
        if (!part.sections.empty()) continue;
        for (const Part& first : geometry_.parts)
          if (first.number == part.number) part.sections = first.sections;
      }
    }
    geometry_ = std::move(geometry);
    geometry_step_ = geometry_step;
    loaded_ = true;
  }

  void add_values(TimeStep& step, const CaseVariable& variable, std::vector<PartValues>& values) const {
    const int components = variable.components();
    const DType dtype = geometry_.encoding == Encoding::ascii ? DType::float64 : DType::float32;
    if (variable.site == VariableSite::node) {
      std::int64_t rows = 0;
      for (const Part& part : geometry_.parts) rows += part.num_points();
      NDArray all = nan_array(dtype, rows, components);
      const std::size_t item = dtype == DType::float32 ? 4 : 8;
      std::size_t at = 0;
      for (std::size_t p = 0; p < geometry_.parts.size(); ++p) {
        const std::size_t bytes = static_cast<std::size_t>(geometry_.parts[p].num_points()) * components * item;
        if (!values[p].node_values.empty_handle())
          std::memcpy(static_cast<char*>(all.data()) + at, values[p].node_values.data(), bytes);
        at += bytes;
      }
      step.point_data.set(variable.name, std::move(all));
      return;
    }
    std::vector<NDArray> per_block;
    for (std::size_t p = 0; p < geometry_.parts.size(); ++p)
      for (std::size_t s = 0; s < geometry_.parts[p].sections.size(); ++s) {
        const bool given = s < values[p].section_values.size() && !values[p].section_values[s].empty_handle();
        per_block.push_back(given ? std::move(values[p].section_values[s])
                                  : nan_array(dtype, geometry_.parts[p].sections[s].block.num_cells(), components));
      }
    step.cell_data.set(variable.name, std::move(per_block));
  }

  CaseFile case_;
  std::vector<double> times_;
  Geometry geometry_;
  bool loaded_ = false;
  std::size_t geometry_step_ = 0;
  std::size_t current_step_ = 0;
  std::optional<std::vector<std::string>> wanted_;
  GeometryDetail detail_ = GeometryDetail::full;
};

}  // namespace

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) { return std::make_unique<CaseSeries>(path); }

Mesh read_selected(const std::string& path, const ReadRequest& request) {
  CaseSeries series(path);
  check_requested_arrays(request, series.array_names(), path);
  series.narrow(request.arrays, request.points_only ? GeometryDetail::points : GeometryDetail::full);
  TimeStep step = series.read_step(0);
  Mesh mesh = request.points_only ? series.read_points() : series.read_mesh();
  mesh.point_data = std::move(step.point_data);
  for (auto& [name, arrays] : step.cell_data) mesh.cell_data.set(name, std::move(arrays));
  mesh.field_data = std::move(step.field_data);
  return mesh;
}

MeshMetadata read_metadata(const std::string& path) { return CaseSeries(path).metadata(); }

Mesh read(const std::string& path) { return read_selected(path, ReadRequest{}); }

}  // namespace meshioplusplus::ensight
