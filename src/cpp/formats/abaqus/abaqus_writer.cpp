// Abaqus .inp writer (see abaqus.hpp), through a temporary file renamed over the target. Node
// and element lines are formatted on all cores (io/output/parallel_rows.hpp), in file order at
// any thread count.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "formats/abaqus/abaqus.hpp"
#include "formats/abaqus/abaqus_element_types.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/float_format.hpp"
#include "io/output/parallel_rows.hpp"

namespace meshioplusplus::abaqus {
namespace {

// Abaqus reads at most 16 values from a data line; longer lists go on over further lines,
// each but the last ending in a comma.
constexpr int kValuesPerLine = 16;

// Names with characters beyond letters, digits and _-. are quoted.
std::string quoted_if_needed(std::string_view name) {
  const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
  if (plain) return std::string(name);
  std::string quoted(1, '"');
  quoted.append(name);
  quoted += '"';
  return quoted;
}

// Comma-separated values, line breaks every kValuesPerLine values.
class ValueList {
 public:
  explicit ValueList(io::OutputBuffer& out) : out_(out) {}
  ~ValueList() { end(); }
  ValueList(const ValueList&) = delete;
  ValueList& operator=(const ValueList&) = delete;

  template <class T> void add(T value) {
    if (count_ > 0) out_.text(count_ % kValuesPerLine == 0 ? ",\n" : ", ");
    out_.number(value);
    ++count_;
  }
  void end() {
    if (count_ > 0) out_.put('\n');
    count_ = 0;
  }

 private:
  io::OutputBuffer& out_;
  int count_ = 0;
};

// ValueList's lines, formatted at a row's place by io::write_rows_in_parallel (the node and
// element sections).
class ValueRow {
 public:
  explicit ValueRow(char* p) : p_(p) {}
  void add(std::int64_t value) {
    separate();
    p_ = io::put_number(p_, value);
  }
  void add(double value, const io::FloatFormat& format) {
    separate();
    p_ = io::put_float(p_, value, format);
  }
  char* end() {
    if (count_ > 0) *p_++ = '\n';
    return p_;
  }
  // At most this many bytes for `values` values of at most `value_chars` characters.
  static std::size_t longest(std::size_t values, std::size_t value_chars) { return values * (value_chars + 2) + 1; }

 private:
  void separate() {
    if (count_ > 0) p_ = io::put_text(p_, count_ % kValuesPerLine == 0 ? ",\n" : ", ");
    ++count_;
  }
  char* p_;
  int count_ = 0;
};

struct BlockName {
  std::string name;
  std::span<const int> order;  // meshio node k is written at position order[k]
};

std::vector<BlockName> block_names(const Mesh& mesh, bool translate) {
  const bool planar = mesh.points.dim(1) < 3;
  std::vector<BlockName> names;
  for (const CellBlock& block : mesh.cells) {
    if (!translate) {
      names.push_back({block.type, {}});
      continue;
    }
    const std::string_view name = detail::abaqus_name(block.type, planar);
    if (name.empty()) throw std::invalid_argument("Abaqus has no element for cells of type '" + block.type + "'");
    names.push_back({std::string(name), detail::meshio_to_file(block.type)});
  }
  return names;
}

void write_nodes(io::OutputBuffer& out, io::AtomicFile& file, const NDArray& points, const io::FloatFormat& format) {
  out.text("*NODE\n");
  const std::int64_t dim = points.dim(1);
  visit_dtype(points.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T* x = points.data_as<T>();
      const std::size_t longest = ValueRow::longest(static_cast<std::size_t>(dim) + 1, io::max_float_chars(format));
      io::write_rows_in_parallel(out, file, points.rows(), longest, [&](char* p, std::int64_t i) {
        ValueRow line(p);
        line.add(i + 1);
        for (std::int64_t axis = 0; axis < dim; ++axis) line.add(static_cast<double>(x[i * dim + axis]), format);
        return line.end();
      });
    }
  });
}

void write_elements(io::OutputBuffer& out, io::AtomicFile& file, const Mesh& mesh, const std::vector<BlockName>& names) {
  std::int64_t first_label = 1;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    out.text("*ELEMENT, TYPE=");
    out.text(names[b].name);
    out.put('\n');
    const std::int64_t nodes = block.connectivity.row_width();
    const std::int64_t* ids = block.connectivity.data_as<std::int64_t>();
    const std::span<const int> order = names[b].order;
    const std::size_t longest = ValueRow::longest(static_cast<std::size_t>(nodes) + 1, io::kMaxNumberChars);
    io::write_rows_in_parallel(out, file, block.num_cells(), longest, [&](char* p, std::int64_t cell) {
      ValueRow line(p);
      line.add(first_label + cell);
      const std::int64_t* row = ids + cell * nodes;
      if (order.empty()) {
        for (std::int64_t k = 0; k < nodes; ++k) line.add(row[k] + 1);
      } else {
        // order[k] is where meshio node k goes: write position j holds the node whose order is j.
        std::int64_t small[32];
        std::vector<std::int64_t> large(nodes > 32 ? static_cast<std::size_t>(nodes) : 0);
        std::int64_t* written = large.empty() ? small : large.data();
        for (std::int64_t k = 0; k < nodes; ++k) written[order[static_cast<std::size_t>(k)]] = row[k] + 1;
        for (std::int64_t j = 0; j < nodes; ++j) line.add(written[j]);
      }
      return line.end();
    });
    first_label += block.num_cells();
  }
}

void write_set(io::OutputBuffer& out, std::string_view keyword, std::string_view name,
               std::span<const std::int64_t> zero_based) {
  out.text(keyword);
  out.text(quoted_if_needed(name));
  out.put('\n');
  ValueList line(out);
  for (const std::int64_t index : zero_based) line.add(index + 1);
}

// One element set per face label, then the surface built from them. Pairs whose cell has no
// Abaqus face for the facet (lines, vertices) are left out.
void write_surface(io::OutputBuffer& out, const Region& region, const Mesh& mesh) {
  const NDArray bases = block_bases(mesh.cells);
  const auto first_cells = bases.values<std::int64_t>();
  std::map<int, std::vector<std::int64_t>> cells_by_label;
  const std::int64_t* pairs = region.entries.data_as<std::int64_t>();
  for (std::int64_t i = 0; i < region.entries.rows(); ++i) {
    const std::int64_t cell = pairs[2 * i];
    const auto block = std::upper_bound(first_cells.begin(), first_cells.end(), cell) - first_cells.begin() - 1;
    const int label = detail::face_of_facet(mesh.cells[static_cast<std::size_t>(block)].type, pairs[2 * i + 1]);
    if (label > 0) cells_by_label[label].push_back(cell);
  }
  for (const auto& [label, cells] : cells_by_label)
    write_set(out, "*ELSET, ELSET=", region.name + "_S" + std::to_string(label), cells);
  out.text("*SURFACE, TYPE=ELEMENT, NAME=");
  out.text(quoted_if_needed(region.name));
  out.put('\n');
  for (const auto& [label, cells] : cells_by_label) {
    out.text(quoted_if_needed(region.name + "_S" + std::to_string(label)));
    out.text(", S");
    out.number(label);
    out.put('\n');
  }
}

void write_regions(io::OutputBuffer& out, const Mesh& mesh) {
  for (const Region& region : mesh.regions) {
    const auto entries = region.entries.values<std::int64_t>();
    switch (region.kind) {
      case RegionKind::Point: write_set(out, "*NSET, NSET=", region.name, entries); break;
      case RegionKind::Cell: write_set(out, "*ELSET, ELSET=", region.name, entries); break;
      case RegionKind::Side: write_surface(out, region, mesh); break;
    }
  }
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const std::vector<BlockName> names = block_names(mesh, options.get_bool("translate_cell_names", true));
  for (const CellBlock& block : mesh.cells)
    if (block.is_ragged()) throw std::invalid_argument("Abaqus has no element for cells of type '" + block.type + "'");
  io::AtomicFile file(path, "abaqus");
  io::OutputBuffer out(file);
  const io::FloatFormat float_format = io::parse_float_format(options.get("float_fmt", ""));  // meshio's float_fmt
  out.text("*HEADING\nwritten by meshio++\n");
  write_nodes(out, file, mesh.points, float_format);
  write_elements(out, file, mesh, names);
  write_regions(out, mesh);
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::abaqus
