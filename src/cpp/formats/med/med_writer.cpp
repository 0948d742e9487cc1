// MED writer: meshio's layout (see med.hpp), with families derived from regions when the mesh
// has no MED family numbers of its own.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "formats/med/med.hpp"
#include "formats/med/med_types.hpp"
#include "formats/med/med_time_series.hpp"
#include "io/cells/polyhedron_orientation.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::med {

namespace {

constexpr std::string_view kFormat = "med";
constexpr std::string_view kMeshName = "mesh";
using io::hdf5::File;

struct Family {
  std::int64_t number;
  std::vector<std::string> groups;
};

// "<number>\t<group>\t…" rows (the reader's string_field_data) → families.
std::vector<Family> parse_family_table(const std::vector<std::string>& rows) {
  std::vector<Family> families;
  for (const std::string& row : rows) {
    Family family{0, {}};
    std::size_t start = 0;
    bool first = true;
    while (start <= row.size()) {
      const std::size_t tab = std::min(row.find('\t', start), row.size());
      const std::string_view part(row.data() + start, tab - start);
      if (first) std::from_chars(part.data(), part.data() + part.size(), family.number);
      else family.groups.emplace_back(part);
      first = false;
      start = tab + 1;
    }
    families.push_back(std::move(family));
  }
  return families;
}

// One family per distinct set of regions an entry belongs to; numbers 1, 2, … times `sign`.
NDArray families_from_regions(const std::vector<const Region*>& regions, std::int64_t count, std::int64_t sign,
                              std::vector<Family>& families) {
  std::vector<std::vector<std::size_t>> member_of(static_cast<std::size_t>(count));
  for (std::size_t r = 0; r < regions.size(); ++r)
    for (std::int64_t entry : regions[r]->entries.values<std::int64_t>())
      if (entry >= 0 && entry < count) {
        auto& list = member_of[static_cast<std::size_t>(entry)];
        if (list.empty() || list.back() != r) list.push_back(r);
      }
  NDArray tags = NDArray::zeros(DType::int32, {count});
  std::map<std::vector<std::size_t>, std::int64_t> number_of;
  for (std::int64_t i = 0; i < count; ++i) {
    const auto& list = member_of[static_cast<std::size_t>(i)];
    if (list.empty()) continue;
    auto [it, inserted] = number_of.try_emplace(list, sign * static_cast<std::int64_t>(number_of.size() + 1));
    if (inserted) {
      Family family{it->second, {}};
      for (std::size_t r : list) family.groups.push_back(regions[r]->name);
      families.push_back(std::move(family));
    }
    tags.data_as<std::int32_t>()[i] = static_cast<std::int32_t>(it->second);
  }
  return tags;
}

// Row-major (n,), (n, k) or (n, g, k) → MED's Fortran order in `dtype` (float64, int32 or
// int64), plus `offset` (1 for node numbers); one pass: value (i, g, c) goes to i + n * (g + gauss * c).
NDArray fortran_order(const NDArray& array, DType dtype, std::int64_t offset = 0) {
  const auto rows = static_cast<std::size_t>(array.rows());
  const auto width = static_cast<std::size_t>(array.row_width());
  const Shape& shape = array.shape();
  const std::size_t gauss = shape.size() == 3 ? static_cast<std::size_t>(shape[1]) : 1;
  const std::size_t components = gauss ? width / gauss : 0;
  NDArray out = NDArray::allocate_scratch(dtype, {static_cast<std::int64_t>(rows * width)});
  visit_dtype(array.dtype(), [&](auto source_zero) {
    using S = decltype(source_zero);
    const S* in = array.data_as<S>();
    auto convert = [&](auto* to) {
      using D = std::remove_pointer_t<decltype(to)>;
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t g = 0; g < gauss; ++g)
          for (std::size_t c = 0; c < components; ++c)
            to[i + rows * (g + gauss * c)] = static_cast<D>(in[(i * gauss + g) * components + c] + static_cast<S>(offset));
    };
    if (dtype == DType::int32) convert(out.data_as<std::int32_t>());
    else if (dtype == DType::int64) convert(out.data_as<std::int64_t>());
    else convert(out.data_as<double>());
  });
  return out;
}

// MED names a computation-step group by its NDT and NOR, each printed as "%020ld" (a negative
// number as "-" and 19 digits), as the MED library does.
std::string step_group_name(std::int64_t ndt, std::int64_t nor) {
  char text[48];
  std::snprintf(text, sizeof text, "%020lld%020lld", static_cast<long long>(ndt), static_cast<long long>(nor));
  return text;
}

// meshio's single step of every field: NDT 1, NOR 1, time 0.
constexpr ComputationStep kMeshioStep{1, 1, 0.0};

}  // namespace

// The MED file being written: the mesh once, then fields one computation step at a time.
class Writer {
 public:
  explicit Writer(std::string path) : path_(std::move(path)), file_(File::create(path_, kFormat)) {}

  const std::string& path() const noexcept { return path_; }
  [[noreturn]] void fail(const std::string& message) const { throw WriteError(path_, std::string(kFormat), message); }

  // What MED cannot hold, before anything is written.
  void check_mesh(const Mesh& mesh) const {
    for (std::size_t a = 0; a < mesh.cells.size(); ++a) {
      if (med_of_cell_type(mesh.cells[a].type).empty())
        fail("cell type '" + mesh.cells[a].type + "' has no MED type");
      for (std::size_t b = 0; b < a; ++b)
        if (mesh.cells[a].type == mesh.cells[b].type) fail("MED files cannot have two blocks of the same cell type");
    }
  }

  void write_mesh(const Mesh& mesh) {
    check_mesh(mesh);
    mesh_ = &mesh;
    file_.create_group("/INFOS_GENERALES");
    // MED 3.0.0: any later version is refused by SALOME 8.3 (meshio's observation).
    file_.set_int32_attribute("/INFOS_GENERALES", "MAJ", 3);
    file_.set_int32_attribute("/INFOS_GENERALES", "MIN", 0);
    file_.set_int32_attribute("/INFOS_GENERALES", "REL", 0);
    const auto dim = static_cast<std::int32_t>(mesh.points.dim(1));
    const std::string mesh_path = "/ENS_MAA/" + std::string(kMeshName);
    file_.create_group("/ENS_MAA");
    file_.create_group(mesh_path);
    file_.set_int32_attribute(mesh_path, "DIM", dim);
    file_.set_int32_attribute(mesh_path, "ESP", dim);
    file_.set_int32_attribute(mesh_path, "REP", 0);
    file_.set_fixed_string_attribute(mesh_path, "UNT", "");
    file_.set_fixed_string_attribute(mesh_path, "UNI", "");
    file_.set_int32_attribute(mesh_path, "SRT", 1);
    std::string axes;
    for (std::int32_t axis = 0; axis < dim; ++axis) axes += std::string(1, "XYZ"[axis]) + std::string(15, ' ');
    file_.set_fixed_string_attribute(mesh_path, "NOM", axes);
    file_.set_fixed_string_attribute(mesh_path, "DES", "Mesh created with meshio++");
    file_.set_int32_attribute(mesh_path, "TYP", 0);
    const std::string step = mesh_path + "/" + step_group_name(-1, -1);  // the mesh has no time step
    file_.create_group(step);
    file_.set_int32_attribute(step, "CGT", 1);
    file_.set_int32_attribute(step, "NDT", -1);
    file_.set_int32_attribute(step, "NOR", -1);
    file_.set_attribute(step, "PDT", -1.0);
    write_nodes(step);
    write_cells(step);
    write_families();
    num_points_ = mesh.num_points();
    blocks_.clear();
    for (const CellBlock& cells : mesh.cells) blocks_.push_back({cells.type, cells.num_cells()});
    mesh_ = nullptr;
  }

  std::int64_t num_points() const noexcept { return num_points_; }
  const std::vector<std::pair<std::string, std::int64_t>>& blocks() const noexcept { return blocks_; }

  // The fields of one computation step, checked whole before anything is written: point data
  // (n,) / (n, c) on nodes (NOE), cell data per block (n,) / (n, c) on cells (MAI.<type>) or
  // (n, nodes per cell, c) on cell nodes (NOE.<type>). A field keeps its component count (NCO)
  // over supports and steps. `strict`: anything else is a WriteError (the time series);
  // otherwise other cell arrays (values at Gauss points) are skipped, as meshio skips them.
  // `context` starts each message (e.g. "step 3: ").
  void check_fields(const NamedList<NDArray>& point_data, const NamedList<std::vector<NDArray>>& cell_data,
                    bool strict, const std::string& context = {}) const {
    const auto fail = [&](const std::string& message) { this->fail(context + message); };
    std::map<std::string, std::int64_t> components = components_;
    const auto claim = [&](const std::string& name, std::int64_t count) {
      const auto [found, added] = components.try_emplace(name, count);
      if (!added && found->second != count)
        fail("field '" + name + "' has " + std::to_string(count) + " components here and " +
             std::to_string(found->second) + " elsewhere (a MED field has one component count)");
    };
    for (const auto& [name, data] : point_data) {
      if (strict && (data.ndim() < 1 || data.ndim() > 2 || data.rows() != num_points_))
        fail("point data '" + name + "' has shape " + shape_text(data.shape()) + ", not (" + std::to_string(num_points_) +
             ",) or (" + std::to_string(num_points_) + ", components)");
      claim(name, data.ndim() == 1 ? 1 : data.shape().back());
    }
    for (const auto& [name, per_block] : cell_data) {
      if (strict && per_block.size() != blocks_.size())
        fail("cell data '" + name + "' has " + std::to_string(per_block.size()) + " arrays for " +
             std::to_string(blocks_.size()) + " cell blocks");
      for (std::size_t b = 0; b < per_block.size() && b < blocks_.size(); ++b) {
        const NDArray& data = per_block[b];
        if (strict && (data.ndim() < 1 || data.rows() != blocks_[b].second))
          fail("cell data '" + name + "' block " + std::to_string(b) + " has shape " + shape_text(data.shape()) + " for " +
               std::to_string(blocks_[b].second) + " cells");
        const Support support = support_of(b, data);
        if (support == Support::none && strict)
          fail("cell data '" + name + "' block " + std::to_string(b) + " has shape " + shape_text(data.shape()) +
               ": MED takes (cells,), (cells, components) or (cells, nodes per cell, components)");
        if (support != Support::none) claim(name, data.ndim() == 1 ? 1 : data.shape().back());
      }
    }
  }

  void write_fields(const NamedList<NDArray>& point_data, const NamedList<std::vector<NDArray>>& cell_data,
                    const ComputationStep& at, bool strict) {
    check_fields(point_data, cell_data, strict);
    if (!file_.exists("/CHA")) file_.create_group("/CHA");
    for (const auto& [name, data] : point_data) {
      const std::string step = field_step(name, data.ndim() == 1 ? 1 : data.shape().back(), at);
      write_support(step + "/NOE", data, 1);
    }
    for (const auto& [name, per_block] : cell_data) {
      for (std::size_t b = 0; b < per_block.size() && b < blocks_.size(); ++b) {
        const NDArray& data = per_block[b];
        const std::string med_type(med_of_cell_type(blocks_[b].first));
        switch (support_of(b, data)) {
          case Support::cells:
            write_support(field_step(name, data.ndim() == 1 ? 1 : data.dim(1), at) + "/MAI." + med_type, data, 1);
            break;
          case Support::cell_nodes:
            write_support(field_step(name, data.dim(2), at) + "/NOE." + med_type, data, data.dim(1));
            break;
          case Support::none:  // values at Gauss points of unknown position (ELGA): not written, as in meshio
            break;
        }
      }
    }
  }

  void commit() { file_.commit(); }

 private:
  enum class Support { cells, cell_nodes, none };

  Support support_of(std::size_t block, const NDArray& data) const {
    if (data.ndim() >= 1 && data.ndim() <= 2) return Support::cells;
    const CellTypeInfo* info = find_cell_type(blocks_[block].first);
    if (data.ndim() == 3 && info && data.dim(1) == info->num_nodes) return Support::cell_nodes;  // ELNO
    return Support::none;
  }

  void write_dataset(const std::string& path, const NDArray& array, std::int64_t count) {
    file_.write(path, array);
    file_.set_int32_attribute(path, "CGT", 1);
    file_.set_int32_attribute(path, "NBR", static_cast<std::int32_t>(count));
  }

  void write_nodes(const std::string& step) {
    const Mesh& mesh = *mesh_;
    const std::string noe = step + "/NOE";
    file_.create_group(noe);
    file_.set_int32_attribute(noe, "CGT", 1);
    file_.set_int32_attribute(noe, "CGS", 1);
    file_.set_fixed_string_attribute(noe, "PFL", kNoProfile);
    write_dataset(noe + "/COO", fortran_order(mesh.points, DType::float64), mesh.num_points());
    const std::vector<const Region*> regions = regions_of(RegionKind::Point);
    if (const NDArray* tags = mesh.point_data.find("point_tags")) {
      write_dataset(noe + "/FAM", tags->astype(DType::int32), mesh.num_points());
      if (const auto* table = mesh.string_field_data.find("med:point_tags")) node_families_ = parse_family_table(*table);
    } else if (!regions.empty()) {
      write_dataset(noe + "/FAM", families_from_regions(regions, mesh.num_points(), 1, node_families_), mesh.num_points());
    }
  }

  std::vector<const Region*> regions_of(RegionKind kind) const {
    std::vector<const Region*> regions;
    for (const Region& region : mesh_->regions)
      if (region.kind == kind) regions.push_back(&region);
    return regions;
  }

  void write_cells(const std::string& step) {
    const Mesh& mesh = *mesh_;
    const std::string mai = step + "/MAI";
    file_.create_group(mai);
    file_.set_int32_attribute(mai, "CGT", 1);
    const std::vector<NDArray>* tags = mesh.cell_data.find("cell_tags");
    NDArray derived;
    const std::vector<const Region*> regions = regions_of(RegionKind::Cell);
    if (tags != nullptr) {
      if (const auto* table = mesh.string_field_data.find("med:cell_tags")) cell_families_ = parse_family_table(*table);
    } else if (!regions.empty()) {
      derived = families_from_regions(regions, mesh.num_cells(), -1, cell_families_);
    }
    const bool index_fits = mesh.num_points() < std::numeric_limits<std::int32_t>::max();
    std::int64_t first = 0;
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
      const CellBlock& cells = mesh.cells[b];
      const std::string group = mai + "/" + std::string(med_of_cell_type(cells.type));
      file_.create_group(group);
      file_.set_int32_attribute(group, "CGT", 1);
      file_.set_int32_attribute(group, "CGS", 1);
      file_.set_fixed_string_attribute(group, "PFL", kNoProfile);
      if (cells.is_ragged()) {
        write_ragged(group, cells);
      } else {
        const NDArray nodes = fortran_order(cells.connectivity, index_fits ? DType::int32 : DType::int64, 1);
        write_dataset(group + "/NOD", nodes, cells.num_cells());
      }
      if (tags != nullptr) {
        write_dataset(group + "/FAM", tags->at(b).astype(DType::int32), cells.num_cells());
      } else if (!derived.empty_handle()) {
        NDArray part = NDArray::allocate_scratch(DType::int32, {cells.num_cells()});
        std::copy_n(derived.data_as<std::int32_t>() + first, cells.num_cells(), part.data_as<std::int32_t>());
        write_dataset(group + "/FAM", part, cells.num_cells());
      }
      first += cells.num_cells();
    }
  }

  // POG: NOD (every polygon's nodes) and INN (n+1, 1-based, into NOD). POE, as the MED 3 and 4
  // library writes it: NOD (every face's nodes), INN (faces+1, into NOD) and IFN (n+1, into the
  // faces); each with NBR = its length. Faces are written out of their polyhedron (VTK's rule
  // and Salome's SMESH files'; MED itself does not say), each polyhedron with its own faces.
  void write_ragged(const std::string& group, const CellBlock& cells) {
    const auto total = static_cast<std::int64_t>(cells.connectivity.size());
    const DType index = mesh_->num_points() < std::numeric_limits<std::int32_t>::max() &&
                                total < std::numeric_limits<std::int32_t>::max()
                            ? DType::int32
                            : DType::int64;
    const NDArray* connectivity = &cells.connectivity;
    CellBlock outward;
    if (cells.type == "polyhedron") {
      outward = {cells.type, cells.connectivity.copy(), cells.offsets, cells.face_offsets};
      io::orient_polyhedron_faces_outward(mesh_->points, outward);
      connectivity = &outward.connectivity;
      write_dataset(group + "/INN", fortran_order(cells.face_offsets, index, 1), cells.face_offsets.rows());
      write_dataset(group + "/IFN", fortran_order(cells.offsets, index, 1), cells.offsets.rows());
    } else {
      write_dataset(group + "/INN", fortran_order(cells.offsets, index, 1), cells.offsets.rows());
    }
    write_dataset(group + "/NOD", fortran_order(*connectivity, index, 1), total);
  }

  void write_family_group(const std::string& path, const std::vector<Family>& families) {
    file_.create_group(path);
    for (const Family& family : families) {
      std::string name = "FAM_" + std::to_string(family.number);
      for (const std::string& group : family.groups) name += "_" + group;
      std::replace(name.begin(), name.end(), '/', '_');
      const std::string family_path = path + "/" + name;
      file_.create_group(family_path);
      file_.set_int32_attribute(family_path, "NUM", static_cast<std::int32_t>(family.number));
      file_.create_group(family_path + "/GRO");
      file_.set_int32_attribute(family_path + "/GRO", "NBR", static_cast<std::int32_t>(family.groups.size()));
      // Group names: (groups, 80) int8 stored as an array type, as MED (and meshio) store them.
      NDArray names = NDArray::zeros(DType::int8, {static_cast<std::int64_t>(family.groups.size()), 80});
      for (std::size_t g = 0; g < family.groups.size(); ++g)
        std::copy_n(family.groups[g].data(), std::min<std::size_t>(family.groups[g].size(), 80),
                    static_cast<char*>(names.data()) + g * 80);
      io::hdf5::DatasetWriteOptions options;
      options.as_array_type = true;
      file_.write(family_path + "/GRO/NOM", names, options);
    }
  }

  void write_families() {
    const std::string fas = "/FAS/" + std::string(kMeshName);
    file_.create_group("/FAS");
    file_.create_group(fas);
    file_.create_group(fas + "/FAMILLE_ZERO");
    file_.set_int32_attribute(fas + "/FAMILLE_ZERO", "NUM", 0);
    if (!node_families_.empty()) write_family_group(fas + "/NOEUD", node_families_);
    if (!cell_families_.empty()) write_family_group(fas + "/ELEME", cell_families_);
  }

  // A CHA field group (created once, with its component count) and its computation step `at`
  // (created once); returns the step's path.
  std::string field_step(const std::string& name, std::int64_t components, const ComputationStep& at) {
    const std::string field = "/CHA/" + name;
    const std::string step = field + "/" + step_group_name(at.ndt, at.nor);
    if (!file_.exists(field)) {
      file_.create_group(field);
      file_.set_fixed_string_attribute(field, "MAI", kMeshName);
      file_.set_int32_attribute(field, "TYP", 6);  // MED_FLOAT64
      file_.set_fixed_string_attribute(field, "UNI", "");
      file_.set_fixed_string_attribute(field, "UNT", "");
      file_.set_int32_attribute(field, "NCO", static_cast<std::int32_t>(components));
      file_.set_fixed_string_attribute(field, "NOM", std::string(static_cast<std::size_t>(16 * components), ' '));
      components_[name] = components;
    }
    if (file_.exists(step)) return step;
    file_.create_group(step);
    file_.set_int32_attribute(step, "NDT", static_cast<std::int32_t>(at.ndt));
    file_.set_int32_attribute(step, "NOR", static_cast<std::int32_t>(at.nor));
    file_.set_attribute(step, "PDT", at.time);
    file_.set_int32_attribute(step, "RDT", -1);  // the mesh's NDT and NOR
    file_.set_int32_attribute(step, "ROR", -1);
    return step;
  }

  void write_support(const std::string& support, const NDArray& data, std::int64_t gauss) {
    file_.create_group(support);
    file_.set_fixed_string_attribute(support, "GAU", "");
    file_.set_fixed_string_attribute(support, "PFL", kNoProfile);
    const std::string profile = support + "/" + std::string(kNoProfile);
    file_.create_group(profile);
    file_.set_int32_attribute(profile, "NBR", static_cast<std::int32_t>(data.rows()));
    file_.set_int32_attribute(profile, "NGA", static_cast<std::int32_t>(gauss));
    file_.set_fixed_string_attribute(profile, "GAU", "");
    file_.write(profile + "/CO", fortran_order(data, DType::float64));
  }

  std::string path_;
  File file_;
  const Mesh* mesh_ = nullptr;  // during write_mesh() only
  std::int64_t num_points_ = 0;
  std::vector<std::pair<std::string, std::int64_t>> blocks_;  // cell type and count per block
  std::map<std::string, std::int64_t> components_;             // NCO of each field written
  std::vector<Family> node_families_, cell_families_;
};

// ---- MedStream (med_time_series.hpp) ---------------------------------------------------------

MedStream::MedStream(const std::string& path) : writer_(std::make_unique<Writer>(path)) {}
MedStream::~MedStream() = default;
void MedStream::check_mesh(const Mesh& mesh) const { writer_->check_mesh(mesh); }
void MedStream::write_mesh(const Mesh& mesh) { writer_->write_mesh(mesh); }
void MedStream::check_fields(const NamedList<NDArray>& point_data, const NamedList<std::vector<NDArray>>& cell_data,
                             const std::string& context) const {
  writer_->check_fields(point_data, cell_data, true, context);
}
void MedStream::write_fields(const NamedList<NDArray>& point_data, const NamedList<std::vector<NDArray>>& cell_data,
                             const ComputationStep& step) {
  writer_->write_fields(point_data, cell_data, step, true);
}
void MedStream::commit() { writer_->commit(); }

namespace {

// Rows of `parts` (one dtype and trailing shape) one after the other.
NDArray stacked_rows(const std::vector<const NDArray*>& parts, const std::string& what, const std::string& path) {
  const NDArray& first = *parts.front();
  Shape shape(first.shape().begin(), first.shape().end());
  shape[0] = 0;
  for (const NDArray* part : parts) {
    bool same = part->dtype() == first.dtype() && part->ndim() == first.ndim();
    for (std::size_t axis = 1; same && axis < first.ndim(); ++axis) same = part->dim(axis) == first.dim(axis);
    if (!same)
      throw WriteError(path, std::string(kFormat), what + ": the blocks merged into one MED group differ in dtype or shape");
    shape[0] += part->rows();
  }
  NDArray out = NDArray::allocate(first.dtype(), shape);
  auto* to = static_cast<char*>(out.data());
  for (const NDArray* part : parts) {
    const std::size_t bytes = part->size() * dtype_size(part->dtype());
    std::copy_n(static_cast<const char*>(part->data()), bytes, to);
    to += bytes;
  }
  return out;
}

// MED holds one group per cell type, and meshio's Python view splits a ragged block into one
// block per corner count (polygon) or node count (polyhedron<N>): blocks of one ragged type are
// joined here, in the place of the first, with their cell data and Cell regions following.
// Fixed-size types keep meshio's refusal of two blocks (check_mesh).
Mesh with_ragged_blocks_joined(const Mesh& mesh, const std::string& path) {
  std::vector<std::size_t> target(mesh.cells.size());  // joined block of each block
  std::vector<std::vector<std::size_t>> members;        // blocks of each joined block
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    std::size_t t = members.size();
    if (mesh.cells[b].is_ragged())
      for (std::size_t j = 0; j < members.size() && t == members.size(); ++j)
        if (mesh.cells[members[j].front()].type == mesh.cells[b].type) t = j;
    if (t == members.size()) members.emplace_back();
    members[t].push_back(b);
    target[b] = t;
  }
  if (members.size() == mesh.cells.size()) return mesh;
  Mesh joined = mesh;
  joined.cells.clear();
  joined.cell_data = {};
  std::vector<std::int64_t> old_first(mesh.cells.size() + 1, 0), new_first(members.size(), 0);
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) old_first[b + 1] = old_first[b] + mesh.cells[b].num_cells();
  std::vector<std::int64_t> new_of_old(static_cast<std::size_t>(old_first.back()));
  std::int64_t next = 0;
  for (const std::vector<std::size_t>& group : members) {
    CellBlock cells;
    cells.type = mesh.cells[group.front()].type;
    if (group.size() == 1 || !mesh.cells[group.front()].is_ragged()) {
      cells = mesh.cells[group.front()];
    } else {
      const bool polyhedra = cells.type == "polyhedron";
      std::vector<std::int64_t> offsets{0}, face_offsets{0};
      std::vector<const NDArray*> nodes;
      for (std::size_t b : group) {
        const CellBlock& part = mesh.cells[b];
        nodes.push_back(&part.connectivity);
        const std::int64_t entity_base = polyhedra ? static_cast<std::int64_t>(face_offsets.size()) - 1 : offsets.back();
        const auto part_offsets = part.offsets.values<std::int64_t>();
        for (std::size_t i = 1; i < part_offsets.size(); ++i) offsets.push_back(entity_base + part_offsets[i]);
        if (!polyhedra) continue;
        const std::int64_t node_base = face_offsets.back();
        const auto part_faces = part.face_offsets.values<std::int64_t>();
        for (std::size_t i = 1; i < part_faces.size(); ++i) face_offsets.push_back(node_base + part_faces[i]);
      }
      cells.connectivity = stacked_rows(nodes, "connectivity", path);
      cells.offsets = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(offsets.size())});
      std::copy(offsets.begin(), offsets.end(), cells.offsets.data_as<std::int64_t>());
      if (polyhedra) {
        cells.face_offsets = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(face_offsets.size())});
        std::copy(face_offsets.begin(), face_offsets.end(), cells.face_offsets.data_as<std::int64_t>());
      }
    }
    for (std::size_t b : group)
      for (std::int64_t cell = old_first[b]; cell < old_first[b + 1]; ++cell) new_of_old[static_cast<std::size_t>(cell)] = next++;
    joined.cells.push_back(std::move(cells));
  }
  for (const auto& [name, per_block] : mesh.cell_data) {
    std::vector<NDArray> arrays;
    for (const std::vector<std::size_t>& group : members) {
      std::vector<const NDArray*> parts;
      for (std::size_t b : group) parts.push_back(&per_block.at(b));
      arrays.push_back(parts.size() == 1 ? *parts.front() : stacked_rows(parts, "cell data '" + name + "'", path));
    }
    joined.cell_data.set(name, std::move(arrays));
  }
  for (Region& region : joined.regions) {
    if (region.kind == RegionKind::Point) continue;
    NDArray entries = region.entries.copy();
    std::int64_t* values = entries.data_as<std::int64_t>();
    const std::int64_t stride = region.kind == RegionKind::Side ? 2 : 1;
    for (std::size_t i = 0; i < entries.size(); i += static_cast<std::size_t>(stride))
      if (values[i] >= 0 && values[i] < static_cast<std::int64_t>(new_of_old.size()))
        values[i] = new_of_old[static_cast<std::size_t>(values[i])];
    region.entries = std::move(entries);
  }
  return joined;
}

}  // namespace

void write(const std::string& path, const Mesh& given, const WriteOptions&) {
  const Mesh mesh = with_ragged_blocks_joined(given, path);
  Writer writer(path);
  writer.write_mesh(mesh);
  NamedList<NDArray> point_data;  // the families are written under NOE/FAM and MAI/<type>/FAM
  for (const auto& [name, data] : mesh.point_data)
    if (name != "point_tags") point_data.set(name, data);
  NamedList<std::vector<NDArray>> cell_data;
  for (const auto& [name, per_block] : mesh.cell_data)
    if (name != "cell_tags") cell_data.set(name, per_block);
  writer.write_fields(point_data, cell_data, kMeshioStep, false);
  writer.commit();
}

}  // namespace meshioplusplus::med
