// Exodus II writer: the layout meshio writes (coordinates, element blocks, node sets, nodal
// variables at one time step 0.0), completed so that VTK's vtkExodusIIReader and the Exodus
// library read it too (eb_status/eb_prop1 "ID", file_size 1 with coordx/y/z, names up to the
// longest name), plus side sets, element sets, element and global variables and QA/info
// records — everything read() produces is written back.
//
// Arrays: scalar point/cell data is one Exodus variable; (n, 3) point data is three, named
// <name>X/Y/Z (meshio and VTK join them again); any other shape is one variable with extra
// dimensions (meshio's layout, read back by meshio and by us).
//
// The time-series writer (create_time_series, at the end) drives the same Writer: the first
// step's arrays are written as write() writes a mesh's, later steps as more records of the
// unlimited time_step dimension.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "formats/exodus/exodus.hpp"
#include "formats/exodus/exodus_types.hpp"
#include "io/cells/polyhedron_orientation.hpp"
#include "io/netcdf/netcdf_file.hpp"
#include "io/output/series_writer_state.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus::exodus {

namespace {

constexpr std::string_view kFormat = "exodus";
using io::NetcdfWriter;

NetcdfWriter::Kind kind_from(std::string_view name, const std::string& path) {
  if (name.empty() || name == "NETCDF4") return NetcdfWriter::Kind::netcdf4;
  if (name == "NETCDF3_64BIT_OFFSET" || name == "NETCDF3_64BIT") return NetcdfWriter::Kind::offset64;
  if (name == "NETCDF3_64BIT_DATA") return NetcdfWriter::Kind::cdf5;
  if (name == "NETCDF3_CLASSIC") return NetcdfWriter::Kind::classic;
  throw WriteError(path, std::string(kFormat),
                   "netcdf_format '" + std::string(name) +
                       "' is not one of NETCDF4, NETCDF3_64BIT_OFFSET, NETCDF3_64BIT_DATA, NETCDF3_CLASSIC");
}

struct WrittenBlock {
  std::size_t mesh_index;  // position in mesh.cells
  std::string name;        // eb_names entry
  std::int64_t id;
  int connect = -1;
};

// The NSIDED face block written for a polyhedron block: its faces, numbered from `first_face`
// (0-based) over all face blocks, as facconn<k> refers to them.
struct FaceBlock {
  std::size_t mesh_index;
  std::int64_t first_face;
  std::int64_t count;
  int connect = -1, counts = -1;
};

// A variable to fill once definitions end: `source` (rows, …) into `variable`, one column of
// it when `component` >= 0.
// Time-dependent ones also say where a later step's array comes from (the series writer):
// point_data[name], or cell_data[name][block] when `cell`.
struct Pending {
  int variable;
  const NDArray* source;
  int component = -1;
  bool time_dependent = true;
  std::string name = {};
  bool cell = false;
  std::size_t block = 0;
};

class Writer {
 public:
  Writer(const std::string& path, const Mesh& mesh, const WriteOptions& options)
      : path_(path), mesh_(mesh), out_(path, kFormat, kind_from(options.get("netcdf_format", ""), path)) {}

  void write() {
    begin();
    out_.commit();
  }

  // The series writer's pieces: begin() writes the mesh and the mesh's point/cell/field data as
  // step 0 at `time` (and time_whole even when there is no variable); write_step() adds step
  // `index` with the same variables (the caller checks names, shapes and dtypes); commit()
  // puts the file in place.
  void begin_series(double time) {
    series_ = true;
    time_ = time;
    begin();
  }

  void write_step(std::size_t index, const TimeStep& step) {
    const std::size_t start[1] = {index}, count[1] = {1};
    out_.write(time_whole_, DType::float64, &step.time, start, count);
    for (const Pending& pending : pending_) {
      if (!pending.time_dependent) continue;
      const NDArray& array = pending.cell ? step.cell_data.find(pending.name)->at(pending.block)
                                          : *step.point_data.find(pending.name);
      write_pending(pending, array, index);
    }
    std::vector<const NDArray*> globals;
    for (const std::string& name : global_names_) globals.push_back(step.field_data.find(name));
    write_globals(index, globals);
  }

  void commit() { out_.commit(); }

 private:
  void begin() {
    plan();
    define();
    out_.end_definitions();
    fill();
  }

  [[noreturn]] void fail(const std::string& message) const { throw WriteError(path_, std::string(kFormat), message); }

  void plan() {
    const std::int64_t num_points = mesh_.num_points();
    index_type_ = num_points < std::numeric_limits<std::int32_t>::max() &&
                          mesh_.num_cells() < std::numeric_limits<std::int32_t>::max()
                      ? DType::int32
                      : DType::int64;
    std::int64_t faces = 0;  // facconn holds face numbers: they need the index type too
    for (const CellBlock& cells : mesh_.cells)
      if (cells.type == "polyhedron") faces += std::max<std::int64_t>(cells.face_offsets.rows() - 1, 0);
    if (faces >= std::numeric_limits<std::int32_t>::max()) index_type_ = DType::int64;
    if (!out_.stores(index_type_)) fail("more than 2^31 nodes or cells need netcdf_format NETCDF4 or NETCDF3_64BIT_DATA");
    bases_ = block_bases(mesh_.cells);
    const std::int64_t* bases = bases_.data_as<std::int64_t>();
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      const CellBlock& cells = mesh_.cells[b];
      if (exodus_name_for(cells.type).empty()) fail("cell type '" + cells.type + "' has no Exodus element");
      if (cells.num_cells() == 0) continue;  // Exodus has no empty fixed-size dimension
      blocks_.push_back({b, "", static_cast<std::int64_t>(blocks_.size() + 1)});
      if (cells.type == "polyhedron") {
        const std::int64_t first_face = face_blocks_.empty() ? 0 : face_blocks_.back().first_face + face_blocks_.back().count;
        face_blocks_.push_back({b, first_face, cells.face_offsets.rows() - 1});
      }
    }
    // Cell regions covering exactly one block name it; the others become element sets.
    for (const Region& region : mesh_.regions) {
      if (region.kind == RegionKind::Point) {
        if (region.entries.size() > 0) node_sets_.push_back(&region);
      } else if (region.kind == RegionKind::Side) {
        if (region.entries.rows() > 0) side_sets_.push_back(&region);
      } else if (region.entries.size() > 0) {
        if (!names_block(region, bases)) element_sets_.push_back(&region);
      }
    }
    // Distinct positive block ids: a region's tag where it names a block, else a free number.
    std::vector<std::int64_t> used;
    for (const WrittenBlock& block : blocks_)
      if (block.id > 0 && !block.name.empty()) used.push_back(block.id);
    std::int64_t next = 1;
    for (WrittenBlock& block : blocks_) {
      if (!block.name.empty() && block.id > 0) continue;
      while (std::find(used.begin(), used.end(), next) != used.end()) ++next;
      block.id = next++;
    }
  }

  bool names_block(const Region& region, const std::int64_t* bases) {
    const auto entries = region.entries.values<std::int64_t>();
    for (WrittenBlock& block : blocks_) {
      const std::int64_t first = bases[block.mesh_index], count = bases[block.mesh_index + 1] - first;
      if (!block.name.empty() || static_cast<std::int64_t>(entries.size()) != count) continue;
      bool same = true;
      for (std::int64_t i = 0; i < count && same; ++i) same = entries[i] == first + i;
      if (!same) continue;
      block.name = region.name;
      block.id = region.tag > 0 ? region.tag : -1;
      return true;
    }
    return false;
  }

  DType stored(DType dtype) const { return out_.stores(dtype) ? dtype : DType::float64; }

  int string_length() const {
    std::size_t longest = 32;
    for (const WrittenBlock& block : blocks_) longest = std::max(longest, block.name.size());
    for (const auto* sets : {&node_sets_, &side_sets_, &element_sets_})
      for (const Region* region : *sets) longest = std::max(longest, region->name.size());
    for (const auto& entry : mesh_.point_data) longest = std::max(longest, entry.first.size() + 1);
    for (const auto& entry : mesh_.cell_data) longest = std::max(longest, entry.first.size());
    for (const auto& entry : mesh_.field_data) longest = std::max(longest, entry.first.size());
    return static_cast<int>(std::min<std::size_t>(longest, 255));
  }

  void define() {
    const auto num_dim = static_cast<std::size_t>(mesh_.points.ndim() == 2 ? mesh_.points.dim(1) : 3);
    const auto num_nodes = static_cast<std::size_t>(mesh_.num_points());
    if (num_dim < 1 || num_dim > 3) fail("points must have 1-3 coordinates, not " + std::to_string(num_dim));
    const bool float32_points = mesh_.points.dtype() == DType::float32;
    const int name_length = string_length();

    out_.put_text_attribute(NetcdfWriter::kGlobal, "title", "Created by meshio++");
    out_.put_attribute(NetcdfWriter::kGlobal, "api_version", DType::float32, 5.1);
    out_.put_attribute(NetcdfWriter::kGlobal, "version", DType::float32, 5.1);
    out_.put_attribute(NetcdfWriter::kGlobal, "floating_point_word_size", DType::int32, float32_points ? 4 : 8);
    out_.put_attribute(NetcdfWriter::kGlobal, "file_size", DType::int32, 1);
    out_.put_attribute(NetcdfWriter::kGlobal, "maximum_name_length", DType::int32, name_length);
    // EX_MAPS_INT64_DB | EX_IDS_INT64_DB | EX_BULK_INT64_DB when indices are 64-bit.
    out_.put_attribute(NetcdfWriter::kGlobal, "int64_status", DType::int32, index_type_ == DType::int64 ? 7 : 0);

    const int len_string = out_.define_dimension("len_string", 33);
    const int len_line = out_.define_dimension("len_line", 81);
    const int four = out_.define_dimension("four", 4);
    const int len_name = out_.define_dimension("len_name", static_cast<std::size_t>(name_length) + 1);
    const int time_step = out_.define_dimension("time_step", 0);
    const int dim_dim = out_.define_dimension("num_dim", num_dim);
    const int nodes_dim = num_nodes > 0 ? out_.define_dimension("num_nodes", num_nodes) : -1;
    if (mesh_.num_cells() > 0) out_.define_dimension("num_elem", static_cast<std::size_t>(mesh_.num_cells()));
    const int blocks_dim = blocks_.empty() ? -1 : out_.define_dimension("num_el_blk", blocks_.size());

    time_whole_ = out_.define_variable("time_whole", float32_points ? DType::float32 : DType::float64,
                                       std::vector<int>{time_step});
    coor_names_ = out_.define_text_variable("coor_names", std::vector<int>{dim_dim, len_name});
    if (nodes_dim >= 0) {
      static constexpr std::string_view kCoordinates[3] = {"coordx", "coordy", "coordz"};
      for (std::size_t axis = 0; axis < num_dim; ++axis)
        pending_.push_back({out_.define_variable(kCoordinates[axis], mesh_.points.dtype(), std::vector<int>{nodes_dim}),
                            &mesh_.points, static_cast<int>(axis), false});
    }

    define_face_blocks(len_name);
    if (!blocks_.empty()) {
      eb_status_ = out_.define_variable("eb_status", DType::int32, std::vector<int>{blocks_dim});
      eb_prop1_ = out_.define_variable("eb_prop1", index_type_, std::vector<int>{blocks_dim});
      out_.put_text_attribute(eb_prop1_, "name", "ID");
      eb_names_ = out_.define_text_variable("eb_names", std::vector<int>{blocks_dim, len_name});
      for (std::size_t k = 0; k < blocks_.size(); ++k) {
        const CellBlock& cells = mesh_.cells[blocks_[k].mesh_index];
        const std::string suffix = std::to_string(k + 1);
        const int count_dim = out_.define_dimension("num_el_in_blk" + suffix, static_cast<std::size_t>(cells.num_cells()));
        if (cells.type == "polygon" || cells.type == "polyhedron") {
          // SEACAS's layout of ragged blocks: one flat list of nodes (NSIDED) or of face numbers
          // (NFACED), and ebepecnt<k> with each element's count of them.
          const bool polygon = cells.type == "polygon";
          const std::size_t flat = polygon ? cells.connectivity.size() : static_cast<std::size_t>(cells.face_offsets.rows() - 1);
          const int flat_dim = out_.define_dimension((polygon ? "num_nod_per_el" : "num_fac_per_el") + suffix, flat);
          blocks_[k].connect = out_.define_variable((polygon ? "connect" : "facconn") + suffix, index_type_, std::vector<int>{flat_dim});
          const int counts = out_.define_variable("ebepecnt" + suffix, index_type_, std::vector<int>{count_dim});
          out_.put_text_attribute(counts, "entity_type1", polygon ? "NODE" : "FACE");
          out_.put_text_attribute(counts, "entity_type2", "ELEM");
          entity_counts_.push_back({counts, blocks_[k].mesh_index});
        } else {
          const int nodes_per = out_.define_dimension("num_nod_per_el" + suffix,
                                                      static_cast<std::size_t>(cells.connectivity.row_width()));
          blocks_[k].connect = out_.define_variable("connect" + suffix, index_type_, std::vector<int>{count_dim, nodes_per});
        }
        out_.put_text_attribute(blocks_[k].connect, "elem_type", exodus_name_for(cells.type));
      }
    }

    define_sets("num_node_sets", "ns", "num_nod_ns", "node_ns", node_sets_, len_name, node_set_vars_);
    define_sets("num_side_sets", "ss", "num_side_ss", "elem_ss", side_sets_, len_name, side_set_vars_);
    define_sets("num_elem_sets", "els", "num_ele_els", "elem_els", element_sets_, len_name, element_set_vars_);

    define_nodal_variables(time_step, nodes_dim, len_name);
    define_element_variables(time_step, len_name, blocks_dim);
    define_global_variables(time_step, len_name);
    define_records(len_string, len_line, four);
    has_step_ = series_ || !nodal_names_.empty() || !element_names_.empty() || !global_names_.empty();
  }

  // One NSIDED face block per polyhedron block (SEACAS's layout: num_fa_blk, fa_status,
  // fa_prop1, fa_names; fbconn<j> the flat node list, fbepecnt<j> the nodes of each face). Each
  // polyhedron's faces are its own, stored once per polyhedron and oriented out of it: Exodus
  // faces carry no sign, so a face shared by two polyhedra would be inward for one of them, and
  // only readers that orient faces themselves (ours, VTK 9.7's) would see every cell outward.
  void define_face_blocks(int len_name) {
    if (face_blocks_.empty()) return;
    const int count_dim = out_.define_dimension("num_fa_blk", face_blocks_.size());
    const FaceBlock& last = face_blocks_.back();
    out_.define_dimension("num_face", static_cast<std::size_t>(last.first_face + last.count));
    fa_status_ = out_.define_variable("fa_status", DType::int32, std::vector<int>{count_dim});
    fa_prop1_ = out_.define_variable("fa_prop1", index_type_, std::vector<int>{count_dim});
    out_.put_text_attribute(fa_prop1_, "name", "ID");
    fa_names_ = out_.define_text_variable("fa_names", std::vector<int>{count_dim, len_name});
    for (std::size_t j = 0; j < face_blocks_.size(); ++j) {
      FaceBlock& block = face_blocks_[j];
      const CellBlock& cells = mesh_.cells[block.mesh_index];
      const std::string suffix = std::to_string(j + 1);
      const int faces_dim = out_.define_dimension("num_fa_in_blk" + suffix, static_cast<std::size_t>(block.count));
      const int nodes_dim = out_.define_dimension("num_nod_per_fa" + suffix, cells.connectivity.size());
      block.connect = out_.define_variable("fbconn" + suffix, index_type_, std::vector<int>{nodes_dim});
      out_.put_text_attribute(block.connect, "elem_type", "nsided");
      block.counts = out_.define_variable("fbepecnt" + suffix, index_type_, std::vector<int>{faces_dim});
      out_.put_text_attribute(block.counts, "entity_type1", "NODE");
      out_.put_text_attribute(block.counts, "entity_type2", "FACE");
    }
  }

  void fill_face_blocks() {
    if (face_blocks_.empty()) return;
    std::vector<std::int32_t> status(face_blocks_.size(), 1);
    std::vector<std::int64_t> ids;
    std::vector<std::string> names;
    for (std::size_t j = 0; j < face_blocks_.size(); ++j) {
      ids.push_back(static_cast<std::int64_t>(j + 1));
      names.push_back("faces_of_block_" + std::to_string(face_blocks_[j].mesh_index + 1));
    }
    out_.write(fa_status_, DType::int32, status.data());
    out_.write(fa_prop1_, DType::int64, ids.data());
    out_.write_strings(fa_names_, names);
    for (const FaceBlock& block : face_blocks_) {
      const CellBlock& cells = mesh_.cells[block.mesh_index];
      // Oriented out of each polyhedron, whatever the caller's mesh did (a copy: the mesh is const).
      CellBlock outward{cells.type, cells.connectivity.copy(), cells.offsets, cells.face_offsets};
      io::orient_polyhedron_faces_outward(mesh_.points, outward);
      write_one_based(block.connect, outward.connectivity.values<std::int64_t>());
      const auto offsets = cells.face_offsets.values<std::int64_t>();
      std::vector<std::int64_t> counts(offsets.size() - 1);
      for (std::size_t i = 0; i + 1 < offsets.size(); ++i) counts[i] = offsets[i + 1] - offsets[i];
      write_one_based(block.counts, counts, 0);
    }
  }

  struct SetVariables {
    int status = -1, ids = -1, names = -1;
    std::vector<int> entries, sides;
  };

  void define_sets(std::string_view count_name, std::string_view prefix, std::string_view length_prefix,
                   std::string_view entry_prefix, const std::vector<const Region*>& sets, int len_name,
                   SetVariables& variables) {
    if (sets.empty()) return;
    const int count_dim = out_.define_dimension(count_name, sets.size());
    variables.status = out_.define_variable(std::string(prefix) + "_status", DType::int32, std::vector<int>{count_dim});
    variables.ids = out_.define_variable(std::string(prefix) + "_prop1", index_type_, std::vector<int>{count_dim});
    out_.put_text_attribute(variables.ids, "name", "ID");
    variables.names = out_.define_text_variable(std::string(prefix) + "_names", std::vector<int>{count_dim, len_name});
    for (std::size_t k = 0; k < sets.size(); ++k) {
      const std::string suffix = std::to_string(k + 1);
      const int length = out_.define_dimension(std::string(length_prefix) + suffix, static_cast<std::size_t>(sets[k]->entries.rows()));
      variables.entries.push_back(out_.define_variable(std::string(entry_prefix) + suffix, index_type_, std::vector<int>{length}));
      if (prefix == "ss")
        variables.sides.push_back(out_.define_variable("side_ss" + suffix, index_type_, std::vector<int>{length}));
    }
  }

  // A time-dependent variable (time_step, rows, extra…) for `array`, or for one of its columns.
  int define_values(const std::string& name, int time_step, int rows_dim, const NDArray& array, int component,
                    const std::string& extra_prefix, const std::string& source_name, bool cell = false,
                    std::size_t block = 0) {
    std::vector<int> dims{time_step, rows_dim};
    if (component < 0)
      for (std::size_t axis = 1; axis < array.ndim(); ++axis)
        dims.push_back(out_.define_dimension(extra_prefix + std::to_string(axis), static_cast<std::size_t>(array.dim(axis))));
    const int variable = out_.define_variable(name, stored(array.dtype()), dims);
    pending_.push_back({variable, &array, component, true, source_name, cell, block});
    return variable;
  }

  void define_nodal_variables(int time_step, int nodes_dim, int len_name) {
    if (mesh_.point_data.empty() || nodes_dim < 0) return;
    for (const auto& [name, array] : mesh_.point_data) {
      const bool vector3 = array.ndim() == 2 && array.dim(1) == 3;
      if (vector3) {
        for (int c = 0; c < 3; ++c) {
          nodal_names_.push_back(name + "XYZ"[c]);
          define_values("vals_nod_var" + std::to_string(nodal_names_.size()), time_step, nodes_dim, array, c, "", name);
        }
      } else {
        nodal_names_.push_back(name);
        const std::string index = std::to_string(nodal_names_.size());
        define_values("vals_nod_var" + index, time_step, nodes_dim, array, -1, "num_comp_nod_var" + index + "_", name);
      }
    }
    const int count = out_.define_dimension("num_nod_var", nodal_names_.size());
    name_nod_var_ = out_.define_text_variable("name_nod_var", std::vector<int>{count, len_name});
  }

  void define_element_variables(int time_step, int len_name, int blocks_dim) {
    if (mesh_.cell_data.empty() || blocks_.empty()) return;
    for (const auto& [name, per_block] : mesh_.cell_data) {
      element_names_.push_back(name);
      const std::string v = std::to_string(element_names_.size());
      for (std::size_t k = 0; k < blocks_.size(); ++k) {
        const NDArray& array = per_block.at(blocks_[k].mesh_index);
        const std::string b = std::to_string(k + 1);
        define_values("vals_elem_var" + v + "eb" + b, time_step, block_count_dim(k), array, -1,
                      "num_comp_elem_var" + v + "eb" + b + "_", name, true, blocks_[k].mesh_index);
      }
    }
    const int count = out_.define_dimension("num_elem_var", element_names_.size());
    name_elem_var_ = out_.define_text_variable("name_elem_var", std::vector<int>{count, len_name});
    elem_var_tab_ = out_.define_variable("elem_var_tab", DType::int32, std::vector<int>{blocks_dim, count});
  }

  int block_count_dim(std::size_t k) const {
    return out_.dimension_id("num_el_in_blk" + std::to_string(k + 1));
  }

  void define_global_variables(int time_step, int len_name) {
    for (const auto& [name, array] : mesh_.field_data)
      if (array.size() == 1) global_names_.push_back(name), global_sources_.push_back(&array);
    if (global_names_.empty()) return;
    const int count = out_.define_dimension("num_glo_var", global_names_.size());
    name_glo_var_ = out_.define_text_variable("name_glo_var", std::vector<int>{count, len_name});
    vals_glo_var_ = out_.define_variable("vals_glo_var", DType::float64, std::vector<int>{time_step, count});
  }

  void define_records(int len_string, int len_line, int four) {
    if (const auto* qa = mesh_.string_field_data.find("exodus:qa_records"); qa && !qa->empty() && qa->size() % 4 == 0) {
      qa_records_ = qa;
      const int count = out_.define_dimension("num_qa_rec", qa->size() / 4);
      qa_variable_ = out_.define_text_variable("qa_records", std::vector<int>{count, four, len_string});
    }
    if (const auto* info = mesh_.string_field_data.find("exodus:info_records"); info && !info->empty()) {
      info_records_ = info;
      const int count = out_.define_dimension("num_info", info->size());
      info_variable_ = out_.define_text_variable("info_records", std::vector<int>{count, len_line});
    }
  }

  // ---- data ----

  void fill() {
    const std::size_t num_dim = static_cast<std::size_t>(mesh_.points.ndim() == 2 ? mesh_.points.dim(1) : 3);
    static const std::string kAxes[3] = {"X", "Y", "Z"};
    out_.write_strings(coor_names_, std::span<const std::string>(kAxes, num_dim));
    if (has_step_) {
      const std::size_t start[1] = {0}, count[1] = {1};
      out_.write(time_whole_, DType::float64, &time_, start, count);
    }
    for (const Pending& pending : pending_) write_pending(pending, *pending.source, 0);
    fill_blocks();
    fill_sets(node_sets_, node_set_vars_, true);
    fill_sets(element_sets_, element_set_vars_, true);
    fill_side_sets();
    if (!nodal_names_.empty()) out_.write_strings(name_nod_var_, nodal_names_);
    if (!element_names_.empty()) {
      out_.write_strings(name_elem_var_, element_names_);
      std::vector<std::int32_t> table(blocks_.size() * element_names_.size(), 1);
      out_.write(elem_var_tab_, DType::int32, table.data());
    }
    if (!global_names_.empty()) {
      out_.write_strings(name_glo_var_, global_names_);
      write_globals(0, global_sources_);
    }
    if (qa_records_) out_.write_strings(qa_variable_, *qa_records_);
    if (info_records_) out_.write_strings(info_variable_, *info_records_);
  }

  void write_globals(std::size_t time_index, const std::vector<const NDArray*>& sources) {
    if (sources.empty()) return;
    std::vector<double> values;
    for (const NDArray* array : sources) values.push_back(array->astype(DType::float64).data_as<double>()[0]);
    const std::size_t start[2] = {time_index, 0}, count[2] = {1, values.size()};
    out_.write(vals_glo_var_, DType::float64, values.data(), start, count);
  }

  // `array` (the pending source, or a later step's array of the same shape) into the variable,
  // at step `time_index` when it is time-dependent.
  void write_pending(const Pending& pending, const NDArray& array, std::size_t time_index) {
    const auto rows = static_cast<std::size_t>(array.rows());
    std::vector<std::size_t> start, count;
    if (pending.time_dependent) start.push_back(time_index), count.push_back(1);
    start.push_back(0);
    count.push_back(rows);
    if (pending.component < 0) {
      for (std::size_t axis = 1; axis < array.ndim(); ++axis) start.push_back(0), count.push_back(static_cast<std::size_t>(array.dim(axis)));
      out_.write(pending.variable, array.dtype(), array.data(), start, count);
      return;
    }
    // One column of a row-major (rows, width) array: gather it, then write it in one call.
    NDArray column = NDArray::allocate_scratch(array.dtype(), {static_cast<std::int64_t>(rows)});
    const std::size_t size = dtype_size(array.dtype());
    const auto width = static_cast<std::size_t>(array.row_width());
    const auto* in = static_cast<const char*>(array.data()) + static_cast<std::size_t>(pending.component) * size;
    auto* out = static_cast<char*>(column.data());
    for (std::size_t row = 0; row < rows; ++row) std::copy(in + row * width * size, in + row * width * size + size, out + row * size);
    out_.write(pending.variable, array.dtype(), column.data(), start, count);
  }

  // 1-based copy of int64 indices in the index dtype, written in one call (scratch memory: no
  // zero-filling of pages about to be overwritten).
  void write_one_based(int variable, std::span<const std::int64_t> values, std::int64_t offset = 1) {
    NDArray shifted = NDArray::allocate_scratch(index_type_, {static_cast<std::int64_t>(values.size())});
    visit_dtype(index_type_, [&](auto zero) {
      using T = decltype(zero);
      T* out = shifted.data_as<T>();
      for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<T>(values[i] + offset);
    });
    out_.write(variable, index_type_, shifted.data());
  }

  void fill_blocks() {
    if (blocks_.empty()) return;
    std::vector<std::int32_t> status(blocks_.size(), 1);
    std::vector<std::int64_t> ids;
    std::vector<std::string> names;
    for (const WrittenBlock& block : blocks_) ids.push_back(block.id), names.push_back(block.name);
    out_.write(eb_status_, DType::int32, status.data());
    out_.write(eb_prop1_, DType::int64, ids.data());
    out_.write_strings(eb_names_, names);
    fill_face_blocks();
    for (const WrittenBlock& block : blocks_) {
      const CellBlock& cells = mesh_.cells[block.mesh_index];
      if (cells.type == "polyhedron") {  // facconn<k>: the numbers of its face block's faces, in order
        const auto face_block = std::find_if(face_blocks_.begin(), face_blocks_.end(),
                                             [&](const FaceBlock& faces) { return faces.mesh_index == block.mesh_index; });
        std::vector<std::int64_t> numbers(static_cast<std::size_t>(face_block->count));
        for (std::size_t i = 0; i < numbers.size(); ++i) numbers[i] = face_block->first_face + static_cast<std::int64_t>(i);
        write_one_based(block.connect, numbers);
        continue;
      }
      const std::span<const std::int8_t> order = node_permutation(cells.type);
      if (order.empty()) {
        write_one_based(block.connect, cells.connectivity.values<std::int64_t>());
        continue;
      }
      const std::int64_t width = cells.connectivity.row_width();
      const auto in = cells.connectivity.values<std::int64_t>();
      std::vector<std::int64_t> permuted(in.size());
      for (std::size_t cell = 0; cell < in.size() / static_cast<std::size_t>(width); ++cell)
        for (std::int64_t i = 0; i < width; ++i) permuted[cell * width + i] = in[cell * width + order[i]];
      write_one_based(block.connect, permuted);
    }
    for (const auto& [variable, mesh_index] : entity_counts_) {
      const auto offsets = mesh_.cells[mesh_index].offsets.values<std::int64_t>();
      std::vector<std::int64_t> counts(offsets.size() - 1);
      for (std::size_t i = 0; i + 1 < offsets.size(); ++i) counts[i] = offsets[i + 1] - offsets[i];
      write_one_based(variable, counts, 0);
    }
  }

  void fill_sets(const std::vector<const Region*>& sets, const SetVariables& variables, bool write_entries) {
    if (sets.empty()) return;
    std::vector<std::int32_t> status(sets.size(), 1);
    std::vector<std::int64_t> ids;
    std::vector<std::string> names;
    for (std::size_t k = 0; k < sets.size(); ++k) {
      ids.push_back(sets[k]->tag > 0 ? sets[k]->tag : static_cast<std::int64_t>(k + 1));
      names.push_back(sets[k]->name);
    }
    out_.write(variables.status, DType::int32, status.data());
    out_.write(variables.ids, DType::int64, ids.data());
    out_.write_strings(variables.names, names);
    if (!write_entries) return;
    for (std::size_t k = 0; k < sets.size(); ++k) write_one_based(variables.entries[k], sets[k]->entries.values<std::int64_t>());
  }

  void fill_side_sets() {
    if (side_sets_.empty()) return;
    fill_sets(side_sets_, side_set_vars_, false);  // the pairs are converted below
    const std::int64_t* bases = bases_.data_as<std::int64_t>();
    const int mesh_dimension = static_cast<int>(mesh_.points.ndim() == 2 ? mesh_.points.dim(1) : 3);
    for (std::size_t k = 0; k < side_sets_.size(); ++k) {
      const auto pairs = side_sets_[k]->entries.values<std::int64_t>();
      const std::size_t count = pairs.size() / 2;
      std::vector<std::int64_t> cells(count), sides(count);
      for (std::size_t i = 0; i < count; ++i) {
        const std::int64_t cell = pairs[2 * i], facet = pairs[2 * i + 1];
        const std::size_t block = static_cast<std::size_t>(
            std::upper_bound(bases, bases + mesh_.cells.size() + 1, cell) - bases - 1);
        const CellBlock& cells_of_block = mesh_.cells[block];
        const SideRule rule = side_rule(cells_of_block.type, exodus_name_for(cells_of_block.type), mesh_dimension);
        const auto facets = static_cast<std::int64_t>(cell_facets(cells_of_block.type).size());
        if (rule == SideRule::none || facet < 0 || facet >= facets)
          fail("side region '" + side_sets_[k]->name + "': entry " + std::to_string(i) + " is facet " +
               std::to_string(facet) + " of a " + cells_of_block.type + " cell, which Exodus cannot number");
        cells[i] = cell;
        sides[i] = rule == SideRule::shell ? facet + 3 : facet + 1;
      }
      write_one_based(side_set_vars_.entries[k], cells);
      write_one_based(side_set_vars_.sides[k], sides, 0);
    }
  }

  const std::string& path_;
  const Mesh& mesh_;
  NetcdfWriter out_;
  DType index_type_ = DType::int32;
  NDArray bases_;
  std::vector<WrittenBlock> blocks_;
  std::vector<FaceBlock> face_blocks_;
  int fa_status_ = -1, fa_prop1_ = -1, fa_names_ = -1;
  std::vector<const Region*> node_sets_, side_sets_, element_sets_;
  SetVariables node_set_vars_, side_set_vars_, element_set_vars_;
  std::vector<Pending> pending_;
  std::vector<std::pair<int, std::size_t>> entity_counts_;
  std::vector<std::string> nodal_names_, element_names_, global_names_;
  std::vector<const NDArray*> global_sources_;
  const std::vector<std::string>* qa_records_ = nullptr;
  const std::vector<std::string>* info_records_ = nullptr;
  int time_whole_ = -1, coor_names_ = -1, eb_status_ = -1, eb_prop1_ = -1, eb_names_ = -1;
  int name_nod_var_ = -1, name_elem_var_ = -1, elem_var_tab_ = -1, name_glo_var_ = -1, vals_glo_var_ = -1;
  int qa_variable_ = -1, info_variable_ = -1;
  bool has_step_ = false, series_ = false;
  double time_ = 0.0;
};

// The time-series writer (time_series.hpp) on the Writer above: the mesh is kept until the
// first step, whose variables are the ones Exodus declares (once, in the header); that step
// defines and writes the whole file — mesh, variables, step 0 — through Writer, and every later
// step adds one record along the unlimited time_step dimension. The netCDF file grows beside
// the target and replaces it on close(); no close(), no file.
class SeriesWriter final : public TimeSeriesWriter, private io::SeriesWriterState {
 public:
  SeriesWriter(std::string path, WriteOptions options)
      : SeriesWriterState(path, kFormat), path_(std::move(path)), options_(std::move(options)) {
    kind_from(options_.get("netcdf_format", ""), path_);  // a bad value fails here, not at the first step
  }

  void write_mesh(const Mesh& mesh) override {
    usable("write_points_cells()");
    if (has_mesh_) fail("write_points_cells() called twice: an Exodus file holds one mesh");
    try {
      validate(mesh);
    } catch (const std::invalid_argument& problem) {
      fail(problem.what());
    }
    for (const CellBlock& cells : mesh.cells) {
      if (exodus_name_for(cells.type).empty()) fail("cell type '" + cells.type + "' has no Exodus element");
    }
    // Kept until the first step: views of the caller's memory (Python's arrays) become copies.
    mesh_ = mesh;
    mesh_.point_data = {};
    mesh_.cell_data = {};
    mesh_.field_data = {};
    own(mesh_.points);
    for (CellBlock& cells : mesh_.cells) own(cells.connectivity), own(cells.offsets), own(cells.face_offsets);
    for (Region& region : mesh_.regions) own(region.entries);
    has_mesh_ = true;
  }

  void write_step(const TimeStep& step) override {
    usable("write_data()");
    if (!has_mesh_) fail("write_data() before write_points_cells()");
    const std::string where = "step " + std::to_string(steps_) + ": ";
    check_rows(step, where);
    NamedList<NDArray> globals;
    for (const auto& [name, array] : step.field_data)
      if (array.size() == 1) globals.set(name, array);
    if (!writer_) {
      for (const auto& [name, array] : step.point_data) layout_.point_data.set(name, placeholder(array));
      for (const auto& [name, arrays] : step.cell_data) {
        std::vector<NDArray> per_block;
        for (const NDArray& array : arrays) per_block.push_back(placeholder(array));
        layout_.cell_data.set(name, std::move(per_block));
      }
      for (const auto& [name, array] : globals) layout_.field_data.set(name, placeholder(array));
      mesh_.point_data = step.point_data;
      mesh_.cell_data = step.cell_data;
      mesh_.field_data = globals;
      guarded([&] {
        writer_ = std::make_unique<Writer>(path_, mesh_, options_);
        writer_->begin_series(step.time);
      });
      // The arrays may be views of the caller's memory: keep none past this call.
      mesh_.point_data = {};
      mesh_.cell_data = {};
      mesh_.field_data = {};
    } else {
      check_same_variables(step, globals, where);
      TimeStep scalars{step.time, step.point_data, step.cell_data, globals};
      guarded([&] { writer_->write_step(steps_, scalars); });
    }
    ++steps_;
  }

  void close() override {
    if (closed_) return;
    usable("close()");
    if (!has_mesh_) fail("close() before write_points_cells(): an Exodus file needs its mesh");
    guarded([&] {
      if (writer_) {
        writer_->commit();
      } else {
        Writer(path_, mesh_, options_).write();  // the mesh alone, no time step
      }
    });
    closed_ = true;
  }

 private:
  static void own(NDArray& array) {
    if (!array.empty_handle() && !array.owns_data()) array = array.copy();
  }

  // dtype and trailing shape of a step-0 array, without its rows: what later steps must match.
  static NDArray placeholder(const NDArray& array) {
    Shape shape(array.shape().begin(), array.shape().end());
    if (!shape.empty()) shape[0] = 0;
    return NDArray::allocate(array.dtype(), shape);
  }

  void check_rows(const TimeStep& step, const std::string& where) const {
    const std::int64_t num_points = mesh_.num_points();
    for (const auto& [name, array] : step.point_data)
      if (array.ndim() < 1 || array.rows() != num_points)
        fail(where + "point data '" + name + "' has shape " + shape_text(array.shape()) + ", the mesh has " +
             std::to_string(num_points) + " points");
    for (const auto& [name, arrays] : step.cell_data) {
      if (arrays.size() != mesh_.cells.size())
        fail(where + "cell data '" + name + "' has " + std::to_string(arrays.size()) + " arrays for " +
             std::to_string(mesh_.cells.size()) + " cell blocks");
      for (std::size_t b = 0; b < arrays.size(); ++b)
        if (arrays[b].ndim() < 1 || arrays[b].rows() != mesh_.cells[b].num_cells())
          fail(where + "cell data '" + name + "' block " + std::to_string(b) + " has shape " + shape_text(arrays[b].shape()) +
               ", the block has " + std::to_string(mesh_.cells[b].num_cells()) + " cells");
    }
  }

  static std::string names_of(const std::vector<std::string>& names) {
    std::string text = "{";
    for (std::size_t i = 0; i < names.size(); ++i) text += (i ? ", '" : "'") + names[i] + "'";
    return text + "}";
  }

  template <class List> static std::vector<std::string> sorted_names(const List& list) {
    std::vector<std::string> names;
    for (const auto& entry : list) names.push_back(entry.first);
    std::sort(names.begin(), names.end());
    return names;
  }

  template <class List> void same_names(const List& now, const std::vector<std::string>& before, const char* what,
                                        const std::string& where) const {
    const std::vector<std::string> names = sorted_names(now);
    if (names != before)
      fail(where + what + " " + names_of(names) + " differs from step 0's " + names_of(before) +
           ": Exodus declares its variables once, every step must have the same ones");
  }

  void same_layout(const NDArray& now, const NDArray& before, const std::string& what, const std::string& where) const {
    bool same = now.dtype() == before.dtype() && now.ndim() == before.ndim();
    for (std::size_t axis = 1; same && axis < now.ndim(); ++axis) same = now.dim(axis) == before.dim(axis);
    if (!same)
      fail(where + what + " has dtype " + std::string(dtype_name(now.dtype())) + " and shape " + shape_text(now.shape()) +
           ", step 0 had " + std::string(dtype_name(before.dtype())) + " and shape " + shape_text(before.shape()) +
           " (Exodus declares each variable once)");
  }

  void check_same_variables(const TimeStep& step, const NamedList<NDArray>& globals, const std::string& where) const {
    same_names(step.point_data, sorted_names(layout_.point_data), "point data", where);
    same_names(step.cell_data, sorted_names(layout_.cell_data), "cell data", where);
    same_names(globals, sorted_names(layout_.field_data), "global variables (scalar field data)", where);
    for (const auto& [name, array] : step.point_data)
      same_layout(array, *layout_.point_data.find(name), "point data '" + name + "'", where);
    for (const auto& [name, arrays] : step.cell_data)
      for (std::size_t b = 0; b < arrays.size(); ++b)
        same_layout(arrays[b], layout_.cell_data.find(name)->at(b),
                    "cell data '" + name + "' block " + std::to_string(b), where);
  }

  std::string path_;
  WriteOptions options_;
  Mesh mesh_;
  Mesh layout_;  // step 0's arrays as 0-row placeholders of the same dtype and trailing shape
  std::unique_ptr<Writer> writer_;
  std::size_t steps_ = 0;
  bool has_mesh_ = false;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  Writer(path, mesh, options).write();
}

std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, const WriteOptions& options) {
  return std::make_unique<SeriesWriter>(path, options);
}

}  // namespace meshioplusplus::exodus
