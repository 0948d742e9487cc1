// GEOM1 (grids) and GEOM2 (elements) of an OP2 file -> points, cells, ids and property regions.
//
// A GEOM table's records after the name each hold one card type: a 3-word key (pyNastran's
// geom1.py / geom2.py list them) and then its entries, a fixed number of words each; a record
// with the key 65535 65535 65535 closes the table. GRID (4501, 45, 1): id, cp, x, y, z, cd,
// ps, seid (8 words). Elements: id, property id, node ids, then card-specific words; some
// cards have two entry lengths (MSC and NX: CQUAD4 15 or 14 words, CTRIA3/CTRIA6 13 or 14):
// the one that divides the record and names only known grids is taken. Other cards (CELAS,
// CBUSH, CONM2, rigid elements …) are passed over.
#include <algorithm>
#include <map>
#include <span>
#include <string>

#include "formats/op2/op2_internal.hpp"
#include "io/cells/nastran_blocks.hpp"
#include "io/cells/nastran_element_types.hpp"
#include "io/cells/node_orders.hpp"
#include "io/source/read_limits.hpp"

namespace meshioplusplus::op2::detail {
namespace {

// An element card's GEOM2 key and record layout; what it becomes: io/cells/nastran_element_types.hpp.
struct ElementCard {
  std::int32_t key;  // the first key word
  const io::NastranElementType* type;
  std::array<int, 2> entry_words;  // 0: no second length
  int first_node;                  // word of the first node id
};

constexpr ElementCard card(std::int32_t key, std::string_view name, std::array<int, 2> entry_words, int first_node) {
  return {key, io::nastran_element_type(name), entry_words, first_node};
}

constexpr ElementCard kCards[] = {
    card(5959, "CTRIA3", {13, 14}, 2),  card(9200, "CTRIAR", {13, 14}, 2), card(4801, "CTRIA6", {14, 13}, 2),
    card(2958, "CQUAD4", {15, 14}, 2),  card(8009, "CQUADR", {15, 14}, 2), card(4701, "CQUAD8", {17, 0}, 2),
    card(5508, "CTETRA", {12, 0}, 2),   card(17200, "CPYRAM", {16, 0}, 2), card(4108, "CPENTA", {17, 0}, 2),
    card(7308, "CHEXA", {22, 0}, 2),    card(2408, "CBAR", {16, 0}, 2),    card(5408, "CBEAM", {18, 0}, 2),
    card(3001, "CROD", {4, 0}, 2),      card(3701, "CTUBE", {4, 0}, 2),    card(1601, "CONROD", {8, 0}, 1),
};

const ElementCard* element_card(std::int32_t key) noexcept {
  for (const ElementCard& card : kCards)
    if (card.key == key) return &card;
  return nullptr;
}

using BlockBuilder = io::NastranBlock;

constexpr std::int32_t kGridKey = 4501;
constexpr std::int32_t kEndKey = 65535;

void read_grids(const File& file, const Table& table, std::vector<std::int64_t>& ids, std::vector<double>& xyz,
                std::vector<std::int64_t>& cp) {
  std::string storage;
  for (std::size_t r = 1; r < table.records.size(); ++r) {
    const LogicalRecord& record = table.records[r];
    const Words w(file, file.record_bytes(record, storage), record.offset());
    if (w.size() < 3) file.fail(record.offset(), "GEOM1: a record shorter than its 3-word key");
    if (w.integer(0) == kEndKey || w.integer(0) != kGridKey) continue;
    const std::size_t entries = (w.size() - 3) / 8;
    if ((w.size() - 3) % 8 != 0) file.fail(record.offset(), "GEOM1: GRID record of " + std::to_string(w.size()) +
                                                                 " words is not 3 + 8 per grid");
    for (std::size_t e = 0; e < entries; ++e) {
      const std::size_t at = 3 + 8 * e;
      ids.push_back(w.integer(at));
      cp.push_back(w.integer(at + 1));
      for (int c = 0; c < 3; ++c) xyz.push_back(static_cast<double>(w.real(at + 2 + c)));
    }
  }
}

// The entry length of `card` that fits this record and names only known grids.
int entry_words(const File& file, const ElementCard& card, const Words& w, const io::IdMap& grids) {
  const std::size_t words = w.size() - 3;
  for (const int length : card.entry_words) {
    if (length == 0 || words % static_cast<std::size_t>(length) != 0) continue;
    bool fits = true;
    for (std::size_t at = 3; at < w.size() && fits; at += static_cast<std::size_t>(length))
      for (int k = 0; k < card.type->shapes[0].nodes && fits; ++k) {
        const std::int32_t id = w.integer(at + static_cast<std::size_t>(card.first_node + k));
        if (k < card.type->shapes[1].nodes || card.type->shapes[1].nodes == 0 ? id <= 0 || grids.find(id) < 0
                                                                               : id != 0 && grids.find(id) < 0)
          fits = false;
      }
    if (fits) return length;
  }
  file.fail(w.offset_of(0), "GEOM2: " + std::string(card.type->card) + " record of " + std::to_string(w.size()) +
                                " words: no entry length of the card fits it, or it names grids GEOM1 lacks");
}

void read_elements(const File& file, const Table& table, const io::IdMap& grids, std::vector<BlockBuilder>& blocks) {
  std::string storage;
  for (std::size_t r = 1; r < table.records.size(); ++r) {
    const LogicalRecord& record = table.records[r];
    const Words w(file, file.record_bytes(record, storage), record.offset());
    if (w.size() < 3) file.fail(record.offset(), "GEOM2: a record shorter than its 3-word key");
    const ElementCard* card = element_card(w.integer(0));
    if (card == nullptr) continue;
    const std::size_t length = static_cast<std::size_t>(entry_words(file, *card, w, grids));
    for (std::size_t at = 3; at < w.size(); at += length) {
      const io::NastranCellShape* variant = &io::nastran_cell_shape(
          *card->type, [&](int k) { return w.integer(at + static_cast<std::size_t>(card->first_node + k)); });
      auto block = std::find_if(blocks.begin(), blocks.end(), [&](const BlockBuilder& b) { return b.type == variant->cell; });
      if (block == blocks.end()) {
        blocks.push_back({std::string(variant->cell), variant->nodes, {}, {}, {}});
        block = blocks.end() - 1;
      }
      const std::span<const std::int8_t> order = io::vertical_edges_before_top_order(variant->cell);
      for (int k = 0; k < variant->nodes; ++k) {
        const int file_k = order.empty() ? k : order[static_cast<std::size_t>(k)];
        block->connectivity.push_back(grids.find(w.integer(at + static_cast<std::size_t>(card->first_node + file_k))));
      }
      block->element_ids.push_back(w.integer(at));
      block->properties.push_back(card->type->has_property ? w.integer(at + 1) : 0);
    }
  }
}

NDArray int64_array(const std::vector<std::int64_t>& values, Shape shape) {
  NDArray array = NDArray::allocate(DType::int64, std::move(shape));
  std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
  return array;
}

}  // namespace

Geometry read_geometry(const File& file) {
  const Table* geom1 = nullptr;
  const Table* geom2 = nullptr;
  for (const Table& table : file.tables) {
    if (table.name == "GEOM1" && geom1 == nullptr) geom1 = &table;
    if (table.name == "GEOM2" && geom2 == nullptr) geom2 = &table;
  }
  if (geom1 == nullptr)
    file.fail(0, "the file holds no geometry (no GEOM1 table): Nastran writes it to the OP2 with PARAM,POST,-1; "
                 "read the mesh from the input deck (format 'nastran')");
  Geometry g;
  std::vector<std::int64_t> ids, cp;
  std::vector<double> xyz;
  read_grids(file, *geom1, ids, xyz, cp);
  if (const auto repeated = g.grids.build(ids))
    file.fail(geom1->offset, "GEOM1: GRID " + std::to_string(ids[*repeated]) + " is given twice");
  Mesh& mesh = g.mesh;
  const auto n = static_cast<std::int64_t>(ids.size());
  mesh.points = NDArray::allocate(DType::float64, {n, 3});
  std::copy(xyz.begin(), xyz.end(), mesh.points.data_as<double>());
  mesh.point_data.append_new("nastran:grid_id", int64_array(ids, {n}));
  if (std::any_of(cp.begin(), cp.end(), [](std::int64_t c) { return c != 0; }))
    mesh.point_data.append_new("nastran:ref", int64_array(cp, {n}));

  std::vector<BlockBuilder> blocks;
  if (geom2 != nullptr) read_elements(file, *geom2, g.grids, blocks);
  io::NastranElements elements = io::add_nastran_blocks(blocks, mesh);
  if (const auto repeated = g.elements.build(elements.ids))
    file.fail(geom2->offset, "GEOM2: element " + std::to_string(elements.ids[*repeated]) + " is given twice");
  g.element_block = std::move(elements.block);
  g.element_row = std::move(elements.row);
  return g;
}

}  // namespace meshioplusplus::op2::detail
