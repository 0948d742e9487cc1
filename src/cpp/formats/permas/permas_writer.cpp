// PERMAS writer.
//
// The deck is what meshio writes, so meshio reads it back: "$ELEMENT TYPE=<class>" with no
// blanks around '=' (meshio's parser needs that), one blank between numbers, and a "!" line
// closing each section. Node ids are 1..n, element ids 1..m across the blocks in order, so
// block-major cell k is element k + 1. Sets go out as "$NSET NAME = <name>" / "$ESET NAME =
// <name>", ten ids a line; meshio 5.3.5 cannot parse those records (it expects Abaqus-style
// parameters), so a mesh with regions reads in meshio only without its sets.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "formats/permas/permas.hpp"
#include "formats/permas/permas_types.hpp"
#include "io/output/atomic_file.hpp"
#include "io/text/text_scanner.hpp"
#include "io/codecs/zlib_codec.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::permas {
namespace {

constexpr std::string_view kFormat = "permas";

std::string_view write_class(std::string_view type) {
  for (const detail::ElementClass& entry : detail::kWriteClasses)
    if (entry.type == type) return entry.permas;
  return {};
}

// A set name as a record can hold it.
std::string record_name(std::string_view name) {
  std::string out(name.empty() ? std::string_view("unnamed") : name);
  for (char& c : out)
    if (io::is_space(c) || c == '=' || c == '!' || c == '$' || c == '&' || c == ',' || c == '\'' || c == '"') c = '_';
  return out;
}

class Writer {
 public:
  Writer(const std::string& path, const Mesh& mesh) : mesh_(mesh), output_(path, kFormat), out_(output_.out()) {
  }

  void write() {
    out_.text("!PERMAS DataFile Version 18.0\n!written by meshio++\n");
    out_.text("$ENTER COMPONENT NAME=DFLT_COMP\n$STRUCTURE\n$COOR\n");
    write_points();
    write_elements();
    write_sets();
    out_.text("$END STRUCTURE\n$EXIT COMPONENT\n$FIN\n");
    output_.commit();
  }

 private:
  void end_record() { output_.end_record(); }

  void write_points() {
    const std::int64_t dim = mesh_.points.row_width();
    for (std::int64_t i = 0; i < mesh_.num_points(); ++i) {
      out_.number(i + 1);
      io::put_row(out_, mesh_.points, i);
      for (std::int64_t k = dim; k < 3; ++k) out_.text(" 0");
      end_record();
    }
  }

  void write_elements() {
    std::int64_t id = 0;
    for (const CellBlock& block : mesh_.cells) {
      out_.text("!\n$ELEMENT TYPE=");
      out_.text(write_class(block.type));
      out_.put('\n');
      const std::int64_t n = block.connectivity.row_width();
      const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
      const std::span<const int> order = detail::permas_order(block.type);
      for (std::int64_t cell = 0; cell < block.num_cells(); ++cell, nodes += n) {
        out_.number(++id);
        for (std::int64_t k = 0; k < n; ++k) {
          out_.put(' ');
          out_.number(nodes[order.empty() ? k : order[static_cast<std::size_t>(k)]] + 1);
        }
        end_record();
      }
    }
    out_.text("!\n");
  }

  void write_sets() {
    for (RegionKind kind : {RegionKind::Point, RegionKind::Cell})
      for (const Region& region : mesh_.regions) {
        if (region.kind != kind) continue;
        out_.text(kind == RegionKind::Point ? "$NSET NAME = " : "$ESET NAME = ");
        out_.text(record_name(region.name));
        out_.put('\n');
        const auto entries = region.entries.values<std::int64_t>();
        for (std::size_t i = 0; i < entries.size(); ++i) {
          if (i % 10 != 0) out_.put(' ');
          out_.number(entries[i] + 1);
          if (i % 10 == 9 || i + 1 == entries.size()) end_record();
        }
        out_.text("!\n");
      }
  }

  const Mesh& mesh_;
  io::TextOutput output_;
  io::OutputBuffer& out_;  // output_.out()
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  if (mesh.points.ndim() != 2 || mesh.points.dim(1) < 2 || mesh.points.dim(1) > 3)
    throw std::invalid_argument("PERMAS needs 2-D or 3-D points");
  for (const CellBlock& block : mesh.cells)
    if (write_class(block.type).empty() || block.is_ragged())
      throw std::invalid_argument("PERMAS has no element class for cell type '" + block.type + "'");
  for (const Region& region : mesh.regions)
    if (region.kind != RegionKind::Side && region.entries.dtype() != DType::int64)
      throw std::invalid_argument("region '" + region.name + "' entries must be int64");
  Writer(path, mesh).write();
}

}  // namespace meshioplusplus::permas
