// Nastran bulk data reader (see nastran.hpp). Cards carry no counts. On one thread a first
// pass walks the cards without parsing numbers and counts GRIDs and the rows of each block (a
// block's cell type depends on how many node fields an element card fills, so those are
// counted too); every returned array is then allocated once, in its final shape, and the
// second pass parses into it. Elements may come before the GRIDs they use, so connectivity
// holds GRID ids until the end and is turned into point indices in place.
//
// Large bulk data is read on all cores: it is cut into parts that each start at a card (not a
// continuation), each part is read in one pass on its own core into its own storage (counted
// as it goes: a counting pass cost a quarter of the read), then copied into the final arrays
// at the rows the parts before it fill, and the GRID ids are indexed once all are read. Any
// error, ENDDATA aside, sends the file to the sequential read, which reports it as it always
// did.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/nastran/nastran.hpp"
#include "formats/nastran/nastran_cards.hpp"
#include "formats/nastran/nastran_fields.hpp"
#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/source/scratch_vector.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"

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
int filled_nodes(const ElementCard& element, const detail::CardShape& card) noexcept {
  int count = 0;
  for (int k = 0; k < element.max_nodes; ++k) count += card.has(element.first_node_field + k * element.node_field_step);
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
  bool complete = true;  // false: stopped at an element card no variant takes
  bool ended = false;    // ENDDATA was read

  std::int64_t rows() const noexcept {
    std::int64_t sum = 0;
    for (const Block& block : blocks) sum += block.rows;
    return sum;
  }
};

// The counting pass. An element card with a node count no variant takes ends it: the
// reading pass fails there (or earlier), before it needs anything counted after it. Cards
// are only marked filled field by field here, not split: the reading pass splits them once.
Plan count_cards(CardReader& cards) {
  Plan plan;
  ElementCards elements;
  detail::CardShape card;
  while (cards.next(card)) {
    if (card.name == "GRID") {
      ++plan.num_grids;
      plan.any_cp_field = plan.any_cp_field || card.has(1);
    } else if (const ElementCard* element = elements.find(card.name)) {
      const ElementVariant* variant = find_variant(*element, filled_nodes(*element, card));
      if (variant == nullptr) {
        plan.complete = false;
        break;
      }
      if (element->ref_field >= 0) plan.any_ref = plan.any_ref || card.has(static_cast<std::size_t>(element->ref_field));
      if (plan.blocks.empty() || !same_cell_type(plan.blocks.back().variant, variant))
        plan.blocks.push_back({variant, 0});
      ++plan.blocks.back().rows;
    }
  }
  plan.ended = cards.ended();
  return plan;
}

// A block being filled: connectivity holds GRID ids (meshio node order) until the end.
struct BlockBuild {
  const ElementVariant* variant;
  NDArray connectivity;
  NDArray refs;  // only when some element fills its property id
};

// Every returned array, allocated once from the plan of the whole file.
struct Arrays {
  explicit Arrays(const Plan& plan) : any_cp_field(plan.any_cp_field), any_ref(plan.any_ref) {
    points = NDArray::allocate(DType::float64, {plan.num_grids, 3});
    if (plan.any_cp_field) grid_cp = NDArray::allocate(DType::int64, {plan.num_grids});
    blocks.reserve(plan.blocks.size());
    for (const Plan::Block& block : plan.blocks) {
      const std::int64_t width = block.variant->num_nodes;
      blocks.push_back({block.variant, NDArray::allocate(DType::int64, {block.rows, width}),
                        plan.any_ref ? NDArray::allocate(DType::int64, {block.rows}) : NDArray()});
    }
  }
  bool any_cp_field;
  bool any_ref;
  NDArray points;  // (GRIDs, 3)
  NDArray grid_cp;  // (GRIDs): only when some GRID fills CP
  std::vector<BlockBuild> blocks;
};

// meshio's node order from a card's GRID ids (as the card lists them) into `row`.
void put_row(const ElementVariant& variant, const std::int64_t* nodes, std::int64_t* row) noexcept {
  if (variant.file_order.empty()) {
    for (int k = 0; k < variant.num_nodes; ++k) row[k] = nodes[k];
  } else {
    for (int k = 0; k < variant.num_nodes; ++k) row[k] = nodes[variant.file_order[k]];
  }
}

// The reading pass: each GRID and element card parsed and handed to `sink`, which stores it
// (ArraysSink: into arrays the counting pass sized; PartSink: into a part's own storage).
template <class Sink> class CardFiller {
 public:
  CardFiller(CardReader& cards, Sink& sink) : cards_(cards), sink_(sink) {}

  void run() {
    Card card;
    while (cards_.next(card)) {
      if (card.name == "GRID") {
        read_grid(card);
      } else if (const ElementCard* element = elements_.find(card.name)) {
        read_element(*element, card);
      }
    }
  }
  bool any_cp() const noexcept { return any_cp_; }

 private:
  std::int64_t integer(const Card& card, std::size_t index, const char* what) {
    const std::string_view field = card.field(index);
    const auto value = detail::parse_integer(field, cards_.readable_end(field));
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
    double x[3];
    for (std::size_t axis = 0; axis < 3; ++axis) x[axis] = real_or_zero(card, 2 + axis);
    sink_.grid(cards_, card, id, cp, x);
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
    sink_.element(cards_, card, element, *variant_for(element, card, count), nodes_, ref);
  }

  const ElementVariant* variant_for(const ElementCard& element, const Card& card, int count) {
    if (const ElementVariant* variant = find_variant(element, count)) return variant;
    std::string counts;
    for (const ElementVariant& variant : element.variants)
      counts += (counts.empty() ? "" : " or ") + std::to_string(variant.num_nodes);
    cards_.fail_at(card.offset, card.name + " " + std::string(card.field(0)) + " gives " + std::to_string(count) +
                                    " nodes; it needs " + counts);
  }

  CardReader& cards_;
  Sink& sink_;
  ElementCards elements_;
  bool any_cp_ = false;
  std::int64_t nodes_[32] = {};  // one element's GRID ids as the card lists them
};

// The sequential read's storage: the arrays the counting pass sized, GRID ids indexed as
// they come (so a repeat is reported at its card).
class ArraysSink {
 public:
  ArraysSink(Arrays& arrays, io::LabelIndex& grid_index) : arrays_(arrays), grid_index_(grid_index) {}

  void grid(const CardReader& cards, const Card& card, std::int64_t id, std::int64_t cp, const double* x) {
    const std::int64_t index = grids_;
    if (!grid_index_.insert(id, index)) cards.fail_on(card, card.field(0), "GRID " + std::to_string(id) + " is defined twice");
    if (index >= arrays_.points.rows() || (cp != 0 && !arrays_.any_cp_field)) internal_error(cards, card.offset);
    std::copy(x, x + 3, arrays_.points.data_as<double>() + 3 * index);
    if (arrays_.any_cp_field) arrays_.grid_cp.data_as<std::int64_t>()[index] = cp;
    ++grids_;
  }

  void element(const CardReader& cards, const Card& card, const ElementCard&, const ElementVariant& variant,
               const std::int64_t* nodes, std::int64_t ref) {
    std::vector<BlockBuild>& blocks = arrays_.blocks;
    if (current_ == nullptr || !same_cell_type(current_->variant, &variant)) {
      const std::size_t next = current_ == nullptr ? 0 : static_cast<std::size_t>(current_ - blocks.data()) + 1;
      if (next >= blocks.size() || !same_cell_type(blocks[next].variant, &variant)) internal_error(cards, card.offset);
      row_ = 0;
      current_ = &blocks[next];
    }
    BlockBuild& block = *current_;
    if (row_ >= block.connectivity.rows()) internal_error(cards, card.offset);
    put_row(variant, nodes, block.connectivity.data_as<std::int64_t>() + row_ * variant.num_nodes);
    if (arrays_.any_ref) block.refs.data_as<std::int64_t>()[row_] = ref;
    ++row_;
    ++rows_;
  }

  // Every GRID and row the counting pass found must have come.
  void check_counts(const CardReader& cards, const Plan& plan) const {
    if (grids_ != plan.num_grids || rows_ != plan.rows()) internal_error(cards, 0);
  }

 private:
  [[noreturn]] static void internal_error(const CardReader& cards, std::size_t offset) {
    cards.fail_at(offset, "internal error: the counting pass disagrees with the reading pass");
  }

  Arrays& arrays_;
  io::LabelIndex& grid_index_;
  std::int64_t grids_ = 0;
  BlockBuild* current_ = nullptr;
  std::int64_t row_ = 0;   // in *current_
  std::int64_t rows_ = 0;  // element rows read
};

// Values appended in chunks that never move: a growing vector would copy its values and have
// fresh pages zeroed at each doubling. Read back front to back, once, into the final arrays.
template <class T> class ChunkedValues {
 public:
  static constexpr std::size_t kChunk = (std::size_t{1} << 20) / sizeof(T);  // 1 MiB: its own mapping

  // Room for `n` (≤ kChunk) values in a row.
  T* append(std::size_t n) {
    if (static_cast<std::size_t>(end_ - next_) < n) new_chunk();
    T* const at = next_;
    next_ += n;
    return at;
  }
  // The next `count` values, copied to `out`.
  void copy_next(std::size_t count, T* out) {
    seal();
    while (count > 0) {
      const io::ScratchVector<T>& chunk = chunks_[read_chunk_];
      const std::size_t take = std::min(count, chunk.size() - read_offset_);
      std::copy_n(chunk.data() + read_offset_, take, out);
      out += take;
      count -= take;
      read_offset_ += take;
      if (read_offset_ == chunk.size()) {
        ++read_chunk_;
        read_offset_ = 0;
      }
    }
  }
 private:
  // The last chunk's size: what was appended to it.
  void seal() {
    if (!chunks_.empty() && next_ != nullptr) chunks_.back().resize(static_cast<std::size_t>(next_ - chunks_.back().data()));
    next_ = end_ = nullptr;
  }
  void new_chunk() {
    seal();
    io::ScratchVector<T>& chunk = chunks_.emplace_back();
    chunk.resize(kChunk);
    next_ = chunk.data();
    end_ = next_ + kChunk;
  }

  std::vector<io::ScratchVector<T>> chunks_;
  T* next_ = nullptr;
  T* end_ = nullptr;
  std::size_t read_chunk_ = 0, read_offset_ = 0;
};

// One part of the bulk data read in one pass (counted as it is read) into its own storage;
// copied into the final arrays once every part is counted.
class PartSink {
 public:
  void grid(const CardReader&, const Card& card, std::int64_t id, std::int64_t cp, const double* x) {
    ++plan.num_grids;
    plan.any_cp_field = plan.any_cp_field || !card.field(1).empty();
    *grid_ids.append(1) = id;
    *grid_cp.append(1) = cp;
    std::copy(x, x + 3, points.append(3));
  }

  void element(const CardReader&, const Card& card, const ElementCard& element, const ElementVariant& variant,
               const std::int64_t* nodes, std::int64_t ref) {
    if (element.ref_field >= 0)
      plan.any_ref = plan.any_ref || !card.field(static_cast<std::size_t>(element.ref_field)).empty();
    if (plan.blocks.empty() || !same_cell_type(plan.blocks.back().variant, &variant)) plan.blocks.push_back({&variant, 0});
    ++plan.blocks.back().rows;
    put_row(variant, nodes, connectivity.append(static_cast<std::size_t>(variant.num_nodes)));
    *refs.append(1) = ref;  // kept whether or not any card fills it: another part may
  }

  Plan plan;
  ChunkedValues<double> points;  // 3 per GRID
  ChunkedValues<std::int64_t> grid_ids, grid_cp, connectivity, refs;
};

// The arrays filled, GRID ids turned into point indices: the mesh.
class MeshBuilder {
 public:
  MeshBuilder(std::string_view document, const std::string& path, Arrays& arrays, const io::LabelIndex& grid_index)
      : document_(document), path_(path), arrays_(arrays), grid_index_(grid_index) {}

  Mesh build(bool any_cp) {
    Mesh mesh;
    mesh.points = std::move(arrays_.points);
    if (any_cp) mesh.point_data.set("nastran:ref", std::move(arrays_.grid_cp));
    std::int64_t first_element = 0;  // ordinal among the element cards, for errors
    std::vector<NDArray> refs;
    for (BlockBuild& block : arrays_.blocks) {
      resolve(block, first_element);
      first_element += block.connectivity.rows();
      mesh.cells.push_back(CellBlock{block.variant->cell_type, std::move(block.connectivity), {}, {}});
      if (arrays_.any_ref) refs.push_back(std::move(block.refs));
    }
    if (arrays_.any_ref) mesh.cell_data.set("nastran:ref", std::move(refs));
    return mesh;
  }

 private:
  // GRID ids → point indices, in place, on all cores for large blocks. Each range stops at
  // its first missing id, so the smallest such position is the first a sequential walk meets,
  // and its id is still there for the error.
  void resolve(BlockBuild& block, std::int64_t first_element) {
    const int nodes_per_cell = block.variant->num_nodes;
    std::int64_t* ids = block.connectivity.data_as<std::int64_t>();
    const auto count = static_cast<std::size_t>(block.connectivity.rows() * nodes_per_cell);
    std::atomic<std::size_t> first_missing{count};
    io::parallel_ranges(count, std::size_t{1} << 18, [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i) {
        const std::int64_t found = grid_index_.find(ids[i]);
        if (found < 0) {
          std::size_t seen = first_missing.load();
          while (i < seen && !first_missing.compare_exchange_weak(seen, i)) {
          }
          return;
        }
        ids[i] = found;
      }
    });
    const std::size_t missing = first_missing.load();
    if (missing < count) missing_grid(first_element + static_cast<std::int64_t>(missing) / nodes_per_cell, ids[missing]);
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
    CardReader(document_, path_).fail_at(0, "element refers to GRID " + std::to_string(grid) + ", which is not defined");
  }

  std::string_view document_;
  const std::string& path_;
  Arrays& arrays_;
  const io::LabelIndex& grid_index_;
};

// The whole bulk data on one thread, counted first so that every array is allocated once:
// GRIDs indexed as they come, so a repeat is reported at its card, every error in file order.
Mesh read_sequentially(std::string_view document, const std::string& path) {
  CardReader counting(document, path);
  const Plan plan = count_cards(counting);
  Arrays arrays(plan);
  io::LabelIndex grid_index;  // GRID id → point index
  CardReader cards(document, path);
  ArraysSink sink(arrays, grid_index);
  CardFiller<ArraysSink> filler(cards, sink);
  filler.run();
  sink.check_counts(cards, plan);
  return MeshBuilder(document, path, arrays, grid_index).build(filler.any_cp());
}

// Where a part's values go in the final arrays: its first GRID's index, and the block and row
// of its first element (the block may continue one an earlier part started).
struct Start {
  std::int64_t grid = 0;
  std::size_t block = 0;
  std::int64_t row = 0;
};

// Large bulk data on all cores: cut into parts that start at cards, each part read in one
// pass on its own core into its own storage, then copied into the final arrays at the rows
// the parts before it fill. nullopt whenever anything is amiss (an error in a part before
// ENDDATA, a GRID given twice): the sequential read then runs and reports the error exactly
// where and as it always does.
std::optional<Mesh> read_in_parallel(std::string_view document, const std::string& path) {
  const std::size_t bulk = CardReader::bulk_begin(document);
  const std::size_t parts = std::min<std::size_t>(thread_count(), (document.size() - bulk) / io::kParallelLinesMinBytes);
  if (parts < 2) return std::nullopt;
  std::vector<std::size_t> bounds{bulk};
  for (std::size_t p = 1; p < parts; ++p) {
    std::size_t at = std::max(bounds.back(), bulk + (document.size() - bulk) / parts * p);
    const void* newline = std::memchr(document.data() + at, '\n', document.size() - at);
    at = newline != nullptr ? static_cast<std::size_t>(static_cast<const char*>(newline) - document.data()) + 1 : document.size();
    CardReader probe(document, path, at, document.size());
    bounds.push_back(std::max(bounds.back(), probe.next_card_start().value_or(document.size())));
  }
  bounds.push_back(document.size());

  std::vector<PartSink> sinks(parts);
  std::vector<char> failed(parts, 0), ended(parts, 0), any_cp(parts, 0);
  io::parallel_ranges(parts, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t p = first; p < last; ++p) {
      try {
        CardReader cards(document, path, bounds[p], bounds[p + 1]);
        CardFiller<PartSink> filler(cards, sinks[p]);
        filler.run();
        ended[p] = cards.ended();
        any_cp[p] = filler.any_cp();
      } catch (...) {
        failed[p] = 1;
      }
    }
  });
  // Parts after the one holding ENDDATA are not bulk data; a failure before it ends the try.
  std::size_t used = 0;
  while (used < parts) {
    if (failed[used]) return std::nullopt;
    if (ended[used++]) break;
  }
  Plan whole;
  std::vector<Start> starts(used);
  for (std::size_t p = 0; p < used; ++p) {
    const Plan& part = sinks[p].plan;
    starts[p].grid = whole.num_grids;
    whole.num_grids += part.num_grids;
    whole.any_cp_field = whole.any_cp_field || part.any_cp_field;
    whole.any_ref = whole.any_ref || part.any_ref;
    for (std::size_t b = 0; b < part.blocks.size(); ++b) {
      const bool continues = !whole.blocks.empty() && same_cell_type(whole.blocks.back().variant, part.blocks[b].variant);
      if (b == 0) {
        starts[p].block = continues ? whole.blocks.size() - 1 : whole.blocks.size();
        starts[p].row = continues ? whole.blocks.back().rows : 0;
      }
      if (continues) whole.blocks.back().rows += part.blocks[b].rows;
      else whole.blocks.push_back(part.blocks[b]);
    }
  }

  Arrays arrays(whole);
  std::vector<std::int64_t> grid_ids(static_cast<std::size_t>(whole.num_grids));
  io::parallel_ranges(used, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t p = first; p < last; ++p) {
      PartSink& part = sinks[p];
      const auto grids = static_cast<std::size_t>(part.plan.num_grids);
      const auto first_grid = static_cast<std::size_t>(starts[p].grid);
      part.points.copy_next(3 * grids, arrays.points.data_as<double>() + 3 * first_grid);
      part.grid_ids.copy_next(grids, grid_ids.data() + first_grid);
      if (whole.any_cp_field) part.grid_cp.copy_next(grids, arrays.grid_cp.data_as<std::int64_t>() + first_grid);
      for (std::size_t b = 0; b < part.plan.blocks.size(); ++b) {
        BlockBuild& block = arrays.blocks[starts[p].block + b];
        const std::int64_t row = b == 0 ? starts[p].row : 0;
        const auto rows = static_cast<std::size_t>(part.plan.blocks[b].rows);
        const auto width = static_cast<std::size_t>(block.variant->num_nodes);
        part.connectivity.copy_next(rows * width, block.connectivity.data_as<std::int64_t>() + row * block.variant->num_nodes);
        if (whole.any_ref) part.refs.copy_next(rows, block.refs.data_as<std::int64_t>() + row);
      }
      part = PartSink();  // its storage goes back to the system now
    }
  });
  io::LabelIndex grid_index;
  for (std::size_t i = 0; i < grid_ids.size(); ++i)
    if (!grid_index.insert(grid_ids[i], static_cast<std::int64_t>(i))) return std::nullopt;
  const bool some_cp = std::find(any_cp.begin(), any_cp.begin() + static_cast<std::ptrdiff_t>(used), 1) !=
                       any_cp.begin() + static_cast<std::ptrdiff_t>(used);
  return MeshBuilder(document, path, arrays, grid_index).build(some_cp);
}

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, "nastran");
  io::reject_empty_file(file.bytes(), path, "nastran");
  if (std::optional<Mesh> mesh = read_in_parallel(file.bytes(), path)) return std::move(*mesh);
  return read_sequentially(file.bytes(), path);
}

}  // namespace meshioplusplus::nastran
