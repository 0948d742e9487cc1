// MED reader: see med.hpp for what becomes what.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "formats/med/med.hpp"
#include "formats/med/med_meshes.hpp"
#include "formats/med/med_time_series.hpp"
#include "formats/med/med_types.hpp"
#include "io/cells/polyhedron_orientation.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/read_selection.hpp"

namespace meshioplusplus::med {

namespace {

constexpr std::string_view kFormat = "med";
constexpr std::size_t kMed2GroupName = 80;  // MED_TAILLE_LNOM
using io::hdf5::File;

struct Family {
  std::int64_t number;
  std::vector<std::string> groups;
};

class Reader {
 public:
  explicit Reader(const std::string& path) : file_(File::open(path, kFormat)), path_(path) {}

  Mesh read(const ReadOptions& options) {
    const auto [mesh_path, step_path] = locate(options);
    Mesh mesh;
    read_points(step_path, mesh);
    read_cells(step_path, mesh);
    read_families(mesh_path, mesh);
    read_fields(mesh);
    return mesh;
  }

  // read() of the first mesh narrowed on disk: fields not asked for are not read; with
  // points_only no connectivity either (unless a cell array is asked for). The family numbers
  // (FAM) are read whatever is asked: the group regions come from them.
  Mesh read_selected(const ReadRequest& request) {
    bool with_cells = !request.points_only;
    if (request.arrays)
      for (const ArraySummary& array : metadata().arrays)
        with_cells |= array.association == DataAssociation::cell &&
                      std::find(request.arrays->begin(), request.arrays->end(), array.name) != request.arrays->end();
    request_ = &request;
    cells_read_ = with_cells;
    const auto [mesh_path, step_path] = locate(ReadOptions{});
    Mesh mesh;
    read_points(step_path, mesh);
    if (with_cells) read_cells(step_path, mesh);
    read_families(mesh_path, mesh);
    read_fields(mesh);
    return mesh;
  }

  // What read() gives for the first mesh, from dataset shapes, NBR/NCO/NGA attributes and the
  // family names: no coordinates, connectivity, family numbers or field values are read. The
  // groups' sizes need the family numbers: their counts are left unknown (-1).
  MeshMetadata metadata() {
    const auto [mesh_path, step_path] = locate(ReadOptions{});
    MeshMetadata summary;
    summary.header_only = true;
    summary.variant = "MED " + std::to_string(file_.integer_attribute("/INFOS_GENERALES", "MAJ").value_or(0)) + "." +
                      std::to_string(file_.integer_attribute("/INFOS_GENERALES", "MIN").value_or(0));
    const std::string coo = step_path + "/NOE/COO";
    const std::int64_t values = element_count(coo);
    summary.num_points = count_attribute(coo, values / dimension_);
    if (summary.num_points < 0 || values % dimension_ != 0 || summary.num_points != values / dimension_)
      file_.fail(coo, "holds " + std::to_string(values) + " values, not NBR × ESP");
    summary.point_dim = static_cast<int>(dimension_);
    std::vector<ArraySummary> point_arrays, cell_arrays;
    const std::string noe_fam = step_path + "/NOE/FAM";
    if (file_.exists(noe_fam))
      point_arrays.push_back({"point_tags", DataAssociation::point, file_.dataset_info(noe_fam).dtype, {summary.num_points}});
    // Blocks, as read_cells() makes them.
    std::map<std::string, std::size_t> block_of_type;
    std::optional<DType> first_tags;
    bool any_tags = false;
    const std::string mai = step_path + "/MAI";
    if (file_.exists(mai))
      for (const std::string& med_type : file_.children(mai)) {
        const std::string group = mai + "/" + med_type;
        const std::string_view type = cell_type_of_med(med_type);
        if (type.empty()) file_.fail(group, "MED cell type '" + med_type + "' is not read by meshio++ (nor meshio)");
        const bool med2 = file_.integer_attribute("/INFOS_GENERALES", "MAJ").value_or(3) < 3;
        const std::int64_t count = type == "polygon"      ? element_count(group + "/INN") - 1
                                   : type == "polyhedron" ? element_count(group + (med2 ? "/INN" : "/IFN")) - 1
                                                          : count_attribute(group + "/NOD", 0);
        if (count < (type == "polygon" || type == "polyhedron" ? 0 : 1))
          file_.fail(group, "NBR (or the index) gives " + std::to_string(count) + " cells");
        const bool tagged = file_.exists(group + "/FAM");
        if (block_of_type.empty()) first_tags = tagged ? file_.dataset_info(group + "/FAM").dtype : DType::int32;
        any_tags |= tagged;
        block_of_type[med_type] = summary.cell_blocks.size();
        summary.cell_blocks.push_back({std::string(type), count});
      }
    if (any_tags) cell_arrays.push_back({"cell_tags", DataAssociation::cell, *first_tags, {summary.num_cells()}});
    // Fields, named and shaped as read_fields() names and shapes them.
    for (const std::string& field : fields_on(file_, mesh_name_)) {
      const std::string field_path = "/CHA/" + field;
      const std::int64_t components = std::max<std::int64_t>(file_.integer_attribute(field_path, "NCO").value_or(1), 1);
      const std::vector<std::string> steps = file_.children(field_path);
      for (std::size_t s = 0; s < steps.size(); ++s) {
        const std::string step_path_of_field = field_path + "/" + steps[s];
        const std::string name = field_name(field, steps.size(), s, step_path_of_field);
        std::vector<std::optional<std::vector<std::int64_t>>> trailing(summary.cell_blocks.size());
        std::vector<std::int64_t> last;
        bool on_cells = false;
        for (const std::string& support : file_.children(step_path_of_field)) {
          const std::string support_path = step_path_of_field + "/" + support;
          if (support == "NOE") {
            std::vector<std::int64_t> shape{summary.num_points};
            if (components > 1) shape.push_back(components);
            point_arrays.push_back({name, DataAssociation::point, DType::float64, std::move(shape)});
            continue;
          }
          const std::string med_type = support.substr(support.find('.') + 1);
          const auto block = block_of_type.find(med_type);
          if (support.find('.') == std::string::npos || block == block_of_type.end())
            file_.fail(support_path, "refers to cell type '" + med_type + "', which the mesh does not have");
          const std::string profile = trimmed(file_.string_attribute(support_path, "PFL").value_or(std::string(kNoProfile)));
          const std::int64_t gauss =
              std::max<std::int64_t>(file_.integer_attribute(support_path + "/" + profile, "NGA").value_or(1), 1);
          last.clear();
          if (gauss > 1) last.push_back(gauss);
          if (components > 1 || gauss > 1) last.push_back(components);
          trailing[block->second] = last;
          on_cells = true;
        }
        if (!on_cells) continue;
        // The first block's shape: its own, or (not covered) the NaN of the last covered one's.
        std::vector<std::int64_t> shape{summary.num_cells()};
        const std::vector<std::int64_t>& first = trailing.front() ? *trailing.front() : last;
        shape.insert(shape.end(), first.begin(), first.end());
        cell_arrays.push_back({name, DataAssociation::cell, DType::float64, std::move(shape)});
      }
    }
    summary.arrays = std::move(point_arrays);
    summary.arrays.insert(summary.arrays.end(), cell_arrays.begin(), cell_arrays.end());
    // Groups, as read_families() makes them.
    std::string fas = mesh_path + "/FAS";
    if (!file_.exists(fas)) fas = "/FAS/" + mesh_name_;
    const auto add_groups = [&](const std::vector<Family>& families, RegionKind kind) {
      std::vector<std::string> seen;
      for (const Family& family : families)
        for (const std::string& group : family.groups)
          if (std::find(seen.begin(), seen.end(), group) == seen.end()) {
            seen.push_back(group);
            summary.regions.push_back({group, kind, kind == RegionKind::Point ? 0 : -1, -1, -1});
          }
    };
    if (file_.exists(noe_fam)) add_groups(families(fas + "/NOEUD"), RegionKind::Point);
    if (any_tags) add_groups(families(fas + "/ELEME"), RegionKind::Cell);
    return summary;
  }

 private:
  // The mesh a read takes, its space dimension, and the paths of its group and of its (first)
  // mesh step.
  std::pair<std::string, std::string> locate(const ReadOptions& options) {
    mesh_name_ = chosen_mesh(file_, options.mesh_name);
    const std::string mesh_path = "/ENS_MAA/" + mesh_name_;
    // MED 2.2 files (before the space dimension ESP) carry only the mesh dimension DIM.
    dimension_ = file_.integer_attribute(mesh_path, "ESP").value_or(file_.integer_attribute(mesh_path, "DIM").value_or(0));
    if (dimension_ < 1 || dimension_ > 3) file_.fail(mesh_path, "attribute ESP (space dimension) is not 1-3");
    std::string step_path = mesh_path;
    if (!file_.exists(mesh_path + "/NOE")) {  // MED 3: the mesh sits in its (first) step group
      const std::vector<std::string> steps = file_.children(mesh_path);
      if (steps.empty()) file_.fail(mesh_path, "has neither NOE nor a mesh step");
      step_path += "/" + steps.front();
    }
    return {mesh_path, step_path};
  }

  std::int64_t element_count(const std::string& path) const {
    std::int64_t count = 1;
    for (std::int64_t extent : file_.dataset_info(path).shape) {
      if (extent < 0 || (extent > 0 && count > std::numeric_limits<std::int64_t>::max() / extent))
        file_.fail(path, "declares more values than an index can count");
      count *= extent;
    }
    return count;
  }

  // A field's array name: the field's, or with several steps meshio's "<name>[<i>] - <time>".
  std::string field_name(const std::string& field, std::size_t num_steps, std::size_t step, const std::string& step_path) const {
    if (num_steps <= 1) return field;
    // meshio's "{t:g}": six significant digits, locale-independent here.
    char time[64];
    const auto printed = std::to_chars(time, time + sizeof time, file_.float_attribute(step_path, "PDT").value_or(0.0),
                                       std::chars_format::general, 6);
    return field + "[" + std::to_string(step) + "] - " + std::string(time, printed.ptr);
  }

  bool wanted(const std::string& name) const {
    if (request_ == nullptr) return true;
    if (request_->arrays) return std::find(request_->arrays->begin(), request_->arrays->end(), name) != request_->arrays->end();
    return !request_->points_only;
  }

  // A dataset MED stores column-major, staged in default-heap scratch (not through the
  // allocator hook: only the transposed result is returned) in `dtype` (nullopt: as stored).
  // The declared size is bounded by the file's (MED data is not compressed) before allocating.
  NDArray staged(const std::string& path, std::optional<DType> dtype = std::nullopt) const {
    const io::hdf5::DatasetInfo info = file_.dataset_info(path);
    if (info.compound || info.string) file_.fail(path, "expected numbers");
    long double count = 1;
    for (std::int64_t extent : info.shape) count *= static_cast<long double>(extent);
    std::error_code error;
    const auto file_size = std::filesystem::file_size(path_, error);
    if (!error && count * dtype_size(info.dtype) > static_cast<long double>(file_size))
      file_.fail(path, "declares more values than the file holds");
    NDArray out = NDArray::allocate_scratch(dtype.value_or(info.dtype), {static_cast<std::int64_t>(count)});
    file_.read_into(path, out);
    return out;
  }

  std::int64_t count_attribute(const std::string& path, std::int64_t fallback) const {
    return file_.integer_attribute(path, "NBR").value_or(fallback);
  }

  void read_points(const std::string& step_path, Mesh& mesh) {
    const std::string coo = step_path + "/NOE/COO";
    const NDArray flat = staged(coo, DType::float64);
    const auto total = static_cast<std::int64_t>(flat.size());
    const std::int64_t n = count_attribute(coo, total / dimension_);
    if (n < 0 || total % dimension_ != 0 || n != total / dimension_)  // (n * ESP could overflow)
      file_.fail(coo, "holds " + std::to_string(total) + " values, not NBR × ESP = " + std::to_string(n) + " × " +
                          std::to_string(dimension_));
    mesh.points = NDArray::allocate(DType::float64, {n, dimension_});
    const double* in = flat.data_as<double>();
    double* out = mesh.points.data_as<double>();
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t axis = 0; axis < dimension_; ++axis) out[i * dimension_ + axis] = in[axis * n + i];
    const std::string fam = step_path + "/NOE/FAM";
    if (file_.exists(fam)) {
      NDArray tags = file_.read(fam);
      if (tags.size() != static_cast<std::size_t>(n)) file_.fail(fam, "does not hold one family per node");
      mesh.point_data.set("point_tags", std::move(tags));
    }
  }

  void read_cells(const std::string& step_path, Mesh& mesh) {
    const std::string mai = step_path + "/MAI";
    if (!file_.exists(mai)) return;
    std::vector<NDArray> cell_tags;
    bool any_tags = false;
    const std::int64_t num_points = mesh.num_points();
    for (const std::string& med_type : file_.children(mai)) {
      const std::string group = mai + "/" + med_type;
      const std::string_view type = cell_type_of_med(med_type);
      if (type.empty()) file_.fail(group, "MED cell type '" + med_type + "' is not read by meshio++ (nor meshio)");
      CellBlock cells = type == "polygon" || type == "polyhedron" ? read_ragged(group, type, num_points)
                                                                   : read_fixed(group, type, num_points);
      if (cells.type == "polyhedron") io::orient_polyhedron_faces_outward(mesh.points, cells);
      const std::int64_t n = cells.num_cells();
      const std::string fam = group + "/FAM";
      if (file_.exists(fam)) {
        NDArray tags = file_.read(fam);
        if (tags.size() != static_cast<std::size_t>(n)) file_.fail(fam, "does not hold one family per cell");
        cell_tags.push_back(std::move(tags));
        any_tags = true;
      } else {
        cell_tags.push_back(NDArray::zeros(DType::int32, {n}));
      }
      block_of_type_[med_type] = mesh.cells.size();
      mesh.cells.push_back(std::move(cells));
    }
    if (any_tags) mesh.cell_data.set("cell_tags", std::move(cell_tags));
  }

  // MAI/<type>/NOD of a fixed-size type: NBR cells, stored column-major (node k of every cell).
  CellBlock read_fixed(const std::string& group, std::string_view type, std::int64_t num_points) const {
    const std::string nod = group + "/NOD";
    // Read as stored (int32 in MED files), then converted and transposed in one pass.
    const NDArray flat = staged(nod);
    if (dtype_is_float(flat.dtype())) file_.fail(nod, "holds floats, not node numbers");
    const auto total = static_cast<std::int64_t>(flat.size());
    const std::int64_t n = count_attribute(nod, 0);
    if (n <= 0 || total % n != 0) file_.fail(nod, "holds " + std::to_string(total) + " entries for NBR = " + std::to_string(n) + " cells");
    const std::int64_t width = total / n;
    CellBlock cells;
    cells.type = std::string(type);
    cells.connectivity = NDArray::allocate(DType::int64, {n, width});
    std::int64_t* out = cells.connectivity.data_as<std::int64_t>();
    visit_dtype(flat.dtype(), [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_integral_v<T>) {
        const T* in = flat.data_as<T>();
        std::atomic<bool> bad{false};
        // Cells outer, nodes inner: `width` sequential read streams, one sequential write
        // stream, over a range of cells per core.
        parallel_ranges(static_cast<std::size_t>(n), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
          bool outside = false;
          for (auto cell = static_cast<std::int64_t>(first); cell < static_cast<std::int64_t>(last); ++cell)
            for (std::int64_t node = 0; node < width; ++node) {
              const std::int64_t value = io::zero_based(static_cast<std::int64_t>(in[node * n + cell]));
              outside |= !io::id_within(value, num_points);
              out[cell * width + node] = value;
            }
          if (outside) bad.store(true, std::memory_order_relaxed);
        });
        if (!bad.load()) return;
        for (std::int64_t i = 0; i < total; ++i)
          if (in[i] < 1 || static_cast<std::int64_t>(in[i]) > num_points)
            file_.fail(nod, "entry " + std::to_string(i) + " is node " + std::to_string(static_cast<std::int64_t>(in[i])) +
                                ", outside 1.." + std::to_string(num_points));
      }
    });
    return cells;
  }

  // A 1-based MED index dataset (entries+1 values, starting at 1, rising by at least one) over
  // `total` entries → our 0-based offsets.
  NDArray index_offsets(const std::string& path, std::int64_t total, std::string_view entity) const {
    const NDArray stored = staged(path, DType::int64);
    const auto values = stored.values<std::int64_t>();
    if (values.empty() || values[0] != 1) file_.fail(path, "an index must start at 1");
    NDArray offsets = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(values.size())});
    std::int64_t* out = offsets.data_as<std::int64_t>();
    out[0] = 0;
    for (std::size_t i = 1; i < values.size(); ++i) {
      if (values[i] <= values[i - 1])
        file_.fail(path, "entry " + std::to_string(i) + " (" + std::to_string(values[i]) + ") does not rise above entry " +
                             std::to_string(i - 1) + " (" + std::to_string(values[i - 1]) + "): every " +
                             std::string(entity) + " needs at least one entry");
      out[i] = values[i] - 1;
    }
    if (out[values.size() - 1] != total)
      file_.fail(path, "ends at " + std::to_string(values.back()) + ", the indexed dataset holds " + std::to_string(total) +
                           " entries (the last index is their count + 1)");
    return offsets;
  }

  // POG: INN indexes NOD per polygon. POE: one index per polyhedron into its faces, one per face
  // into NOD — MED 3 and 4 name them IFN and INN, MED 2 the other way round (the MED library
  // swaps them when it converts a 2.3 file to 3.0; INFOS_GENERALES/MAJ tells them apart).
  CellBlock read_ragged(const std::string& group, std::string_view type, std::int64_t num_points) const {
    const std::string nod = group + "/NOD";
    const NDArray stored = staged(nod, DType::int64);
    CellBlock cells;
    cells.type = std::string(type);
    cells.connectivity = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(stored.size())});
    const std::int64_t* in = stored.data_as<std::int64_t>();
    std::int64_t* out = cells.connectivity.data_as<std::int64_t>();
    for (std::size_t i = 0; i < stored.size(); ++i) {
      out[i] = io::zero_based(in[i]);
      if (!io::id_within(out[i], num_points))
        file_.fail(nod, "entry " + std::to_string(i) + " is node " + std::to_string(in[i]) + ", outside 1.." +
                            std::to_string(num_points));
    }
    const auto total = static_cast<std::int64_t>(stored.size());
    if (type == "polygon") {
      cells.offsets = index_offsets(group + "/INN", total, "polygon");
      return cells;
    }
    const bool med2 = file_.integer_attribute("/INFOS_GENERALES", "MAJ").value_or(3) < 3;
    const std::string face_index = group + (med2 ? "/IFN" : "/INN");
    const std::string cell_index = group + (med2 ? "/INN" : "/IFN");
    cells.face_offsets = index_offsets(face_index, total, "face");
    cells.offsets = index_offsets(cell_index, cells.face_offsets.rows() - 1, "polyhedron");
    return cells;
  }

  std::vector<Family> families(const std::string& group_path) const {
    std::vector<Family> result;
    if (!file_.exists(group_path)) return result;
    for (const std::string& name : file_.children(group_path)) {
      const std::string family_path = group_path + "/" + name;
      Family family{file_.integer_attribute(family_path, "NUM").value_or(0), {}};
      const std::string nom = family_path + "/GRO/NOM";
      if (file_.exists(nom) && file_.dataset_info(nom).string) {
        // MED 2.2: the names as one run of 1-character strings, 80 characters per group.
        std::string run;
        for (const std::string& part : file_.read_strings(nom)) run += part.empty() ? std::string(1, '\0') : part;
        for (std::size_t start = 0; start + kMed2GroupName <= run.size(); start += kMed2GroupName)
          family.groups.push_back(trimmed(run.substr(start, kMed2GroupName)));
      } else if (file_.exists(nom)) {
        const NDArray names = file_.read(nom, DType::int8);
        const std::int64_t width = names.row_width();
        const auto* chars = static_cast<const char*>(names.data());
        for (std::int64_t row = 0; row < names.rows(); ++row)
          family.groups.push_back(trimmed(std::string(chars + row * width, static_cast<std::size_t>(width))));
      }
      result.push_back(std::move(family));
    }
    return result;
  }

  // "<number>\t<group>\t…" per family, for the Python layer's point_tags / cell_tags.
  static std::vector<std::string> family_table(const std::vector<Family>& families) {
    std::vector<std::string> rows;
    for (const Family& family : families) {
      std::string row = std::to_string(family.number);
      for (const std::string& group : family.groups) row += "\t" + group;
      rows.push_back(std::move(row));
    }
    return rows;
  }

  // One region per group: the entries whose family lists the group.
  static void group_regions(const std::vector<Family>& families, const std::vector<const NDArray*>& tags,
                            RegionKind kind, Mesh& mesh) {
    std::vector<std::string> groups;
    for (const Family& family : families)
      for (const std::string& group : family.groups)
        if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
    for (const std::string& group : groups) {
      std::vector<std::int64_t> numbers;
      for (const Family& family : families)
        if (std::find(family.groups.begin(), family.groups.end(), group) != family.groups.end())
          numbers.push_back(family.number);
      std::vector<std::int64_t> entries;
      std::int64_t offset = 0;
      for (const NDArray* array : tags) {
        const NDArray values = array->astype(DType::int64);
        const auto span = values.values<std::int64_t>();
        for (std::size_t i = 0; i < span.size(); ++i)
          if (std::find(numbers.begin(), numbers.end(), span[i]) != numbers.end())
            entries.push_back(offset + static_cast<std::int64_t>(i));
        offset += static_cast<std::int64_t>(span.size());
      }
      Region region;
      region.name = group;
      region.kind = kind;
      region.dim = kind == RegionKind::Point ? 0 : -1;
      region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(entries.size())});
      std::copy(entries.begin(), entries.end(), region.entries.data_as<std::int64_t>());
      mesh.regions.push_back(std::move(region));
    }
  }

  void read_families(const std::string& mesh_path, Mesh& mesh) {
    std::string fas = mesh_path + "/FAS";
    if (!file_.exists(fas)) fas = "/FAS/" + mesh_name_;
    const std::vector<Family> node_families = families(fas + "/NOEUD");
    const std::vector<Family> cell_families = families(fas + "/ELEME");
    if (!node_families.empty()) mesh.string_field_data.set("med:point_tags", family_table(node_families));
    if (!cell_families.empty()) mesh.string_field_data.set("med:cell_tags", family_table(cell_families));
    if (const NDArray* tags = mesh.point_data.find("point_tags"))
      group_regions(node_families, {tags}, RegionKind::Point, mesh);
    if (const auto* tags = mesh.cell_data.find("cell_tags")) {
      std::vector<const NDArray*> per_block;
      for (const NDArray& array : *tags) per_block.push_back(&array);
      group_regions(cell_families, per_block, RegionKind::Cell, mesh);
    }
  }

  // Values of one support, shaped as meshio shapes them; `rows` entries (NaN outside a profile).
  NDArray support_values(const std::string& support_path, std::int64_t rows, std::int64_t components, bool cells) {
    const std::string profile = trimmed(file_.string_attribute(support_path, "PFL").value_or(std::string(kNoProfile)));
    const std::string data_path = support_path + "/" + profile;
    if (!file_.exists(data_path)) file_.fail(data_path, "missing (the PFL attribute names it)");
    const std::int64_t gauss = std::max<std::int64_t>(file_.integer_attribute(data_path, "NGA").value_or(1), 1);
    const NDArray flat = staged(data_path + "/CO", DType::float64);
    std::vector<std::int64_t> where;  // row of each stored value; empty: all rows in order
    std::int64_t stored = file_.integer_attribute(data_path, "NBR").value_or(rows);
    if (profile != kNoProfile) {
      const std::string profile_path = "/PROFILS/" + profile;
      const NDArray indices = staged(profile_path + "/PFL", DType::int64);
      stored = static_cast<std::int64_t>(indices.size());
      for (std::int64_t index : indices.values<std::int64_t>()) {
        if (index < 1 || index > rows) file_.fail(profile_path + "/PFL", "index " + std::to_string(index) + " outside 1.." + std::to_string(rows));
        where.push_back(index - 1);
      }
    } else if (stored != rows) {
      file_.fail(data_path, "NBR is " + std::to_string(stored) + ", the mesh has " + std::to_string(rows));
    }
    // NGA and NCO are the file's claims: the values array they shape (rows × NGA × NCO doubles)
    // must fit the read limit, and no product of them may overflow (fuzz finding: NGA = 8 and
    // NCO = INT64_MAX overflowed `stored × NGA × NCO`).
    const std::optional<std::uint64_t> per_row =
        io::checked_product(static_cast<std::uint64_t>(gauss), static_cast<std::uint64_t>(components));
    const std::optional<std::uint64_t> row_bytes = per_row ? io::checked_product(*per_row, sizeof(double)) : std::nullopt;
    const std::optional<std::uint64_t> bytes =
        row_bytes ? io::checked_product(static_cast<std::uint64_t>(rows), *row_bytes) : std::nullopt;
    if (!bytes || *bytes > max_array_bytes())
      file_.fail(data_path, "NGA × NCO = " + std::to_string(gauss) + " × " + std::to_string(components) + " values for each of " +
                                std::to_string(rows) + " rows is more than the read limit of " +
                                std::to_string(max_array_bytes()) + " bytes (max_array_bytes)");
    const std::optional<std::uint64_t> expected = io::checked_product(static_cast<std::uint64_t>(stored), *per_row);
    if (!expected || flat.size() != *expected)
      file_.fail(data_path + "/CO", "holds " + std::to_string(flat.size()) + " values, not " + std::to_string(stored) +
                                        " × " + std::to_string(gauss) + " × " + std::to_string(components));
    Shape shape{rows};
    if (cells && gauss > 1) shape.push_back(gauss);
    if (components > 1 || (cells && gauss > 1)) shape.push_back(components);
    NDArray values = NDArray::allocate(DType::float64, shape);
    double* out = values.data_as<double>();
    if (!where.empty() || stored != rows) std::fill_n(out, values.size(), std::numeric_limits<double>::quiet_NaN());
    const double* in = flat.data_as<double>();
    // Stored Fortran-order (value, gauss point, component); ours row-major (row, gauss point, component).
    for (std::int64_t c = 0; c < components; ++c)
      for (std::int64_t g = 0; g < gauss; ++g)
        for (std::int64_t i = 0; i < stored; ++i) {
          const std::int64_t row = where.empty() ? i : where[static_cast<std::size_t>(i)];
          out[(row * gauss + g) * components + c] = in[i + stored * (g + gauss * c)];
        }
    return values;
  }

  // The fields defined on this mesh (med_meshes.hpp); those of the file's other meshes are left.
  void read_fields(Mesh& mesh) {
    for (const std::string& field : fields_on(file_, mesh_name_)) {
      const std::string field_path = "/CHA/" + field;
      const std::int64_t components = std::max<std::int64_t>(file_.integer_attribute(field_path, "NCO").value_or(1), 1);
      const std::vector<std::string> steps = file_.children(field_path);
      for (std::size_t s = 0; s < steps.size(); ++s) {
        const std::string step_path = field_path + "/" + steps[s];
        const std::string name = field_name(field, steps.size(), s, step_path);
        if (!wanted(name)) continue;
        std::vector<NDArray> per_block(mesh.cells.size());
        bool on_cells = false;
        for (const std::string& support : file_.children(step_path)) {
          const std::string support_path = step_path + "/" + support;
          if (support == "NOE") {
            mesh.point_data.set(name, support_values(support_path, mesh.num_points(), components, false));
            continue;
          }
          if (!cells_read_) continue;  // a points_only read
          const std::string med_type = support.substr(support.find('.') + 1);
          const auto block = block_of_type_.find(med_type);
          if (support.find('.') == std::string::npos || block == block_of_type_.end())
            file_.fail(support_path, "refers to cell type '" + med_type + "', which the mesh does not have");
          per_block[block->second] = support_values(support_path, mesh.cells[block->second].num_cells(), components, true);
          on_cells = true;
        }
        if (!on_cells) continue;
        // Blocks the field does not cover: NaN of the covered blocks' trailing shape.
        Shape trailing;
        for (const NDArray& array : per_block)
          if (!array.empty_handle()) trailing.assign(array.shape().begin() + 1, array.shape().end());
        for (std::size_t b = 0; b < per_block.size(); ++b) {
          if (!per_block[b].empty_handle()) continue;
          Shape shape{mesh.cells[b].num_cells()};
          shape.insert(shape.end(), trailing.begin(), trailing.end());
          per_block[b] = NDArray::allocate(DType::float64, shape);
          std::fill_n(per_block[b].data_as<double>(), per_block[b].size(), std::numeric_limits<double>::quiet_NaN());
        }
        mesh.cell_data.set(name, std::move(per_block));
      }
    }
  }

  File file_;
  const ReadRequest* request_ = nullptr;
  bool cells_read_ = true;
  std::string path_;
  std::string mesh_name_;
  std::int64_t dimension_ = 3;
  std::map<std::string, std::size_t> block_of_type_;
};

}  // namespace

Mesh read(const std::string& path) { return read(path, ReadOptions{}); }

Mesh read(const std::string& path, const ReadOptions& options) { return Reader(path).read(options); }

Mesh read_selected(const std::string& path, const ReadRequest& request) { return Reader(path).read_selected(request); }

MeshMetadata read_metadata(const std::string& path) {
  MeshMetadata summary = Reader(path).metadata();
  // The steps are the time series' (distinct NDT/NOR over the fields; attributes only).
  const std::unique_ptr<TimeSeriesReader> series = open_time_series(path);
  for (std::size_t step = 0; step < series->num_steps(); ++step) summary.times.push_back(series->time(step));
  return summary;
}

std::vector<std::string> mesh_names(const std::string& path) { return mesh_names(File::open(path, kFormat)); }

}  // namespace meshioplusplus::med
