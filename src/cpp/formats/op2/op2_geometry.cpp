// GEOM1 (grids) and GEOM2 (elements) of an OP2 file -> points, cells, ids and property regions.
//
// A GEOM table's records after the name each hold one card type: a 3-word key (pyNastran's
// geom1.py / geom2.py list them) and then its entries, a fixed number of words each; a record
// with the key 65535 65535 65535 closes the table. GRID (4501, 45, 1): id, cp, x, y, z, cd,
// ps, seid (8 words); NX's GRID (4501, 45, 1120001), and GRIDs of a GEOM1N table, hold x, y, z
// as float64 (11 words), as its CORD2x (third key word 2220000 + n) hold their points (22 words). The geometry is every GEOM1/GEOM1S/GEOM1N (and GEOM2/GEOM2S/GEOM2N)
// table in file order: Nastran writes a model's grids to GEOM1S when it has superelement
// tables (MSC 2005+, NX), to GEOM1 otherwise, and a grid given in two of them with the same
// values is one grid. Grids given in a local system (CP ≠ 0) are placed in basic through the
// CORD1x/CORD2x records of the same tables (io/geometry/nastran_coordinates.hpp). Elements: id, property id, node ids, then card-specific words; some
// cards have two entry lengths (MSC and NX: CQUAD4 15 or 14 words, CTRIA3/CTRIA6 13 or 14):
// the one that divides the record and names only known grids is taken. Other cards (CELAS,
// CBUSH, CONM2, rigid elements …) are passed over.
#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <string>

#include "formats/op2/op2_internal.hpp"
#include "io/cells/nastran_blocks.hpp"
#include "io/cells/nastran_element_types.hpp"
#include "io/cells/node_orders.hpp"
#include "io/geometry/nastran_coordinates.hpp"
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
    card(2958, "CQUAD4", {15, 14}, 2),  card(8009, "CQUADR", {15, 14}, 2), card(4701, "CQUAD8", {17, 16}, 2),
    card(5508, "CTETRA", {12, 0}, 2),   card(17200, "CPYRAM", {16, 0}, 2), card(4108, "CPENTA", {17, 0}, 2),
    card(7308, "CHEXA", {22, 0}, 2),    card(2408, "CBAR", {16, 0}, 2),    card(5408, "CBEAM", {18, 0}, 2),
    card(3001, "CROD", {4, 0}, 2),      card(3701, "CTUBE", {4, 0}, 2),    card(1601, "CONROD", {8, 0}, 1),
    // NX's own keys for the same layouts (pyNastran's geom2.py reads them into these cards):
    // CQUADRN, CQUAD8N, CTRIA6N, and the p-element solids CHEXPR, CPENPR, CTETPR, CPYRAMPR.
    card(15401, "CQUADR", {14, 15}, 2), card(15901, "CQUAD8", {17, 16}, 2), card(15801, "CTRIA6", {14, 13}, 2),
    card(7409, "CHEXA", {22, 0}, 2),    card(7509, "CPENTA", {17, 0}, 2),  card(7609, "CTETRA", {12, 0}, 2),
    card(7909, "CPYRAM", {16, 0}, 2),
};

const ElementCard* element_card(std::int32_t key) noexcept {
  for (const ElementCard& card : kCards)
    if (card.key == key) return &card;
  return nullptr;
}

using BlockBuilder = io::NastranBlock;

constexpr std::int32_t kGridKey = 4501;
// NX writes float64 variants of GRID and CORD2x under the same first key words, the third
// raised by a million or more (GRID 4501 45 1120001, CORD2R 2101 21 2220008).
constexpr bool nx_float64_key(std::int32_t third_key_word) { return third_key_word >= 1000000; }
constexpr std::int32_t kEndKey = 65535;

// CORD1C/R/S (1701, 1801, 1901): cid, 2 flags, g1, g2, g3 (6 words). CORD2C/R/S (2001, 2101,
// 2201): cid, 2 flags, rid, a1 … c3 (13 words; 22 with float64 points: NX, see nx_float64_key).
void read_coordinate_systems(const File& file, const Table& table, const Words& w, std::vector<io::NastranCoordinateSystem>& out) {
  using Kind = io::NastranCoordinateKind;
  const std::int32_t key = w.integer(0);
  const bool by_grids = key == 1701 || key == 1801 || key == 1901;
  const Kind kind = key == 1701 || key == 2001 ? Kind::cylindrical : key == 1901 || key == 2201 ? Kind::spherical : Kind::rectangular;
  const bool doubles = !by_grids && (nx_float64_key(w.integer(2)) || (table.name == "GEOM1N" && (w.size() - 3) % 22 == 0));
  const std::size_t width = by_grids ? 6 : doubles ? 22 : 13;
  if ((w.size() - 3) % width != 0)
    file.fail(w.offset_of(0), table.name + ": coordinate system record of " + std::to_string(w.size()) +
                                  " words is not 3 + " + std::to_string(width) + " per system");
  for (std::size_t at = 3; at < w.size(); at += width) {
    io::NastranCoordinateSystem system;
    system.id = w.integer(at);
    system.kind = kind;
    system.by_grids = by_grids;
    if (by_grids) {
      for (std::size_t k = 0; k < 3; ++k) system.grids[k] = w.integer(at + 3 + k);
    } else {
      system.reference = w.integer(at + 3);
      for (std::size_t k = 0; k < 9; ++k)
        system.points[k] = doubles ? w.real64(at + 4 + 2 * k) : static_cast<double>(w.real(at + 4 + k));
    }
    out.push_back(system);
  }
}

bool is_coordinate_key(std::int32_t key) {
  return key == 1701 || key == 1801 || key == 1901 || key == 2001 || key == 2101 || key == 2201;
}

void read_grids(const File& file, const Table& table, std::vector<std::int64_t>& ids, std::vector<double>& xyz,
                std::vector<std::int64_t>& cp, std::vector<io::NastranCoordinateSystem>& systems) {
  std::string storage;
  for (std::size_t r = 1; r < table.records.size(); ++r) {
    const LogicalRecord& record = table.records[r];
    const Words w(file, file.record_bytes(record, storage), record.offset());
    if (w.size() < 3) file.fail(record.offset(), "GEOM1: a record shorter than its 3-word key");
    if (is_coordinate_key(w.integer(0))) read_coordinate_systems(file, table, w, systems);
    if (w.integer(0) == kEndKey || w.integer(0) != kGridKey) continue;
    const bool doubles = nx_float64_key(w.integer(2)) || table.name == "GEOM1N";
    const std::size_t width = doubles ? 11 : 8;
    const std::size_t entries = (w.size() - 3) / width;
    if ((w.size() - 3) % width != 0)
      file.fail(record.offset(), table.name + ": GRID record of " + std::to_string(w.size()) + " words is not 3 + " +
                                     std::to_string(width) + " per grid");
    for (std::size_t e = 0; e < entries; ++e) {
      const std::size_t at = 3 + width * e;
      ids.push_back(w.integer(at));
      cp.push_back(w.integer(at + 1));
      for (std::size_t c = 0; c < 3; ++c)
        xyz.push_back(doubles ? w.real64(at + 2 + 2 * c) : static_cast<double>(w.real(at + 2 + c)));
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

// `earlier`: the element ids of the GEOM2 tables read before this one (GEOM2 and GEOM2S may
// both hold an element: it is kept once).
void read_elements(const File& file, const Table& table, const io::IdMap& grids, std::vector<BlockBuilder>& blocks,
                   const std::set<std::int64_t>& earlier) {
  std::string storage;
  for (std::size_t r = 1; r < table.records.size(); ++r) {
    const LogicalRecord& record = table.records[r];
    const Words w(file, file.record_bytes(record, storage), record.offset());
    if (w.size() < 3) file.fail(record.offset(), "GEOM2: a record shorter than its 3-word key");
    const ElementCard* card = element_card(w.integer(0));
    if (card == nullptr) continue;
    const std::size_t length = static_cast<std::size_t>(entry_words(file, *card, w, grids));
    for (std::size_t at = 3; at < w.size(); at += length) {
      if (!earlier.empty() && earlier.contains(w.integer(at))) continue;
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

// A grid written to two GEOM1 tables (GEOM1 and GEOM1S) with the same cp and coordinates is
// kept once; the same id with other values is an error.
void drop_repeated_grids(const File& file, std::size_t offset, std::vector<std::int64_t>& ids, std::vector<double>& xyz,
                         std::vector<std::int64_t>& cp) {
  std::map<std::int64_t, std::size_t> first;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto [at, added] = first.emplace(ids[i], kept);
    if (!added) {
      const std::size_t j = at->second;
      if (cp[j] != cp[i] || !std::equal(xyz.begin() + 3 * i, xyz.begin() + 3 * i + 3, xyz.begin() + 3 * j))
        file.fail(offset, "GEOM1: GRID " + std::to_string(ids[i]) + " is given twice, with different values");
      continue;
    }
    ids[kept] = ids[i];
    cp[kept] = cp[i];
    std::copy_n(xyz.begin() + 3 * i, 3, xyz.begin() + 3 * kept);
    ++kept;
  }
  ids.resize(kept);
  cp.resize(kept);
  xyz.resize(3 * kept);
}

Geometry read_geometry(const File& file) {
  std::vector<const Table*> geom1, geom2;
  for (const Table& table : file.tables) {
    if (is_geom1_table(table.name)) geom1.push_back(&table);
    if (is_geom2_table(table.name)) geom2.push_back(&table);
  }
  if (geom1.empty())
    file.fail(0, "the file holds no geometry (no GEOM1 table): Nastran writes it to the OP2 with PARAM,POST,-1; "
                 "read the mesh from the input deck (format 'nastran')");
  Geometry g;
  std::vector<std::int64_t> ids, cp;
  std::vector<double> xyz;
  std::vector<io::NastranCoordinateSystem> systems;
  for (const Table* table : geom1) read_grids(file, *table, ids, xyz, cp, systems);
  if (geom1.size() > 1) drop_repeated_grids(file, geom1.front()->offset, ids, xyz, cp);
  if (const auto repeated = g.grids.build(ids))
    file.fail(geom1.front()->offset, "GEOM1: GRID " + std::to_string(ids[*repeated]) + " is given twice");
  Mesh& mesh = g.mesh;
  const auto n = static_cast<std::int64_t>(ids.size());
  mesh.points = NDArray::allocate(DType::float64, {n, 3});
  std::copy(xyz.begin(), xyz.end(), mesh.points.data_as<double>());
  mesh.point_data.append_new("nastran:grid_id", int64_array(ids, {n}));
  if (std::any_of(cp.begin(), cp.end(), [](std::int64_t c) { return c != 0; })) {
    // Points in basic, as Nastran places them; "nastran:cp" keeps the system each GRID was
    // written in (not "nastran:ref", which the bulk-data writer would write back as CP).
    const std::string why = io::nastran_positions_to_basic(systems, ids, cp, {mesh.points.data_as<double>(), xyz.size()});
    if (!why.empty()) file.fail(geom1.front()->offset, "GEOM1: " + why);
    mesh.point_data.append_new("nastran:cp", int64_array(cp, {n}));
  }

  std::vector<BlockBuilder> blocks;
  std::set<std::int64_t> earlier;
  for (const Table* table : geom2) {
    if (table != geom2.front())
      for (const BlockBuilder& block : blocks) earlier.insert(block.element_ids.begin(), block.element_ids.end());
    read_elements(file, *table, g.grids, blocks, earlier);
  }
  io::NastranElements elements = io::add_nastran_blocks(blocks, mesh);
  if (const auto repeated = g.elements.build(elements.ids))
    file.fail(geom2.front()->offset, "GEOM2: element " + std::to_string(elements.ids[*repeated]) + " is given twice");
  g.element_block = std::move(elements.block);
  g.element_row = std::move(elements.row);
  return g;
}

}  // namespace meshioplusplus::op2::detail
