// MSH reader, $Elements: the two passes over the element records (see gmsh_reader.cpp) —
// the scan that finds the runs of one type and counts them (2.x ASCII, 2.x binary under its
// per-element headers, 4.x blocks, ASCII 4.x by lines), the blocks the runs go to (meshio's
// cuts, or the writer's $MeshioplusplusBlocks), and the fill of every run in each version and
// encoding. The largest section of the format, and the one the data sections look element
// tags up in (element_index), so a file of its own.
#include <algorithm>
#include <array>
#include <atomic>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "formats/gmsh/gmsh_reader_internal.hpp"
#include "io/source/uninitialized.hpp"
#include "io/text/line_values.hpp"

namespace meshioplusplus::gmsh::detail::reader {
namespace {

// The element scan found a layout other than one element per line.
struct NotOnePerLine {};

// Element lines one thread fills before another is worth starting (about 4 MiB of text).
constexpr std::size_t kElementLinesPerThread = std::size_t{1} << 16;

}  // namespace

// ---- $Elements -----------------------------------------------------------------------
void MshReader::read_elements(std::size_t start) {
  if (elements_read_) cursor_.fail_at(start, "more than one $Elements section is not supported");
  if (!nodes_read_) cursor_.fail_at(start, "$Elements comes before $Nodes");
  if (partitioned_ && !partitioned_entities_read_) fail_not_partitioned(start);
  elements_read_ = true;
  if (metadata_only_) {
    if (!cursor_.binary() && version_ != Version::v2) {
      skip_elements_4_ascii();
    } else {
      if (version_ == Version::v2) scan_elements_2();
      else scan_elements_4();
      expect_end("Elements");
    }
    assign_blocks();
    return;
  }
  if (version_ != Version::v2 && !cursor_.binary()) {
    const std::size_t body = cursor_.position();
    if (read_elements_4_by_lines()) return;
    runs_.clear();  // another layout or an error: the sequential reading below decides
    blocks_.clear();
    cursor_.seek(body);
  }
  if (version_ == Version::v2 && !cursor_.binary()) {
    const std::size_t body = cursor_.position();
    if (read_elements_2_by_lines()) return;
    runs_.clear();  // another layout or an error: the sequential reading below decides
    blocks_.clear();
    cursor_.seek(body);
  }
  if (version_ == Version::v2) scan_elements_2();
  else scan_elements_4();
  expect_end("Elements");
  // points_only: the vertex elements alone (their groups are the Point regions); 4.x scans
  // drop the other blocks as they go.
  if (points_alone())
    std::erase_if(runs_, [](const ElementRun& run) { return run.type->dimension != 0; });
  add_ghost_element_runs();
  const std::size_t section_end = cursor_.position();
  allocate_blocks();
  for (const ElementRun& run : runs_) fill_run(run);
  cursor_.seek(section_end);
}

const GmshElementType& MshReader::element_type_at(int gmsh_id, std::size_t offset) const {
  const GmshElementType* type = element_type_from_gmsh(gmsh_id);
  if (type == nullptr)
    cursor_.fail_at(offset, "Gmsh element type " + std::to_string(gmsh_id) + " is not supported");
  return *type;
}

void MshReader::add_run(const ElementRun& run) { runs_.push_back(run); }

// Whether a block of $MeshioplusplusBlocks ends before element `index` (0-based, in file
// order): the 2.x scans then start a new run there, so runs never straddle such blocks.
bool MshReader::written_block_ends_before(std::uint64_t index) const {
  return index > 0 && std::binary_search(written_ends_.begin(), written_ends_.end(), static_cast<std::int64_t>(index));
}

// Gives every run its block (and first row there): the writer's blocks when
// $MeshioplusplusBlocks describes these runs exactly, else meshio's cuts.
void MshReader::assign_blocks() {
  blocks_.clear();
  if (!written_blocks_.empty() && assign_written_blocks()) return;
  blocks_.clear();
  for (ElementRun& run : runs_) {
    if (version_ != Version::v2 || blocks_.empty() || blocks_.back().type != run.type) {
      BlockBuild& block = blocks_.emplace_back();
      block.type = run.type;
    }
    run.block = blocks_.size() - 1;
    run.first_row = blocks_.back().count;
    blocks_.back().count += static_cast<std::int64_t>(run.count);
  }
}

bool MshReader::assign_written_blocks() {
  for (const WrittenBlock& written : written_blocks_) {
    BlockBuild& block = blocks_.emplace_back();
    block.type = written.type;
    block.count = written.count;
  }
  std::size_t b = 0;
  std::int64_t filled = 0;
  for (ElementRun& run : runs_) {
    if (run.count == 0) {  // an empty element block holds no cells of any block
      if (b == blocks_.size()) return false;
      run.block = b;
      run.first_row = filled;
      continue;
    }
    while (b < blocks_.size() && filled == blocks_[b].count) ++b, filled = 0;
    if (b == blocks_.size() || blocks_[b].type != run.type ||
        static_cast<std::uint64_t>(blocks_[b].count - filled) < run.count)
      return false;
    run.block = b;
    run.first_row = filled;
    filled += static_cast<std::int64_t>(run.count);
  }
  while (b < blocks_.size() && filled == blocks_[b].count) ++b, filled = 0;
  return b == blocks_.size();
}

// ASCII 4.x with every element on a line of its own: the scan jumps over element lines
// (but those of the last run, whose parse finds their end) and the runs parse on all
// cores. False when the file is laid out otherwise or holds anything the sequential code
// would reject: a layout guessed wrong may misplace the scan, so no error found here is
// reported — the caller rereads the section.
bool MshReader::read_elements_4_by_lines() {
  bool last_run_open = false;
  try {
    last_run_open = scan_elements_4(true);
    if (!last_run_open) expect_end("Elements");
  } catch (const ReadError&) {
    return false;
  } catch (const NotOnePerLine&) {
    return false;
  }
  try {
    add_ghost_element_runs();  // these runs are walked token by token, whatever the layout
  } catch (const ReadError&) {
    return false;
  }
  std::size_t section_end = cursor_.position();
  allocate_blocks();
  for (const ElementRun& run : runs_) {
    if (!run.selected_records.empty()) {  // ghosts picked out of a block: never the open run
      try {
        fill_selected_run(run);
      } catch (const ReadError&) {
        return false;
      }
      continue;
    }
    const std::optional<std::size_t> run_end = fill_run_4_lines(run);
    if (!run_end) return false;
    if (last_run_open) section_end = *run_end;  // the last run's, in the end
  }
  cursor_.seek(section_end);
  if (last_run_open) {
    try {
      expect_end("Elements");
    } catch (const ReadError&) {
      return false;
    }
  }
  return true;
}

// ASCII 2.x with every element on a line of its own (what Gmsh and meshio write): one pass
// on all cores notes each element's type and line start, the runs are cut from the types as
// scan_elements_2 cuts them, then the runs fill on all cores straight from the noted lines
// (no second line split). False when the file is laid out otherwise or holds anything the
// sequential code would refuse (nothing is reported here): the caller then reads the
// section token by token.
bool MshReader::read_elements_2_by_lines() {
  constexpr int kMostNodes = 128;
  if (partitioned_ || ghost_cells_ || thread_count() < 2) return false;
  const std::string_view document = cursor_.document();
  std::uint64_t count = 0;
  try {
    count = cursor_.text_number<std::uint64_t>();
    cursor_.check_count(count, 8, "element");
  } catch (const ReadError&) {
    return false;
  }
  const std::optional<std::size_t> begin = io::records_begin(document, cursor_.position());
  if (!begin || count == 0) return false;
  const char* const text = document.data();
  const char* const readable_end = text + document.size();
  // Gmsh type ids (all below 256), line starts and how far into its line each element's
  // tag count starts (past the tag and type read here, so the fill does not read them
  // again), written once each by the pass below.
  io::UninitializedVector<std::uint8_t> type_ids;
  io::UninitializedVector<std::uint8_t> tags_at;
  io::UninitializedVector<std::size_t> line_starts;
  type_ids.resize(static_cast<std::size_t>(count));
  tags_at.resize(static_cast<std::size_t>(count));
  line_starts.resize(static_cast<std::size_t>(count) + 1);
  // The type ids this pass takes (a known type of at most kMostNodes nodes), looked up once.
  std::array<bool, 256> known{};
  for (int id = 1; id < 256; ++id) {
    const GmshElementType* type = element_type_from_gmsh(id);
    known[static_cast<std::size_t>(id)] = type != nullptr && type->num_nodes <= kMostNodes;
  }
  const std::optional<std::size_t> end = io::parse_lines_in_parallel(
      document, *begin, count, [&](std::uint64_t e, std::size_t line, std::size_t stop) {
        std::uint64_t tag = 0;
        int gmsh_id = 0;
        const char* const tag_end = io::plain_integer(text + line, text + stop, tag, readable_end);
        const char* const type_end = tag_end ? io::plain_integer(tag_end, text + stop, gmsh_id, readable_end) : nullptr;
        if (type_end == nullptr || gmsh_id <= 0 || gmsh_id > 255 || !known[static_cast<std::size_t>(gmsh_id)] ||
            type_end - (text + line) > 255)
          return false;
        type_ids[e] = static_cast<std::uint8_t>(gmsh_id);
        tags_at[e] = static_cast<std::uint8_t>(type_end - (text + line));
        line_starts[e] = line;
        return true;
      });
  if (!end) return false;
  line_starts[count] = *end;
  // The runs scan_elements_2 cuts, each at its first element's line: a run ends where the
  // type changes or a block of $MeshioplusplusBlocks ends.
  const bool written_ends = !written_ends_.empty();
  for (std::uint64_t e = 0; e < count;) {
    const std::uint8_t run_id = type_ids[e];
    std::uint64_t stop = e + 1;
    while (stop < count && type_ids[stop] == run_id && !(written_ends && written_block_ends_before(stop))) ++stop;
    add_run(ElementRun{element_type_from_gmsh(run_id), stop - e, line_starts[e]});
    e = stop;
  }
  io::UninitializedVector<std::uint8_t>().swap(type_ids);
  if (points_alone()) std::erase_if(runs_, [](const ElementRun& run) { return run.type->dimension != 0; });
  allocate_blocks();
  // Set once per range, not per element: two threads storing to one cache line per element
  // would pass it back and forth between their cores.
  std::atomic<bool> any_physical{false};
  std::atomic<bool> one_per_line{true};
  std::uint64_t run_first = 0;  // the run's first element (runs_ are in file order)
  for (const ElementRun& run : runs_) {
    while (line_starts[run_first] != run.data_offset) ++run_first;  // past runs points_only dropped
    BlockBuild& block = blocks_[run.block];
    const int k = run.type->num_nodes;
    std::int64_t* const connectivity = block.connectivity.data_as<std::int64_t>() + run.first_row * k;
    std::int32_t* const physical = block.physical.data_as<std::int32_t>() + run.first_row;
    std::int32_t* const geometrical = block.geometrical.data_as<std::int32_t>() + run.first_row;
    const std::span<const std::uint16_t> order = run.type->meshio_from_gmsh;
    // fill_run_2_ascii's reading of a line, without its errors.
    const auto fill = [&](std::uint64_t e, bool& physical_given) {
      const std::size_t line = line_starts[run_first + e];
      io::LineValues reader{text + line + tags_at[run_first + e], text + line_starts[run_first + e + 1] - 1, readable_end};
      int num_tags = 0;
      if (!reader.next(num_tags) || num_tags < 0) return false;
      std::int32_t tags[2] = {0, 0};
      for (int t = 0; t < num_tags; ++t) {
        std::int32_t value = 0;
        if (!reader.next(value)) return false;
        if (t < 2) tags[t] = value;
      }
      std::uint64_t node_tags[kMostNodes];
      for (int j = 0; j < k; ++j)
        if (!reader.next(node_tags[j])) return false;
      if (!reader.done()) return false;
      std::int64_t* const out = connectivity + e * static_cast<std::uint64_t>(k);
      for (int i = 0; i < k; ++i) {
        const std::int64_t index = node_index_.find(node_tags[order.empty() ? i : order[static_cast<std::size_t>(i)]]);
        if (index < 0) return false;
        out[i] = index;
      }
      physical[e] = tags[0];
      geometrical[e] = tags[1];
      physical_given |= num_tags >= 1;
      return true;
    };
    io::parallel_ranges(static_cast<std::size_t>(run.count), kElementLinesPerThread, [&](std::size_t first, std::size_t last) {
      bool physical_given = false;
      for (std::size_t e = first; e < last && one_per_line.load(std::memory_order_relaxed); ++e)
        if (!fill(e, physical_given)) one_per_line = false;
      if (physical_given) any_physical.store(true, std::memory_order_relaxed);
    });
    if (!one_per_line) return false;
    run_first += run.count;
  }
  cursor_.seek(*end);
  try {
    expect_end("Elements");
  } catch (const ReadError&) {
    return false;
  }
  any_physical_ = any_physical_ || any_physical.load();
  return true;
}

// Metadata reads of ASCII 4.x: the element lines jumped over as lines (the scan of
// read_elements_4_by_lines, the last run's lines too), or token by token where the file is
// laid out otherwise.
void MshReader::skip_elements_4_ascii() {
  const std::size_t body = cursor_.position();
  try {
    if (scan_elements_4(true)) {
      const ElementRun& last = runs_.back();
      const std::optional<std::size_t> end = io::skip_lines(cursor_.document(), last.data_offset, last.count);
      if (!end) throw NotOnePerLine{};
      cursor_.seek(*end);
    }
    expect_end("Elements");  // a layout guessed wrong lands elsewhere
    return;
  } catch (const ReadError&) {
  } catch (const NotOnePerLine&) {
  }
  runs_.clear();
  cursor_.seek(body);
  scan_elements_4();
  expect_end("Elements");
}

// Every line of the run is "tag node…" with known nodes (checked line by line, so a run
// that is not one element per line is refused, whatever the scan assumed).
// Returns the offset after the run's last line.
std::optional<std::size_t> MshReader::fill_run_4_lines(const ElementRun& run) {
  BlockBuild& block = blocks_[run.block];
  const GmshElementType& type = *run.type;
  const int k = type.num_nodes;
  std::int64_t* const connectivity = block.connectivity.data_as<std::int64_t>() + run.first_row * k;
  const std::span<const std::uint16_t> to_meshio = type.gmsh_from_meshio;
  const char* const text = cursor_.document().data();
  std::int64_t* const element_tags = element_tags_of(run);
  const auto parse = [&](std::uint64_t e, std::size_t line, std::size_t stop) {
    io::LineValues reader{text + line, text + stop, text + cursor_.document().size()};
    std::uint64_t tag = 0;
    if (!reader.next(tag)) return false;  // the element's own tag
    if (element_tags != nullptr) element_tags[e] = static_cast<std::int64_t>(tag);
    std::int64_t* const out = connectivity + e * static_cast<std::uint64_t>(k);
    for (int j = 0; j < k; ++j) {
      if (!reader.next(tag)) return false;
      const std::int64_t index = node_index_.find(tag);
      if (index < 0) return false;
      out[to_meshio.empty() ? j : to_meshio[static_cast<std::size_t>(j)]] = index;
    }
    return reader.done();
  };
  return parse_record_lines(cursor_.document(), run.data_offset, run.count, parse);
}

// by_lines (ASCII): element records are taken to be one per line and jumped over as
// lines, each run starting at a line start; NotOnePerLine where that cannot hold. The
// lines of the last run are left for its parse to pass: true when it did so.
bool MshReader::scan_elements_4(bool by_lines) {
  const bool v41 = version_ == Version::v41;
  const std::size_t tag_bytes = v41 ? 8 : 4;
  const std::uint64_t num_blocks = cursor_.size_value();
  const std::uint64_t num_elements = cursor_.size_value();
  if (v41) cursor_.skip_values(2, 8);  // min and max tag
  cursor_.check_count(num_elements, cursor_.binary() ? 2 * tag_bytes : 4, "element");
  cursor_.check_count(num_blocks, cursor_.binary() ? 20 : 8, "element block");
  std::uint64_t total = 0;
  bool last_run_open = false;
  ghost_candidates_.clear();  // a scan by lines that gave up leaves its own
  ghost_blocks_kept_ = false;
  for (std::uint64_t b = 0; b < num_blocks; ++b) {
    const std::size_t block_at = cursor_.position();
    int entity_dim = cursor_.int32();
    int entity_tag = cursor_.int32();
    if (!v41) std::swap(entity_dim, entity_tag);
    const GmshElementType& type = element_type_at(cursor_.int32(), block_at);
    const std::uint64_t count = cursor_.size_value();
    const std::uint64_t values_per_element = 1 + static_cast<std::uint64_t>(type.num_nodes);
    cursor_.check_count(count, values_per_element * (cursor_.binary() ? tag_bytes : 2), "element");
    if (count > num_elements - total)
      cursor_.fail_at(block_at, "element blocks hold more elements than the " + std::to_string(num_elements) +
                                    " the section announces");
    ElementRun run{&type, count, cursor_.position()};
    run.entity_dim = entity_dim;
    run.entity_tag = entity_tag;
    Keep keep = keeps_entity(entity_dim, entity_tag, block_at);
    if (points_alone() && type.dimension != 0) keep = Keep::none;
    if (by_lines && count > 0) {
      const std::optional<std::size_t> begin = io::records_begin(cursor_.document(), cursor_.position());
      if (!begin) throw NotOnePerLine{};
      run.data_offset = *begin;
      if (b + 1 == num_blocks && keep != Keep::none) {
        last_run_open = true;
      } else {
        const std::optional<std::size_t> end = io::skip_lines(cursor_.document(), *begin, count);
        if (!end) throw NotOnePerLine{};
        cursor_.seek(*end);
      }
    } else {
      cursor_.skip_values(count * values_per_element, tag_bytes);
    }
    // A partitioned read skips other partitions' element blocks; a ghost_cells read may pick
    // ghosts out of them once it has the $GhostElements list (add_ghost_element_runs).
    if (keep != Keep::none) {
      run.ghost = keep == Keep::ghost;
      ghost_blocks_kept_ |= run.ghost;
      add_run(run);
    } else if (ghost_cells_ && count > 0 && entity_owner_.contains(entity_key(entity_dim, entity_tag))) {
      ghost_candidates_.push_back(run);
    }
    total += count;
  }
  if (total != num_elements)
    cursor_.fail("the section announces " + std::to_string(num_elements) + " elements but its blocks hold " +
                 std::to_string(total));
  return last_run_open;
}

void MshReader::scan_elements_2() {
  const auto count = cursor_.text_number<std::uint64_t>();
  cursor_.check_count(count, cursor_.binary() ? 16 : 8, "element");
  if (cursor_.binary()) return scan_elements_2_binary(count);
  for (std::uint64_t e = 0; e < count; ++e) {
    cursor_.skip_whitespace();
    const std::size_t element_at = cursor_.position();
    cursor_.skip_values(1, 0);  // tag
    const GmshElementType& type = element_type_at(cursor_.text_number<int>(), element_at);
    const int num_tags = cursor_.text_number<int>();
    if (num_tags < 0) cursor_.fail_at(element_at, "negative number of element tags");
    std::uint64_t rest = static_cast<std::uint64_t>(num_tags) + static_cast<std::uint64_t>(type.num_nodes);
    if (metadata_only_ && num_tags >= 1) {  // the physical tag: the element's group
      count_physical_2(type, cursor_.text_number<std::int32_t>());
      --rest;
    }
    cursor_.skip_values(rest, 0);
    if (!runs_.empty() && runs_.back().type == &type && !written_block_ends_before(e)) {
      ++runs_.back().count;
    } else {
      add_run(ElementRun{&type, 1, element_at});
    }
  }
}

// 2.x binary: headers (type, count, number of tags), each followed by its elements.
void MshReader::scan_elements_2_binary(std::uint64_t count) {
  cursor_.end_text_line();
  std::uint64_t total = 0;
  while (total < count) {
    const std::size_t header_at = cursor_.position();
    const GmshElementType& type = element_type_at(cursor_.raw<std::int32_t>(), header_at);
    const std::int32_t following = cursor_.raw<std::int32_t>();
    const std::int32_t num_tags = cursor_.raw<std::int32_t>();
    if (following <= 0 || static_cast<std::uint64_t>(following) > count - total || num_tags < 0)
      cursor_.fail_at(header_at, "bad element header (count " + std::to_string(following) + ", tags " +
                                     std::to_string(num_tags) + ")");
    ElementRun run{&type, static_cast<std::uint64_t>(following), cursor_.position(), num_tags};
    const std::size_t body = 4 * (1 + static_cast<std::size_t>(num_tags) + static_cast<std::size_t>(type.num_nodes));
    cursor_.take(cursor_.checked_bytes(run.count, body));
    total += run.count;
    if (following == 1) {
      // Gmsh writes one header per element: elements under identical headers join the run.
      std::int32_t header[3];
      std::memcpy(header, cursor_.document().data() + header_at, sizeof header);
      const std::string_view document = cursor_.document();
      while (total < count && document.size() - cursor_.position() >= sizeof header + body &&
             std::memcmp(document.data() + cursor_.position(), header, sizeof header) == 0 &&
             !written_block_ends_before(total)) {
        cursor_.take(sizeof header + body);
        ++run.count;
        ++total;
      }
      if (run.count > 1) run.header_bytes = sizeof header;
    }
    if (metadata_only_) count_physicals_2_binary(run);
    add_run(run);
  }
}

void MshReader::allocate_blocks() {
  assign_blocks();
  bases_.assign(1, 0);
  for (const BlockBuild& block : blocks_) bases_.push_back(bases_.back() + block.count);
  for (BlockBuild& block : blocks_) {
    block.connectivity = NDArray::allocate(DType::int64, {block.count, block.type->num_nodes});
    if (version_ == Version::v2) {
      block.geometrical = NDArray::allocate(DType::int32, {block.count});
      block.physical = NDArray::allocate(DType::int32, {block.count});
    } else {
      block.geometrical = NDArray::allocate(DType::int64, {block.count});
    }
    if (partitioned_) block.element_tags = NDArray::allocate(DType::int64, {block.count});
    if (ghost_cells_) {
      block.ghost_type = NDArray::allocate(DType::uint8, {block.count});
      std::fill_n(block.ghost_type.data_as<std::uint8_t>(), block.count, std::uint8_t{0});
    }
  }
  if (ghost_cells_)
    for (const ElementRun& run : runs_)
      if (run.ghost)
        std::fill_n(blocks_[run.block].ghost_type.data_as<std::uint8_t>() + run.first_row, run.count,
                    kDuplicateCell);
  if (version_ == Version::v2) return;
  for (const ElementRun& run : runs_)
    std::fill_n(blocks_[run.block].geometrical.data_as<std::int64_t>() + run.first_row, run.count,
                std::int64_t{run.entity_tag});
}

// Stores one element's nodes in meshio order as point indices. `tag_of` gives the node
// tag of Gmsh-ordered node j.
template <class TagOf>
void MshReader::put_nodes(const GmshElementType& type, std::int64_t* out, TagOf&& tag_of, std::size_t element_at) {
  const std::span<const std::uint16_t> order = type.meshio_from_gmsh;
  for (int i = 0; i < type.num_nodes; ++i) {
    const std::uint64_t tag = tag_of(order.empty() ? i : order[i]);
    const std::int64_t index = node_index_.find(tag);
    if (index < 0)
      cursor_.fail_at(element_at, "an element references node tag " + std::to_string(tag) +
                                      ", which $Nodes does not define");
    out[i] = index;
  }
}

void MshReader::fill_run(const ElementRun& run) {
  BlockBuild& block = blocks_[run.block];
  const GmshElementType& type = *run.type;
  const int k = type.num_nodes;
  std::int64_t* connectivity = block.connectivity.data_as<std::int64_t>() + run.first_row * k;
  if (!run.selected_records.empty()) return fill_selected_run(run);
  cursor_.seek(run.data_offset);
  if (version_ == Version::v2) {
    std::int32_t* geometrical = block.geometrical.data_as<std::int32_t>() + run.first_row;
    std::int32_t* physical = block.physical.data_as<std::int32_t>() + run.first_row;
    if (cursor_.binary()) fill_run_2_binary(run, connectivity, physical, geometrical);
    else fill_run_2_ascii(run, connectivity, physical, geometrical);
  } else {
    if (cursor_.binary()) fill_run_4_binary(run, connectivity);
    else fill_run_4_ascii(run, connectivity);
  }
}

// Ghost cells picked out of a block (4.1, either encoding): one record at each offset.
void MshReader::fill_selected_run(const ElementRun& run) {
  const int k = run.type->num_nodes;
  std::int64_t* const connectivity = blocks_[run.block].connectivity.data_as<std::int64_t>() + run.first_row * k;
  std::int64_t* const element_tags = element_tags_of(run);
  node_tags_.resize(static_cast<std::size_t>(k));
  for (std::size_t e = 0; e < run.selected_records.size(); ++e) {
    const std::size_t at = run.selected_records[e];
    cursor_.seek(at);
    const std::uint64_t element_tag = cursor_.size_value();
    if (element_tags != nullptr) element_tags[e] = static_cast<std::int64_t>(element_tag);
    for (int j = 0; j < k; ++j) node_tags_[j] = cursor_.size_value();
    put_nodes(*run.type, connectivity + e * k, [&](int j) { return node_tags_[j]; }, at);
  }
}

// Where a partitioned read stores the run's element tags; null otherwise.
std::int64_t* MshReader::element_tags_of(const ElementRun& run) {
  NDArray& tags = blocks_[run.block].element_tags;
  return tags.empty_handle() ? nullptr : tags.data_as<std::int64_t>() + run.first_row;
}

void MshReader::fill_run_4_binary(const ElementRun& run, std::int64_t* connectivity) {
  const int k = run.type->num_nodes;
  if (version_ == Version::v41) {
    const std::size_t record = 8 * (1 + static_cast<std::size_t>(k));
    const char* data = cursor_.document().data() + run.data_offset;
    std::int64_t* const element_tags = element_tags_of(run);
    for (std::uint64_t e = 0; e < run.count; ++e) {
      if (element_tags != nullptr) element_tags[e] = static_cast<std::int64_t>(load<std::uint64_t>(data + record * e));
      const char* nodes = data + record * e + 8;
      put_nodes(*run.type, connectivity + e * k, [&](int j) { return load<std::uint64_t>(nodes + 8 * j); },
                run.data_offset + record * e);
    }
    return;
  }
  const std::size_t record = 4 * (1 + static_cast<std::size_t>(k));
  const char* data = cursor_.document().data() + run.data_offset;
  for (std::uint64_t e = 0; e < run.count; ++e) {
    const char* nodes = data + record * e + 4;
    put_nodes(*run.type, connectivity + e * k,
              [&](int j) { return static_cast<std::uint64_t>(load<std::int32_t>(nodes + 4 * j)); },
              run.data_offset + record * e);
  }
}

void MshReader::fill_run_4_ascii(const ElementRun& run, std::int64_t* connectivity) {
  const int k = run.type->num_nodes;
  node_tags_.resize(static_cast<std::size_t>(k));
  std::int64_t* const element_tags = element_tags_of(run);
  for (std::uint64_t e = 0; e < run.count; ++e) {
    cursor_.skip_whitespace();
    const std::size_t element_at = cursor_.position();
    const std::uint64_t element_tag = cursor_.size_value();
    if (element_tags != nullptr) element_tags[e] = static_cast<std::int64_t>(element_tag);
    for (int j = 0; j < k; ++j) node_tags_[j] = cursor_.size_value();
    put_nodes(*run.type, connectivity + e * k, [&](int j) { return node_tags_[j]; }, element_at);
  }
}

void MshReader::fill_run_2_binary(const ElementRun& run, std::int64_t* connectivity, std::int32_t* physical,
                       std::int32_t* geometrical) {
  const int k = run.type->num_nodes;
  const int num_tags = run.binary_tags;
  const std::size_t record = run.header_bytes + 4 * (1 + static_cast<std::size_t>(num_tags) + static_cast<std::size_t>(k));
  const char* data = cursor_.document().data() + run.data_offset;
  if (num_tags >= 1) any_physical_ = true;
  for (std::uint64_t e = 0; e < run.count; ++e) {
    const char* element = data + record * e;
    physical[e] = num_tags >= 1 ? load<std::int32_t>(element + 4) : 0;
    geometrical[e] = num_tags >= 2 ? load<std::int32_t>(element + 8) : 0;
    const char* nodes = element + 4 * (1 + static_cast<std::size_t>(num_tags));
    put_nodes(*run.type, connectivity + e * k,
              [&](int j) { return static_cast<std::uint64_t>(load<std::int32_t>(nodes + 4 * j)); },
              run.data_offset + record * e);
  }
}

void MshReader::fill_run_2_ascii(const ElementRun& run, std::int64_t* connectivity, std::int32_t* physical,
                      std::int32_t* geometrical) {
  const int k = run.type->num_nodes;
  node_tags_.resize(static_cast<std::size_t>(k));
  for (std::uint64_t e = 0; e < run.count; ++e) {
    cursor_.skip_whitespace();
    const std::size_t element_at = cursor_.position();
    cursor_.skip_values(2, 0);  // tag and type (checked by the scan)
    const int num_tags = cursor_.text_number<int>();
    physical[e] = geometrical[e] = 0;
    for (int t = 0; t < num_tags; ++t) {
      const auto value = cursor_.text_number<std::int32_t>();
      if (t == 0) physical[e] = value;
      if (t == 1) geometrical[e] = value;
    }
    if (num_tags >= 1) any_physical_ = true;
    for (int j = 0; j < k; ++j) node_tags_[j] = cursor_.text_number<std::uint64_t>();
    put_nodes(*run.type, connectivity + e * k, [&](int j) { return node_tags_[j]; }, element_at);
  }
}

// Element tag → block-major cell index; built on first use by data sections.
const TagIndex& MshReader::element_index() {
  if (element_index_) return *element_index_;
  element_index_.emplace(bases_.back());
  std::vector<std::int64_t> next_row(blocks_.size(), 0);
  const std::size_t resume = cursor_.position();
  for (const ElementRun& run : runs_) {
    cursor_.seek(run.data_offset);
    for (std::uint64_t e = 0; e < run.count; ++e) {
      if (!run.selected_records.empty()) cursor_.seek(run.selected_records[e]);
      if (e > 0) cursor_.take(run.header_bytes);
      element_index_->add(next_element_tag(run), bases_[run.block] + next_row[run.block]++);
    }
  }
  cursor_.seek(resume);
  if (const std::optional<std::uint64_t> duplicate = element_index_->finish())
    cursor_.fail("element tag " + std::to_string(*duplicate) + " occurs twice; element data is ambiguous");
  return *element_index_;
}

// Reads one element's tag and moves past the element.
std::uint64_t MshReader::next_element_tag(const ElementRun& run) {
  const auto k = static_cast<std::uint64_t>(run.type->num_nodes);
  if (cursor_.binary()) {
    switch (version_) {
      case Version::v41: {
        const auto tag = cursor_.raw<std::uint64_t>();
        cursor_.take(8 * k);
        return tag;
      }
      case Version::v40: {
        const auto tag = cursor_.raw<std::int32_t>();
        cursor_.take(4 * k);
        return static_cast<std::uint64_t>(tag);
      }
      case Version::v2: {
        const auto tag = cursor_.raw<std::int32_t>();
        cursor_.take(4 * (static_cast<std::uint64_t>(run.binary_tags) + k));
        return static_cast<std::uint64_t>(tag);
      }
    }
  }
  const auto tag = cursor_.text_number<std::uint64_t>();
  if (version_ == Version::v2) {
    cursor_.skip_values(1, 0);  // type
    cursor_.skip_values(static_cast<std::uint64_t>(cursor_.text_number<int>()), 0);
  }
  cursor_.skip_values(k, 0);
  return tag;
}

}  // namespace meshioplusplus::gmsh::detail::reader
