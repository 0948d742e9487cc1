// code_aster .mail writer: the layout code_aster_reader.cpp reads, as LIRE_MAILLAGE
// FORMAT='ASTER' takes it.
//
// A TITRE block, COOR_1D/2D/3D by the points' width with nodes named N1, N2 …, one element
// block per cell block named M1, M2 … across blocks (nodes in code_aster's order:
// code_aster_types.hpp), lines kept within the 80 columns code_aster reads, GROUP_NO per Point region and GROUP_MA per Cell region
// (NOM= the region's name with blanks, '%' and '=' as '_'), FIN. Cell types code_aster has
// no element for (polygons, Lagrange cells beyond HEXA27 …) are a WriteError. Point, cell and
// field data and Side regions have no place in the format and are not written. Reals in the
// shortest form that reads back to the same bits. The node and element sections are formatted
// on all cores (io::write_rows_in_parallel: the same bytes at any thread count).
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/code_aster/code_aster.hpp"
#include "formats/code_aster/code_aster_types.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"

namespace meshioplusplus::code_aster {
namespace {

constexpr std::string_view kFormat = "code_aster";
constexpr std::size_t kColumns = 80;  // what code_aster reads of a line

std::string group_name(std::string name) {
  for (char& c : name)
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '%' || c == '=') c = '_';
  return name.empty() ? std::string("_") : name;
}

void name(io::OutputBuffer& out, char prefix, std::int64_t index) {
  out.put(prefix);
  out.number(index + 1);
}

std::size_t name_length(std::int64_t index) noexcept {
  std::size_t digits = 1;
  for (std::uint64_t n = static_cast<std::uint64_t>(index) + 1; n >= 10; n /= 10) ++digits;
  return 1 + digits;
}

// Names written blank-separated, a new line begun where the next would pass column 80.
class NameLine {
 public:
  NameLine(io::OutputBuffer& out, char prefix) : out_(out), prefix_(prefix) {}
  void add(std::int64_t index) {
    const std::size_t length = name_length(index);
    if (column_ > 0) {
      if (column_ + 1 + length > kColumns) {
        out_.put('\n');
        column_ = 0;
      } else {
        out_.put(' ');
        ++column_;
      }
    }
    name(out_, prefix_, index);
    column_ += length;
  }
  void end() {
    out_.put('\n');
    column_ = 0;
  }

 private:
  io::OutputBuffer& out_;
  char prefix_;
  std::size_t column_ = 0;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  if (mesh.points.ndim() != 2 || mesh.points.dim(1) < 1 || mesh.points.dim(1) > 3)
    throw std::invalid_argument("code_aster needs points with 1, 2 or 3 coordinates");
  const std::int64_t dim = mesh.points.dim(1);
  std::vector<const detail::ElementType*> types;
  for (const CellBlock& block : mesh.cells) {
    const detail::ElementType* type = detail::type_of_cell(block.type);
    if (type == nullptr) throw std::invalid_argument("code_aster has no element for '" + block.type + "'");
    types.push_back(type);
  }
  const NDArray points = mesh.points.dtype() == DType::float64 ? mesh.points : mesh.points.astype(DType::float64);
  const double* xyz = points.data_as<double>();

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  out.text("TITRE\n written by meshio++\nFINSF\nCOOR_");
  out.number(dim);
  out.text("D\n");
  // Reals in their shortest exact form (std::to_chars, as OutputBuffer writes them); one that
  // would pass column 80 goes on the next line. Rows on all cores (io::write_rows_in_parallel:
  // the same bytes at any thread count).
  io::write_rows_in_parallel(out, file, mesh.num_points(), 3 * (io::kMaxNumberChars + 2) + 24, [&](char* p, std::int64_t i) {
    char* row_start = p;
    *p++ = 'N';
    p = io::put_number(p, i + 1);
    for (std::int64_t k = 0; k < dim; ++k) {
      char text[io::kMaxNumberChars];
      const auto length = static_cast<std::size_t>(io::put_number(text, xyz[i * dim + k]) - text);
      if (static_cast<std::size_t>(p - row_start) + 1 + length > kColumns) {
        *p++ = '\n';
        row_start = p;
      } else {
        *p++ = ' ';
      }
      p = std::copy(text, text + length, p);
    }
    *p++ = '\n';
    return p;
  });
  out.text("FINSF\n");
  std::int64_t cell = 0;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    const std::int64_t nodes = types[b]->nodes;
    const std::int64_t* connectivity = block.connectivity.data_as<std::int64_t>();
    out.text(types[b]->keyword);
    out.put('\n');
    // file[order[i]] = ours[i]; rows on all cores, names wrapped before column 80 as NameLine does.
    const std::span<const std::int8_t> order = detail::node_order(block.type);
    const std::int64_t first_cell = cell;
    io::write_rows_in_parallel(out, file, block.num_cells(), static_cast<std::size_t>(nodes + 1) * 24 + 8,
                               [&](char* p, std::int64_t row) {
                                 std::int64_t file_nodes[27];
                                 const std::int64_t* ours = connectivity + row * nodes;
                                 for (std::int64_t k = 0; k < nodes; ++k) file_nodes[order.empty() ? k : order[k]] = ours[k];
                                 char* row_start = p;
                                 *p++ = 'M';
                                 p = io::put_number(p, first_cell + row + 1);
                                 for (std::int64_t k = 0; k < nodes; ++k) {
                                   const std::size_t length = name_length(file_nodes[k]);
                                   if (static_cast<std::size_t>(p - row_start) + 1 + length > kColumns) {
                                     *p++ = '\n';
                                     row_start = p;
                                   } else {
                                     *p++ = ' ';
                                   }
                                   *p++ = 'N';
                                   p = io::put_number(p, file_nodes[k] + 1);
                                 }
                                 *p++ = '\n';
                                 return p;
                               });
    cell += block.num_cells();
    out.text("FINSF\n");
  }
  for (const Region& region : mesh.regions) {
    if (region.kind == RegionKind::Side) continue;
    const bool points_group = region.kind == RegionKind::Point;
    out.text(points_group ? "GROUP_NO NOM=" : "GROUP_MA NOM=");
    out.text(group_name(region.name));
    out.put('\n');
    NameLine line(out, points_group ? 'N' : 'M');
    for (const std::int64_t entry : region.entries.values<std::int64_t>()) line.add(entry);
    if (region.entries.size() > 0) line.end();
    out.text("FINSF\n");
  }
  out.text("FIN\n");
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::code_aster
