// ANSYS MAPDL results file reader (.rst structural, .rth thermal, .rmg magnetic).
//
// The file is a sequence of Fortran-style records (ansys_rst_records.hpp) addressed by word
// pointers (4-byte words from the file's start); facts from ANSYS's Programmer's Reference
// (fdresu.inc) as ansys-mapdl-reader (MIT) reads them. Little-endian files only.
//   standard header   word 0: 100 words, file number 12.
//   result header     word 103: counts (nnod, numdof, nelm, nsets, resmax) and 64-bit pointers
//                     (low and high halves apart) to the tables below.
//   NOD, ELM          node / element numbers in solution order (the order of result rows).
//   DSI               per result set the pointer of its solution header; TIM its time value
//                     (a time, a frequency for modal sets, a load factor); LSP its load step,
//                     substep and cumulative number.
//   GEO               the geometry header: pointers to ETY (element types: the type number,
//                     its routine (186 for SOLID186) and KEYOPT(1)), LOC (one record per node:
//                     number, X Y Z, THXY THYZ THZX) and EID (one record per element: mat, type,
//                     real, secnum, esys, death, solid-model ref, shape, number, base, nodes).
// What becomes what:
//   points            the LOC nodes, in file order; point data ansys:node (the node numbers).
//   cells             each element through the routine table of io/cells/ansys_element_types.hpp
//                     (the one the .cdb reader uses: degenerate bricks -> wedges, pyramids,
//                     tetrahedra; shells with K = L -> triangles; MESH200 by KEYOPT(1)); one
//                     block per cell type in order of first appearance. An element with a missing
//                     mid-side node (0) becomes its linear cell (the points stay the file's, so
//                     node results stay aligned); one with a corner numbered 0 (TARGE170's pilot
//                     node: the pilot, then zeros) becomes a vertex at its first node, as
//                     ansys-mapdl-reader makes it. Elements of routines without a cell (contact
//                     targets' pilot nodes, routines the table does not know) are skipped.
//                     Cell data ansys:element (number), ansys:type, ansys:routine, ansys:mat,
//                     ansys:real, ansys:secnum; Cell regions mat_<n> per material.
//   steps             one per result set, in cumulative order; time(k) = the set's time value.
//                     Point data from the nodal DOF solution (NSL), named as the DOFs say:
//                     UX UY UZ -> displacement (n, 3) (n, 2 for UX UY), ROTX ROTY ROTZ -> rotation,
//                     TEMP -> temperature, any other DOF -> its name lower case (pres, volt, …).
//                     Values are rotated from nodal to global axes by the nodes' angles, as
//                     ansys-mapdl-reader does for the first three; nodes outside the solution
//                     read NaN, MAPDL's "no value" (2^100) reads 0 as the reference reader gives.
//                     Field data ansys:set (cumulative, 1-based), ansys:load_step, ansys:substep
//                     (read() adds ansys:time).
//                     Cell data "stress" (cells, 6: SX SY SZ SXY SYZ SXZ) from the element nodal
//                     stresses (ENS), turned to global axes by the element's Euler angles (EUL)
//                     and AVERAGED over the element's stress nodes (its corners); solid elements
//                     only (brick and tet routines): beams and links store forces, and shells
//                     store faces and layers whose Euler angles the reference reader itself does
//                     not apply consistently; NaN for cells without. Principal and
//                     equivalent stresses are not computed (the reference computes them itself).
//   not read          other element results (strains, fluxes, energies …), reaction
//                     forces, boundary conditions, materials, sections, coordinate systems,
//                     cyclic-symmetry expansion, distributed-solve pieces merged.
// read() gives the mesh with the FIRST set's arrays (pymapdl-reader's default result 0; ParaView
// has no reader of its own); every set through open_time_series, which reads only the headers
// when opened and only set k's records in read_step(k). A gzip-compressed file is inflated first.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/ansys_rst/ansys_rst.hpp"
#include "formats/ansys_rst/ansys_rst_records.hpp"
#include "io/cells/ansys_element_types.hpp"
#include "io/cells/id_map.hpp"
#include "io/codecs/zlib_codec.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::ansys_rst {
namespace {

using detail::kFormat;
using detail::RecordFile;
namespace elements = io::ansys_elements;

constexpr std::int64_t kResultHeaderWord = 103;

std::int64_t at(const std::vector<std::int64_t>& table, std::size_t index) {
  return index < table.size() ? table[index] : 0;
}
// A 64-bit pointer from its two 32-bit halves.
std::int64_t pointer(const std::vector<std::int64_t>& table, std::size_t low, std::size_t high) {
  return static_cast<std::int64_t>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(at(table, high))) << 32) |
                                   static_cast<std::uint32_t>(at(table, low)));
}

std::string dof_name(std::int64_t dof) {
  static const std::map<std::int64_t, std::string> kNames{
      {1, "UX"},   {2, "UY"},   {3, "UZ"},   {4, "ROTX"}, {5, "ROTY"}, {6, "ROTZ"}, {7, "AX"},
      {8, "AY"},   {9, "AZ"},   {10, "VX"},  {11, "VY"},  {12, "VZ"},  {16, "WARP"}, {17, "CONC"},
      {18, "HDSP"}, {19, "PRES"}, {20, "TEMP"}, {21, "VOLT"}, {22, "MAG"}, {23, "ENKE"}, {24, "ENDS"},
      {25, "EMF"}, {26, "CURR"}};
  const auto it = kNames.find(dof);
  return it != kNames.end() ? it->second : "DOF" + std::to_string(dof);
}

struct SetInfo {
  std::int64_t pointer = 0;
  double time = 0;
  std::int64_t load_step = 0, substep = 0, cumulative = 0;
};

struct Structure {
  std::unique_ptr<io::MappedFile> file;
  std::string inflated;  // the bytes of a gzip-compressed file
  std::optional<RecordFile> records;
  std::vector<SetInfo> sets;
  std::vector<std::int64_t> solution_nodes;  // NOD: node numbers in solution order
  std::int64_t geometry = 0;
  bool six_stress_items = false;  // rstsprs != 0: ENS holds the 6 components only (else 11)
};

std::shared_ptr<Structure> open(const std::string& path) {
  auto s = std::make_shared<Structure>();
  s->file = std::make_unique<io::MappedFile>(path, kFormat);
  std::string_view bytes = io::maybe_gunzip(s->file->bytes(), s->inflated, path, kFormat);
  if (!looks_like(bytes.substr(0, 12)))
    throw ReadError(path, std::string(kFormat), "not an ANSYS results file: no 100-word standard header with file number 12", 0);
  s->records.emplace(path, bytes);
  const RecordFile& r = *s->records;
  const std::vector<std::int64_t> header = r.integers(kResultHeaderWord, "result header");
  const std::int64_t resmax = at(header, 3), nsets = at(header, 8);
  if (nsets < 0 || resmax < nsets) r.fail("the result header claims " + std::to_string(nsets) + " sets of " + std::to_string(resmax), kResultHeaderWord);
  s->geometry = pointer(header, 15, 46);
  s->six_stress_items = at(header, 39) != 0;
  s->solution_nodes = r.integers(pointer(header, 14, 45), "nodal equivalence (NOD)");
  const std::int64_t dsi = pointer(header, 10, 40);
  const std::vector<std::int64_t> index = r.integers(dsi, "data set index (DSI)");
  const std::vector<double> times = r.reals(pointer(header, 11, 41), "time values (TIM)");
  const std::vector<std::int64_t> steps = r.integers(pointer(header, 12, 42), "load steps (LSP)");
  if (index.size() < static_cast<std::size_t>(resmax + nsets) || times.size() < static_cast<std::size_t>(nsets))
    r.fail("the data set index or time table is shorter than the " + std::to_string(nsets) + " sets", dsi);
  for (std::int64_t k = 0; k < nsets; ++k) {
    SetInfo set;
    set.pointer = pointer(index, static_cast<std::size_t>(k), static_cast<std::size_t>(resmax + k));
    if (set.pointer <= kResultHeaderWord || static_cast<std::uint64_t>(set.pointer) >= r.size() / 4)
      r.fail("the data set index points set " + std::to_string(k + 1) + " of " + std::to_string(nsets) + " at word " +
                 std::to_string(set.pointer) + ", outside the file",
             dsi);
    set.time = times[static_cast<std::size_t>(k)];
    set.load_step = at(steps, static_cast<std::size_t>(3 * k));
    set.substep = at(steps, static_cast<std::size_t>(3 * k + 1));
    set.cumulative = at(steps, static_cast<std::size_t>(3 * k + 2));
    s->sets.push_back(set);
  }
  return s;
}

struct ElementType {
  std::int64_t routine = 0;
  elements::Family family = elements::Family::none;
  std::int64_t stress_nodes = 0;  // nodstr: nodes with stresses (shells 181/281, KEYOPT(8) = 0: twice, both faces)
};

std::string linear_of(std::string_view type) {
  if (type == "line3") return "line";
  if (type == "triangle6") return "triangle";
  if (type == "quad8") return "quad";
  if (type == "tetra10") return "tetra";
  if (type == "pyramid13") return "pyramid";
  if (type == "wedge15") return "wedge";
  if (type == "hexahedron20") return "hexahedron";
  return std::string(type);
}

struct Geometry {
  Mesh mesh;
  io::IdMap nodes;
  std::vector<std::array<double, 3>> angles;  // THXY THYZ THZX per point
  bool rotated = false;
  // Per element of EID (the order of the element solution index): its block-major cell (-1:
  // none) and how many nodes its ENS record holds.
  std::vector<std::int64_t> cell_of_element, stress_nodes_of_element;
  std::vector<bool> tensor_stress_of_element;  // solids: ENS holds a stress tensor per corner
};

Geometry read_geometry(const Structure& s) {
  const RecordFile& r = *s.records;
  const std::vector<std::int64_t> geo = r.integers(s.geometry, "geometry header (GEO)");
  const std::int64_t nnod = at(geo, 3), nelm = at(geo, 4);
  const std::int64_t ety = pointer(geo, 20, 21), loc = pointer(geo, 26, 27), eid = pointer(geo, 28, 29);
  // Each node and element record takes at least 3 words of header and trailer.
  io::check_claim(r.path(), kFormat, "nodes", static_cast<std::uint64_t>(std::max<std::int64_t>(nnod, 0)), 12, r.size(), 56, {static_cast<std::uint64_t>(s.geometry) * 4, std::nullopt});
  io::check_claim(r.path(), kFormat, "elements", static_cast<std::uint64_t>(std::max<std::int64_t>(nelm, 0)), 12, r.size(), 64, {static_cast<std::uint64_t>(s.geometry) * 4, std::nullopt});
  if (nnod < 0 || nelm < 0) r.fail("the geometry header claims negative counts", s.geometry);

  // Element types: the index table, then (mapFlag = 1, since 2021 R1) a record of pointers.
  std::map<std::int64_t, ElementType> types;
  const std::vector<std::int64_t> type_table = r.integers(ety, "element type index (ETY)");
  std::vector<std::int64_t> type_pointers;
  if (at(geo, 64) != 0) type_pointers = r.integers(r.next(ety, "element type index (ETY)"), "element type pointers");
  else
    for (std::int64_t k = 0; k < at(geo, 1) && static_cast<std::size_t>(k) < type_table.size(); ++k)
      if (type_table[static_cast<std::size_t>(k)] != 0) type_pointers.push_back(type_table[static_cast<std::size_t>(k)]);
  for (std::int64_t p : type_pointers) {
    if (p == 0) continue;
    const std::vector<std::int64_t> info = r.integers(ety + p, "element type");
    ElementType type{at(info, 1), elements::routine_family(at(info, 1)), at(info, 93)};
    if ((type.routine == 181 || type.routine == 281) && at(info, 9) == 0) type.stress_nodes *= 2;
    if (type.routine == 200) type.family = elements::mesh200_family(at(info, 2));
    types[at(info, 0)] = type;
  }

  Geometry g;
  std::vector<std::int64_t> ids(static_cast<std::size_t>(nnod));
  g.mesh.points = NDArray::allocate(DType::float64, {nnod, 3});
  double* xyz = g.mesh.points.data_as<double>();
  g.angles.resize(static_cast<std::size_t>(nnod));
  std::int64_t word = loc;
  for (std::int64_t k = 0; k < nnod; ++k) {
    const std::vector<double> node = r.reals(word, "node");
    const auto value = [&](std::size_t i) { return i < node.size() ? node[i] : 0.0; };
    ids[static_cast<std::size_t>(k)] = static_cast<std::int64_t>(value(0));
    for (std::size_t axis = 0; axis < 3; ++axis) {
      xyz[3 * k + static_cast<std::int64_t>(axis)] = value(1 + axis);
      g.angles[static_cast<std::size_t>(k)][axis] = value(4 + axis);
      g.rotated = g.rotated || value(4 + axis) != 0.0;
    }
    word = r.next(word, "node");
  }
  if (const auto duplicate = g.nodes.build(ids)) r.fail("node " + std::to_string(ids[*duplicate]) + " is defined twice", loc);
  NDArray node_numbers = NDArray::allocate(DType::int64, {nnod});
  std::copy(ids.begin(), ids.end(), node_numbers.data_as<std::int64_t>());
  g.mesh.point_data.append_new("ansys:node", std::move(node_numbers));

  // Elements: EID is read as int64 pointers relative to itself.
  const std::vector<std::int64_t> halves = r.integers(eid, "element index (EID)");
  if (halves.size() < static_cast<std::size_t>(2 * nelm)) r.fail("the element index has fewer than " + std::to_string(nelm) + " entries", eid);
  struct Block {
    std::string type;
    std::vector<std::int64_t> connectivity;
    std::array<std::vector<std::int64_t>, 6> data;  // element, type, routine, mat, real, secnum
  };
  std::vector<Block> blocks;
  std::map<std::string, std::size_t> block_of;
  std::map<std::int64_t, std::vector<std::int64_t>> materials;  // mat -> block-major cells (filled below)
  std::vector<std::pair<std::size_t, std::int64_t>> placed;  // per element: block, row (row -1: none)
  for (std::int64_t e = 0; e < nelm; ++e) {
    placed.emplace_back(0, -1);
    const std::int64_t offset = pointer(halves, static_cast<std::size_t>(2 * e), static_cast<std::size_t>(2 * e + 1));
    const std::int64_t element_word = eid + offset;
    const std::vector<std::int64_t> record = r.integers(element_word, "element");
    if (record.size() < 10) r.fail("an element record has " + std::to_string(record.size()) + " words (10 at least)", element_word);
    const auto type_it = types.find(record[1]);
    if (type_it == types.end()) r.fail("an element refers to element type " + std::to_string(record[1]) + ", which the file does not define", element_word);
    const std::span<const std::int64_t> nodes(record.data() + 10, record.size() - 10);
    g.stress_nodes_of_element.push_back(type_it->second.stress_nodes);
    const elements::Family family = type_it->second.family;
    g.tensor_stress_of_element.push_back(family == elements::Family::brick || family == elements::Family::tet);
    elements::Resolved cell = elements::resolve(type_it->second.family, nodes);
    if (cell.type.empty()) continue;
    // A corner numbered 0 (TARGE170's pilot node record: the pilot, then zeros): the element is
    // its first node, as ansys-mapdl-reader makes it.
    for (int k = 0; k < cell.midside_from; ++k) {
      const auto slot = static_cast<std::size_t>(cell.slots[static_cast<std::size_t>(k)]);
      if (slot >= nodes.size() || nodes[slot] == 0) cell = {"vertex", cell.slots.first(1), 1};
    }
    bool complete = true;
    for (std::size_t k = static_cast<std::size_t>(cell.midside_from); k < cell.slots.size(); ++k) {
      const auto slot = static_cast<std::size_t>(cell.slots[k]);
      if (slot >= nodes.size() || nodes[slot] == 0) complete = false;
    }
    const std::string type = complete ? std::string(cell.type) : linear_of(cell.type);
    const std::size_t count = complete ? cell.slots.size() : static_cast<std::size_t>(cell.midside_from);
    auto [it, added] = block_of.try_emplace(type, blocks.size());
    if (added) blocks.push_back({type, {}, {}});
    Block& block = blocks[it->second];
    placed.back() = {it->second, static_cast<std::int64_t>(block.data[0].size())};
    for (std::size_t k = 0; k < count; ++k) {
      const auto slot = static_cast<std::size_t>(cell.slots[k]);
      const std::int64_t number = slot < nodes.size() ? nodes[slot] : 0;
      const std::int64_t point = g.nodes.find(number);
      if (point < 0) r.fail("element " + std::to_string(record[8]) + " refers to node " + std::to_string(number) + ", which the file does not define", element_word);
      block.connectivity.push_back(point);
    }
    const std::array<std::int64_t, 6> values{record[8], record[1], type_it->second.routine, record[0], record[2], record[3]};
    for (std::size_t k = 0; k < 6; ++k) block.data[k].push_back(values[k]);
  }
  constexpr std::array<const char*, 6> kNames{"ansys:element", "ansys:type", "ansys:routine", "ansys:mat", "ansys:real", "ansys:secnum"};
  std::array<std::vector<NDArray>, 6> data;
  std::int64_t first_cell = 0;
  for (Block& block : blocks) {
    const auto cells = static_cast<std::int64_t>(block.data[0].size());
    const auto width = static_cast<std::int64_t>(block.connectivity.size()) / std::max<std::int64_t>(cells, 1);
    CellBlock out;
    out.type = block.type;
    out.connectivity = NDArray::allocate(DType::int64, {cells, width});
    std::copy(block.connectivity.begin(), block.connectivity.end(), out.connectivity.data_as<std::int64_t>());
    g.mesh.cells.push_back(std::move(out));
    for (std::size_t k = 0; k < 6; ++k) {
      NDArray column = NDArray::allocate(DType::int64, {cells});
      std::copy(block.data[k].begin(), block.data[k].end(), column.data_as<std::int64_t>());
      data[k].push_back(std::move(column));
    }
    for (std::int64_t c = 0; c < cells; ++c) materials[block.data[3][static_cast<std::size_t>(c)]].push_back(first_cell + c);
    first_cell += cells;
  }
  for (std::size_t k = 0; k < 6; ++k) g.mesh.cell_data.append_new(kNames[k], std::move(data[k]));
  std::vector<std::int64_t> block_start(blocks.size() + 1, 0);
  for (std::size_t b = 0; b < blocks.size(); ++b) block_start[b + 1] = block_start[b] + static_cast<std::int64_t>(blocks[b].data[0].size());
  for (const auto& [block, row] : placed) g.cell_of_element.push_back(row < 0 ? -1 : block_start[block] + row);
  for (auto& [mat, cells] : materials) {
    Region region;
    region.name = "mat_" + std::to_string(mat);
    region.kind = RegionKind::Cell;
    region.tag = mat;
    region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(cells.size())});
    std::copy(cells.begin(), cells.end(), region.entries.data_as<std::int64_t>());
    g.mesh.regions.push_back(std::move(region));
  }
  return g;
}

// Rotates the first three columns of `values` (n x width) from nodal to global axes: about z by
// THXY, then x by THYZ, then y by THZX, as ansys-mapdl-reader's rotate_to_global.
void rotate_to_global(double* row, const std::array<double, 3>& angles) {
  constexpr double kDegree = 3.14159265358979323846 / 180.0;
  const auto turn = [&](int a, int b, double angle) {
    if (angle == 0.0) return;
    const double c = std::cos(angle * kDegree), s = std::sin(angle * kDegree);
    const double x = row[a] * c - row[b] * s, y = row[a] * s + row[b] * c;
    row[a] = x;
    row[b] = y;
  };
  turn(0, 1, angles[0]);
  turn(1, 2, angles[1]);
  turn(2, 0, angles[2]);
}

// Euler angles THXY THYZ THZX (degrees) -> the rotation R of MAPDL's 3-1-2 convention; a tensor
// S in element axes is R^T S R in global axes.
std::array<std::array<double, 3>, 3> euler_matrix(const double* angles) {
  constexpr double kDegree = 3.14159265358979323846 / 180.0;
  const double c1 = std::cos(angles[0] * kDegree), s1 = std::sin(angles[0] * kDegree);
  const double c2 = std::cos(angles[1] * kDegree), s2 = std::sin(angles[1] * kDegree);
  const double c3 = std::cos(angles[2] * kDegree), s3 = std::sin(angles[2] * kDegree);
  return {{{c1 * c3 - s1 * s2 * s3, s1 * c3 + c1 * s2 * s3, -s3 * c2},
           {-s1 * c2, c1 * c2, s2},
           {c1 * s3 + s1 * s2 * c3, s1 * s3 - c1 * c3 * s2, c2 * c3}}};
}

// SX SY SZ SXY SYZ SXZ in place, from element to global axes.
void rotate_stress(double* v, const std::array<std::array<double, 3>, 3>& r) {
  const double t[3][3] = {{v[0], v[3], v[5]}, {v[3], v[1], v[4]}, {v[5], v[4], v[2]}};
  double out[3][3] = {};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) out[i][j] += r[a][i] * t[a][b] * r[b][j];
  v[0] = out[0][0], v[1] = out[1][1], v[2] = out[2][2], v[3] = out[0][1], v[4] = out[1][2], v[5] = out[0][2];
}

// ENS (element nodal stresses) of one set, averaged over each element's stress nodes in global
// axes; NaN for cells without. Empty when the set has no element solution or no element ENS.
std::vector<double> read_stress(const Structure& s, const Geometry& g, const std::vector<std::int64_t>& header, std::size_t k) {
  const RecordFile& r = *s.records;
  const std::int64_t esl_offset = pointer(header, 118, 119);
  if (esl_offset == 0) return {};
  const std::int64_t esl = s.sets[k].pointer + esl_offset;
  const std::vector<std::int64_t> halves = r.integers(esl, "element solution index (ESL)");
  const std::size_t elements = g.cell_of_element.size();
  const std::int64_t items = s.six_stress_items ? 6 : 11;
  std::vector<double> stress(static_cast<std::size_t>(g.mesh.num_cells()) * 6, std::numeric_limits<double>::quiet_NaN());
  bool any = false;
  for (std::size_t e = 0; e < elements && 2 * e + 1 < halves.size(); ++e) {
    const std::int64_t cell = g.cell_of_element[e];
    const std::int64_t offset = pointer(halves, 2 * e, 2 * e + 1);
    const std::int64_t nodes = g.stress_nodes_of_element[e];
    if (cell < 0 || offset <= 0 || nodes <= 0 || !g.tensor_stress_of_element[e]) continue;
    const std::int64_t table = esl + offset;
    const std::vector<std::int64_t> pointers = r.integers(table, "element result pointers");
    const std::int64_t ens = at(pointers, 2), euler = at(pointers, 9);
    if (ens <= 0) continue;
    std::vector<double> values = r.reals(table + ens, "element nodal stresses (ENS)");
    // Beams, links and layered elements lay their ENS out otherwise: no tensor per node, NaN.
    if (static_cast<std::int64_t>(values.size()) < nodes * items) continue;
    std::vector<double> angles;
    if (euler > 0) angles = r.reals(table + euler, "element Euler angles (EUL)");
    double sum[6] = {};
    for (std::int64_t n = 0; n < nodes; ++n) {
      double* v = values.data() + n * items;
      if (angles.size() >= 3) {
        const std::size_t first = angles.size() >= static_cast<std::size_t>(3 * nodes) ? static_cast<std::size_t>(3 * n) : 0;
        rotate_stress(v, euler_matrix(angles.data() + first));
      }
      for (int c = 0; c < 6; ++c) sum[c] += v[c];
    }
    for (int c = 0; c < 6; ++c) stress[static_cast<std::size_t>(cell * 6 + c)] = sum[c] / static_cast<double>(nodes);
    any = true;
  }
  if (!any) return {};
  return stress;
}

TimeStep read_set(const Structure& s, const Geometry& g, std::size_t k) {
  const RecordFile& r = *s.records;
  const SetInfo& set = s.sets[k];
  const std::vector<std::int64_t> header = r.integers(set.pointer, "solution header of set " + std::to_string(k + 1));
  const std::int64_t rows_claimed = at(header, 2), numdof = at(header, 19), nfldof = at(header, 97);
  const std::int64_t width = numdof + nfldof;
  if (numdof < 0 || nfldof < 0 || numdof > 32 || width <= 0 || width > 64)
    r.fail("the solution header of set " + std::to_string(k + 1) + " claims " + std::to_string(width) + " DOFs", set.pointer);
  TimeStep step;
  step.time = set.time;
  const std::int64_t nsl_offset = pointer(header, 104, 105);
  const std::int64_t n = g.mesh.num_points();
  std::vector<double> columns(static_cast<std::size_t>(n * width), std::numeric_limits<double>::quiet_NaN());
  if (nsl_offset != 0) {
    const std::int64_t nsl = set.pointer + nsl_offset;
    const std::vector<double> values = r.reals(nsl, "nodal solution (NSL) of set " + std::to_string(k + 1));
    std::int64_t rows = static_cast<std::int64_t>(values.size()) / width;
    std::vector<std::int64_t> order;  // row -> index into NOD (1-based), when the set holds a subset
    if (rows > rows_claimed) rows = rows_claimed;
    if (rows < rows_claimed) order = r.integers(r.next(nsl, "nodal solution"), "nodal solution index");
    if (!order.empty() && static_cast<std::int64_t>(order.size()) < rows) r.fail("the nodal solution index is shorter than its rows", nsl);
    for (std::int64_t row = 0; row < rows; ++row) {
      const std::int64_t position = order.empty() ? row : order[static_cast<std::size_t>(row)] - 1;
      if (!io::id_within(position, static_cast<std::int64_t>(s.solution_nodes.size())))
        r.fail("nodal solution row " + std::to_string(row + 1) + " is past the nodal equivalence table", nsl);
      const std::int64_t point = g.nodes.find(s.solution_nodes[static_cast<std::size_t>(position)]);
      if (point < 0) r.fail("the nodal solution names node " + std::to_string(s.solution_nodes[static_cast<std::size_t>(position)]) + ", which the file does not define", nsl);
      double* out = columns.data() + point * width;
      for (std::int64_t c = 0; c < width; ++c) {
        const double v = values[static_cast<std::size_t>(row * width + c)];
        out[c] = v == 0x1p100 ? 0.0 : v;
      }
    }
  }
  std::vector<std::string> names;
  for (std::int64_t c = 0; c < numdof; ++c) names.push_back(dof_name(at(header, static_cast<std::size_t>(20 + c))));
  for (std::int64_t c = numdof; c < width; ++c) names.push_back("FLDOF" + std::to_string(c - numdof + 1));
  if (g.rotated && width >= 3 && names[0] == "UX" && names[1] == "UY" && names[2] == "UZ")
    for (std::int64_t p = 0; p < n; ++p) rotate_to_global(columns.data() + p * width, g.angles[static_cast<std::size_t>(p)]);
  // Group the DOF columns into arrays: displacement, rotation, then one per other DOF.
  const auto take = [&](const std::string& name, const std::vector<std::size_t>& picked) {
    const auto m = static_cast<std::int64_t>(picked.size());
    NDArray array = picked.size() == 1 ? NDArray::allocate(DType::float64, {n}) : NDArray::allocate(DType::float64, {n, m});
    double* out = array.data_as<double>();
    for (std::int64_t p = 0; p < n; ++p)
      for (std::int64_t c = 0; c < m; ++c) out[p * m + c] = columns[static_cast<std::size_t>(p * width) + picked[static_cast<std::size_t>(c)]];
    step.point_data.append_new(name, std::move(array));
  };
  std::vector<bool> used(names.size(), false);
  const auto group = [&](const std::string& name, std::initializer_list<const char*> members) {
    std::vector<std::size_t> picked;
    for (const char* member : members)
      for (std::size_t c = 0; c < names.size(); ++c)
        if (!used[c] && names[c] == member) picked.push_back(c);
    if (picked.size() < 2) return;
    for (std::size_t c : picked) used[c] = true;
    take(name, picked);
  };
  group("displacement", {"UX", "UY", "UZ"});
  group("rotation", {"ROTX", "ROTY", "ROTZ"});
  for (std::size_t c = 0; c < names.size(); ++c) {
    if (used[c]) continue;
    std::string name = names[c] == "TEMP" ? "temperature" : names[c];
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    take(name, {c});
  }
  const std::vector<double> stress = read_stress(s, g, header, k);
  if (!stress.empty()) {
    std::vector<NDArray> arrays;
    std::int64_t first = 0;
    for (const CellBlock& block : g.mesh.cells) {
      const std::int64_t cells = block.num_cells();
      NDArray array = NDArray::allocate(DType::float64, {cells, 6});
      std::copy_n(stress.begin() + first * 6, cells * 6, array.data_as<double>());
      arrays.push_back(std::move(array));
      first += cells;
    }
    step.cell_data.append_new("stress", std::move(arrays));
  }
  step.field_data.append_new("ansys:set", NDArray::from_values<std::int64_t>({static_cast<std::int64_t>(k + 1)}));
  step.field_data.append_new("ansys:load_step", NDArray::from_values<std::int64_t>({set.load_step}));
  step.field_data.append_new("ansys:substep", NDArray::from_values<std::int64_t>({set.substep}));
  return step;
}

class SeriesReader final : public TimeSeriesReader {
 public:
  explicit SeriesReader(std::shared_ptr<Structure> s) : s_(std::move(s)) {}
  std::size_t num_steps() const override { return s_->sets.size(); }
  double time(std::size_t step) const override {
    check(step);
    return s_->sets[step].time;
  }
  Mesh read_mesh() override {
    const Geometry& g = geometry();
    Mesh mesh;
    mesh.points = g.mesh.points.copy();
    for (const CellBlock& block : g.mesh.cells) mesh.cells.push_back({block.type, block.connectivity.copy(), {}, {}});
    for (const auto& [name, array] : g.mesh.point_data) mesh.point_data.append_new(name, array.copy());
    for (const auto& [name, arrays] : g.mesh.cell_data) {
      std::vector<NDArray> copies;
      for (const NDArray& array : arrays) copies.push_back(array.copy());
      mesh.cell_data.append_new(name, std::move(copies));
    }
    for (const Region& region : g.mesh.regions) mesh.regions.push_back({region.name, region.kind, region.dim, region.tag, region.entries.copy()});
    return mesh;
  }
  TimeStep read_step(std::size_t step) override {
    check(step);
    return read_set(*s_, geometry(), step);
  }

 private:
  void check(std::size_t step) const {
    if (step >= s_->sets.size())
      throw ReadError(s_->records->path(), std::string(kFormat), "step " + std::to_string(step) + " is out of range (the file has " + std::to_string(s_->sets.size()) + " result sets)");
  }
  // The nodes (their numbers and angles) are needed to place any set's rows: read once.
  const Geometry& geometry() {
    if (!geometry_) geometry_ = read_geometry(*s_);
    return *geometry_;
  }
  std::shared_ptr<Structure> s_;
  std::optional<Geometry> geometry_;
};

}  // namespace

bool looks_like(std::string_view head) noexcept {
  if (head.size() < 12) return false;
  std::int32_t words = 0, number = 0;
  std::memcpy(&words, head.data(), 4);
  std::memcpy(&number, head.data() + 8, 4);
  return words == 100 && (static_cast<unsigned char>(head[7]) & 0x80) != 0 && number == 12;
}

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) { return std::make_unique<SeriesReader>(open(path)); }

Mesh read(const std::string& path) {
  SeriesReader reader(open(path));
  Mesh mesh = reader.read_mesh();
  if (reader.num_steps() == 0) return mesh;
  TimeStep step = reader.read_step(0);
  for (auto& [name, array] : step.point_data) mesh.point_data.append_new(name, std::move(array));
  for (auto& [name, arrays] : step.cell_data) mesh.cell_data.append_new(name, std::move(arrays));
  mesh.field_data.append_new("ansys:time", NDArray::from_values<double>({step.time}));
  for (auto& [name, array] : step.field_data) mesh.field_data.append_new(name, std::move(array));
  return mesh;
}

}  // namespace meshioplusplus::ansys_rst
