// MSC Patran neutral file reader (.pat, .out).
//
// The file is a run of packets, each a header card "IT ID IV KC N1 N2 N3 N4 N5" in fixed
// columns (I2, 8I8) followed by KC data cards. What becomes what:
//   25 title, 26 summary   skipped (the summary's counts are not trusted: the packets are).
//   01 node        ID = the node id; card 1 its x y z (3E16.9, Fortran exponents as written:
//                  "1.0E+0", "1.0D+00", "1.0-3"), card 2 its constraints (skipped) -> points
//                  float64 (n, 3), ids renumbered 0..n-1 in file order.
//   02 element     ID = the element id, IV = the shape (2 bar, 3 tri, 4 quad, 5 tet, 7 wedge,
//                  8 hex, 9 pyramid; 6 read as a pyramid too, as meshio++ 17.21 does); card 1
//                  "node count, config, property id, …" (4I8, 3E16.9), then the node ids ten
//                  a card (10I8); further cards (element data) are passed over. Shape and
//                  node count give the cell type (formats/patran/patran_internal.hpp); one
//                  block per type in order of first appearance; the quadratic wedge and
//                  hexahedron list their vertical edges before the top ones and are turned
//                  into VTK's order (io/cells/node_orders.hpp). The property id becomes
//                  cell_data "patran:property" (int64). Shapes we hold no type for (27-node
//                  bricks, 13-node pyramids …) are passed over, and so are their members in
//                  components.
//   21 component   ID = the component number, IV = twice the member count; card 1 the name,
//                  then (entity type, id) pairs five a card. Type 5 (node) members -> a Point
//                  region of the name; element members (6 bar, 7 tri, 8 quad, 9 tet, 10
//                  pyramid, 11 wedge, 12 hex, and +100/+200 for the higher orders, as
//                  Patran's documentation numbers them) -> a Cell region (block-major
//                  indices, dim = the highest among them); tag = the component number.
//                  Geometry members (1 point, 2 curve, 3 surface, 4 solid) are passed over.
//   99             ends the file; any other packet (loads, constraints, materials …) is
//                  passed over by its card count. The core has no warning channel, so skips
//                  are silent (docs/formats.md lists what is read).
// Speed: the summary's counts are used as hints only: that many node packets, and element
// packets of the first one's shape, laid out as writers lay them out, are parsed on all cores
// (io::parse_lines_in_parallel); anything else goes to the sequential loop, which words the errors.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/patran/patran.hpp"
#include "formats/patran/patran_internal.hpp"
#include "io/cells/id_map.hpp"
#include "io/cells/node_orders.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/fortran_fields.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::patran {
namespace {

using detail::kFormat;
using detail::Shape;

struct Card {
  std::string_view text;
  std::size_t offset = 0;
  std::uint64_t number = 0;
};

struct ElementBlock {
  const Shape* shape;
  std::vector<std::int64_t> element_ids, node_ids, properties;
};

struct Component {
  std::int64_t number;
  std::string name;
  std::vector<std::int64_t> nodes, elements;
  Card card;
};

class Reader {
 public:
  Reader(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  Mesh read() {
    io::reject_empty_file(text_, path_, kFormat);
    Card header;
    while (next(header)) {
      if (io::trim_blanks(header.text).empty()) continue;
      std::int64_t fields[9];
      for (int k = 0; k < 9; ++k) fields[k] = integer(header, k == 0 ? 0 : 2 + 8 * (k - 1), k == 0 ? 2 : 8, "packet header field");
      const std::int64_t type = fields[0], id = fields[1], iv = fields[2], cards = fields[3];
      if (cards < 0) fail(header, "negative card count " + std::to_string(cards));
      if (type == 99) break;
      io::check_claim_fits_file(path_, kFormat, "packet cards", static_cast<std::uint64_t>(cards), 1, text_.size() - pos_,
                                {header.offset, header.number});
      if (type == 26) summary_ = {fields[4], fields[5]};
      switch (type) {
        case 1:
          if (node_ids_.empty() && read_nodes_in_parallel(header)) break;
          read_node(header, id, cards);
          break;
        case 2:
          if (blocks_.empty() && read_elements_in_parallel(header)) break;
          read_element(header, id, iv, cards);
          break;
        case 21: read_component(header, id, iv, cards); break;
        default: skip(header, cards); break;
      }
    }
    return build();
  }

 private:
  bool next(Card& card) noexcept {
    if (pos_ >= text_.size()) return false;
    const char* const newline = io::find_newline(text_.data() + pos_, text_.data() + text_.size());
    const std::size_t stop = newline ? static_cast<std::size_t>(newline - text_.data()) : text_.size();
    std::size_t end = stop;
    if (end > pos_ && text_[end - 1] == '\r') --end;
    card = {text_.substr(pos_, end - pos_), pos_, ++line_};
    pos_ = stop + 1;
    return true;
  }
  Card require(const Card& header, std::string_view what) {
    Card card;
    if (!next(card)) fail(header, "the file ends inside " + std::string(what));
    return card;
  }
  void skip(const Card& header, std::int64_t cards) {
    for (std::int64_t k = 0; k < cards; ++k) require(header, "a packet's cards");
  }
  [[noreturn]] void fail(const Card& card, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, card.offset, card.number);
  }
  std::int64_t integer(const Card& card, std::size_t begin, std::size_t width, std::string_view what) const {
    std::int64_t value = 0;
    const char* const first = card.text.data() + std::min(begin, card.text.size());
    const char* const last = card.text.data() + std::min(begin + width, card.text.size());
    if (io::plain_fixed_integer(first, last, value)) return value;
    const std::string_view field = io::fixed_field(card.text, begin, width);
    if (!io::fortran_integer(field, value)) fail(card, "invalid " + std::string(what) + " '" + std::string(field) + "'");
    return value;
  }
  double real(const Card& card, std::size_t begin, std::size_t width, std::string_view what) const {
    double value = 0;
    const std::string_view field = io::fixed_field(card.text, begin, width);
    if (!io::fortran_real(field, value)) fail(card, "invalid " + std::string(what) + " '" + std::string(field) + "'");
    return value;
  }

  // Non-throwing reads of a fixed-column field for the parallel passes: false where the
  // sequential reader would fail (and word the error).
  static bool field_integer(std::string_view text, std::size_t begin, std::size_t width, std::int64_t& value) noexcept {
    const char* const first = text.data() + std::min(begin, text.size());
    const char* const last = text.data() + std::min(begin + width, text.size());
    return io::plain_fixed_integer(first, last, value) || io::fortran_integer(io::fixed_field(text, begin, width), value);
  }
  // A packet header card "IT ID IV KC …" of type `type`, `iv` (when not null) and `cards` cards.
  static bool packet_header(std::string_view text, std::int64_t type, const std::int64_t* iv, std::int64_t cards,
                            std::int64_t& id) noexcept {
    std::int64_t fields[9];
    for (int k = 0; k < 9; ++k)
      if (!field_integer(text, k == 0 ? 0 : 2 + 8 * static_cast<std::size_t>(k - 1), k == 0 ? 2 : 8, fields[k])) return false;
    id = fields[1];
    return fields[0] == type && (iv == nullptr || fields[2] == *iv) && fields[3] == cards;
  }
  static std::string_view card_text(std::string_view document, std::size_t from, std::size_t to) noexcept {
    if (to > from && document[to - 1] == '\r') --to;
    return document.substr(from, to - from);
  }
  // Parses the `count` packets of `lines_per_packet` lines from the packet whose header is
  // `header` on all cores (io::parse_lines_in_parallel); on success moves past them.
  template <class ParseLine>
  bool parse_packets_in_parallel(const Card& header, std::int64_t count, std::uint64_t lines_per_packet, const ParseLine& parse_line) {
    const std::uint64_t lines = static_cast<std::uint64_t>(count) * lines_per_packet;
    const std::optional<std::size_t> end = io::parse_lines_in_parallel(
        text_, header.offset, lines,
        [&](std::uint64_t line, std::size_t from, std::size_t to) { return parse_line(line / lines_per_packet, line % lines_per_packet, card_text(text_, from, to)); });
    if (!end) return false;
    pos_ = *end;
    line_ = header.number - 1 + lines;
    return true;
  }

  // The summary's node count of node packets laid out as writers lay them out (header,
  // coordinates, constraints), on all cores. False, with nothing read, for anything else: the
  // sequential loop reads them then and words any error (the summary is only a hint).
  bool read_nodes_in_parallel(const Card& header) {
    const std::int64_t count = summary_.first;
    // A packet read here takes 95 bytes and more (a header card to column 59, coordinates to
    // column 33, three line breaks): no more nodes than the file holds are allocated.
    if (count < 2 || static_cast<std::uint64_t>(count) > (text_.size() - header.offset) / 95) return false;
    node_ids_.resize(static_cast<std::size_t>(count));
    coordinates_.resize(3 * static_cast<std::size_t>(count));
    const bool done = parse_packets_in_parallel(header, count, 3, [&](std::uint64_t node, std::uint64_t card, std::string_view text) {
      if (card == 0) return packet_header(text, 1, nullptr, 2, node_ids_[node]);
      if (card == 2) return true;  // constraints: passed over
      for (std::size_t axis = 0; axis < 3; ++axis)
        if (!io::fortran_real(io::fixed_field(text, 16 * axis, 16), coordinates_[3 * node + axis])) return false;
      return true;
    });
    if (!done) {
      node_ids_.clear();
      coordinates_.clear();
    }
    return done;
  }

  // The summary's element count of element packets of the first one's shape and node count,
  // each exactly its header, first card and node cards, on all cores. False, with nothing
  // read, for anything else (the sequential loop then reads them and words any error).
  bool read_elements_in_parallel(const Card& header) {
    const std::int64_t count = summary_.second;
    if (count < 2 || pos_ >= text_.size()) return false;
    std::int64_t id = 0, shape_code = 0, nodes = 0;
    if (!field_integer(header.text, 2, 8, id) || !field_integer(header.text, 10, 8, shape_code)) return false;
    const char* const newline = io::find_newline(text_.data() + pos_, text_.data() + text_.size());
    const std::string_view first = card_text(text_, pos_, newline ? static_cast<std::size_t>(newline - text_.data()) : text_.size());
    if (!field_integer(first, 0, 8, nodes) || nodes < 1 || nodes > 64) return false;
    const Shape* shape = detail::shape_of(shape_code, nodes);
    if (shape == nullptr) return false;
    const std::int64_t node_cards = (nodes + 9) / 10;
    const auto lines_per_packet = static_cast<std::uint64_t>(2 + node_cards);
    // A packet read here takes 60 bytes and more for its header card and 7 and more a node: no
    // more elements than the file holds are allocated.
    if (static_cast<std::uint64_t>(count) > (text_.size() - header.offset) / static_cast<std::uint64_t>(60 + 7 * nodes)) return false;
    ElementBlock& block = block_of(shape);
    block.element_ids.resize(static_cast<std::size_t>(count));
    block.properties.resize(static_cast<std::size_t>(count));
    block.node_ids.resize(static_cast<std::size_t>(count * nodes));
    std::vector<std::int64_t> file_order(static_cast<std::size_t>(count * nodes));
    const bool done = parse_packets_in_parallel(header, count, lines_per_packet, [&](std::uint64_t element, std::uint64_t card, std::string_view text) {
      if (card == 0) return packet_header(text, 2, &shape_code, 1 + node_cards, block.element_ids[element]);
      if (card == 1) {
        std::int64_t listed = 0;
        return field_integer(text, 0, 8, listed) && listed == nodes && field_integer(text, 16, 8, block.properties[element]);
      }
      const std::int64_t first_node = static_cast<std::int64_t>(card - 2) * 10;
      for (std::int64_t j = 0; j < 10 && first_node + j < nodes; ++j)
        if (!field_integer(text, 8 * static_cast<std::size_t>(j), 8, file_order[static_cast<std::size_t>(element * nodes + first_node + j)])) return false;
      return true;
    });
    if (!done) {
      blocks_.clear();
      return false;
    }
    const std::span<const std::int8_t> order = io::vertical_edges_before_top_order(shape->type);
    io::parallel_ranges(static_cast<std::size_t>(count), std::size_t{1} << 16, [&](std::size_t first_element, std::size_t last_element) {
      for (std::size_t e = first_element; e < last_element; ++e)
        for (std::int64_t i = 0; i < nodes; ++i)
          block.node_ids[e * nodes + i] = file_order[e * nodes + (order.empty() ? i : order[static_cast<std::size_t>(i)])];
    });
    first_element_ = header;
    return true;
  }

  void read_node(const Card& header, std::int64_t id, std::int64_t cards) {
    if (cards < 1) fail(header, "a node packet needs its coordinate card");
    const Card card = require(header, "a node's coordinates");
    node_ids_.push_back(id);
    for (int axis = 0; axis < 3; ++axis) coordinates_.push_back(real(card, 16 * static_cast<std::size_t>(axis), 16, "coordinate"));
    skip(header, cards - 1);
  }

  ElementBlock& block_of(const Shape* shape) {
    for (ElementBlock& block : blocks_)
      if (block.shape == shape) return block;
    return blocks_.emplace_back(ElementBlock{shape, {}, {}, {}});
  }

  void read_element(const Card& header, std::int64_t id, std::int64_t shape_code, std::int64_t cards) {
    if (cards < 1) fail(header, "an element packet needs its first data card");
    if (!first_element_) first_element_ = header;
    const Card first = require(header, "an element's first card");
    const std::int64_t nodes = integer(first, 0, 8, "node count");
    const std::int64_t property = integer(first, 16, 8, "property id");
    if (nodes < 0 || nodes > 64) fail(first, "element " + std::to_string(id) + " claims " + std::to_string(nodes) + " nodes");
    const std::int64_t node_cards = (nodes + 9) / 10;
    if (node_cards > cards - 1)
      fail(header, "element " + std::to_string(id) + " has " + std::to_string(nodes) + " nodes but only " +
                       std::to_string(cards - 1) + " node cards");
    const Shape* shape = detail::shape_of(shape_code, nodes);
    std::int64_t ids[64];
    for (std::int64_t k = 0; k < node_cards; ++k) {
      const Card card = require(header, "an element's node cards");
      for (std::int64_t j = 0; j < 10 && k * 10 + j < nodes; ++j)
        ids[k * 10 + j] = integer(card, 8 * static_cast<std::size_t>(j), 8, "node id");
    }
    skip(header, cards - 1 - node_cards);
    if (shape == nullptr) return;  // a shape we hold no type for
    ElementBlock& block = block_of(shape);
    block.element_ids.push_back(id);
    block.properties.push_back(property);
    const std::span<const std::int8_t> order = io::vertical_edges_before_top_order(shape->type);
    for (std::int64_t i = 0; i < nodes; ++i) block.node_ids.push_back(order.empty() ? ids[i] : ids[order[static_cast<std::size_t>(i)]]);
  }

  void read_component(const Card& header, std::int64_t number, std::int64_t entries, std::int64_t cards) {
    if (cards < 1) fail(header, "a named component needs its name card");
    Component component{number, std::string(io::trim_blanks(require(header, "a component's name").text)), {}, {}, header};
    const std::int64_t pairs = std::max<std::int64_t>(entries, 0) / 2;
    std::int64_t seen = 0;
    for (std::int64_t k = 1; k < cards; ++k) {
      const Card card = require(header, "a component's members");
      for (std::size_t j = 0; j < 5 && seen < pairs; ++j, ++seen) {
        const std::int64_t type = integer(card, 16 * j, 8, "component member type");
        const std::int64_t id = integer(card, 16 * j + 8, 8, "component member id");
        if (type == 5) component.nodes.push_back(id);
        else if (type % 100 >= 6 && type % 100 <= 12 && type < 300) component.elements.push_back(id);
      }
    }
    components_.push_back(std::move(component));
  }

  static NDArray int64_array(const std::vector<std::int64_t>& values) {
    NDArray array = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(values.size())});
    std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
    return array;
  }

  Mesh build() {
    Mesh mesh;
    const auto nodes = static_cast<std::int64_t>(node_ids_.size());
    mesh.points = NDArray::allocate(DType::float64, {nodes, 3});
    std::copy(coordinates_.begin(), coordinates_.end(), mesh.points.data_as<double>());
    io::IdMap node_map;
    if (const auto repeated = node_map.build(node_ids_))
      throw ReadError(path_, std::string(kFormat), "node id " + std::to_string(node_ids_[*repeated]) + " is defined twice");
    std::vector<std::int64_t> element_ids;
    std::vector<int> dimensions;
    std::vector<NDArray> properties;
    for (const ElementBlock& block : blocks_) {
      const auto cells = static_cast<std::int64_t>(block.element_ids.size());
      CellBlock cell_block{std::string(block.shape->type), NDArray::allocate(DType::int64, {cells, block.shape->nodes}), {}, {}};
      std::int64_t* connectivity = cell_block.connectivity.data_as<std::int64_t>();
      for (std::size_t k = 0; k < block.node_ids.size(); ++k) {
        const std::int64_t position = node_map.find(block.node_ids[k]);
        if (position < 0)
          fail(*first_element_, "element " + std::to_string(block.element_ids[k / static_cast<std::size_t>(block.shape->nodes)]) +
                                    " names node " + std::to_string(block.node_ids[k]) + ", which no node packet defines");
        connectivity[k] = position;
      }
      mesh.cells.push_back(std::move(cell_block));
      properties.push_back(int64_array(block.properties));
      element_ids.insert(element_ids.end(), block.element_ids.begin(), block.element_ids.end());
      dimensions.insert(dimensions.end(), block.element_ids.size(), cell_type(block.shape->type).dimension);
    }
    if (!blocks_.empty()) mesh.cell_data.set("patran:property", std::move(properties));
    io::IdMap element_map;
    if (const auto repeated = element_map.build(element_ids))
      throw ReadError(path_, std::string(kFormat), "element id " + std::to_string(element_ids[*repeated]) + " is defined twice");
    for (const Component& component : components_) {
      if (!component.nodes.empty()) {
        std::vector<std::int64_t> entries;
        for (const std::int64_t id : component.nodes) {
          const std::int64_t position = node_map.find(id);
          if (position < 0) fail(component.card, "component '" + component.name + "' names node " + std::to_string(id) + ", which no node packet defines");
          entries.push_back(position);
        }
        mesh.regions.push_back(Region{component.name, RegionKind::Point, 0, component.number, int64_array(entries)});
      }
      std::vector<std::int64_t> entries;
      int dimension = -1;
      for (const std::int64_t id : component.elements) {
        const std::int64_t position = element_map.find(id);
        if (position < 0) continue;  // an element of a shape we pass over
        entries.push_back(position);
        dimension = std::max(dimension, dimensions[static_cast<std::size_t>(position)]);
      }
      if (!entries.empty()) mesh.regions.push_back(Region{component.name, RegionKind::Cell, dimension, component.number, int64_array(entries)});
    }
    return mesh;
  }

  std::string_view text_;
  const std::string& path_;
  std::size_t pos_ = 0;
  std::uint64_t line_ = 0;
  std::vector<std::int64_t> node_ids_;
  std::vector<double> coordinates_;
  std::vector<ElementBlock> blocks_;
  std::vector<Component> components_;
  std::optional<Card> first_element_;
  std::pair<std::int64_t, std::int64_t> summary_{0, 0};  // the summary's node and element counts: hints
};

}  // namespace

Mesh read(const std::string& path) {
  io::MappedFile file(path, kFormat);
  return Reader(file.bytes(), path).read();
}

bool looks_like(std::string_view head) noexcept {
  // "25" in columns 1-2 with blanks or digits after it, the title card, then "26".
  if (head.size() < 10 || !head.starts_with("25") || head[2] != ' ') return false;
  const std::size_t title = head.find('\n');
  if (title == std::string_view::npos) return false;
  const std::size_t summary = head.find('\n', title + 1);
  if (summary == std::string_view::npos) return false;
  return head.substr(summary + 1).starts_with("26 ");
}

}  // namespace meshioplusplus::patran
