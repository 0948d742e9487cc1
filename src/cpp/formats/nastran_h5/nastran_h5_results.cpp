// /NASTRAN/RESULT of an MSC Nastran HDF5 file -> steps and their arrays.
//
// Result tables hold the rows of every domain one after another, each row tagged DOMAIN_ID;
// /INDEX/<the table's path> (DOMAIN_ID, POSITION, LENGTH) says where each domain's rows are,
// so a step reads only its rows (a table without an index is indexed from its DOMAIN_ID
// column). /NASTRAN/RESULT/DOMAINS (ID, SUBCASE, STEP, ANALYSIS, TIME_FREQ_EIGR, EIGI, MODE …)
// says what each domain is. Which tables are read and what they become: nastran_h5.hpp.
#include <cmath>
#include <limits>
#include <numbers>
#include <set>

#include "io/cells/nastran_blocks.hpp"
#include "formats/nastran_h5/nastran_h5_internal.hpp"

namespace meshioplusplus::nastran_h5::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::string_view kDomains = "/NASTRAN/RESULT/DOMAINS";
constexpr std::string_view kNodal = "/NASTRAN/RESULT/NODAL";
constexpr std::string_view kElemental = "/NASTRAN/RESULT/ELEMENTAL";

// OP2's point-data name of a nodal table; empty: not read.
std::string nodal_name(std::string_view table) {
  if (table == "DISPLACEMENT" || table == "EIGENVECTOR") return "displacement";
  if (table == "VELOCITY") return "velocity";
  if (table == "ACCELERATION") return "acceleration";
  if (table == "SPC_FORCE") return "spc_force";
  if (table == "MPC_FORCE") return "mpc_force";
  if (table == "APPLIED_LOAD") return "load_vector";
  return {};
}

bool has_all(const std::vector<std::string>& members, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names)
    if (std::find(members.begin(), members.end(), name) == members.end()) return false;
  return true;
}

std::int64_t at(const NDArray& array, std::int64_t i) { return array.data_as<std::int64_t>()[i]; }

// The row ranges of each domain in `path`, from its index or its DOMAIN_ID column.
std::vector<Segment> segments_of(const io::hdf5::File& file, const std::string& path) {
  const std::int64_t rows = file.dataset_info(path).shape.at(0);
  std::vector<Segment> segments;
  const std::string index = "/INDEX" + path;
  if (file.kind(index) == io::hdf5::ObjectKind::dataset) {
    const NDArray domain = file.read_member(index, "DOMAIN_ID", DType::int64);
    const NDArray position = file.read_member(index, "POSITION", DType::int64);
    const NDArray length = file.read_member(index, "LENGTH", DType::int64);
    for (std::int64_t i = 0; i < domain.shape()[0]; ++i) {
      const Segment segment{at(domain, i), at(position, i), at(length, i)};
      if (segment.first < 0 || segment.count < 0 || segment.first > rows || segment.count > rows - segment.first)
        file.fail(index, "domain " + std::to_string(segment.domain) + ": rows [" + std::to_string(segment.first) + ", " +
                             std::to_string(segment.first + segment.count) + ") outside the " + std::to_string(rows) +
                             " rows of " + path);
      segments.push_back(segment);
    }
    return segments;
  }
  const NDArray domain = file.read_member(path, "DOMAIN_ID", DType::int64);
  for (std::int64_t i = 0; i < rows; ++i) {
    if (segments.empty() || segments.back().domain != at(domain, i)) segments.push_back({at(domain, i), i, 0});
    ++segments.back().count;
  }
  return segments;
}

void add_table(const io::hdf5::File& file, std::string path, std::string name, TableKind kind, Results& results) {
  if (file.kind(path) != io::hdf5::ObjectKind::dataset || !file.dataset_info(path).compound) return;
  std::vector<Segment> segments = segments_of(file, path);
  results.tables.push_back({std::move(path), std::move(name), kind, std::move(segments)});
}

double* point_array(TimeStep& out, const std::string& name, std::int64_t n) {
  if (NDArray* found = out.point_data.find(name)) return found->data_as<double>();
  NDArray values = NDArray::allocate(DType::float64, {n, 3});
  std::fill_n(values.data_as<double>(), values.size(), kNaN);
  return out.point_data.append_new(name, std::move(values)).data_as<double>();
}

// A member of rows [first, first + count): its first value per row (the centroid or centre of
// a per-point member), as float64.
std::vector<double> first_values(const io::hdf5::File& file, const std::string& path, std::string_view member,
                                 const Segment& segment) {
  const NDArray values = file.read_member(path, member, DType::float64, segment.first, segment.count);
  const std::int64_t width = segment.count == 0 ? 1 : static_cast<std::int64_t>(values.size()) / segment.count;
  std::vector<double> out(static_cast<std::size_t>(segment.count));
  for (std::int64_t i = 0; i < segment.count; ++i) out[static_cast<std::size_t>(i)] = values.data_as<double>()[i * width];
  return out;
}

void read_nodal(const io::hdf5::File& file, const Model& model, const ResultTable& table, const Segment& segment,
                TimeStep& out) {
  const std::int64_t n = model.mesh.num_points();
  double* translation = point_array(out, table.name, n);
  double* rotation =
      point_array(out, table.name == "displacement" ? std::string("rotation") : table.name + "_rotation", n);
  const NDArray ids = file.read_member(table.path, "ID", DType::int64, segment.first, segment.count);
  const char* components[6] = {"X", "Y", "Z", "RX", "RY", "RZ"};
  for (int c = 0; c < 6; ++c) {
    const NDArray values = file.read_member(table.path, components[c], DType::float64, segment.first, segment.count);
    if (values.ndim() != 1) file.fail(table.path, std::string("member ") + components[c] + " is not one value per grid");
    double* target = c < 3 ? translation : rotation;
    for (std::int64_t i = 0; i < segment.count; ++i) {
      const std::int64_t row = model.grids.find(at(ids, i));
      if (row < 0) continue;  // a scalar or extra point (SPOINT, EPOINT): no place in (n, 3)
      target[row * 3 + c % 3] = values.data_as<double>()[i];
    }
  }
}

void read_element(const io::hdf5::File& file, const Model& model, const ResultTable& table, const Segment& segment,
                  TimeStep& out) {
  const bool stress = table.name == "stress";
  const bool solid = table.kind == TableKind::solid;
  io::nastran_cell_results(out.cell_data, table.name, model.mesh, 6);
  if (stress) io::nastran_cell_results(out.cell_data, "von_mises", model.mesh, 1);
  if (!solid) {
    io::nastran_cell_results(out.cell_data, table.name + "_z2", model.mesh, 6);
    if (stress) io::nastran_cell_results(out.cell_data, "von_mises_z2", model.mesh, 1);
  }
  using Members = std::array<std::string_view, 6>;
  // [xx, yy, zz, xy, yz, xz]; empty: 0 (plane stress).
  const Members solid_members{"X", "Y", "Z", "TXY", "TYZ", "TZX"};
  const Members z1{"X1", "Y1", "", "TXY1", "", ""}, z2{"X2", "Y2", "", "TXY2", "", ""};
  const NDArray eids = file.read_member(table.path, "EID", DType::int64, segment.first, segment.count);
  for (int fibre = 0; fibre < (solid ? 1 : 2); ++fibre) {
    const Members& members = solid ? solid_members : fibre == 0 ? z1 : z2;
    std::array<std::vector<double>, 6> values;
    for (int k = 0; k < 6; ++k)
      if (!members[k].empty()) values[k] = first_values(file, table.path, members[k], segment);
    std::vector<NDArray>& tensor = *out.cell_data.find(fibre == 0 ? table.name : table.name + "_z2");
    std::vector<NDArray>* vm = stress ? out.cell_data.find(fibre == 0 ? "von_mises" : "von_mises_z2") : nullptr;
    for (std::int64_t i = 0; i < segment.count; ++i) {
      const std::int64_t element = model.elements.find(at(eids, i));
      if (element < 0) continue;  // an element that is no cell (a card the reader passes over)
      const auto b = static_cast<std::size_t>(model.element_block[static_cast<std::size_t>(element)]);
      const std::int64_t row = model.element_row[static_cast<std::size_t>(element)];
      double s[6];
      for (int k = 0; k < 6; ++k) s[k] = values[k].empty() ? 0.0 : values[k][static_cast<std::size_t>(i)];
      std::copy(s, s + 6, tensor[b].data_as<double>() + row * 6);
      if (vm != nullptr)
        (*vm)[b].data_as<double>()[row] =
            std::sqrt(0.5 * ((s[0] - s[1]) * (s[0] - s[1]) + (s[1] - s[2]) * (s[1] - s[2]) + (s[2] - s[0]) * (s[2] - s[0])) +
                      3 * (s[3] * s[3] + s[4] * s[4] + s[5] * s[5]));
    }
  }
}

}  // namespace

Results find_results(const io::hdf5::File& file) {
  Results results;
  if (file.kind(kNodal) == io::hdf5::ObjectKind::group)
    for (const std::string& table : file.children(kNodal))
      if (std::string name = nodal_name(table); !name.empty()) {
        const std::string path = std::string(kNodal) + "/" + table;
        if (file.kind(path) == io::hdf5::ObjectKind::dataset &&
            has_all(file.member_names(path), {"ID", "X", "Y", "Z", "RX", "RY", "RZ"}))
          add_table(file, path, std::move(name), TableKind::nodal, results);
      }
  for (const std::string_view quantity : {"STRESS", "STRAIN"}) {
    const std::string group = std::string(kElemental) + "/" + std::string(quantity);
    if (file.kind(group) != io::hdf5::ObjectKind::group) continue;
    for (const std::string& table : file.children(group)) {
      const std::string path = group + "/" + table;
      if (file.kind(path) != io::hdf5::ObjectKind::dataset || !file.dataset_info(path).compound) continue;
      const std::vector<std::string> members = file.member_names(path);
      if (!has_all(members, {"EID"})) continue;
      const std::string name = quantity == "STRESS" ? "stress" : "strain";
      if (has_all(members, {"X", "Y", "Z", "TXY", "TYZ", "TZX"})) add_table(file, path, name, TableKind::solid, results);
      else if (has_all(members, {"X1", "Y1", "TXY1", "X2", "Y2", "TXY2"}))
        add_table(file, path, name, TableKind::shell, results);
    }
  }
  std::set<std::int64_t> referenced;
  for (const ResultTable& table : results.tables)
    for (const Segment& segment : table.segments) referenced.insert(segment.domain);
  if (!referenced.empty()) {
    if (file.kind(kDomains) != io::hdf5::ObjectKind::dataset)
      file.fail(kDomains, "result tables refer to domains but the file has no DOMAINS table");
    const std::string domains(kDomains);
    const NDArray id = file.read_member(domains, "ID", DType::int64);
    const NDArray subcase = file.read_member(domains, "SUBCASE", DType::int64);
    const NDArray analysis = file.read_member(domains, "ANALYSIS", DType::int64);
    const NDArray mode = file.read_member(domains, "MODE", DType::int64);
    const NDArray time = file.read_member(domains, "TIME_FREQ_EIGR", DType::float64);
    for (std::int64_t i = 0; i < id.shape()[0]; ++i) {
      if (referenced.erase(at(id, i)) == 0) continue;
      Step step;
      step.domain = at(id, i);
      step.subcase = at(subcase, i);
      step.analysis = at(analysis, i);
      step.mode = at(mode, i);
      step.eigenvalue = time.data_as<double>()[i];
      step.time = step.analysis == 1 ? static_cast<double>(step.subcase) : step.eigenvalue;
      results.steps.push_back(step);
    }
    if (!referenced.empty())
      file.fail(kDomains, "result tables refer to domain " + std::to_string(*referenced.begin()) + ", which it lacks");
  }
  const std::string summary = "/NASTRAN/RESULT/SUMMARY/EIGENVALUE";
  if (file.kind(summary) == io::hdf5::ObjectKind::dataset && file.dataset_info(summary).compound &&
      has_all(file.member_names(summary), {"EIGEN"})) {
    const NDArray eigen = file.read_member(summary, "EIGEN", DType::float64);
    results.eigenvalues.assign(eigen.data_as<double>(), eigen.data_as<double>() + eigen.size());
  }
  return results;
}

TimeStep read_step(const io::hdf5::File& file, const Model& model, const Results& results, const Step& step) {
  TimeStep out;
  out.time = step.time;
  for (const ResultTable& table : results.tables)
    for (const Segment& segment : table.segments) {
      if (segment.domain != step.domain) continue;
      if (table.kind == TableKind::nodal) read_nodal(file, model, table, segment, out);
      else read_element(file, model, table, segment, out);
    }
  out.field_data.append_new("nastran:subcase", NDArray::from_values<std::int64_t>({step.subcase}));
  out.field_data.append_new("nastran:approach_code", NDArray::from_values<std::int64_t>({step.analysis}));
  out.field_data.append_new("nastran:domain_id", NDArray::from_values<std::int64_t>({step.domain}));
  if (step.analysis == 2) {
    out.field_data.append_new("nastran:mode", NDArray::from_values<std::int64_t>({step.mode}));
    out.field_data.append_new("nastran:eigenvalue", NDArray::from_values<double>({step.eigenvalue}));
    const double cycles = std::sqrt(std::abs(step.eigenvalue)) / (2 * std::numbers::pi);
    out.field_data.append_new("nastran:cycles", NDArray::from_values<double>({cycles}));
  }
  return out;
}

}  // namespace meshioplusplus::nastran_h5::detail
