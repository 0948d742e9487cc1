// Nastran bulk data reader (see nastran.hpp). Cards carry no counts, so GRIDs and element
// rows gather in scratch vectors and each array is allocated once at the end. Elements may
// come before the GRIDs they use, so node ids are resolved at the end too.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/nastran/nastran.hpp"
#include "formats/nastran/nastran_cards.hpp"
#include "formats/nastran/nastran_fields.hpp"
#include "io/id_map.hpp"
#include "io/mapped_file.hpp"

namespace meshioplusplus::nastran {
namespace {

using detail::Card;
using detail::CardReader;
using detail::ElementCard;
using detail::ElementVariant;

// A run of consecutive elements of one cell type.
struct PendingBlock {
  const ElementVariant* variant;
  std::vector<std::int64_t> grid_ids;  // meshio node order
  std::vector<std::int64_t> element_ids;
  std::vector<std::size_t> card_offsets;  // for errors about unknown GRIDs
  std::vector<std::int64_t> refs;
};

class Reader {
 public:
  Reader(std::string_view document, const std::string& path) : cards_(document, path) {}

  Mesh read() {
    Card card;
    while (cards_.next(card)) {
      if (card.name == "GRID") {
        read_grid(card);
      } else if (const ElementCard* element = detail::element_card(card.name)) {
        read_element(*element, card);
      }
    }
    return build();
  }

 private:
  std::int64_t integer(const Card& card, std::size_t index, const char* what) {
    const std::string_view field = card.field(index);
    const auto value = detail::parse_integer(field);
    if (!value)
      cards_.fail_on(card, field, card.name + ": expected an integer " + what + ", found '" + std::string(field) + "'");
    return *value;
  }

  std::int64_t integer_or(const Card& card, std::size_t index, std::int64_t blank, const char* what) {
    return card.field(index).empty() ? blank : integer(card, index, what);
  }

  double real_or_zero(const Card& card, std::size_t index) {
    const std::string_view field = card.field(index);
    if (field.empty()) return 0.0;
    const auto value = detail::parse_real(field);
    if (!value) cards_.fail_on(card, field, card.name + ": expected a real, found '" + std::string(field) + "'");
    return *value;
  }

  // GRID  ID CP X1 X2 X3 CD …
  void read_grid(const Card& card) {
    const std::int64_t id = integer(card, 0, "GRID id");
    const std::int64_t cp = integer_or(card, 1, 0, "CP");
    const auto index = static_cast<std::int64_t>(grid_cp_.size());
    if (!grid_index_.insert(id, index))
      cards_.fail_on(card, card.field(0), "GRID " + std::to_string(id) + " is defined twice");
    for (std::size_t axis = 0; axis < 3; ++axis) coordinates_.push_back(real_or_zero(card, 2 + axis));
    grid_cp_.push_back(cp);
    any_cp_ = any_cp_ || cp != 0;
  }

  void read_element(const ElementCard& element, const Card& card) {
    const std::int64_t id = integer(card, 0, "element id");
    std::int64_t ref = 0;
    if (element.ref_field >= 0) {
      any_ref_ = any_ref_ || !card.field(element.ref_field).empty();
      ref = integer_or(card, element.ref_field, id, "property id");  // blank: the element id
    }
    nodes_.clear();
    for (int k = 0; k < element.max_nodes; ++k) {
      const std::size_t index = element.first_node_field + k * element.node_field_step;
      if (!card.field(index).empty()) nodes_.push_back(integer(card, index, "GRID id"));
    }
    const ElementVariant* variant = variant_for(element, card);
    if (blocks_.empty() || blocks_.back().variant->cell_type != std::string_view(variant->cell_type))
      blocks_.push_back({variant, {}, {}, {}, {}});
    PendingBlock& block = blocks_.back();
    for (int k = 0; k < variant->num_nodes; ++k)
      block.grid_ids.push_back(nodes_[variant->file_order.empty() ? k : variant->file_order[k]]);
    block.element_ids.push_back(id);
    block.card_offsets.push_back(card.offset);
    block.refs.push_back(ref);
  }

  const ElementVariant* variant_for(const ElementCard& element, const Card& card) {
    for (const ElementVariant& variant : element.variants)
      if (variant.num_nodes == static_cast<int>(nodes_.size())) return &variant;
    std::string counts;
    for (const ElementVariant& variant : element.variants)
      counts += (counts.empty() ? "" : " or ") + std::to_string(variant.num_nodes);
    cards_.fail_at(card.offset, card.name + " " + std::string(card.field(0)) + " gives " +
                                    std::to_string(nodes_.size()) + " nodes; it needs " + counts);
  }

  Mesh build() {
    Mesh mesh;
    const auto num_points = static_cast<std::int64_t>(grid_cp_.size());
    mesh.points = NDArray::allocate(DType::float64, {num_points, 3});
    std::copy(coordinates_.begin(), coordinates_.end(), mesh.points.data_as<double>());
    if (any_cp_) mesh.point_data.set("nastran:ref", to_array(grid_cp_));
    std::vector<NDArray> refs;
    for (const PendingBlock& block : blocks_) {
      mesh.cells.push_back(CellBlock{block.variant->cell_type, connectivity_of(block), {}, {}});
      refs.push_back(to_array(block.refs));
    }
    if (any_ref_) mesh.cell_data.set("nastran:ref", std::move(refs));
    return mesh;
  }

  NDArray connectivity_of(const PendingBlock& block) {
    const int nodes_per_cell = block.variant->num_nodes;
    const auto rows = static_cast<std::int64_t>(block.element_ids.size());
    NDArray connectivity = NDArray::allocate(DType::int64, {rows, nodes_per_cell});
    std::int64_t* out = connectivity.data_as<std::int64_t>();
    for (std::size_t i = 0; i < block.grid_ids.size(); ++i) {
      const std::int64_t found = grid_index_.find(block.grid_ids[i]);
      if (found < 0) {
        const std::size_t cell = i / nodes_per_cell;
        cards_.fail_at(block.card_offsets[cell], "element " + std::to_string(block.element_ids[cell]) +
                                                     " refers to GRID " + std::to_string(block.grid_ids[i]) +
                                                     ", which is not defined");
      }
      out[i] = found;
    }
    return connectivity;
  }

  static NDArray to_array(const std::vector<std::int64_t>& values) {
    NDArray array = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(values.size())});
    std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
    return array;
  }

  CardReader cards_;
  io::LabelIndex grid_index_;  // GRID id → point index
  std::vector<double> coordinates_;                            // 3 per GRID
  std::vector<std::int64_t> grid_cp_;
  bool any_cp_ = false;
  std::vector<PendingBlock> blocks_;
  bool any_ref_ = false;
  std::vector<std::int64_t> nodes_;  // one element's GRID ids as the card lists them
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, "nastran");
  return Reader(file.bytes(), path).read();
}

}  // namespace meshioplusplus::nastran
