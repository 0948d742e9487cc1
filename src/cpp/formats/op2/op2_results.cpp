// Result tables of an OP2 file -> steps and their arrays.
//
// A result table (OUGV1, OQG1, OES1X1, OSTR1X …) holds, after its name record, pairs of
// records: a "table 3" header of 146 words and the data it describes. The header words used
// (pyNastran's op2_scalar.py names them): 1 approach code * 10 + device code, 2 table code
// (+ 1000 * sort code, whose bits say complex 1, SORT2 2, random 4), 3 element type, 4 subcase,
// 5 load set / mode / time / frequency / load factor (by approach: 1 statics, 2 modes, 5
// frequency, 6 transient, 7/8 buckling, 10 nonlinear statics; SORT2: the grid or element id *
// 10 + device code), 6 the eigenvalue, 9 format code (1 real), 10 words per entry, 23 thermal.
// SORT1 data holds one entry per grid/element (id * 10 + device code first); SORT2 data one
// entry per time/frequency of the one grid/element of its header, the entry starting with the
// float SORT1 writes in word 5 instead of the id: read for approaches 5, 6 and 10 only, each
// entry put in the step SORT1 would put it in (so SORT1 and SORT2 give the same steps).
// Nodal tables 8 words per entry (id, point type, T1 T2 T3 R1 R2 R3), or, complex (format 2
// real/imaginary, 3 magnitude/phase in degrees; the frequency responses and complex modes), 14:
// id, type, the six real parts (magnitudes), the six imaginary parts (phases) — as
// "<name>_real" / "<name>_imag" (n, 3) arrays, the layout the UNV reader gives complex results;
// heat transfer (word 23 = 1): T1 only, as "temperature" … (n,). Real stress/strain tables
// (table code 5) one entry per element laid out by element type:
//   CTETRA 39, CHEXA 67, CPENTA 68, CPYRAM 255: id, cid, "CEN/", node count, then 21 words per
//     point (centroid first): grid, xx, xy, p1, 3 cosines, mean pressure, von Mises, yy, yz, p2,
//     3 cosines, zz, xz, p3, 3 cosines;
//   CQUAD4 33, CTRIA3 74: id, then per fibre (z1, z2): distance, xx, yy, xy, angle, major,
//     minor, von Mises;
//   CQUAD4 144, CQUAD8 64, CTRIA6 75, CQUADR 82, CTRIAR 70: id, "CEN/", then per point (centre
//     first) the grid and the two fibres as above.
// Complex stress/strain tables, the same element types: solids 13 words per point (grid, the six
// real parts xx yy zz xy yz zx, the six imaginary parts), shells 7 per fibre (distance, then
// real and imaginary parts of xx, yy, xy pairwise).
// Random response nodal tables (sort code bit 4: OUGPSD1/2, OUGCRM2, OUGRMS1, OUGNO1, and the
// OQG/OPG ones alike; always real, 8 words per entry): table code = 100 * kind + the code above,
// kind 5 CRM (cumulative RMS), 6 PSD, 8 RMS, 9 NO (zero crossings per unit time), as pyNastran
// reads them. PSD and CRM are values per frequency, SORT1 (word 5 the frequency) or SORT2: their
// entries go to the frequency steps as "<name>_psd" / "<rotation>_psd", "_crm" likewise. RMS
// and NO hold one value per grid for the whole subcase (word 5 is 0): pyNastran gives them as a
// result of one time, 0; here they make one step per subcase of their own (time 0, field data
// nastran:random_summary = 1) with "<name>_rms", "<name>_no", so no frequency step holds
// values that are no frequency's.
// Random stresses/strains (OESPSD2, OESCRM2, OESXRMS1, OESNO1, OSTR… alike) of CQUAD4 33 and
// CTRIA3 74: id, then per fibre (z1, z2) distance, xx, yy, xy, and von Mises where the layout has
// it (11 words: MSC's OESXRMS1), else 9 words; as "<name><suffix>" and "<name>_z2<suffix>" (n, 6)
// (zz, yz, xz 0) and "von_mises<suffix>" / "von_mises_z2<suffix>" when written.
// Other element types and tables (random solids, shells with corner points and bars; random
// tables without a kind in the table code (older MSC: the kind only in the table name), ATO
// autocorrelations over time lags, complex random tables; OEF forces; SORT2 of statics and
// modes) are passed over.
#include "io/cells/nastran_blocks.hpp"
#include "formats/op2/op2_results.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <tuple>
#include <utility>

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

// Heat transfer (table-3 word 23 set): the nodal tables hold one value per grid, in T1.
std::string thermal_nodal_name(std::int32_t table_code) {
  switch (table_code) {
    case 1: return "temperature";
    case 2: return "thermal_load";  // pyNastran's thermal_load_vectors
    case 10: return "temperature_rate";  // pyNastran's (thermal) velocities
    default: return {};
  }
}

// The array-name suffix of a random table's kind (table code / 100); empty: not read.
std::string random_suffix(std::int32_t kind) {
  switch (kind) {
    case 5: return "_crm";
    case 6: return "_psd";
    case 8: return "_rms";
    case 9: return "_no";
    default: return {};  // 7 ATO (over time lags, no frequency step) and codes not known
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

// Whether `num_wide` words are an entry of `layout` with `point_words` words per solid point
// after the 4 of the head (real 21, complex 13) and `fibre_words` per shell fibre (real 8,
// complex 7: distance, then real and imaginary of xx, yy, xy pairwise): a shell is its id and
// two fibres, a shell with corner points 2 words and per point the grid and two fibres.
bool layout_fits(Layout layout, std::int32_t num_wide, std::int32_t point_words, std::int32_t fibre_words) {
  const std::int32_t shell_point = 1 + 2 * fibre_words;
  switch (layout) {
    case Layout::solid: return num_wide >= 4 + point_words && (num_wide - 4) % point_words == 0;
    case Layout::shell: return num_wide == shell_point;
    case Layout::shell_points: return num_wide >= 2 + shell_point && (num_wide - 2) % shell_point == 0;
    case Layout::none: return false;
  }
  return false;
}

// Random tables: CQUAD4 33 / CTRIA3 74 only, 4 words per fibre, or 5 with von Mises.
bool random_layout_fits(Layout layout, std::int32_t num_wide) {
  return layout == Layout::shell && (num_wide == 9 || num_wide == 11);
}

// key_word: table-3 word 5 (SORT1) or an entry's first word (SORT2), the same bits.
double step_time(std::int32_t approach, std::int32_t key_word, const Words& header) {
  switch (approach) {
    case 2:
    case 7:
    case 8: return header.real(5);  // the eigenvalue
    case 5:
    case 6:
    case 10: return std::bit_cast<float>(key_word);  // frequency, time, load factor
    case 9: return key_word;  // complex modes: the mode number
    default: return header.integer(3);  // statics and the rest: the subcase
  }
}

// SORT2 records are read for these approaches only: frequency, transient, nonlinear statics,
// whose entries start with the float that SORT1 writes in table-3 word 5.
bool sort2_is_read(std::int32_t approach) { return approach == 5 || approach == 6 || approach == 10; }

// The entries of a block's data record to read: every entry of a SORT1 record (each starting
// with its id * 10 + device code), the step's one entry of a SORT2 record (its id in the header).
struct Entries {
  std::size_t begin = 0, end = 0, wide = 1;
  std::int32_t sort2_id = 0;
  std::int32_t id(const Words& w, std::size_t at) const { return sort2_id != 0 ? sort2_id : w.integer(at) / 10; }
};

Entries entries_of(const File& file, const ResultBlock& block, const Words& w, std::size_t wide, const char* per) {
  if (w.size() % wide != 0)
    file.fail(w.offset_of(0), block.name + ": data record of " + std::to_string(w.size()) + " words is not " +
                                  std::to_string(wide) + " per " + per);
  if (block.sort2_id == 0) return {0, w.size(), wide, 0};
  const std::size_t begin = block.sort2_entry * wide;
  if (begin + wide > w.size()) file.fail(w.offset_of(0), block.name + ": SORT2 data record too short");
  return {begin, begin + wide, wide, block.sort2_id};
}

// A complex value as written: real/imaginary (format 2), or magnitude/phase in degrees (3).
std::pair<double, double> complex_parts(std::int32_t format, double first, double second) {
  if (format != 3) return {first, second};
  const double phase = second * (std::numbers::pi / 180);
  return {first * std::cos(phase), first * std::sin(phase)};
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
  const Entries e = entries_of(file, block, w, 14, "grid (complex)");
  for (std::size_t at = e.begin; at < e.end; at += e.wide) {
    if (w.integer(at + 1) != 1) continue;  // scalar or extra point: one value, no place in (n, 3)
    const std::int64_t row = g.grids.find(e.id(w, at));
    if (row < 0) file.fail(w.offset_of(at), block.name + ": grid " + std::to_string(e.id(w, at)) + " is not in GEOM1");
    for (std::size_t c = 0; c < 6; ++c) {
      const auto [re, im] = complex_parts(block.format, w.real(at + 2 + c), w.real(at + 8 + c));
      const std::size_t rotational = c / 3;
      parts[2 * rotational][row * 3 + static_cast<std::int64_t>(c % 3)] = re;
      parts[2 * rotational + 1][row * 3 + static_cast<std::int64_t>(c % 3)] = im;
    }
  }
}

// Heat transfer: "<name>" (n,) from T1 of grids and scalar points alike (Nastran writes the
// grids of a thermal run as scalar points); ids not in GEOM1 (SPOINTs) are passed over.
void read_thermal_nodal(const File& file, const Geometry& g, const ResultBlock& block, const Words& w, TimeStep& out) {
  const std::int64_t n = g.mesh.num_points();
  NDArray* found = out.point_data.find(block.name);
  if (found == nullptr) {
    NDArray values = NDArray::allocate(DType::float64, {n});
    std::fill_n(values.data_as<double>(), n, kNaN);
    found = &out.point_data.append_new(block.name, std::move(values));
  }
  double* values = found->data_as<double>();
  const Entries e = entries_of(file, block, w, 8, "grid");
  for (std::size_t at = e.begin; at < e.end; at += e.wide) {
    const std::int64_t row = g.grids.find(e.id(w, at));
    if (row < 0 && w.integer(at + 1) != 1) continue;  // a scalar point: no place in the mesh
    if (row < 0) file.fail(w.offset_of(at), block.name + ": grid " + std::to_string(e.id(w, at)) + " is not in GEOM1");
    values[row] = w.real(at + 2);
  }
}

void read_nodal(const File& file, const Geometry& g, const ResultBlock& block, const Words& w, TimeStep& out) {
  const std::int64_t n = g.mesh.num_points();
  auto array = [&](const std::string& name) { return nodal_array(out, name, n); };
  const std::string& suffix = block.random_suffix;
  double* translation = array(block.name + suffix);
  double* rotation = array((block.name == "displacement" ? std::string("rotation") : block.name + "_rotation") + suffix);
  const Entries e = entries_of(file, block, w, 8, "grid");
  for (std::size_t at = e.begin; at < e.end; at += e.wide) {
    if (w.integer(at + 1) != 1) continue;  // scalar or extra point: one value, no place in (n, 3)
    const std::int64_t row = g.grids.find(e.id(w, at));
    if (row < 0) file.fail(w.offset_of(at), block.name + ": grid " + std::to_string(e.id(w, at)) + " is not in GEOM1");
    for (int c = 0; c < 3; ++c) {
      translation[row * 3 + c] = w.real(at + 2 + static_cast<std::size_t>(c));
      rotation[row * 3 + c] = w.real(at + 5 + static_cast<std::size_t>(c));
    }
  }
}

// The step's per-block cell arrays `names` (made where missing, NaN-filled): the first
// `tensors` (n, 6), the rest (n,). Created first, looked up after: adding an array moves the
// list's vectors.
std::vector<std::vector<NDArray>*> cell_results(TimeStep& out, const Geometry& g, const std::vector<std::string>& names,
                                                std::size_t tensors) {
  for (std::size_t k = 0; k < names.size(); ++k) io::nastran_cell_results(out.cell_data, names[k], g.mesh, k < tensors ? 6 : 1);
  std::vector<std::vector<NDArray>*> arrays;
  for (const std::string& name : names) arrays.push_back(out.cell_data.find(name));
  return arrays;
}

void read_element(const File& file, const Geometry& g, const ResultBlock& block, const Words& w, TimeStep& out) {
  const Layout layout = element_layout(block.element_type);
  const Entries e = entries_of(file, block, w, static_cast<std::size_t>(block.num_wide), "element");
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
  for (std::size_t at = e.begin; at < e.end; at += e.wide) {
    const std::int64_t element = g.elements.find(e.id(w, at));
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

// Random stresses/strains of CQUAD4 33 / CTRIA3 74 (random_layout_fits): both fibres, with the
// kind's suffix; von Mises only from the 11-word layout.
void read_random_element(const File& file, const Geometry& g, const ResultBlock& block, const Words& w, TimeStep& out) {
  const Entries e = entries_of(file, block, w, static_cast<std::size_t>(block.num_wide), "element (random)");
  const std::string& suffix = block.random_suffix;
  const std::size_t per_fibre = (static_cast<std::size_t>(block.num_wide) - 1) / 2;  // 4 or 5
  const bool von_mises = per_fibre == 5;
  const std::string vm_name = block.name == "strain" ? "strain_von_mises" : "von_mises";
  std::vector<std::string> names = {block.name + suffix, block.name + "_z2" + suffix};
  if (von_mises) names.insert(names.end(), {vm_name + suffix, vm_name + "_z2" + suffix});
  const std::vector<std::vector<NDArray>*> arrays = cell_results(out, g, names, 2);
  for (std::size_t at = e.begin; at < e.end; at += e.wide) {
    const std::int64_t element = g.elements.find(e.id(w, at));
    if (element < 0) continue;  // an element of a card the mesh leaves out
    const auto b = static_cast<std::size_t>(g.element_block[static_cast<std::size_t>(element)]);
    const std::int64_t row = g.element_row[static_cast<std::size_t>(element)];
    for (std::size_t f = 0; f < 2; ++f) {
      const std::size_t s = at + 1 + per_fibre * f;  // distance, xx, yy, xy[, von Mises]
      double* t = (*arrays[f])[b].data_as<double>() + row * 6;
      t[0] = w.real(s + 1);
      t[1] = w.real(s + 2);
      t[3] = w.real(s + 3);
      t[2] = t[4] = t[5] = 0;
      if (von_mises) (*arrays[2 + f])[b].data_as<double>()[row] = w.real(s + 4);
    }
  }
}

// Complex stresses/strains: "<name>_real" / "<name>_imag" (n, 6) per block as the real tables
// "<name>", and the shells' top fibre as "<name>_z2_real" / "<name>_z2_imag"; no von Mises (the
// OES1X complex layouts hold none).
void read_complex_element(const File& file, const Geometry& g, const ResultBlock& block, const Words& w, TimeStep& out) {
  const Layout layout = element_layout(block.element_type);
  const Entries e = entries_of(file, block, w, static_cast<std::size_t>(block.num_wide), "element (complex)");
  const bool solid = layout == Layout::solid;
  std::vector<std::string> names = {block.name + "_real", block.name + "_imag"};
  if (!solid) names.insert(names.end(), {block.name + "_z2_real", block.name + "_z2_imag"});
  const std::vector<std::vector<NDArray>*> arrays = cell_results(out, g, names, names.size());
  for (std::size_t at = e.begin; at < e.end; at += e.wide) {
    const std::int64_t element = g.elements.find(e.id(w, at));
    if (element < 0) continue;  // an element of a card the mesh leaves out
    const auto b = static_cast<std::size_t>(g.element_block[static_cast<std::size_t>(element)]);
    const std::int64_t row = g.element_row[static_cast<std::size_t>(element)];
    auto target = [&](std::size_t k) { return (*arrays[k])[b].data_as<double>() + row * 6; };
    if (solid) {
      const std::size_t c = at + 4;  // the centroid's 13 words: grid, [xx yy zz xy yz zx] twice
      double* re = target(0);
      double* im = target(1);
      for (std::size_t k = 0; k < 6; ++k)
        std::tie(re[k], im[k]) = complex_parts(block.format, w.real(c + 1 + k), w.real(c + 7 + k));
      continue;
    }
    const std::size_t fibre1 = layout == Layout::shell ? at + 1 : at + 3;
    for (std::size_t f = 0; f < 2; ++f) {
      const std::size_t s = fibre1 + 7 * f;  // distance, then (re, im) of xx, yy, xy
      double* re = target(2 * f);
      double* im = target(2 * f + 1);
      const std::size_t component[3] = {0, 1, 3};
      for (std::size_t k = 0; k < 6; ++k) re[k] = im[k] = 0;
      for (std::size_t k = 0; k < 3; ++k)
        std::tie(re[component[k]], im[component[k]]) =
            complex_parts(block.format, w.real(s + 1 + 2 * k), w.real(s + 2 + 2 * k));
    }
  }
}

}  // namespace

std::vector<Step> find_steps(const File& file) {
  std::vector<Step> steps;
  std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t, bool>, std::size_t> index;
  std::string storage, data_storage;
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
      // Table code + 1000 × sort code, whose bits say complex (1), SORT2 (2), random (4).
      const std::int32_t sort_code = header.integer(1) / 1000;
      const std::int32_t written_format = header.integer(8);
      if (sort_code < 0 || sort_code > 7 || written_format < 1 || written_format > 3) continue;
      const bool random = (sort_code & 4) != 0;
      // Random tables are real; complex random codes are passed over.
      if (random && ((sort_code & 1) != 0 || written_format != 1)) continue;
      // Random: table code = 100 × kind + the result's code.
      const std::int32_t table_code = random ? header.integer(1) % 100 : header.integer(1) % 1000;
      const std::string suffix = random ? random_suffix(header.integer(1) % 1000 / 100) : std::string();
      if (random && suffix.empty()) continue;
      const bool summary = suffix == "_rms" || suffix == "_no";  // one value per grid and subcase
      const bool sort2 = (sort_code & 2) != 0;
      if (summary && sort2) continue;  // no such layout written: no frequency to sort by
      if (sort2 && !sort2_is_read(approach)) continue;
      // Complex: a complex sort code (complex modes write format 1 there: real/imaginary), or
      // format 2 (real/imaginary) or 3 (magnitude/phase).
      const std::int32_t format = (sort_code & 1) != 0 && written_format == 1 ? 2 : written_format;
      ResultBlock block;
      block.table = t;
      block.record = r + 1;
      block.element_type = header.integer(2);
      block.num_wide = header.integer(9);
      block.format = format;
      block.random_suffix = suffix;
      if (nodal_table) {
        block.thermal = header.integer(22) == 1;
        block.name = block.thermal ? thermal_nodal_name(table_code) : nodal_name(table_code);
        if (block.name.empty() || block.num_wide != (format == 1 ? 8 : 14) || (block.thermal && (format != 1 || random)))
          continue;
      } else {
        const Layout layout = element_layout(block.element_type);
        const bool fits = random        ? random_layout_fits(layout, block.num_wide)
                          : format == 1 ? layout_fits(layout, block.num_wide, 21, 8)
                                        : layout_fits(layout, block.num_wide, 13, 7);
        if (table_code != 5 || !fits) continue;
        block.nodal = false;
        block.name = table.name.starts_with("OSTR") ? "strain" : "stress";
      }
      auto add = [&](std::int32_t key_word, const ResultBlock& entry) {
        const auto key = std::make_tuple(header.integer(3), approach, key_word, summary);
        auto [it, added] = index.emplace(key, steps.size());
        if (added) {
          Step step;
          step.subcase = header.integer(3);
          step.approach = approach;
          step.key_word = key_word;
          step.random_summary = summary;
          step.time = summary ? 0.0 : step_time(approach, key_word, header);
          step.eigenvalue = header.real(5);
          steps.push_back(step);
        }
        steps[it->second].blocks.push_back(entry);
      };
      if (!sort2) {
        add(header.integer(4), block);
        continue;
      }
      // SORT2: one grid or element (word 5) over the times its entries start with; the steps
      // come from the data record, read here.
      block.sort2_id = header.integer(4) / 10;
      if (block.sort2_id <= 0) file.fail(header.offset_of(4), table.name + ": SORT2 id " + std::to_string(block.sort2_id));
      const LogicalRecord& data = table.records[r + 1];
      const Words entries(file, file.record_bytes(data, data_storage), data.offset());
      const auto wide = static_cast<std::size_t>(block.num_wide);
      if (entries.size() % wide != 0)
        file.fail(data.offset(), table.name + ": SORT2 data record of " + std::to_string(entries.size()) +
                                     " words is not " + std::to_string(wide) + " per entry");
      for (std::size_t k = 0; k < entries.size() / wide; ++k) {
        block.sort2_entry = k;
        add(entries.integer(k * wide), block);
      }
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
    else if (block.nodal && block.thermal) read_thermal_nodal(file, geometry, block, w, out);
    else if (block.nodal) read_nodal(file, geometry, block, w, out);
    else if (!block.random_suffix.empty()) read_random_element(file, geometry, block, w, out);
    else if (block.format != 1) read_complex_element(file, geometry, block, w, out);
    else read_element(file, geometry, block, w, out);
  }
  out.field_data.append_new("nastran:subcase", NDArray::from_values<std::int64_t>({step.subcase}));
  out.field_data.append_new("nastran:approach_code", NDArray::from_values<std::int64_t>({step.approach}));
  if (step.random_summary) out.field_data.append_new("nastran:random_summary", NDArray::from_values<std::int64_t>({1}));
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
