// I-deas Universal File writer.
//
// The records are Fortran's fixed columns, as I-deas, Salome and Gmsh write them, so every
// reader of the format takes them: "    -1" / "%6d" dataset lines, I10 integers, 1P3E25.16
// coordinates (seventeen significant digits: the doubles read back bit for bit). Node labels
// are 1..n, element labels 1..m across the blocks in order, so point i is node i + 1 and
// block-major cell k is element k + 1 — which is what the 2467 groups name.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/unv/unv.hpp"
#include "formats/unv/unv_records.hpp"
#include "formats/unv/unv_types.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/fixed_columns.hpp"
#include "io/output/parallel_rows.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::unv {
namespace {

using detail::kFormat;

// The 164 description of each I-deas units code.
std::string_view units_description(std::int64_t code) noexcept {
  static constexpr std::string_view kNames[] = {
      "",                   "SI: Meter (newton)",  "BG: Foot (pound f)",     "MG: Meter (kilogram f)",
      "BA: Foot (poundal)", "MM: mm (milli newton)", "CM: cm (centi newton)", "IN: Inch (pound f)",
      "GM: mm (kilogram f)", "US: USER_DEFINED",  "MN: mm (newton)"};
  return code >= 1 && code <= 10 ? kNames[code] : std::string_view("US: USER_DEFINED");
}

// One output line (fixed columns, io/output/fixed_columns.hpp) with I-deas' real field.
class Record : public io::FixedColumnLine<Record, 512> {
 public:
  // User-provided, so that `Record()` does not zero its 512-byte line first (value
  // initialisation of a class with an implicit constructor does): three records a cell.
  Record() noexcept {}
  using FixedColumnLine::integer;
  Record& integer(std::int64_t value) { return integer(value, 10); }
  // 1PE25.16: d.dddddddddddddddde+XX with an upper-case E.
  Record& real(double value) {
    char scratch[40];
    const auto result = std::to_chars(scratch, scratch + sizeof scratch, value, std::chars_format::scientific, 16);
    for (char* p = scratch; p < result.ptr; ++p)
      if (*p == 'e') *p = 'E';
    return field(std::string_view(scratch, static_cast<std::size_t>(result.ptr - scratch)), 25);
  }
};

// A cell-data array as int64 per block, or empty arrays when the mesh has none.
std::vector<NDArray> property_table(const Mesh& mesh, std::string_view name) {
  std::vector<NDArray> out;
  const std::vector<NDArray>* arrays = mesh.cell_data.find(name);
  if (arrays == nullptr) return out;
  for (const NDArray& array : *arrays)
    out.push_back(array.dtype() == DType::int64 ? array : array.astype(DType::int64));
  return out;
}

struct Group {
  std::string name;
  std::int64_t number = -1;
  std::vector<std::int64_t> nodes, elements;  // 1-based labels
};

class Writer {
 public:
  Writer(const std::string& path, const Mesh& mesh) : mesh_(mesh), file_(path, kFormat), out_(file_) {}

  void write() {
    write_units();
    write_nodes();
    write_elements();
    write_groups();
    out_.flush();
    file_.commit();
  }

 private:
  void open(int number) {
    Record().integer(-1, 6).end(out_);
    Record().integer(number, 6).end(out_);
  }
  void close() { Record().integer(-1, 6).end(out_); }

  void write_units() {
    const NDArray* code = mesh_.field_data.find("unv:units");
    const NDArray* factors = mesh_.field_data.find("unv:unit_factors");
    if (code == nullptr || factors == nullptr || code->size() < 1) return;
    const NDArray codes = code->astype(DType::int64);
    const NDArray values = factors->astype(DType::float64);
    double f[4] = {1.0, 1.0, 1.0, 0.0};
    for (std::int64_t i = 0; i < std::min<std::int64_t>(4, values.size()); ++i) f[i] = values.data_as<double>()[i];
    const std::int64_t units = codes.data_as<std::int64_t>()[0];
    open(164);
    const std::string_view description = units_description(units);
    std::string field = "  " + std::string(description);  // 20A1
    field.resize(20, ' ');
    Record().integer(units).text(field).integer(2).end(out_);
    Record().real(f[0]).real(f[1]).real(f[2]).end(out_);
    Record().real(f[3]).end(out_);
    close();
  }

  void write_nodes() {
    open(2411);
    const std::int64_t dim = mesh_.points.row_width();
    const NDArray points = mesh_.points.dtype() == DType::float64 ? mesh_.points : mesh_.points.astype(DType::float64);
    const double* xyz = points.data_as<double>();
    io::write_rows_in_parallel(out_, file_, mesh_.num_points(), 2 * Record::kMaxBytes, [&](char* p, std::int64_t i) {
      p = Record().integer(i + 1).integer(1).integer(1).integer(11).end(p);
      Record record;
      for (std::int64_t k = 0; k < 3; ++k) record.real(k < dim ? xyz[i * dim + k] : 0.0);
      return record.end(p);
    });
    close();
  }

  void write_elements() {
    open(2412);
    const std::vector<NDArray> pids = property_table(mesh_, "unv:pid");
    const std::vector<NDArray> mids = property_table(mesh_, "unv:mid");
    std::int64_t label = 0;
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      const CellBlock& block = mesh_.cells[b];
      const std::int64_t descriptor = detail::descriptor_of(block.type);
      const bool beam = detail::is_beam(descriptor);
      const std::int64_t n = block.connectivity.row_width();
      const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
      const std::span<const std::int8_t> order = detail::node_order(block.type);
      const std::int64_t* pid = b < pids.size() ? pids[b].data_as<std::int64_t>() : nullptr;
      const std::int64_t* mid = b < mids.size() ? mids[b].data_as<std::int64_t>() : nullptr;
      const std::int64_t first_label = label;
      io::write_rows_in_parallel(out_, file_, block.num_cells(), static_cast<std::size_t>(2 + (n + 7) / 8) * Record::kMaxBytes,
                                 [&](char* p, std::int64_t cell) {
                                   p = Record()
                                           .integer(first_label + cell + 1)
                                           .integer(descriptor)
                                           .integer(pid ? pid[cell] : 1)
                                           .integer(mid ? mid[cell] : 1)
                                           .integer(7)
                                           .integer(n)
                                           .end(p);
                                   if (beam) p = Record().integer(0).integer(1).integer(1).end(p);
                                   const std::int64_t* cell_nodes = nodes + cell * n;
                                   Record record;
                                   for (std::int64_t k = 0; k < n; ++k) {
                                     record.integer(cell_nodes[order.empty() ? k : order[static_cast<std::size_t>(k)]] + 1);
                                     if (k % 8 == 7 || k + 1 == n) p = record.end(p);
                                   }
                                   return p;
                                 });
      label += block.num_cells();
    }
    close();
  }

  void write_groups() {
    std::vector<Group> groups;
    for (const Region& region : mesh_.regions) {
      if (region.kind == RegionKind::Side) continue;
      auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.name == region.name; });
      if (it == groups.end()) {
        groups.push_back({region.name, -1, {}, {}});
        it = groups.end() - 1;
      }
      if (it->number < 0 && region.tag > 0) it->number = region.tag;
      std::vector<std::int64_t>& members = region.kind == RegionKind::Point ? it->nodes : it->elements;
      for (const std::int64_t entry : region.entries.values<std::int64_t>()) members.push_back(entry + 1);
    }
    if (groups.empty()) return;
    // Numbers: a region's tag where it is positive and not taken, else the next free one.
    std::vector<std::int64_t> taken;
    for (Group& group : groups) {
      if (group.number > 0 && std::find(taken.begin(), taken.end(), group.number) == taken.end())
        taken.push_back(group.number);
      else
        group.number = -1;
    }
    std::int64_t next = 1;
    for (Group& group : groups) {
      if (group.number > 0) continue;
      while (std::find(taken.begin(), taken.end(), next) != taken.end()) ++next;
      group.number = next;
      taken.push_back(next);
    }
    open(2467);
    for (const Group& group : groups) {
      const std::int64_t count = static_cast<std::int64_t>(group.nodes.size() + group.elements.size());
      Record record;
      record.integer(group.number);
      for (int k = 0; k < 6; ++k) record.integer(0);
      record.integer(count).end(out_);
      std::string name = group.name.empty() ? "GROUP_" + std::to_string(group.number) : group.name;
      std::replace_if(name.begin(), name.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
      Record().text(name).end(out_);
      Record entities;
      std::int64_t written = 0;
      const auto put = [&](std::int64_t type, std::int64_t tag) {
        entities.integer(type).integer(tag).integer(0).integer(0);
        if (++written % 2 == 0 || written == count) entities.end(out_);
      };
      for (const std::int64_t tag : group.nodes) put(detail::kNodeEntity, tag);
      for (const std::int64_t tag : group.elements) put(detail::kElementEntity, tag);
    }
    close();
  }

  const Mesh& mesh_;
  io::AtomicFile file_;
  io::OutputBuffer out_;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  if (mesh.points.ndim() != 2 || mesh.points.dim(1) < 1 || mesh.points.dim(1) > 3)
    throw std::invalid_argument("the universal file format needs 1-, 2- or 3-D points");
  for (const CellBlock& block : mesh.cells)
    if (block.is_ragged() || detail::descriptor_of(block.type) == 0)
      throw std::invalid_argument("the universal file format has no FE descriptor for cell type '" + block.type + "'");
  for (const Region& region : mesh.regions)
    if (region.kind != RegionKind::Side && region.entries.dtype() != DType::int64)
      throw std::invalid_argument("region '" + region.name + "' entries must be int64");
  for (const std::string_view name : {"unv:pid", "unv:mid"})
    if (const auto* arrays = mesh.cell_data.find(name))
      for (const NDArray& array : *arrays)
        if (dtype_is_float(array.dtype()) || array.ndim() != 1)
          throw std::invalid_argument("cell data '" + std::string(name) + "' must be one integer per cell");
  Writer(path, mesh).write();
}

}  // namespace meshioplusplus::unv
