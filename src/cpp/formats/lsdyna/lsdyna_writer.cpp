// LS-DYNA keyword deck writer (see lsdyna.hpp), through a temporary file renamed over the
// target.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "formats/lsdyna/lsdyna.hpp"
#include "formats/lsdyna/lsdyna_internal.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"
#include "io/source/parallel.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus::lsdyna {
namespace {

using namespace detail;

// How one cell type is written: its keyword's family and the LS-DYNA node positions, as
// indices into the meshio row.
struct Written {
  std::string_view type;
  int family;
  std::vector<int> order;
  bool two_line = false;         // EID PID on a card of their own, then the nodes, 10 a card
  std::string_view keyword = {};  // when not the family's (*ELEMENT_SOLID_H20)
};

const std::vector<Written>& written_types() {
  static const std::vector<Written> table = {
      {"vertex", kMass, {0}},
      {"line", kBeam, {0, 1}},
      {"triangle", kShell, {0, 1, 2, 2}},
      {"quad", kShell, {0, 1, 2, 3}},
      {"triangle6", kShell, {0, 1, 2, 2, 3, 4, 5, 5}},
      {"quad8", kShell, {0, 1, 2, 3, 4, 5, 6, 7}},
      {"tetra", kSolid, {0, 1, 2, 3, 3, 3, 3, 3}},
      {"pyramid", kSolid, {0, 1, 2, 3, 4, 4, 4, 4}},
      {"wedge", kSolid, {0, 2, 5, 3, 1, 1, 4, 4}},
      {"hexahedron", kSolid, {0, 1, 2, 3, 4, 5, 6, 7}},
      {"tetra10", kSolid, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, true},
      // LS-DYNA's 20-node order is VTK's: corners, bottom edges, top edges, vertical edges.
      {"hexahedron20", kSolid, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, true,
       "*ELEMENT_SOLID_H20"},
  };
  return table;
}

const Written* written(std::string_view type) {
  for (const Written& w : written_types())
    if (w.type == type) return &w;
  return nullptr;
}

const char* keyword_of(int family) {
  switch (family) {
    case kMass: return "*ELEMENT_MASS";
    case kBeam: return "*ELEMENT_BEAM";
    case kShell: return "*ELEMENT_SHELL";
    default: return "*ELEMENT_SOLID";
  }
}

// The format mark and id width for ids up to `largest`: standard (8), I10 ('%', 10) or
// long ('+', 20).
struct IdFormat {
  std::string_view mark;
  std::size_t width;
};
IdFormat id_format(std::int64_t largest, std::size_t standard_width) {
  if (largest < 100'000'000 || (standard_width == 10 && largest < 10'000'000'000)) return {"", standard_width};
  if (largest < 10'000'000'000) return {" %", 10};
  return {" +", 20};
}

void right(std::string& line, std::string_view text, std::size_t width) {
  if (text.size() < width) line.append(width - text.size(), ' ');
  line.append(text);
}

void right(std::string& line, std::int64_t value, std::size_t width) {
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  right(line, std::string_view(buffer, static_cast<std::size_t>(end - buffer)), width);
}

// Two decimal digits per value below 100.
constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// `value` right-aligned in `width` columns (no padding for 0) at p; returns the end.
// Non-negative values that fit are written from the field's right end, two digits a step,
// without a library call (these are most of a deck's bytes).
inline char* put_right(char* p, std::int64_t value, std::size_t width) {
  if (value >= 0 && width > 0) {
    char* const end = p + width;
    char* q = end;
    auto v = static_cast<std::uint64_t>(value);
    while (v >= 100 && q - p >= 2) {
      q -= 2;
      std::memcpy(q, kDigitPairs + 2 * (v % 100), 2);
      v /= 100;
    }
    if (v < 10 && q - p >= 1) {
      *--q = static_cast<char>('0' + v);
      v = 0;
    } else if (v < 100 && q - p >= 2) {
      q -= 2;
      std::memcpy(q, kDigitPairs + 2 * v, 2);
      v = 0;
    }
    if (v == 0) {
      while (q > p) *--q = ' ';
      return end;
    }
  }
  char digits[24];
  const auto n = static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, value).ptr - digits);
  if (n < width) {
    std::memset(p, ' ', width - n);
    p += width - n;
  }
  std::memcpy(p, digits, n);
  return p + n;
}

inline char* put_right(char* p, std::string_view text, std::size_t width) {
  if (text.size() < width) {
    std::memset(p, ' ', width - text.size());
    p += width - text.size();
  }
  std::memcpy(p, text.data(), text.size());
  return p + text.size();
}

// The shortest text that reads back to `value`, with a decimal point ("1" → "1.0").
std::string_view real_text(double value, char (&buffer)[40]) {
  if (!std::isfinite(value)) throw std::invalid_argument("LS-DYNA cards cannot hold a non-finite coordinate");
  char* end = std::to_chars(buffer, buffer + 32, value).ptr;
  std::string_view text(buffer, static_cast<std::size_t>(end - buffer));
  if (text.find('.') == std::string_view::npos) {
    const std::size_t e = std::min(text.find('e'), text.size());
    std::copy_backward(buffer + e, end, end + 2);
    buffer[e] = '.';
    buffer[e + 1] = '0';
    text = std::string_view(buffer, text.size() + 2);
  }
  return text;
}

std::string title_line(const std::string& name) {
  std::string title = name;
  for (char& c : title)
    if (c == '\n' || c == '\r') c = ' ';
  if (!title.empty() && (title.front() == '*' || title.front() == '$')) title.insert(title.begin(), ' ');
  return title;
}

void write_nodes(io::OutputBuffer& out, io::AtomicFile& file, const Mesh& mesh) {
  const std::int64_t dim = mesh.points.dim(1);
  if (dim > 3) throw std::invalid_argument("LS-DYNA nodes have 3 coordinates; the points have " + std::to_string(dim));
  const IdFormat ids = id_format(mesh.num_points(), 8);
  const std::size_t real_width = ids.width == 20 ? 20 : 16;
  out.text("*NODE");
  out.text(ids.mark);
  out.put('\n');
  visit_dtype(mesh.points.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T* x = mesh.points.data_as<T>();
      io::write_rows_in_parallel(out, file, mesh.num_points(), 20 + 3 * 41 + 2, [&](char* p, std::int64_t i) {
        char buffers[3][40];
        std::string_view texts[3];
        bool fits = true;
        for (std::int64_t axis = 0; axis < 3; ++axis) {
          texts[axis] = real_text(axis < dim ? static_cast<double>(x[i * dim + axis]) : 0.0, buffers[axis]);
          fits = fits && texts[axis].size() <= real_width;
        }
        if (fits) {
          p = put_right(p, i + 1, ids.width);
          for (const std::string_view text : texts) p = put_right(p, text, real_width);
        } else {  // free format: exact whatever the length
          p = put_right(p, i + 1, 0);
          for (const std::string_view text : texts) {
            *p++ = ',';
            p = put_right(p, text, 0);
          }
        }
        *p++ = '\n';
        return p;
      });
    } else {
      throw std::invalid_argument("LS-DYNA writer: points must be floating point");
    }
  });
}

struct PartPlan {
  std::vector<std::int64_t> pid_of_cell;
  std::vector<std::pair<std::int64_t, std::string>> parts;  // pid, title
  std::vector<const Region*> set_regions;                    // Cell regions written as sets
};

PartPlan plan_parts(const Mesh& mesh, const std::vector<int>& family_of_cell, const std::vector<std::size_t>& block_of_cell) {
  PartPlan plan;
  const auto cells = static_cast<std::int64_t>(family_of_cell.size());
  plan.pid_of_cell.assign(family_of_cell.size(), 0);
  std::vector<std::int64_t> used;
  std::vector<std::pair<const Region*, std::int64_t>> chosen;
  for (const Region& region : mesh.regions) {
    if (region.kind != RegionKind::Cell) continue;
    const auto entries = region.entries.values<std::int64_t>();
    bool part = region.dim >= 0 && !entries.empty();
    for (const std::int64_t c : entries)
      part = part && c >= 0 && c < cells && plan.pid_of_cell[c] == 0 &&
             family_of_cell[c] == family_of_cell[entries[0]];
    if (!part) {
      plan.set_regions.push_back(&region);
      continue;
    }
    const bool free_tag = region.tag > 0 && std::find(used.begin(), used.end(), region.tag) == used.end();
    const std::int64_t pid = free_tag ? region.tag : 0;
    if (free_tag) used.push_back(pid);
    for (const std::int64_t c : entries) plan.pid_of_cell[c] = -1;  // claimed; pid set below
    chosen.emplace_back(&region, pid);
  }
  std::int64_t next = used.empty() ? 0 : *std::max_element(used.begin(), used.end());
  for (auto& [region, pid] : chosen) {
    if (pid == 0) pid = ++next;
    for (const std::int64_t c : region->entries.values<std::int64_t>()) plan.pid_of_cell[c] = pid;
    plan.parts.emplace_back(pid, region->name);
  }
  std::size_t block = static_cast<std::size_t>(-1);
  std::int64_t block_pid = 0;
  for (std::size_t c = 0; c < plan.pid_of_cell.size(); ++c) {
    if (plan.pid_of_cell[c] != 0) continue;
    if (block_of_cell[c] != block) {
      block = block_of_cell[c];
      block_pid = ++next;
      plan.parts.emplace_back(block_pid, mesh.cells[block].type);
    }
    plan.pid_of_cell[c] = block_pid;
  }
  return plan;
}

void write_elements(io::OutputBuffer& out, io::AtomicFile& file, const Mesh& mesh, const PartPlan& plan) {
  std::int64_t largest_pid = 0;
  for (const auto& part : plan.parts) largest_pid = std::max(largest_pid, part.first);
  const IdFormat ids = id_format(std::max({mesh.num_points(), mesh.num_cells(), largest_pid}), 8);
  std::int64_t cell = 0;
  for (const CellBlock& block : mesh.cells) {
    const Written& w = *written(block.type);
    out.text(w.keyword.empty() ? std::string_view(keyword_of(w.family)) : w.keyword);
    out.text(ids.mark);
    out.put('\n');
    const std::int64_t width = block.connectivity.row_width();
    const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
    const std::int64_t first_cell = cell;
    const std::size_t longest = static_cast<std::size_t>(2 + w.order.size()) * ids.width + 4 + 20;
    io::write_rows_in_parallel(out, file, block.num_cells(), longest, [&](char* p, std::int64_t r) {
      const std::int64_t at = first_cell + r;
      p = put_right(p, at + 1, ids.width);
      const std::int64_t* row = nodes + r * width;
      if (w.family == kMass) {
        p = put_right(p, row[0] + 1, ids.width);
        p = put_right(p, "0.0", ids.width == 20 ? 20 : 16);
        p = put_right(p, plan.pid_of_cell[static_cast<std::size_t>(at)], ids.width);
      } else {
        p = put_right(p, plan.pid_of_cell[static_cast<std::size_t>(at)], ids.width);
        if (w.two_line) *p++ = '\n';
        for (std::size_t j = 0; j < w.order.size(); ++j) {
          if (j > 0 && j % 10 == 0) *p++ = '\n';  // node cards hold 10 each
          p = put_right(p, row[w.order[j]] + 1, ids.width);
        }
      }
      *p++ = '\n';
      return p;
    });
    cell += block.num_cells();
  }
}

void write_id_lines(io::OutputBuffer& out, const std::vector<std::int64_t>& ids, std::size_t width) {
  std::string line;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    right(line, ids[k], width);
    if (k % 8 == 7 || k + 1 == ids.size()) {
      line.push_back('\n');
      out.text(line);
      line.clear();
    }
  }
}

// A free set id in its family's id space: the tag when it is free, else the next one.
std::int64_t set_id(std::vector<std::int64_t>& used, std::int64_t tag) {
  if (tag <= 0 || std::find(used.begin(), used.end(), tag) != used.end())
    tag = used.empty() ? 1 : *std::max_element(used.begin(), used.end()) + 1;
  used.push_back(tag);
  return tag;
}

void write_set(io::OutputBuffer& out, std::string_view family, const std::string& name, std::int64_t sid,
               const std::vector<std::int64_t>& ids) {
  std::int64_t largest = sid;
  for (const std::int64_t id : ids) largest = std::max(largest, id);
  const IdFormat format = id_format(largest, 10);
  out.text("*SET_");
  out.text(family);
  out.text("_LIST_TITLE");
  out.text(format.mark);
  out.put('\n');
  out.text(title_line(name));
  out.put('\n');
  std::string line;
  right(line, sid, format.width);
  line.push_back('\n');
  out.text(line);
  write_id_lines(out, ids, format.width);
}

void write_sets(io::OutputBuffer& out, const Mesh& mesh, const PartPlan& plan, const std::vector<int>& family_of_cell) {
  std::vector<std::int64_t> used[kFamilies + 1];  // set ids per family; the last: node sets
  for (const Region& region : mesh.regions) {
    if (region.kind == RegionKind::Point) {
      std::vector<std::int64_t> ids;
      for (const std::int64_t p : region.entries.values<std::int64_t>()) ids.push_back(p + 1);
      write_set(out, "NODE", region.name, set_id(used[kFamilies], region.tag), ids);
      continue;
    }
    if (std::find(plan.set_regions.begin(), plan.set_regions.end(), &region) == plan.set_regions.end()) continue;
    std::vector<std::int64_t> by_family[kFamilies];
    for (const std::int64_t c : region.entries.values<std::int64_t>())
      if (c >= 0 && c < static_cast<std::int64_t>(family_of_cell.size())) by_family[family_of_cell[c]].push_back(c + 1);
    bool any = false;
    for (const int family : {kSolid, kShell, kBeam}) {
      if (by_family[family].empty()) continue;
      any = true;
      write_set(out, kFamilyName[family], region.name, set_id(used[family], region.tag), by_family[family]);
    }
    if (!any) write_set(out, "SOLID", region.name, set_id(used[kSolid], region.tag), {});  // empty (or mass cells only)
  }
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  (void)options;
  std::vector<int> family_of_cell;
  std::vector<std::size_t> block_of_cell;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    const Written* w = block.is_ragged() ? nullptr : written(block.type);
    if (w == nullptr) throw std::invalid_argument("LS-DYNA has no element for cells of type '" + block.type + "'");
    family_of_cell.insert(family_of_cell.end(), static_cast<std::size_t>(block.num_cells()), w->family);
    block_of_cell.insert(block_of_cell.end(), static_cast<std::size_t>(block.num_cells()), b);
  }
  const PartPlan plan = plan_parts(mesh, family_of_cell, block_of_cell);
  io::AtomicFile file(path, "lsdyna");
  io::OutputBuffer out(file);
  out.text("*KEYWORD\n$ LS-DYNA keyword deck written by meshio++\n");
  write_nodes(out, file, mesh);
  write_elements(out, file, mesh, plan);
  std::string line;
  for (const auto& [pid, title] : plan.parts) {
    out.text("*PART\n");
    out.text(title_line(title));
    out.put('\n');
    line.clear();
    const IdFormat format = id_format(pid, 10);
    right(line, pid, format.width);
    right(line, 1, format.width);
    right(line, 1, format.width);
    line.push_back('\n');
    if (!format.mark.empty()) throw std::invalid_argument("LS-DYNA writer: part id " + std::to_string(pid) + " needs more than 10 digits");
    out.text(line);
  }
  write_sets(out, mesh, plan, family_of_cell);
  out.text("*END\n");
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::lsdyna
