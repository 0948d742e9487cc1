// Result tables of an OP2 file -> steps and their arrays.
//
// A result table (OUGV1, OQG1, OES1X1, OSTR1X …) holds, after its name record, pairs of
// records: a "table 3" header of 146 words and the data it describes. The header words used
// (pyNastran's op2_scalar.py names them): 1 approach code * 10 + device code, 2 table code
// (+ 1000 * sort code), 3 element type, 4 subcase, 5 load set / mode / time / frequency / load
// factor (by approach: 1 statics, 2 modes, 5 frequency, 6 transient, 7/8 buckling, 10 nonlinear
// statics), 6 the eigenvalue, 9 format code (1 real), 10 words per entry.
// Data, SORT1 only: nodal tables 8 words per grid (grid id * 10 + device code, point type,
// T1 T2 T3 R1 R2 R3), or, complex (format 2 real/imaginary, 3 magnitude/phase in degrees; the
// frequency responses and complex modes), 14: id, type, the six real parts (magnitudes), the six
// imaginary parts (phases) — as "<name>_real" / "<name>_imag" (n, 3) arrays, the layout the UNV
// reader gives complex results; real stress/strain tables one entry per element (element id * 10 + device
// code first) laid out by element type:
//   CTETRA 39, CHEXA 67, CPENTA 68, CPYRAM 255: id, cid, "CEN/", node count, then 21 words per
//     point (centroid first): grid, xx, xy, p1, 3 cosines, mean pressure, von Mises, yy, yz, p2,
//     3 cosines, zz, xz, p3, 3 cosines;
//   CQUAD4 33, CTRIA3 74: id, then per fibre (z1, z2): distance, xx, yy, xy, angle, major,
//     minor, von Mises;
//   CQUAD4 144, CQUAD8 64, CTRIA6 75, CQUADR 82, CTRIAR 70: id, "CEN/", then per point (centre
//     first) the grid and the two fibres as above.
// Other element types and tables are passed over.
#include "io/cells/nastran_blocks.hpp"
#include "formats/op2/op2_results.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <tuple>

namespace meshioplusplus::op2::detail {
namespace {

constexpr std::size_t kTable3Words = 146;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The point-data name of a real nodal table code; empty: not read.
std::string nodal_name(std::int32_t table_code) {
  switch (table_code) {
    case 1:
    case 7: return "displacement";  // 7: eigenvectors (pyNastran's eigenvectors)
    case 2: return "load_vector";
    case 3: return "spc_force";
    case 10: return "velocity";
    case 11: return "acceleration";
    case 39: return "mpc_force";
    default: return {};
  }
}

enum class Layout { none, solid, shell, shell_points };

Layout element_layout(std::int32_t type) {
  switch (type) {
    case 39:
    case 67:
    case 68:
    case 255: return Layout::solid;
    case 33:
    case 74: return Layout::shell;
    case 144:
    case 64:
    case 75:
    case 82:
    case 70: return Layout::shell_points;
    default: return Layout::none;
  }
}

bool layout_fits(Layout layout, std::int32_t num_wide) {
  switch (layout) {
    case Layout::solid: return num_wide >= 25 && (num_wide - 4) % 21 == 0;
    case Layout::shell: return num_wide == 17;
    case Layout::shell_points: return num_wide >= 19 && (num_wide - 2) % 17 == 0;
    case Layout::none: return false;
  }
  return false;
}

double step_time(std::int32_t approach, const Words& header) {
  switch (approach) {
    case 2:
    case 7:
    case 8: return header.real(5);  // the eigenvalue
    case 5:
    case 6:
    case 10: return header.real(4);  // frequency, time, load factor
    case 9: return header.integer(4);  // complex modes: the mode number
    default: return header.integer(3);  // statics and the rest: the subcase
  }
}

// The step's (n, 3) point array `name`, NaN where no grid gives a value; made on first use.
double* nodal_array(TimeStep& out, const std::string& name, std::int64_t n) {
  if (NDArray* found = out.point_data.find(name)) return found->data_as<double>();
  NDArray values = NDArray::allocate(DType::float64, {n, 3});
  std::fill_n(values.data_as<double>(), values.size(), kNaN);
  return out.point_data.append_new(name, std::move(values)).data_as<double>();
}

void read_complex_nodal(const File& file, const Geometry& g, const ResultBlock& block, const Words& w, TimeStep& out) {
  const std::int64_t n = g.mesh.num_points();
  auto array = [&](const std::string& name) { return nodal_array(out, name, n); };
  const std::string rotation = block.name == "displacement" ? std::string("rotation") : block.name + "_rotation";
  double* parts[4] = {array(block.name + "_real"), array(block.name + "_imag"), array(rotation + "_real"), array(rotation + "_imag")};
  if (w.size() % 14 != 0) file.fail(w.offset_of(0), block.name + ": data record of " + std::to_string(w.size()) +
                                                         " words is not 14 per grid (complex)");
  constexpr double degree = std::numbers::pi / 180;
  for (std::size_t at = 0; at < w.size(); at += 14) {
    if (w.integer(at + 1) != 1) continue;  // scalar or extra point: one value, no place in (n, 3)
    const std::int64_t row = g.grids.find(w.integer(at) / 10);
    if (row < 0) file.fail(w.offset_of(at), block.name + ": grid " + std::to_string(w.integer(at) / 10) +
                                                " is not in GEOM1");
    for (std::size_t c = 0; c < 6; ++c) {
      double re = w.real(at + 2 + c), im = w.real(at + 8 + c);
      if (block.format == 3) {  // magnitude and phase → real and imaginary parts
        const double magnitude = re, phase = im * degree;
        re = magnitude * std::cos(phase);
        im = magnitude * std::sin(phase);
      }
      const std::size_t rotational = c / 3;
      parts[2 * rotational][row * 3 + static_cast<std::int64_t>(c % 3)] = re;
      parts[2 * rotational + 1][row * 3 + static_cast<std::int64_t>(c % 3)] = im;
    }
  }
}

void read_nodal(const File& file, const Geometry& g, const ResultBlock& block, const Words& w, TimeStep& out) {
  const std::int64_t n = g.mesh.num_points();
  auto array = [&](const std::string& name) { return nodal_array(out, name, n); };
  double* translation = array(block.name);
  double* rotation = array(block.name == "displacement" ? std::string("rotation") : block.name + "_rotation");
  if (w.size() % 8 != 0) file.fail(w.offset_of(0), block.name + ": data record of " + std::to_string(w.size()) +
                                                        " words is not 8 per grid");
  for (std::size_t at = 0; at < w.size(); at += 8) {
    if (w.integer(at + 1) != 1) continue;  // scalar or extra point: one value, no place in (n, 3)
    const std::int64_t row = g.grids.find(w.integer(at) / 10);
    if (row < 0) file.fail(w.offset_of(at), block.name + ": grid " + std::to_string(w.integer(at) / 10) +
                                                " is not in GEOM1");
    for (int c = 0; c < 3; ++c) {
      translation[row * 3 + c] = w.real(at + 2 + static_cast<std::size_t>(c));
      rotation[row * 3 + c] = w.real(at + 5 + static_cast<std::size_t>(c));
    }
  }
}

void read_element(const File& file, const Geometry& g, const ResultBlock& block, const Words& w, TimeStep& out) {
  const Layout layout = element_layout(block.element_type);
  const auto wide = static_cast<std::size_t>(block.num_wide);
  if (w.size() % wide != 0) file.fail(w.offset_of(0), block.name + ": data record of " + std::to_string(w.size()) +
                                                          " words is not " + std::to_string(wide) + " per element");
  const bool strain = block.name == "strain";
  const std::string vm_name = strain ? "strain_von_mises" : "von_mises";
  // Created first, looked up after: adding an array moves the list's vectors.
  io::nastran_cell_results(out.cell_data, block.name, g.mesh, 6);
  io::nastran_cell_results(out.cell_data, vm_name, g.mesh, 1);
  std::vector<NDArray>* tensor_z2 = nullptr;
  std::vector<NDArray>* vm_z2 = nullptr;
  if (layout != Layout::solid) {
    io::nastran_cell_results(out.cell_data, block.name + "_z2", g.mesh, 6);
    io::nastran_cell_results(out.cell_data, vm_name + "_z2", g.mesh, 1);
    tensor_z2 = out.cell_data.find(block.name + "_z2");
    vm_z2 = out.cell_data.find(vm_name + "_z2");
  }
  std::vector<NDArray>& tensor = *out.cell_data.find(block.name);
  std::vector<NDArray>& vm = *out.cell_data.find(vm_name);
  for (std::size_t at = 0; at < w.size(); at += wide) {
    const std::int64_t element = g.elements.find(w.integer(at) / 10);
    if (element < 0) continue;  // an element of a card the mesh leaves out, or no GEOM2 at all
    const auto b = static_cast<std::size_t>(g.element_block[static_cast<std::size_t>(element)]);
    const std::int64_t row = g.element_row[static_cast<std::size_t>(element)];
    double* t = tensor[b].data_as<double>() + row * 6;
    if (layout == Layout::solid) {
      const std::size_t c = at + 4;  // the centroid's 21 words
      const std::size_t components[6] = {1, 9, 15, 2, 10, 16};
      for (int k = 0; k < 6; ++k) t[k] = w.real(c + components[k]);
      vm[b].data_as<double>()[row] = w.real(c + 8);
      continue;
    }
    const std::size_t fibre1 = layout == Layout::shell ? at + 1 : at + 3;
    double* t2 = (*tensor_z2)[b].data_as<double>() + row * 6;
    for (int f = 0; f < 2; ++f) {
      const std::size_t s = fibre1 + 8 * static_cast<std::size_t>(f);
      double* target = f == 0 ? t : t2;
      target[0] = w.real(s + 1);
      target[1] = w.real(s + 2);
      target[2] = 0;
      target[3] = w.real(s + 3);
      target[4] = target[5] = 0;
      (f == 0 ? vm : *vm_z2)[b].data_as<double>()[row] = w.real(s + 7);
    }
  }
}

}  // namespace

std::vector<Step> find_steps(const File& file) {
  std::vector<Step> steps;
  std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t>, std::size_t> index;
  std::string storage;
  for (std::size_t t = 0; t < file.tables.size(); ++t) {
    const Table& table = file.tables[t];
    const bool element_table = table.name.starts_with("OES") || table.name.starts_with("OSTR");
    const bool nodal_table = table.name.starts_with("OUG") || table.name.starts_with("BOUG") ||
                             table.name.starts_with("OQG") || table.name.starts_with("OPG") ||
                             table.name.starts_with("OQMG");
    if (!element_table && !nodal_table) continue;
    for (std::size_t r = 1; r + 1 < table.records.size(); r += 2) {
      const LogicalRecord& record = table.records[r];
      if (record.bytes < 4 * kTable3Words) continue;  // not a table-3 header
      const Words header(file, file.record_bytes(record, storage), record.offset());
      const std::int32_t approach = header.integer(0) / 10;
      // Table code + 1000 × sort code: 0 SORT1 real, 1 SORT1 complex, 2-3 SORT2, 4-7 random.
      const std::int32_t sort_code = header.integer(1) / 1000;
      const std::int32_t table_code = header.integer(1) % 1000;
      const std::int32_t written_format = header.integer(8);
      if (sort_code > 1 || written_format < 1 || written_format > 3) continue;  // SORT2, random
      // Complex: a complex sort code (complex modes write format 1 there: real/imaginary), or
      // format 2 (real/imaginary) or 3 (magnitude/phase).
      const std::int32_t format = sort_code == 1 && written_format == 1 ? 2 : written_format;
      ResultBlock block;
      block.table = t;
      block.record = r + 1;
      block.element_type = header.integer(2);
      block.num_wide = header.integer(9);
      block.format = format;
      if (nodal_table) {
        block.name = nodal_name(table_code);
        if (block.name.empty() || block.num_wide != (format == 1 ? 8 : 14)) continue;
      } else {
        if (format != 1) continue;  // complex stresses and strains: not read
        if (table_code != 5 || !layout_fits(element_layout(block.element_type), block.num_wide)) continue;
        block.nodal = false;
        block.name = table.name.starts_with("OSTR") ? "strain" : "stress";
      }
      const auto key = std::make_tuple(header.integer(3), approach, header.integer(4));
      auto [it, added] = index.emplace(key, steps.size());
      if (added) {
        Step step;
        step.subcase = header.integer(3);
        step.approach = approach;
        step.key_word = header.integer(4);
        step.time = step_time(approach, header);
        step.eigenvalue = header.real(5);
        steps.push_back(step);
      }
      steps[it->second].blocks.push_back(block);
    }
  }
  return steps;
}

TimeStep read_step(const File& file, const Geometry& geometry, const Step& step) {
  TimeStep out;
  out.time = step.time;
  std::string storage;
  for (const ResultBlock& block : step.blocks) {
    const LogicalRecord& record = file.tables[block.table].records[block.record];
    const Words w(file, file.record_bytes(record, storage), record.offset());
    if (block.nodal && block.format != 1) read_complex_nodal(file, geometry, block, w, out);
    else if (block.nodal) read_nodal(file, geometry, block, w, out);
    else read_element(file, geometry, block, w, out);
  }
  out.field_data.append_new("nastran:subcase", NDArray::from_values<std::int64_t>({step.subcase}));
  out.field_data.append_new("nastran:approach_code", NDArray::from_values<std::int64_t>({step.approach}));
  if (step.approach == 9) out.field_data.append_new("nastran:mode", NDArray::from_values<std::int64_t>({step.key_word}));
  if (step.approach == 2) {
    out.field_data.append_new("nastran:mode", NDArray::from_values<std::int64_t>({step.key_word}));
    out.field_data.append_new("nastran:eigenvalue", NDArray::from_values<double>({step.eigenvalue}));
    const double cycles = std::sqrt(std::abs(step.eigenvalue)) / (2 * std::numbers::pi);
    out.field_data.append_new("nastran:cycles", NDArray::from_values<double>({cycles}));
  }
  return out;
}

std::vector<double> eigenvalues(const File& file) {
  std::vector<double> values;
  std::string storage;
  for (const Table& table : file.tables) {
    if (table.name != "LAMA" || table.records.size() < 3) continue;
    const LogicalRecord& record = table.records[2];
    const Words w(file, file.record_bytes(record, storage), record.offset());
    if (w.size() % 7 != 0) file.fail(record.offset(), "LAMA: data record of " + std::to_string(w.size()) +
                                                          " words is not 7 per mode");
    // mode, extraction order, eigenvalue, radians, cycles, generalized mass, stiffness
    for (std::size_t at = 0; at < w.size(); at += 7) values.push_back(w.real(at + 2));
    break;
  }
  return values;
}

}  // namespace meshioplusplus::op2::detail
