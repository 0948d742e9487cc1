// Nastran bulk data reader (see nastran.hpp). Cards carry no counts, so a first pass walks
// the cards without parsing numbers and counts GRIDs and the rows of each block (a block's
// cell type depends on how many node fields an element card fills, so those are counted
// too). Every returned array is then allocated once, in its final shape, and the second
// pass parses into it. Elements may come before the GRIDs they use, so connectivity holds
// GRID ids until the end and is turned into point indices in place.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "formats/nastran/nastran.hpp"
#include "formats/nastran/nastran_cards.hpp"
#include "formats/nastran/nastran_fields.hpp"
#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"

namespace meshioplusplus::nastran {
namespace {

using detail::Card;
using detail::CardReader;
using detail::ElementCard;
using detail::ElementVariant;

bool same_cell_type(const ElementVariant* a, const ElementVariant* b) noexcept {
  return a->cell_type == b->cell_type || std::strcmp(a->cell_type, b->cell_type) == 0;
}

// The element card named `name`, remembering the last answer (cards come in runs).
class ElementCards {
 public:
  const ElementCard* find(const std::string& name) {
    if (name != last_name_) {
      last_name_ = name;
      last_ = detail::element_card(name);
    }
    return last_;
  }

 private:
  std::string last_name_;
  const ElementCard* last_ = nullptr;
};

// How many node fields of `card` are filled.
int filled_nodes(const ElementCard& element, const Card& card) noexcept {
  int count = 0;
  for (int k = 0; k < element.max_nodes; ++k)
    count += !card.field(element.first_node_field + k * element.node_field_step).empty();
  return count;
}

const ElementVariant* find_variant(const ElementCard& element, int num_nodes) noexcept {
  for (const ElementVariant& variant : element.variants)
    if (variant.num_nodes == num_nodes) return &variant;
  return nullptr;
}

// What the counting pass found.
struct Plan {
  struct Block {
    const ElementVariant* variant;
    std::int64_t rows;
  };
  std::int64_t num_grids = 0;
  bool any_cp_field = false;  // some GRID fills CP (which may still be 0)
  bool any_ref = false;       // some element fills its property id
  std::vector<Block> blocks;
};

// The counting pass. An element card with a node count no variant takes ends it: the
// reading pass fails there (or earlier), before it needs anything counted after it.
Plan count_cards(std::string_view document, const std::string& path) {
  Plan plan;
  CardReader cards(document, path);
  ElementCards elements;
  Card card;
  while (cards.next(card)) {
    if (card.name == "GRID") {
      ++plan.num_grids;
      plan.any_cp_field = plan.any_cp_field || !card.field(1).empty();
    } else if (const ElementCard* element = elements.find(card.name)) {
      const ElementVariant* variant = find_variant(*element, filled_nodes(*element, card));
      if (variant == nullptr) break;
      if (element->ref_field >= 0) plan.any_ref = plan.any_ref || !card.field(element->ref_field).empty();
      if (plan.blocks.empty() || !same_cell_type(plan.blocks.back().variant, variant))
        plan.blocks.push_back({variant, 0});
      ++plan.blocks.back().rows;
    }
  }
  return plan;
}

// A block being filled: connectivity holds GRID ids (meshio node order) until the end.
struct BlockBuild {
  const ElementVariant* variant;
  NDArray connectivity;
  NDArray refs;  // only when some element fills its property id
  std::int64_t filled = 0;
};

class Reader {
 public:
  Reader(std::string_view document, const std::string& path, const Plan& plan)
      : document_(document), path_(path), plan_(plan), cards_(document, path) {}

  Mesh read() {
    points_ = NDArray::allocate(DType::float64, {plan_.num_grids, 3});
    if (plan_.any_cp_field) grid_cp_ = NDArray::allocate(DType::int64, {plan_.num_grids});
    blocks_.reserve(plan_.blocks.size());
    for (const Plan::Block& block : plan_.blocks) {
      const std::int64_t width = block.variant->num_nodes;
      blocks_.push_back({block.variant, NDArray::allocate(DType::int64, {block.rows, width}),
                         plan_.any_ref ? NDArray::allocate(DType::int64, {block.rows}) : NDArray(), 0});
    }
    Card card;
    while (cards_.next(card)) {
      if (card.name == "GRID") {
        read_grid(card);
      } else if (const ElementCard* element = elements_.find(card.name)) {
        read_element(*element, card);
      }
    }
    if (num_grids_ != plan_.num_grids) internal_error(card);
    for (const BlockBuild& block : blocks_)
      if (block.filled != block.connectivity.rows()) internal_error(card);
    return build();
  }

 private:
  [[noreturn]] void internal_error(const Card& card) {
    cards_.fail_at(card.offset, "internal error: the counting pass disagrees with the reading pass");
  }

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
    const std::int64_t index = num_grids_;
    if (!grid_index_.insert(id, index))
      cards_.fail_on(card, card.field(0), "GRID " + std::to_string(id) + " is defined twice");
    if (index >= plan_.num_grids || (cp != 0 && !plan_.any_cp_field)) internal_error(card);
    double* x = points_.data_as<double>() + 3 * index;
    for (std::size_t axis = 0; axis < 3; ++axis) x[axis] = real_or_zero(card, 2 + axis);
    if (plan_.any_cp_field) grid_cp_.data_as<std::int64_t>()[index] = cp;
    ++num_grids_;
    any_cp_ = any_cp_ || cp != 0;
  }

  void read_element(const ElementCard& element, const Card& card) {
    const std::int64_t id = integer(card, 0, "element id");
    std::int64_t ref = 0;
    if (element.ref_field >= 0) ref = integer_or(card, element.ref_field, id, "property id");  // blank: the element id
    int count = 0;
    for (int k = 0; k < element.max_nodes; ++k) {
      const std::size_t index = element.first_node_field + k * element.node_field_step;
      if (!card.field(index).empty()) nodes_[count++] = integer(card, index, "GRID id");
    }
    const ElementVariant* variant = variant_for(element, card, count);
    if (current_ == nullptr || !same_cell_type(current_->variant, variant)) {
      const std::size_t next = current_ == nullptr ? 0 : static_cast<std::size_t>(current_ - blocks_.data()) + 1;
      if (next >= blocks_.size() || !same_cell_type(blocks_[next].variant, variant)) internal_error(card);
      current_ = &blocks_[next];
    }
    BlockBuild& block = *current_;
    if (block.filled >= block.connectivity.rows()) internal_error(card);
    std::int64_t* row = block.connectivity.data_as<std::int64_t>() + block.filled * variant->num_nodes;
    if (variant->file_order.empty()) {
      for (int k = 0; k < variant->num_nodes; ++k) row[k] = nodes_[k];
    } else {
      for (int k = 0; k < variant->num_nodes; ++k) row[k] = nodes_[variant->file_order[k]];
    }
    if (plan_.any_ref) block.refs.data_as<std::int64_t>()[block.filled] = ref;
    ++block.filled;
  }

  const ElementVariant* variant_for(const ElementCard& element, const Card& card, int count) {
    if (const ElementVariant* variant = find_variant(element, count)) return variant;
    std::string counts;
    for (const ElementVariant& variant : element.variants)
      counts += (counts.empty() ? "" : " or ") + std::to_string(variant.num_nodes);
    cards_.fail_at(card.offset, card.name + " " + std::string(card.field(0)) + " gives " + std::to_string(count) +
                                    " nodes; it needs " + counts);
  }

  Mesh build() {
    Mesh mesh;
    mesh.points = std::move(points_);
    if (any_cp_) mesh.point_data.set("nastran:ref", std::move(grid_cp_));
    std::int64_t first_element = 0;  // ordinal among the element cards, for errors
    std::vector<NDArray> refs;
    for (BlockBuild& block : blocks_) {
      resolve(block, first_element);
      first_element += block.filled;
      mesh.cells.push_back(CellBlock{block.variant->cell_type, std::move(block.connectivity), {}, {}});
      if (plan_.any_ref) refs.push_back(std::move(block.refs));
    }
    if (plan_.any_ref) mesh.cell_data.set("nastran:ref", std::move(refs));
    return mesh;
  }

  // GRID ids → point indices, in place.
  void resolve(BlockBuild& block, std::int64_t first_element) {
    const int nodes_per_cell = block.variant->num_nodes;
    std::int64_t* ids = block.connectivity.data_as<std::int64_t>();
    const std::int64_t count = block.filled * nodes_per_cell;
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t found = grid_index_.find(ids[i]);
      if (found < 0) missing_grid(first_element + i / nodes_per_cell, ids[i]);
      ids[i] = found;
    }
  }

  // The error for the `ordinal`-th element card naming an undefined GRID: the cards are
  // walked again to find where that card stands.
  [[noreturn]] void missing_grid(std::int64_t ordinal, std::int64_t grid) {
    CardReader cards(document_, path_);
    ElementCards elements;
    Card card;
    std::int64_t seen = 0;
    while (cards.next(card)) {
      if (card.name == "GRID" || elements.find(card.name) == nullptr) continue;
      if (seen++ < ordinal) continue;
      const auto id = detail::parse_integer(card.field(0));
      cards.fail_at(card.offset, "element " + (id ? std::to_string(*id) : std::string(card.field(0))) +
                                     " refers to GRID " + std::to_string(grid) + ", which is not defined");
    }
    cards_.fail_at(0, "element refers to GRID " + std::to_string(grid) + ", which is not defined");
  }

  std::string_view document_;
  const std::string& path_;
  const Plan& plan_;
  CardReader cards_;
  ElementCards elements_;
  io::LabelIndex grid_index_;  // GRID id → point index
  NDArray points_;             // (GRIDs, 3)
  NDArray grid_cp_;            // (GRIDs): only when some GRID fills CP
  std::int64_t num_grids_ = 0;
  bool any_cp_ = false;
  std::vector<BlockBuild> blocks_;
  BlockBuild* current_ = nullptr;
  std::int64_t nodes_[32] = {};  // one element's GRID ids as the card lists them
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, "nastran");
  io::reject_empty_file(file.bytes(), path, "nastran");
  const Plan plan = count_cards(file.bytes(), path);
  return Reader(file.bytes(), path, plan).read();
}

}  // namespace meshioplusplus::nastran