// MSC Patran neutral file writer.
//
// Packets as Patran 3 writes them: header cards (I2, 8I8), coordinates 3E16.9, element cards
// 4I8 3E16.9 and node ids 10I8. Node ids are 1..n, element ids 1..m across the blocks in
// order, so point i is node i + 1 and block-major cell k is element k + 1 — which is what the
// 21 components name.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/patran/patran.hpp"
#include "formats/patran/patran_internal.hpp"
#include "io/cells/node_orders.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/fixed_columns.hpp"
#include "io/output/parallel_rows.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::patran {
namespace {

using detail::kFormat;
using detail::Shape;

// One card (fixed columns, io/output/fixed_columns.hpp) with Patran's real field.
class Card : public io::FixedColumnLine<Card, 256> {
 public:
  using FixedColumnLine::integer;
  Card& integer(std::int64_t value) { return integer(value, 8); }
  // E16.9: " d.dddddddddE+XX" (sixteen columns, ten significant digits).
  // A negative value with a three-digit exponent takes one digit less, to stay in the field.
  Card& real(double value) {
    // Every element card holds three zero reals: written without a to_chars call apiece.
    if (value == 0.0 && !std::signbit(value)) return field("0.000000000E+00", 16);
    char scratch[40];
    std::to_chars_result result{};
    for (int precision = 9; precision >= 6; --precision) {
      result = std::to_chars(scratch, scratch + sizeof scratch, value, std::chars_format::scientific, precision);
      if (result.ptr - scratch <= 16) break;
    }
    for (char* p = scratch; p < result.ptr; ++p)
      if (*p == 'e') *p = 'E';
    return field(std::string_view(scratch, static_cast<std::size_t>(result.ptr - scratch)), 16);
  }
};

Card header_card(int type, std::int64_t id, std::int64_t iv, std::int64_t cards, std::int64_t n1 = 0, std::int64_t n2 = 0) {
  Card card;
  card.integer(type, 2).integer(id).integer(iv).integer(cards).integer(n1).integer(n2).integer(0).integer(0).integer(0);
  return card;
}

void header(io::OutputBuffer& out, int type, std::int64_t id, std::int64_t iv, std::int64_t cards,
            std::int64_t n1 = 0, std::int64_t n2 = 0) {
  header_card(type, id, iv, cards, n1, n2).end(out);
}

class Writer {
 public:
  Writer(const std::string& path, const Mesh& mesh) : mesh_(mesh), file_(path, kFormat), out_(file_) {}

  void write() {
    if (mesh_.points.ndim() != 2 || mesh_.points.dim(1) > 3 || !dtype_is_float(mesh_.points.dtype()))
      throw std::invalid_argument("Patran neutral: points must be float (n, 1..3)");
    for (const CellBlock& block : mesh_.cells) {
      const Shape* shape = block.is_ragged() ? nullptr : detail::shape_of_type(block.type);
      if (shape == nullptr) throw std::invalid_argument("Patran neutral has no element shape for cell type '" + block.type + "'");
      shapes_.push_back(shape);
    }
    header(out_, 25, 0, 0, 1);
    Card().text("meshio++ Patran neutral file").end(out_);
    header(out_, 26, 0, 0, 1, mesh_.num_points(), mesh_.num_cells());
    Card().text("01-Jan-00   00:00:00         3.0").end(out_);
    write_nodes();
    write_elements();
    write_components();
    header(out_, 99, 0, 0, 1);
    out_.flush();
    file_.commit();
  }

 private:
  void write_nodes() {
    const NDArray points = mesh_.points.dtype() == DType::float64 ? mesh_.points : mesh_.points.astype(DType::float64);
    const double* xyz = points.data_as<double>();
    const std::int64_t width = points.dim(1);
    static constexpr std::string_view kConstraints = "1G       6       0       0  000000\n";
    io::write_rows_in_parallel(out_, file_, points.rows(), 2 * Card::kMaxBytes + kConstraints.size(), [&](char* p, std::int64_t row) {
      p = header_card(1, row + 1, 0, 2).end(p);
      Card card;
      for (std::int64_t axis = 0; axis < 3; ++axis) card.real(axis < width ? xyz[row * width + axis] : 0.0);
      p = card.end(p);
      return std::copy(kConstraints.begin(), kConstraints.end(), p);
    });
  }

  void write_elements() {
    const std::vector<NDArray>* properties = mesh_.cell_data.find("patran:property");
    if (properties != nullptr && properties->size() != mesh_.cells.size()) properties = nullptr;
    std::int64_t label = 0;
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      const Shape& shape = *shapes_[b];
      const NDArray connectivity = mesh_.cells[b].connectivity.astype(DType::int64);
      const std::int64_t* nodes = connectivity.data_as<std::int64_t>();
      NDArray property;
      if (properties != nullptr && (*properties)[b].rows() == mesh_.cells[b].num_cells() && !dtype_is_float((*properties)[b].dtype()))
        property = (*properties)[b].astype(DType::int64);
      const std::span<const std::int8_t> order = io::vertical_edges_before_top_order(shape.type);
      const std::int64_t node_cards = (shape.nodes + 9) / 10;
      const std::int64_t first_label = label;
      const std::int64_t* const property_of = property.empty_handle() ? nullptr : property.data_as<std::int64_t>();
      io::write_rows_in_parallel(
          out_, file_, mesh_.cells[b].num_cells(), static_cast<std::size_t>(2 + node_cards) * Card::kMaxBytes,
          [&](char* p, std::int64_t r) {
            p = header_card(2, first_label + r + 1, shape.code, 1 + node_cards).end(p);
            Card first;
            p = first.integer(shape.nodes)
                    .integer(0)
                    .integer(property_of == nullptr ? 1 : property_of[r])
                    .integer(0)
                    .real(0.0)
                    .real(0.0)
                    .real(0.0)
                    .end(p);
            Card card;
            for (int i = 0; i < shape.nodes; ++i) {
              // The table maps both ways: file[i] = ours[order[i]].
              const std::int64_t ours = order.empty() ? i : order[static_cast<std::size_t>(i)];
              card.integer(nodes[r * shape.nodes + ours] + 1);
              if (i % 10 == 9 && i + 1 < shape.nodes) p = card.end(p);
            }
            return card.end(p);
          });
      label += mesh_.cells[b].num_cells();
    }
  }

  void write_components() {
    std::vector<std::int64_t> component_of_cell;  // block-major cell -> packet 21 entity type
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b)
      component_of_cell.insert(component_of_cell.end(), static_cast<std::size_t>(mesh_.cells[b].num_cells()), shapes_[b]->component_code);
    std::vector<std::string> names;
    for (const Region& region : mesh_.regions)
      if (region.kind != RegionKind::Side && std::find(names.begin(), names.end(), region.name) == names.end())
        names.push_back(region.name);
    std::int64_t next_number = 1;
    for (const std::string& name : names) {
      std::vector<std::pair<std::int64_t, std::int64_t>> members;
      std::int64_t number = -1;
      for (const Region& region : mesh_.regions) {
        if (region.name != name || region.kind == RegionKind::Side) continue;
        if (number < 0 && region.tag > 0) number = region.tag;
        const NDArray entries = region.entries.astype(DType::int64);
        for (const std::int64_t entry : entries.values<std::int64_t>()) {
          if (region.kind == RegionKind::Point) members.emplace_back(5, entry + 1);
          else if (entry >= 0 && static_cast<std::size_t>(entry) < component_of_cell.size())
            members.emplace_back(component_of_cell[static_cast<std::size_t>(entry)], entry + 1);
        }
      }
      if (number < 0) number = next_number;
      next_number = std::max(next_number, number + 1);
      const auto pairs = static_cast<std::int64_t>(members.size());
      header(out_, 21, number, 2 * pairs, 1 + (pairs + 4) / 5);
      Card().text(name.substr(0, 72)).end(out_);
      Card card;
      for (std::int64_t k = 0; k < pairs; ++k) {
        card.integer(members[static_cast<std::size_t>(k)].first).integer(members[static_cast<std::size_t>(k)].second);
        if (k % 5 == 4 || k + 1 == pairs) {
          card.end(out_);
          card = Card();
        }
      }
    }
  }

  const Mesh& mesh_;
  io::AtomicFile file_;
  io::OutputBuffer out_;
  std::vector<const Shape*> shapes_;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& /*options*/) { Writer(path, mesh).write(); }

}  // namespace meshioplusplus::patran
