// ANSYS MAPDL archive (.cdb) writer (see ansys_cdb.hpp): the blocks pymapdl-reader's
// save_as_archive writes (/PREP7, ET, NBLOCK, EBLOCK, CMBLOCK), with 17-digit reals.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/ansys_cdb/ansys_cdb.hpp"
#include "formats/ansys_cdb/ansys_cdb_elements.hpp"
#include "io/cells/integer_cell_data.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"
#include "io/output/right_aligned.hpp"

namespace meshioplusplus::ansys_cdb {
namespace {

constexpr int kIntegerWidth = 10;
constexpr int kRealWidth = 25;
constexpr std::string_view kZeros = "         0         0         0         0";  // zero fields, I10 each

// `value` right-aligned in `width` columns at p (at most 24 bytes); returns the end. The
// common field (I10, 0 <= value < 10^10: every node and element number) through
// io::put_right_aligned; the EBLOCK rows are 19 of these each and most of the writer's time.
[[gnu::always_inline]] inline char* put_integer(char* p, std::int64_t value, int width = kIntegerWidth) {
  if (io::put_right_aligned(p, value, width)) [[likely]]
    return p + width;
  char text[24];
  const auto result = std::to_chars(text, text + sizeof text, value);
  const int length = static_cast<int>(result.ptr - text);
  if (length < width) p = std::fill_n(p, width - length, ' ');
  return std::copy(text, result.ptr, p);
}

void put_integer(io::OutputBuffer& out, std::int64_t value, int width = kIntegerWidth) {
  char text[48];
  out.raw().append(text, static_cast<std::size_t>(put_integer(text, value, width) - text));
}

void check_finite(double value) {
  if (!std::isfinite(value)) throw std::invalid_argument("ANSYS .cdb cannot hold the coordinate " + std::to_string(value));
}

// E25.16E3: " 1.2345678901234567E+000", 17 significant digits (every double exactly), at p (a
// finite value, at most 40 bytes); returns the end.
char* put_real(char* p, double value) {
  char text[40];
  const auto result = std::to_chars(text, text + sizeof text, value, std::chars_format::scientific, 16);
  std::string_view printed(text, static_cast<std::size_t>(result.ptr - text));
  const std::size_t e = printed.find('e');
  const std::string_view mantissa = printed.substr(0, e);
  const char sign = printed[e + 1];
  std::string_view exponent = printed.substr(e + 2);
  char field[40];
  std::size_t n = 0;
  std::memcpy(field + n, mantissa.data(), mantissa.size());
  n += mantissa.size();
  field[n++] = 'E';
  field[n++] = sign;
  for (std::size_t k = exponent.size(); k < 3; ++k) field[n++] = '0';
  std::memcpy(field + n, exponent.data(), exponent.size());
  n += exponent.size();
  if (static_cast<int>(n) < kRealWidth) p = std::fill_n(p, static_cast<std::size_t>(kRealWidth) - n, ' ');
  return std::copy(field, field + n, p);
}

// An int64 cell data column for every block, or nullptr.
const std::vector<NDArray>* column(const Mesh& mesh, std::string_view name) {
  const std::vector<NDArray>* arrays = mesh.cell_data.find(name);
  return arrays != nullptr && io::holds_one_integer_per_cell(mesh, *arrays) ? arrays : nullptr;
}

// One block's values of an optional integer column, read per cell while rows are formatted:
// an int64 column (what the reader makes) straight from memory, another integer type widened,
// a missing column as `fallback`.
class BlockColumn {
 public:
  BlockColumn(const std::vector<NDArray>* arrays, std::size_t block, std::int64_t fallback)
      : array_(arrays == nullptr ? nullptr : &(*arrays)[block]),
        int64_(array_ != nullptr && array_->dtype() == DType::int64 ? array_->data_as<std::int64_t>() : nullptr),
        fallback_(fallback) {}
  std::int64_t operator()(std::int64_t cell) const {
    if (int64_ != nullptr) return int64_[cell];
    return array_ == nullptr ? fallback_ : io::integer_at(*array_, cell);
  }

 private:
  const NDArray* array_;
  const std::int64_t* int64_;
  std::int64_t fallback_;
};

std::string component_name(std::string_view name) {
  std::string out;
  for (char c : name)
    out.push_back((std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_');
  if (out.empty()) out = "COMPONENT";
  return out;
}

// Numbers ascending as CMBLOCK items: runs a, a+1 … b as a, -b.
std::vector<std::int64_t> cmblock_items(std::vector<std::int64_t> numbers) {
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  std::vector<std::int64_t> items;
  for (std::size_t i = 0; i < numbers.size();) {
    std::size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    items.push_back(numbers[i]);
    if (j > i) items.push_back(-numbers[j]);
    i = j + 1;
  }
  return items;
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& /*options*/) {
  const std::vector<NDArray>* element_numbers = column(mesh, "ansys:element");
  const std::vector<NDArray>* types = column(mesh, "ansys:type");
  const std::vector<NDArray>* routines = column(mesh, "ansys:routine");
  const std::vector<NDArray>* mats = column(mesh, "ansys:mat");
  const std::vector<NDArray>* reals = column(mesh, "ansys:real");
  const std::vector<NDArray>* secnums = column(mesh, "ansys:secnum");
  if (mesh.points.ndim() != 2 || mesh.points.dim(1) < 1 || mesh.points.dim(1) > 3)
    throw std::invalid_argument("ANSYS .cdb needs points of 1 to 3 coordinates");

  // Element numbers: the mesh's when they are positive and distinct.
  const std::int64_t total = mesh.num_cells();
  std::int64_t max_number = total;
  if (element_numbers != nullptr) {
    // Numbers ascending over all blocks (as read, and as meshio++ writes them) are distinct
    // without a sort; only others are copied and sorted to look for a repeat.
    bool ascending = true;
    std::int64_t previous = 0;
    for (std::size_t b = 0; b < mesh.cells.size() && ascending; ++b) {
      const BlockColumn number(element_numbers, b, 0);
      for (std::int64_t c = 0; c < mesh.cells[b].num_cells() && ascending; ++c) {
        ascending = number(c) > previous;
        previous = number(c);
      }
    }
    max_number = previous;
    if (!ascending) {
      std::vector<std::int64_t> all;
      all.reserve(static_cast<std::size_t>(total));
      for (std::size_t b = 0; b < mesh.cells.size(); ++b)
        for (std::int64_t c = 0; c < mesh.cells[b].num_cells(); ++c) all.push_back(io::integer_at((*element_numbers)[b], c));
      std::sort(all.begin(), all.end());
      if (!all.empty() && (all.front() <= 0 || std::adjacent_find(all.begin(), all.end()) != all.end())) element_numbers = nullptr;
      max_number = element_numbers == nullptr || all.empty() ? total : all.back();
    }
  }

  // Each block's routine (with MESH200's KEYOPT(1)) and layout; one type number per routine and
  // KEYOPT: the mesh's ansys:type where each of its numbers names one, else 1, 2, … in order.
  struct BlockPlan {
    std::int64_t routine = 0;
    int keyopt = -1;
    std::span<const std::int8_t> order;
    std::int64_t key() const noexcept { return routine * 100 + keyopt + 1; }
  };
  std::vector<BlockPlan> plans(mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    const std::int64_t fallback = detail::default_routine(block.type);
    if (block.is_ragged() || fallback == 0)
      throw std::invalid_argument("ANSYS .cdb has no element for cells of type '" + block.type + "'");
    BlockPlan plan{fallback, -1, detail::written_order(detail::routine_family(fallback), block.type)};
    if (routines != nullptr && block.num_cells() > 0) {
      const std::int64_t given = io::integer_at((*routines)[b], 0);
      bool same = true;
      for (std::int64_t c = 1; c < block.num_cells() && same; ++c) same = io::integer_at((*routines)[b], c) == given;
      if (same && given == 200 && detail::mesh200_keyopt(block.type) >= 0)
        plan = {200, detail::mesh200_keyopt(block.type), detail::mesh200_order(block.type)};
      else if (same && given != 200 && !detail::written_order(detail::routine_family(given), block.type).empty())
        plan = {given, -1, detail::written_order(detail::routine_family(given), block.type)};
    }
    plans[b] = plan;
  }
  struct TypeEntry {
    std::int64_t type, routine;
    int keyopt;
  };
  std::vector<TypeEntry> et;
  std::unordered_map<std::int64_t, std::int64_t> type_for_key;
  bool use_types = types != nullptr;
  if (use_types) {
    std::unordered_map<std::int64_t, std::int64_t> key_of_type;
    for (std::size_t b = 0; b < mesh.cells.size() && use_types; ++b)
      for (std::int64_t c = 0; c < mesh.cells[b].num_cells(); ++c) {
        const std::int64_t type = io::integer_at((*types)[b], c);
        const auto [it, inserted] = key_of_type.try_emplace(type, plans[b].key());
        if (type <= 0 || it->second != plans[b].key()) {
          use_types = false;
          break;
        }
        if (inserted) et.push_back({type, plans[b].routine, plans[b].keyopt});
      }
  }
  if (!use_types) {
    et.clear();
    for (const BlockPlan& plan : plans)
      if (type_for_key.try_emplace(plan.key(), static_cast<std::int64_t>(et.size()) + 1).second)
        et.push_back({static_cast<std::int64_t>(et.size()) + 1, plan.routine, plan.keyopt});
  }
  std::sort(et.begin(), et.end(), [](const TypeEntry& a, const TypeEntry& b) { return a.type < b.type; });

  io::AtomicFile file(path, "ansys_cdb");
  io::OutputBuffer out(file);
  out.text("/PREP7\n");
  for (const TypeEntry& entry : et) {
    out.text("ET,");
    put_integer(out, entry.type);
    out.text(",");
    out.number(entry.routine);
    out.put('\n');
    if (entry.keyopt >= 0) {
      out.text("KEYOPT,");
      put_integer(out, entry.type);
      out.text(",1,");
      out.number(entry.keyopt);
      out.put('\n');
    }
  }

  const std::int64_t n = mesh.num_points();
  const std::int64_t dim = mesh.points.dim(1);
  const NDArray points = mesh.points.dtype() == DType::float64 ? mesh.points : mesh.points.astype(DType::float64);
  const double* xyz = points.data_as<double>();
  if (n > 0) {
    out.text("NBLOCK,6,SOLID,");
    put_integer(out, n);
    out.put(',');
    put_integer(out, n);
    out.text("\n(3i10,6e25.16e3)\n");
    for (std::int64_t i = 0; i < n * dim; ++i) check_finite(xyz[i]);  // before any row: the error is the first value's
    io::write_rows_in_parallel(out, file, n, 3 * 24 + 3 * 40 + 1, [&](char* p, std::int64_t i) {
      p = put_integer(p, i + 1);
      p = std::copy(kZeros.begin(), kZeros.begin() + 2 * kIntegerWidth, p);  // the solid key and the line number
      for (std::int64_t axis = 0; axis < 3; ++axis) p = put_real(p, axis < dim ? xyz[i * dim + axis] : 0.0);
      *p++ = '\n';
      return p;
    });
    out.text("N,R5.3,LOC,        -1,\n");
  }

  // Global cell index -> element number, for the CMBLOCKs of cell regions only.
  const bool cell_regions = std::any_of(mesh.regions.begin(), mesh.regions.end(), [](const Region& region) { return region.kind == RegionKind::Cell; });
  std::vector<std::int64_t> numbers;
  if (cell_regions) numbers.reserve(static_cast<std::size_t>(total));
  if (total > 0) {
    out.text("EBLOCK,19,SOLID,");
    put_integer(out, max_number);
    out.put(',');
    put_integer(out, total);
    out.text("\n(19i10)\n");
    std::int64_t next = 1;
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
      const CellBlock& block = mesh.cells[b];
      const BlockPlan& plan = plans[b];
      const std::int64_t width = block.connectivity.row_width();
      const std::int64_t* ids = block.connectivity.data_as<std::int64_t>();
      const std::int64_t type = use_types ? 0 : type_for_key.at(plan.key());
      const std::int64_t count = static_cast<std::int64_t>(plan.order.size());
      const std::int64_t first_number = next;  // this block's numbers when the mesh has none
      next += block.num_cells();
      const BlockColumn number(element_numbers, b, 0), mat(mats, b, 1), real(reals, b, 1), secnum(secnums, b, 1);
      const BlockColumn type_of(use_types ? types : nullptr, b, type);
      if (cell_regions)
        for (std::int64_t c = 0; c < block.num_cells(); ++c) numbers.push_back(element_numbers != nullptr ? number(c) : first_number + c);
      io::write_rows_in_parallel(out, file, block.num_cells(), static_cast<std::size_t>(11 + count) * 24 + 2, [&](char* p, std::int64_t c) {
        p = put_integer(p, mat(c));
        p = put_integer(p, type_of(c));
        p = put_integer(p, real(c));
        p = put_integer(p, secnum(c));
        p = std::copy(kZeros.begin(), kZeros.end(), p);
        p = put_integer(p, count);
        p = std::copy(kZeros.begin(), kZeros.begin() + kIntegerWidth, p);
        p = put_integer(p, element_numbers != nullptr ? number(c) : first_number + c);
        for (std::int64_t k = 0; k < count; ++k) {
          if (k == 8) *p++ = '\n';
          const std::int64_t from = plan.order[static_cast<std::size_t>(k)];
          p = put_integer(p, from < width ? ids[c * width + from] + 1 : 0);
        }
        *p++ = '\n';
        return p;
      });
    }
    out.text("        -1\n");
  }

  for (const Region& region : mesh.regions) {
    if (region.kind == RegionKind::Side) continue;
    const bool nodes = region.kind == RegionKind::Point;
    const std::int64_t* entries = region.entries.data_as<std::int64_t>();
    std::vector<std::int64_t> members;
    members.reserve(static_cast<std::size_t>(region.entries.rows()));
    for (std::int64_t k = 0; k < region.entries.rows(); ++k) {
      const std::int64_t entry = entries[k];
      if (entry < 0 || entry >= (nodes ? n : total))
        throw std::invalid_argument("region '" + region.name + "' names entry " + std::to_string(entry) + ", out of range");
      members.push_back(nodes ? entry + 1 : numbers[static_cast<std::size_t>(entry)]);
    }
    const std::vector<std::int64_t> items = cmblock_items(std::move(members));
    out.text("CMBLOCK,");
    out.text(component_name(region.name));
    out.text(nodes ? ",NODE," : ",ELEM,");
    put_integer(out, static_cast<std::int64_t>(items.size()), 8);
    out.text("\n(8i10)\n");
    for (std::size_t k = 0; k < items.size(); ++k) {
      put_integer(out, items[k]);
      if (k % 8 == 7 || k + 1 == items.size()) out.put('\n');
    }
  }
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::ansys_cdb
