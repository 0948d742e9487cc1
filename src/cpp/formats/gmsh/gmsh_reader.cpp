// MSH reader: versions 2.x, 4.0 and 4.1, ASCII and binary. See gmsh.hpp for what it
// produces. Elements are read in two passes over the mapped file: the first finds the runs
// of elements and counts them per type (binary runs are jumped over, ASCII ones tokenised
// without number conversion), so that every array is allocated once in its final shape;
// the second fills them. ASCII 4.x files laid out as writers lay them out (one node tag,
// node or element per line) take a faster route: the scan jumps over element lines instead
// of tokenising them and the big sections parse on all cores; any other layout, and any
// malformed value, sends the section back to the sequential code, which alone words errors.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "formats/gmsh/gmsh.hpp"
#include "formats/gmsh/gmsh_cursor.hpp"
#include "formats/gmsh/gmsh_element_types.hpp"
#include "formats/gmsh/gmsh_tag_index.hpp"
#include "io/line_values.hpp"
#include "io/mapped_file.hpp"
#include "io/read_limits.hpp"
#include "io/parallel.hpp"
#include "io/text_scanner.hpp"

namespace meshioplusplus::gmsh {
namespace {

enum class Version { v2, v40, v41 };

// vtkGhostType values (vtkDataSetAttributes): a cell / point another piece owns.
constexpr std::uint8_t kDuplicateCell = 1;
constexpr std::uint8_t kDuplicatePoint = 1;
constexpr std::uint8_t kUnlistedPoint = 0xff;  // point_ghost_types' "not decided yet"


std::uint64_t entity_key(int dim, int tag) noexcept {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(dim)) << 32) | static_cast<std::uint32_t>(tag);
}

template <class T> T load(const char* bytes) noexcept {
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

// Calls parse(index, line_begin, line_end) for `records` lines from `begin` (a line start):
// on all cores when the section is big enough, else here. The offset after the last line,
// or nullopt when a line is not one record (or holds a value parse refuses).
template <class Parse>
std::optional<std::size_t> parse_record_lines(std::string_view document, std::size_t begin, std::uint64_t records,
                                              Parse&& parse) {
  if (records == 0) return begin;
  if (const std::optional<std::size_t> end = io::parse_lines_in_parallel(document, begin, records, parse)) return end;
  std::size_t line = begin;
  for (std::uint64_t index = 0; index < records; ++index) {
    const void* newline = std::memchr(document.data() + line, '\n', document.size() - line);
    if (newline == nullptr) return std::nullopt;
    const auto stop = static_cast<std::size_t>(static_cast<const char*>(newline) - document.data());
    if (!parse(index, line, stop)) return std::nullopt;
    line = stop + 1;
  }
  return line;
}

// The element scan found a layout other than one element per line.
struct NotOnePerLine {};

// Consecutive elements of one type as laid out in the file.
struct ElementRun {
  const GmshElementType* type = nullptr;
  std::uint64_t count = 0;
  std::size_t data_offset = 0;  // the first element record
  int binary_tags = 0;          // 2.x binary: integer tags per element under this header
  // 2.x binary: bytes of the identical header before every element after the first (Gmsh
  // writes a header per element; such headers are folded into one run), else 0.
  std::size_t header_bytes = 0;
  int entity_dim = 0;           // 4.x: the entity the run is classified on
  int entity_tag = 0;
  std::size_t block = 0;        // our cell block
  std::int64_t first_row = 0;   // the run's first row in it
  bool ghost = false;           // ghost_cells reads: the run holds ghost cells (vtkGhostType 1)
  // Ghost cells picked out of another partition's element block (single files, whose ghosts
  // are only a $GhostElements list): the offsets of the chosen element records, in file
  // order; `count` is their number. Empty for runs read whole.
  std::vector<std::size_t> selected_records{};
};

// One cell block under construction: arrays allocated once, filled in pass two. Blocks are
// cut as meshio cuts them — 4.x one per element block of the file (= per entity and type),
// 2.x one per stretch of consecutive elements of one type — unless the file carries our
// writer's $MeshioplusplusBlocks, which restores the blocks it wrote.
struct BlockBuild {
  const GmshElementType* type = nullptr;
  std::int64_t count = 0;
  NDArray connectivity;  // int64 (count, k)
  NDArray geometrical;   // 2.x int32 (count,) per element; 4.x int64, the runs' entity tags
  NDArray physical;      // 2.x int32 (count,); 4.x int64, from the entities (meshio's dtypes)
  NDArray element_tags;  // partitioned reads: int64 (count,), the elements' Gmsh tags
  NDArray ghost_type;    // ghost_cells reads: uint8 (count,), VTK's vtkGhostType (1 = ghost)
};

// A block of $MeshioplusplusBlocks: its type and number of elements.
struct WrittenBlock {
  const GmshElementType* type;
  std::int64_t count;
};

struct PhysicalName {
  int dim;
  int tag;
  std::string name;
};

// One $Periodic link: the nodes of entity (dim, tag) and the master entity's they map to.
struct PeriodicLink {
  int dim = 0;
  int tag = 0;
  int master = 0;
  std::vector<double> affine;       // the affine transform, when the file gives one
  std::vector<std::int64_t> nodes;  // (node, master node) point-index pairs
};

enum class DataKind { node, element, element_node };

// One output array of $NodeData / $ElementData / $ElementNodeData.
struct DataTarget {
  DataKind kind = DataKind::node;
  std::string view;
  std::int64_t step = 0;
  double time = 0;  // the first real tag
  std::int64_t components = 1;
  std::string output_name;
  // The first step of a view read as steps also names the view's last step plainly.
  std::string alias_name;
  const DataTarget* alias_of_last = nullptr;
  NDArray point_values;              // node data
  std::vector<NDArray> cell_values;  // element (node) data, one per block
};

std::string_view section_name(DataKind kind) noexcept {
  switch (kind) {
    case DataKind::node: return "NodeData";
    case DataKind::element: return "ElementData";
    case DataKind::element_node: break;
  }
  return "ElementNodeData";
}

NDArray nan_array(Shape shape) {
  NDArray array = NDArray::allocate(DType::float64, std::move(shape));
  std::fill_n(array.data_as<double>(), array.size(), std::numeric_limits<double>::quiet_NaN());
  return array;
}

class MshReader {
 public:
  MshReader(std::string_view document, const std::string& path, const ReadOptions& options)
      : cursor_(document, path),
        options_(options),
        partitioned_(options.partitioned()),
        ghost_cells_(partitioned_ && options.ghost_cells) {}

  Mesh read() {
    read_mesh_format();
    while (true) {
      cursor_.skip_whitespace();
      if (cursor_.at_end()) break;
      read_section();
    }
    if (partitioned_ && !partitioned_entities_read_) fail_not_partitioned(cursor_.position());
    return assemble();
  }

 private:
  // ---- sections ------------------------------------------------------------------------
  void read_section() {
    const std::size_t start = cursor_.position();
    const std::string_view header = cursor_.text_token();
    if (header.size() < 2 || header[0] != '$')
      cursor_.fail_at(start, "expected a section header such as $Nodes, found '" +
                                 std::string(header.substr(0, 40)) + "'");
    const std::string_view name = header.substr(1);
    if (name.starts_with("End")) cursor_.fail_at(start, "'" + std::string(header) + "' closes no open section");
    if (cursor_.binary()) cursor_.end_text_line();

    if (name == "MeshFormat") return reread_mesh_format(start);
    if (name == "PhysicalNames") return read_physical_names();
    if (name == "MeshioplusplusBlocks" && !elements_read_) return read_written_blocks();
    if (name == "Entities" && version_ != Version::v2) return read_entities();
    if (name == "PartitionedEntities" && version_ == Version::v41) return read_partitioned_entities();
    if (name == "Nodes") return read_nodes(start);
    if (name == "Elements") return read_elements(start);
    if (name == "Periodic" && version_ != Version::v40) return read_periodic(start);
    if (name == "GhostElements" && version_ == Version::v41) return read_ghost_elements_41();
    if (name == "NodeData") return read_data(DataKind::node, start);
    if (name == "ElementData") return read_data(DataKind::element, start);
    if (name == "ElementNodeData") return read_data(DataKind::element_node, start);
    // The format says unknown sections are ignored ($Comments …); sections whose layout we
    // do not parse ($InterpolationScheme, $Parametrizations, 4.0's $Periodic) likewise.
    skip_section(name, start);
  }

  void expect_end(std::string_view name) {
    cursor_.skip_whitespace();
    const std::size_t at = cursor_.position();
    const std::string_view token = cursor_.text_token();
    if (token.size() != name.size() + 4 || !token.starts_with("$End") || token.substr(4) != name)
      cursor_.fail_at(at, "expected $End" + std::string(name) + ", found '" +
                              std::string(token.substr(0, 40)) +
                              "' (do the counts in the section match its contents?)");
  }

  void skip_section(std::string_view name, std::size_t start) {
    const std::string end = "$End" + std::string(name);
    const std::string_view document = cursor_.document();
    std::size_t from = cursor_.position();
    while (true) {
      const std::size_t found = document.find(end, from);
      if (found == std::string_view::npos)
        cursor_.fail_at(start, "section $" + std::string(name) + " is not closed by " + end);
      const std::size_t after = found + end.size();
      const bool line_start = found == 0 || document[found - 1] == '\n';
      const bool line_end = after == document.size() || io::is_space(document[after]);
      if (line_start && line_end) {
        cursor_.seek(after);
        return;
      }
      from = found + 1;
    }
  }

  // ---- $MeshFormat ---------------------------------------------------------------------
  void read_mesh_format() {
    cursor_.skip_whitespace();
    const std::size_t start = cursor_.position();
    if (cursor_.text_token() != "$MeshFormat")
      cursor_.fail_at(start, "not a Gmsh MSH file: it does not start with $MeshFormat");
    parse_mesh_format(version_, binary_);
    cursor_.set_binary(binary_);
  }

  void reread_mesh_format(std::size_t start) {
    Version version{};
    bool binary = false;
    parse_mesh_format(version, binary);
    if (version != version_ || binary != binary_)
      cursor_.fail_at(start, "a second $MeshFormat changes the version or encoding");
  }

  void parse_mesh_format(Version& version, bool& binary) {
    const std::size_t version_at = (cursor_.skip_whitespace(), cursor_.position());
    const std::string_view text = cursor_.text_token();
    if (text.starts_with("2")) version = Version::v2;
    else if (text == "4" || text == "4.0") version = Version::v40;
    else if (text == "4.1") version = Version::v41;
    else cursor_.fail_at(version_at, "MSH version '" + std::string(text) + "' is not supported (2.x, 4.0, 4.1 are)");
    const int file_type = cursor_.text_number<int>();
    const int data_size = cursor_.text_number<int>();
    if (file_type != 0 && file_type != 1) cursor_.fail("file-type must be 0 (ASCII) or 1 (binary)");
    if (data_size != 8) cursor_.fail("data-size " + std::to_string(data_size) + " is not supported (only 8)");
    binary = file_type == 1;
    if (binary) read_endianness_marker();
    expect_end("MeshFormat");
  }

  void read_endianness_marker() {
    cursor_.end_text_line();
    const std::size_t at = cursor_.position();
    std::uint32_t marker = 0;
    std::memcpy(&marker, cursor_.take(4), 4);
    if (marker == 1) return;
    if (marker == 0x01000000u)
      cursor_.fail_at(at, "the file was written with the other byte order (endianness marker reads " +
                              std::to_string(marker) + "); only host-order binary files are supported");
    cursor_.fail_at(at, "bad endianness marker " + std::to_string(marker) + " (expected the integer 1)");
  }

  // ---- $PhysicalNames (text in both encodings) -----------------------------------------
  void read_physical_names() {
    const auto count = cursor_.text_number<std::uint64_t>();
    cursor_.check_count(count, 6, "physical name");
    for (std::uint64_t i = 0; i < count; ++i) {
      const int dim = cursor_.text_number<int>();
      const int tag = cursor_.text_number<int>();
      if (dim < 0 || dim > 3) cursor_.fail("physical group dimension must be 0-3");
      physical_names_.push_back({dim, tag, cursor_.text_quoted()});
    }
    expect_end("PhysicalNames");
  }

  // ---- $MeshioplusplusBlocks (text in both encodings): our writer's blocks --------------
  // "count", then per block "gmsh-type-id elements". Other readers skip the section; here it
  // restores the blocks the file was written from where meshio's cuts would split them.
  void read_written_blocks() {
    const auto count = cursor_.text_number<std::uint64_t>();
    cursor_.check_count(count, 4, "block");
    written_blocks_.clear();
    written_ends_.clear();
    std::int64_t end = 0;
    bool known = true;
    for (std::uint64_t i = 0; i < count; ++i) {
      const int gmsh_id = cursor_.text_number<int>();
      const auto elements = cursor_.text_number<std::int64_t>();
      const GmshElementType* type = element_type_from_gmsh(gmsh_id);
      // Each element takes bytes in the file: a larger count describes some other file.
      if (type == nullptr || elements < 0 || elements > static_cast<std::int64_t>(cursor_.document().size())) known = false;
      written_blocks_.push_back({type, elements});
      written_ends_.push_back(end += std::max<std::int64_t>(elements, 0));
    }
    expect_end("MeshioplusplusBlocks");
    if (!known) written_blocks_.clear(), written_ends_.clear();  // not ours to trust: meshio's cuts
  }

  // ---- $Entities / $PartitionedEntities: physical tags of each entity ------------------
  void read_entities() {
    std::uint64_t counts[4];
    for (std::uint64_t& count : counts) count = cursor_.size_value();
    for (int dim = 0; dim < 4; ++dim) {
      cursor_.check_count(counts[dim], cursor_.binary() ? 20 : 8, "entity");
      for (std::uint64_t i = 0; i < counts[dim]; ++i) {
        const int tag = cursor_.int32();
        // 4.1 points have a position; everything else (and 4.0 points) a bounding box.
        cursor_.skip_values(dim == 0 && version_ == Version::v41 ? 3 : 6, 8);
        read_entity_physicals(dim, tag);
        if (dim > 0) cursor_.skip_values(cursor_.size_value(), 4);  // bounding entities
      }
    }
    expect_end("Entities");
  }

  // A partitioned read also keeps, per partitioned entity, the partition that owns its
  // elements (the lowest it is listed in), and the ghost entities' tags with the partition
  // each is a ghost in (their elements are other partitions' cells). A ghost_cells read keeps
  // every partition an entity lists: the blocks that may hold a kept partition's ghosts are
  // those on entities of the partitions owning them.
  void read_partitioned_entities() {
    const std::size_t section_at = cursor_.position();
    const std::uint64_t num_partitions = cursor_.size_value();
    const std::uint64_t ghosts = cursor_.size_value();
    cursor_.check_count(ghosts, cursor_.binary() ? 8 : 4, "ghost entity");
    for (std::uint64_t i = 0; i < ghosts; ++i) {
      const int tag = cursor_.int32();
      ghost_entity_partition_[tag] = cursor_.int32();
    }
    std::uint64_t counts[4];
    for (std::uint64_t& count : counts) count = cursor_.size_value();
    for (int dim = 0; dim < 4; ++dim) {
      cursor_.check_count(counts[dim], cursor_.binary() ? 32 : 12, "partitioned entity");
      for (std::uint64_t i = 0; i < counts[dim]; ++i) {
        const int tag = cursor_.int32();
        cursor_.skip_values(2, 4);  // parent dim and tag
        const std::size_t partitions_at = cursor_.position();
        const std::uint64_t num_listed = cursor_.size_value();
        cursor_.check_count(num_listed, cursor_.binary() ? 4 : 2, "entity partition");
        int owner = std::numeric_limits<int>::max();
        std::vector<int>* listed = ghost_cells_ ? &entity_partitions_[entity_key(dim, tag)] : nullptr;
        for (std::uint64_t k = 0; k < num_listed; ++k) {
          const int partition = cursor_.int32();
          owner = std::min(owner, partition);
          if (listed != nullptr) listed->push_back(partition);
        }
        if (partitioned_ && (num_listed == 0 || owner < 1 || static_cast<std::uint64_t>(owner) > num_partitions))
          cursor_.fail_at(partitions_at, "partitioned entity (" + std::to_string(dim) + ", " + std::to_string(tag) +
                                             ") lists no partition of 1.." + std::to_string(num_partitions));
        entity_owner_[entity_key(dim, tag)] = owner;
        cursor_.skip_values(dim == 0 ? 3 : 6, 8);  // position or bounding box
        read_entity_physicals(dim, tag);
        if (dim > 0) cursor_.skip_values(cursor_.size_value(), 4);
      }
    }
    expect_end("PartitionedEntities");
    if (partitioned_) choose_partitions(num_partitions, section_at);
    partitioned_entities_read_ = true;
  }

  // The partitions a partitioned read keeps: the named ones, or the rank's share of the file's.
  void choose_partitions(std::uint64_t num_partitions, std::size_t section_at) {
    kept_partitions_.clear();
    if (options_.ranks > 0) {
      const auto ranks = static_cast<std::uint64_t>(options_.ranks);
      const auto rank = static_cast<std::uint64_t>(options_.rank);
      const std::uint64_t base = num_partitions / ranks, extra = num_partitions % ranks;
      const std::uint64_t first = rank * base + std::min(rank, extra);
      const std::uint64_t count = base + (rank < extra ? 1 : 0);
      for (std::uint64_t k = 0; k < count; ++k) kept_partitions_.insert(static_cast<int>(first + k + 1));
      return;
    }
    for (const int partition : options_.partitions) {
      if (partition < 1 || static_cast<std::uint64_t>(partition) > num_partitions)
        cursor_.fail_at(section_at, "partition " + std::to_string(partition) + " was asked for, but the file has " +
                                        std::to_string(num_partitions) + " (numbered 1.." +
                                        std::to_string(num_partitions) + ")");
      kept_partitions_.insert(partition);
    }
  }

  [[noreturn]] void fail_not_partitioned(std::size_t at) const {
    cursor_.fail_at(at, "a partitioned read needs a MSH 4.1 file partitioned by Gmsh, with $PartitionedEntities "
                        "(gmsh -part N; or split files name_1.msh … written with Mesh.PartitionSplitMeshFiles=1), "
                        "and this file has none before its elements");
  }

  enum class Keep { none, owned, ghost };

  // Whether a partitioned read keeps the elements on entity (dim, tag), and as what; every
  // read keeps all, as owned.
  Keep keeps_entity(int dim, int tag, std::size_t block_at) const {
    if (!partitioned_) return Keep::owned;
    const auto found = entity_owner_.find(entity_key(dim, tag));
    if (found != entity_owner_.end()) return kept_partitions_.contains(found->second) ? Keep::owned : Keep::none;
    // A ghost entity's elements are copies of other partitions' cells (split files).
    if (const auto ghost = ghost_entity_partition_.find(tag); ghost != ghost_entity_partition_.end())
      return ghost_cells_ && kept_partitions_.contains(ghost->second) ? Keep::ghost : Keep::none;
    cursor_.fail_at(block_at, "an element block lies on entity (" + std::to_string(dim) + ", " + std::to_string(tag) +
                                  "), which $PartitionedEntities does not list: its elements belong to no partition");
  }

  // Whether entity (dim, tag) is listed in one of `partitions` (ghost_cells reads).
  bool entity_in_any(int dim, int tag, const std::unordered_set<int>& partitions) const {
    const auto found = entity_partitions_.find(entity_key(dim, tag));
    if (found == entity_partitions_.end()) return false;
    return std::any_of(found->second.begin(), found->second.end(), [&](int p) { return partitions.contains(p); });
  }

  void read_entity_physicals(int dim, int tag) {
    const std::uint64_t count = cursor_.size_value();
    cursor_.check_count(count, cursor_.binary() ? 4 : 2, "physical tag");
    if (count == 0) return;
    std::vector<std::int32_t>& tags = entity_physicals_[entity_key(dim, tag)];
    tags.clear();
    for (std::uint64_t k = 0; k < count; ++k) tags.push_back(cursor_.int32());
  }

  // ---- $Periodic (2.x, 4.1): links of an entity's nodes to its master's -----------------
  // 4.1 in the file's encoding; 2.x as text in both encodings, an optional "Affine" line of
  // 16 values before the node count.
  void read_periodic(std::size_t start) {
    if (!nodes_read_) cursor_.fail_at(start, "$Periodic comes before $Nodes");
    const bool v41 = version_ == Version::v41;
    const bool binary = v41 && cursor_.binary();
    const auto integer = [&]() -> std::int32_t { return v41 ? cursor_.int32() : cursor_.text_number<std::int32_t>(); };
    const auto count = [&]() -> std::uint64_t { return v41 ? cursor_.size_value() : cursor_.text_number<std::uint64_t>(); };
    const std::uint64_t links = count();
    cursor_.check_count(links, 12, "periodic link");
    for (std::uint64_t i = 0; i < links; ++i) {
      PeriodicLink& link = periodic_.emplace_back();
      link.dim = integer();
      link.tag = integer();
      link.master = integer();
      if (v41) {
        const std::uint64_t num_affine = count();
        cursor_.check_count(num_affine, binary ? 8 : 2, "affine value");
        for (std::uint64_t k = 0; k < num_affine; ++k) link.affine.push_back(cursor_.real());
      } else {
        cursor_.skip_whitespace();
        const std::size_t at = cursor_.position();
        if (cursor_.text_token() == "Affine") {
          for (int k = 0; k < 16; ++k) link.affine.push_back(cursor_.text_number<double>());
        } else {
          cursor_.seek(at);
        }
      }
      const std::uint64_t pairs = count();
      cursor_.check_count(pairs, binary ? 16 : 4, "periodic node");
      link.nodes.reserve(static_cast<std::size_t>(2 * pairs));
      for (std::uint64_t k = 0; k < 2 * pairs; ++k) {
        if (!binary) cursor_.skip_whitespace();
        const std::size_t at = cursor_.position();
        const std::uint64_t tag = count();
        const std::int64_t node = node_index_.find(tag);
        if (node < 0) cursor_.fail_at(at, "periodic link names node tag " + std::to_string(tag) + ", which $Nodes does not define");
        link.nodes.push_back(node);
      }
    }
    expect_end("Periodic");
  }

  // ---- $GhostElements (4.1): per element its tag, owner and the partitions it is a ghost in
  // Parsed (so that it is skipped safely in binary) and, when a ghost_cells read has not taken
  // the list yet, kept: the tags of the elements that are ghosts of a kept partition and owned
  // by a partition that is not kept (those are owned cells here), and their owners.
  void read_ghost_elements_41() {
    const bool keep = ghost_cells_ && partitioned_entities_read_ && !ghost_list_read_;
    const std::uint64_t count = cursor_.size_value();
    cursor_.check_count(count, cursor_.binary() ? 20 : 6, "ghost element");
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t tag = cursor_.size_value();
      const int owner = cursor_.int32();
      const std::uint64_t num_ghost_partitions = cursor_.size_value();
      cursor_.check_count(num_ghost_partitions, cursor_.binary() ? 4 : 2, "ghost partition");
      bool ghost_here = false;
      for (std::uint64_t k = 0; k < num_ghost_partitions; ++k) ghost_here |= kept_partitions_.contains(cursor_.int32());
      if (keep && ghost_here && !kept_partitions_.contains(owner)) {
        ghost_element_tags_.insert(tag);
        ghost_owners_.insert(owner);
      }
    }
    expect_end("GhostElements");
    if (keep) ghost_list_read_ = true;
  }

  // A single file lists its ghosts in $GhostElements, which Gmsh writes after $Elements: the
  // element pass needs the list before it allocates, so it looks ahead for the section header
  // in the mapped bytes from `from` (the end of the element scan) instead of reading the file
  // twice. The header must stand on a line of its own; in binary files a match inside payload
  // bytes is possible in principle, so a match whose section does not parse is passed over.
  // No section: no ghosts. Leaves the cursor where it was.
  void look_ahead_for_ghost_elements(std::size_t from) {
    constexpr std::string_view header = "$GhostElements";
    const std::string_view document = cursor_.document();
    const std::size_t resume = cursor_.position();
    for (std::size_t at = document.find(header, from); at != std::string_view::npos && !ghost_list_read_;
         at = document.find(header, at + 1)) {
      const std::size_t after = at + header.size();
      if ((at != 0 && document[at - 1] != '\n') || (after != document.size() && !io::is_space(document[after])))
        continue;
      cursor_.seek(after);
      try {
        if (cursor_.binary()) cursor_.end_text_line();
        read_ghost_elements_41();
      } catch (const ReadError&) {
        if (!cursor_.binary()) throw;  // text cannot hold the header by chance: a broken section
        ghost_element_tags_.clear();
        ghost_owners_.clear();
      }
    }
    ghost_list_read_ = true;  // found or not: looked once
    cursor_.seek(resume);
  }

  // ghost_cells reads of a single file: runs of the ghost cells of the kept partitions, picked
  // out of the element blocks that were not kept (only blocks on entities of the partitions
  // owning such ghosts are walked). They join the kept runs in file order. Split files carry
  // their ghosts as whole blocks on ghost entities (kept by the scan) and need none of this.
  void add_ghost_element_runs() {
    if (!ghost_cells_ || ghost_blocks_kept_ || ghost_candidates_.empty()) return;
    const std::size_t resume = cursor_.position();
    if (!ghost_list_read_) look_ahead_for_ghost_elements(resume);
    bool added = false;
    for (ElementRun& run : ghost_candidates_) {
      if (ghost_element_tags_.empty()) break;
      if (!entity_in_any(run.entity_dim, run.entity_tag, ghost_owners_)) continue;
      const auto k = static_cast<std::uint64_t>(run.type->num_nodes);
      if (cursor_.binary()) {  // 4.1 records: tag and node tags, 8 bytes each
        const std::size_t record = 8 * (1 + k);
        for (std::uint64_t e = 0; e < run.count; ++e) {
          const std::size_t at = run.data_offset + record * e;
          if (ghost_element_tags_.contains(load<std::uint64_t>(cursor_.document().data() + at)))
            run.selected_records.push_back(at);
        }
      } else {
        cursor_.seek(run.data_offset);
        for (std::uint64_t e = 0; e < run.count; ++e) {
          cursor_.skip_whitespace();
          const std::size_t at = cursor_.position();
          if (ghost_element_tags_.contains(cursor_.size_value())) run.selected_records.push_back(at);
          cursor_.skip_values(k, 8);
        }
      }
      if (run.selected_records.empty()) continue;
      run.count = run.selected_records.size();
      run.ghost = true;
      runs_.push_back(std::move(run));
      added = true;
    }
    ghost_candidates_.clear();
    cursor_.seek(resume);
    if (added)
      std::stable_sort(runs_.begin(), runs_.end(),
                       [](const ElementRun& a, const ElementRun& b) { return a.data_offset < b.data_offset; });
  }

  // ---- $Nodes --------------------------------------------------------------------------
  void read_nodes(std::size_t start) {
    if (nodes_read_) cursor_.fail_at(start, "more than one $Nodes section is not supported");
    nodes_read_ = true;
    switch (version_) {
      case Version::v41: read_nodes_4(true); break;
      case Version::v40: read_nodes_4(false); break;
      case Version::v2: read_nodes_2(); break;
    }
    if (const std::optional<std::uint64_t> duplicate = node_index_.finish())
      cursor_.fail_at(start, "node tag " + std::to_string(*duplicate) + " occurs twice");
    expect_end("Nodes");
  }

  void allocate_points(std::uint64_t count, bool with_entities) {
    const auto rows = static_cast<std::int64_t>(count);
    points_ = NDArray::allocate(DType::float64, {rows, 3});
    if (with_entities) dim_tags_ = NDArray::allocate(DType::int64, {rows, 2});
    if (partitioned_) node_tags_of_points_ = NDArray::allocate(DType::int64, {rows});
    node_index_ = TagIndex(rows);
  }

  // 4.1: per block the tags, then the coordinates. 4.0: per node its tag and coordinates;
  // block header fields in another order; int tags in binary.
  void read_nodes_4(bool v41) {
    const std::uint64_t num_blocks = cursor_.size_value();
    const std::uint64_t num_nodes = cursor_.size_value();
    if (v41) cursor_.skip_values(2, 8);  // min and max tag
    cursor_.check_count(num_nodes, cursor_.binary() ? 28 : 8, "node");
    cursor_.check_count(num_blocks, cursor_.binary() ? 20 : 8, "node block");
    allocate_points(num_nodes, true);
    std::uint64_t filled = 0;
    for (std::uint64_t b = 0; b < num_blocks; ++b) {
      const std::size_t block_at = cursor_.position();
      int entity_dim = cursor_.int32();
      int entity_tag = cursor_.int32();
      if (!v41) std::swap(entity_dim, entity_tag);
      const int parametric = cursor_.int32();
      const std::uint64_t count = cursor_.size_value();
      if (entity_dim < 0 || entity_dim > 3) cursor_.fail_at(block_at, "node block entity dimension must be 0-3");
      if (count > num_nodes - filled)
        cursor_.fail_at(block_at, "node blocks hold more nodes than the " + std::to_string(num_nodes) +
                                      " the section announces");
      const int extra = parametric != 0 ? entity_dim : 0;  // u, v, w stored after x, y, z
      if (v41) read_node_block_41(filled, count, extra);
      else read_node_block_40(filled, count, extra);
      std::int64_t* dim_tags = dim_tags_.data_as<std::int64_t>() + 2 * filled;
      for (std::uint64_t i = 0; i < count; ++i) {
        dim_tags[2 * i] = entity_dim;
        dim_tags[2 * i + 1] = entity_tag;
      }
      filled += count;
    }
    if (filled != num_nodes)
      cursor_.fail("the section announces " + std::to_string(num_nodes) + " nodes but its blocks hold " +
                   std::to_string(filled));
  }

  void read_node_block_41(std::uint64_t first, std::uint64_t count, int extra) {
    const auto base = static_cast<std::int64_t>(first);
    double* xyz = points_.data_as<double>() + 3 * first;
    const std::size_t stride = 3 + static_cast<std::size_t>(extra);
    if (cursor_.binary()) {
      const char* tags = cursor_.take(cursor_.checked_bytes(count, 8));
      for (std::uint64_t i = 0; i < count; ++i) {
        const auto tag = load<std::uint64_t>(tags + 8 * i);
        node_index_.add(tag, base + static_cast<std::int64_t>(i));
        record_node_tag(first + i, tag);
      }
      const char* coordinates = cursor_.take(cursor_.checked_bytes(count, 8 * stride));
      if (stride == 3) {
        if (count != 0) std::memcpy(xyz, coordinates, count * 24);  // an empty block may leave xyz null
      } else {
        for (std::uint64_t i = 0; i < count; ++i) std::memcpy(xyz + 3 * i, coordinates + 8 * stride * i, 24);
      }
      return;
    }
    if (read_node_block_lines(first, count, extra, true)) return;
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t tag = cursor_.size_value();
      node_index_.add(tag, base + static_cast<std::int64_t>(i));
      record_node_tag(first + i, tag);
    }
    for (std::uint64_t i = 0; i < count; ++i) {
      cursor_.text().next_numbers(xyz + 3 * i, 3);
      cursor_.skip_values(static_cast<std::uint64_t>(extra), 8);
    }
  }

  void read_node_block_40(std::uint64_t first, std::uint64_t count, int extra) {
    const auto base = static_cast<std::int64_t>(first);
    double* xyz = points_.data_as<double>() + 3 * first;
    const std::size_t record = 4 + 8 * (3 + static_cast<std::size_t>(extra));
    if (cursor_.binary()) {
      const char* data = cursor_.take(cursor_.checked_bytes(count, record));
      for (std::uint64_t i = 0; i < count; ++i) {
        const char* node = data + record * i;
        node_index_.add(static_cast<std::uint64_t>(load<std::int32_t>(node)), base + static_cast<std::int64_t>(i));
        std::memcpy(xyz + 3 * i, node + 4, 24);
      }
      return;
    }
    if (read_node_block_lines(first, count, extra, false)) return;
    for (std::uint64_t i = 0; i < count; ++i) {
      node_index_.add(cursor_.size_value(), base + static_cast<std::int64_t>(i));
      cursor_.text().next_numbers(xyz + 3 * i, 3);
      cursor_.skip_values(static_cast<std::uint64_t>(extra), 8);
    }
  }

  // An ASCII node block laid out as writers do: one tag per line, then one "x y z [u v w]"
  // per line (4.1), or one "tag x y z [u v w]" per line (4.0). Parsed line by line, on all
  // cores when big. False, having consumed and recorded nothing, for any other layout or
  // a value the sequential parse would not read the same: that parse then reads the block.
  bool read_node_block_lines(std::uint64_t first, std::uint64_t count, int extra, bool v41) {
    const std::string_view document = cursor_.document();
    const std::optional<std::size_t> begin = io::records_begin(document, cursor_.position());
    if (!begin || count == 0) return false;
    std::vector<std::uint64_t> tags(static_cast<std::size_t>(count));
    double* const xyz = points_.data_as<double>() + 3 * first;
    const char* const text = document.data();
    std::optional<std::size_t> end;
    if (v41) {
      // The tag lines and the coordinate lines as one section of 2 * count lines: the tags
      // alone are too short to split, together they usually are not.
      end = parse_record_lines(document, *begin, 2 * count, [&](std::uint64_t i, std::size_t line, std::size_t stop) {
        io::LineValues reader{text + line, text + stop, text + document.size()};
        if (i < count) return reader.next(tags[i]) && reader.done();
        double* const out = xyz + 3 * (i - count);
        return reader.next(out[0]) && reader.next(out[1]) && reader.next(out[2]) && reader.skip_tokens(extra) &&
               reader.done();
      });
    } else {
      end = parse_record_lines(document, *begin, count, [&](std::uint64_t i, std::size_t line, std::size_t stop) {
        io::LineValues reader{text + line, text + stop, text + document.size()};
        double* const out = xyz + 3 * i;
        return reader.next(tags[i]) && reader.next(out[0]) && reader.next(out[1]) && reader.next(out[2]) &&
               reader.skip_tokens(extra) && reader.done();
      });
    }
    if (!end) return false;
    const auto base = static_cast<std::int64_t>(first);
    for (std::uint64_t i = 0; i < count; ++i) {
      node_index_.add(tags[i], base + static_cast<std::int64_t>(i));
      record_node_tag(first + i, tags[i]);
    }
    cursor_.seek(*end);
    return true;
  }

  // Partitioned reads keep each node's Gmsh tag: the global node number of the pieces.
  void record_node_tag(std::uint64_t index, std::uint64_t tag) {
    if (!node_tags_of_points_.empty_handle()) node_tags_of_points_.data_as<std::int64_t>()[index] = static_cast<std::int64_t>(tag);
  }

  void read_nodes_2() {
    const auto count = cursor_.text_number<std::uint64_t>();
    cursor_.check_count(count, cursor_.binary() ? 28 : 8, "node");
    allocate_points(count, false);
    double* xyz = points_.data_as<double>();
    if (cursor_.binary()) {
      cursor_.end_text_line();
      const char* data = cursor_.take(cursor_.checked_bytes(count, 28));
      for (std::uint64_t i = 0; i < count; ++i) {
        const char* node = data + 28 * i;
        node_index_.add(static_cast<std::uint64_t>(load<std::int32_t>(node)), static_cast<std::int64_t>(i));
        std::memcpy(xyz + 3 * i, node + 4, 24);
      }
      return;
    }
    for (std::uint64_t i = 0; i < count; ++i) {
      node_index_.add(cursor_.text_number<std::uint64_t>(), static_cast<std::int64_t>(i));
      cursor_.text().next_numbers(xyz + 3 * i, 3);
    }
  }

  // ---- $Elements -----------------------------------------------------------------------
  void read_elements(std::size_t start) {
    if (elements_read_) cursor_.fail_at(start, "more than one $Elements section is not supported");
    if (!nodes_read_) cursor_.fail_at(start, "$Elements comes before $Nodes");
    if (partitioned_ && !partitioned_entities_read_) fail_not_partitioned(start);
    elements_read_ = true;
    if (version_ != Version::v2 && !cursor_.binary()) {
      const std::size_t body = cursor_.position();
      if (read_elements_4_by_lines()) return;
      runs_.clear();  // another layout or an error: the sequential reading below decides
      blocks_.clear();
      cursor_.seek(body);
    }
    if (version_ == Version::v2) scan_elements_2();
    else scan_elements_4();
    expect_end("Elements");
    add_ghost_element_runs();
    const std::size_t section_end = cursor_.position();
    allocate_blocks();
    for (const ElementRun& run : runs_) fill_run(run);
    cursor_.seek(section_end);
  }

  const GmshElementType& element_type_at(int gmsh_id, std::size_t offset) const {
    const GmshElementType* type = element_type_from_gmsh(gmsh_id);
    if (type == nullptr)
      cursor_.fail_at(offset, "Gmsh element type " + std::to_string(gmsh_id) + " is not supported");
    return *type;
  }

  void add_run(const ElementRun& run) { runs_.push_back(run); }

  // Whether a block of $MeshioplusplusBlocks ends before element `index` (0-based, in file
  // order): the 2.x scans then start a new run there, so runs never straddle such blocks.
  bool written_block_ends_before(std::uint64_t index) const {
    return index > 0 && std::binary_search(written_ends_.begin(), written_ends_.end(), static_cast<std::int64_t>(index));
  }

  // Gives every run its block (and first row there): the writer's blocks when
  // $MeshioplusplusBlocks describes these runs exactly, else meshio's cuts.
  void assign_blocks() {
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

  bool assign_written_blocks() {
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
  bool read_elements_4_by_lines() {
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

  // Every line of the run is "tag node…" with known nodes (checked line by line, so a run
  // that is not one element per line is refused, whatever the scan assumed).
  // Returns the offset after the run's last line.
  std::optional<std::size_t> fill_run_4_lines(const ElementRun& run) {
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
  bool scan_elements_4(bool by_lines = false) {
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
      const Keep keep = keeps_entity(entity_dim, entity_tag, block_at);
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

  void scan_elements_2() {
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
      cursor_.skip_values(static_cast<std::uint64_t>(num_tags) + static_cast<std::uint64_t>(type.num_nodes), 0);
      if (!runs_.empty() && runs_.back().type == &type && !written_block_ends_before(e)) {
        ++runs_.back().count;
      } else {
        add_run(ElementRun{&type, 1, element_at});
      }
    }
  }

  // 2.x binary: headers (type, count, number of tags), each followed by its elements.
  void scan_elements_2_binary(std::uint64_t count) {
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
      add_run(run);
    }
  }

  void allocate_blocks() {
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
  void put_nodes(const GmshElementType& type, std::int64_t* out, TagOf&& tag_of, std::size_t element_at) {
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

  void fill_run(const ElementRun& run) {
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
  void fill_selected_run(const ElementRun& run) {
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
  std::int64_t* element_tags_of(const ElementRun& run) {
    NDArray& tags = blocks_[run.block].element_tags;
    return tags.empty_handle() ? nullptr : tags.data_as<std::int64_t>() + run.first_row;
  }

  void fill_run_4_binary(const ElementRun& run, std::int64_t* connectivity) {
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

  void fill_run_4_ascii(const ElementRun& run, std::int64_t* connectivity) {
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

  void fill_run_2_binary(const ElementRun& run, std::int64_t* connectivity, std::int32_t* physical,
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

  void fill_run_2_ascii(const ElementRun& run, std::int64_t* connectivity, std::int32_t* physical,
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
  const TagIndex& element_index() {
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
  std::uint64_t next_element_tag(const ElementRun& run) {
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


  // ---- $NodeData / $ElementData / $ElementNodeData -------------------------------------
  void read_data(DataKind kind, std::size_t start) {
    if (kind == DataKind::node ? !nodes_read_ : !elements_read_)
      cursor_.fail_at(start, "$" + std::string(section_name(kind)) + " comes before the mesh it refers to");
    std::vector<std::string> strings(static_cast<std::size_t>(small_count("string tag")));
    for (std::string& text : strings) text = cursor_.text_quoted();
    const std::int64_t num_reals = small_count("real tag");
    double time = 0;
    for (std::int64_t i = 0; i < num_reals; ++i) {
      const auto value = cursor_.text_number<double>();
      if (i == 0) time = value;
    }
    std::vector<std::int64_t> integers(static_cast<std::size_t>(small_count("integer tag")));
    for (std::int64_t& value : integers) value = cursor_.text_number<std::int64_t>();
    const std::int64_t step = integers.size() > 0 ? integers[0] : 0;
    const std::int64_t components = integers.size() > 1 ? integers[1] : 1;
    const std::int64_t count = integers.size() > 2 ? integers[2] : 0;
    if (components < 1 || components > 1024) cursor_.fail_at(start, "bad number of components " + std::to_string(components));
    if (count < 0) cursor_.fail_at(start, "negative number of data entries");
    if (cursor_.binary()) cursor_.end_text_line();
    DataTarget& target =
        data_target(kind, strings.empty() ? std::string("data") : strings[0], step, time, components, start);
    cursor_.check_count(static_cast<std::uint64_t>(count), cursor_.binary() ? 12 : 4, "data entry");
    for (std::int64_t i = 0; i < count; ++i) read_data_entry(target);
    expect_end(section_name(kind));
  }

  std::int64_t small_count(std::string_view what) {
    const auto value = cursor_.text_number<std::int64_t>();
    if (value < 0 || value > 1024) cursor_.fail("bad number of " + std::string(what) + "s: " + std::to_string(value));
    return value;
  }

  DataTarget& data_target(DataKind kind, const std::string& view, std::int64_t step, double time,
                          std::int64_t components, std::size_t start) {
    for (DataTarget& target : targets_) {
      if (target.kind != kind || target.view != view || target.step != step) continue;
      if (target.components != components)
        cursor_.fail_at(start, "data '" + view + "' changes its number of components");
      return target;
    }
    DataTarget target;
    target.kind = kind;
    target.view = view;
    target.step = step;
    target.time = time;
    target.components = components;
    if (kind == DataKind::node) {
      target.point_values = nan_array(value_shape(num_points(), components));
    } else {
      for (const BlockBuild& block : blocks_) {
        const std::int64_t width = kind == DataKind::element ? components : block.type->num_nodes * components;
        target.cell_values.push_back(nan_array(value_shape(block.count, width)));
      }
    }
    return targets_.emplace_back(std::move(target));
  }

  static Shape value_shape(std::int64_t rows, std::int64_t width) {
    return width == 1 ? Shape{rows} : Shape{rows, width};
  }

  // Names the arrays of every data target (see gmsh.hpp): a view read as one plain array
  // keeps its name; a view with several steps, or one step that is not step 0 at time 0,
  // gets "view[step k]" / "view[step k, time t]" per step, and its plain name shows the last
  // step — the largest step index, which in files written step after step is the last
  // section, the one meshio's reader keeps under the name.
  // Element data and element-node data share cell_data; their names are kept apart.
  void name_data_targets() {
    std::vector<std::string> taken_point, taken_cell;
    const auto claim = [&](DataKind kind, const std::string& wanted) {
      std::vector<std::string>& taken = kind == DataKind::node ? taken_point : taken_cell;
      std::string name = wanted;
      for (int suffix = 2; std::find(taken.begin(), taken.end(), name) != taken.end(); ++suffix)
        name = wanted + " (" + std::to_string(suffix) + ")";
      taken.push_back(name);
      return name;
    };
    for (std::size_t i = 0; i < targets_.size(); ++i) {
      DataTarget& target = targets_[i];
      const auto same_view = [&](const DataTarget& other) { return other.kind == target.kind && other.view == target.view; };
      const auto first = std::find_if(targets_.begin(), targets_.end(), same_view);
      if (&*first != &target) continue;  // named with the view's first step
      std::vector<DataTarget*> steps;
      for (DataTarget& other : targets_)
        if (same_view(other)) steps.push_back(&other);
      const bool plain = steps.size() == 1 && target.step == 0 && target.time == 0;
      const std::string view = claim(target.kind, target.view);
      if (plain) {
        target.output_name = view;
        continue;
      }
      target.alias_of_last = *std::max_element(steps.begin(), steps.end(), [](const DataTarget* a, const DataTarget* b) {
        return a->step < b->step;
      });
      target.alias_name = view;
      for (DataTarget* step : steps) step->output_name = claim(step->kind, step_name(view, step->step, step->time));
    }
  }

  static std::string step_name(const std::string& view, std::int64_t step, double time) {
    std::string name = view + "[step " + std::to_string(step);
    if (time != static_cast<double>(step)) {
      char text[32];
      const auto written = std::to_chars(text, text + sizeof text, time);
      name += ", time " + std::string(text, written.ptr);
    }
    return name + "]";
  }

  std::int64_t num_points() const noexcept { return points_.empty_handle() ? 0 : points_.rows(); }

  void read_data_entry(DataTarget& target) {
    if (!cursor_.binary()) cursor_.skip_whitespace();
    const std::size_t entry_at = cursor_.position();
    const std::uint64_t tag = cursor_.binary() ? static_cast<std::uint64_t>(cursor_.raw<std::int32_t>())
                                               : cursor_.text_number<std::uint64_t>();
    if (target.kind == DataKind::node) {
      const std::int64_t node = node_index_.find(tag);
      if (node < 0) cursor_.fail_at(entry_at, "data for node tag " + std::to_string(tag) + ", which $Nodes does not define");
      read_values(target.point_values.data_as<double>() + node * target.components, target.components);
      return;
    }
    // Gmsh tags are positive. meshio's 4.0 writer numbers elements from 0 but their
    // $ElementData from 1: in a file with an element tag 0, data tag t is element t - 1.
    const TagIndex& elements = element_index();
    if (!elements_from_zero_) elements_from_zero_ = elements.find(0) >= 0;
    const std::int64_t cell = *elements_from_zero_ ? (tag == 0 ? -1 : elements.find(tag - 1)) : elements.find(tag);
    if (cell < 0 && partitioned_) return skip_data_values(target);  // an element of another partition
    if (cell < 0)
      cursor_.fail_at(entry_at, "data for element tag " + std::to_string(tag) + ", which $Elements does not define");
    const auto block = static_cast<std::size_t>(std::upper_bound(bases_.begin(), bases_.end(), cell) - bases_.begin() - 1);
    const std::int64_t row = cell - bases_[block];
    if (target.kind == DataKind::element) {
      read_values(target.cell_values[block].data_as<double>() + row * target.components, target.components);
      return;
    }
    const GmshElementType& type = *blocks_[block].type;
    const std::int64_t nodes = cursor_.binary() ? cursor_.raw<std::int32_t>() : cursor_.text_number<std::int64_t>();
    if (nodes != type.num_nodes)
      cursor_.fail_at(entry_at, "element-node data gives " + std::to_string(nodes) + " nodes for a " +
                                    std::string(type.name) + " element");
    const std::int64_t width = nodes * target.components;
    node_values_.resize(static_cast<std::size_t>(width));
    read_values(node_values_.data(), width);
    double* out = target.cell_values[block].data_as<double>() + row * width;
    const std::span<const std::uint16_t> order = type.meshio_from_gmsh;
    for (std::int64_t i = 0; i < nodes; ++i) {
      const std::int64_t from = order.empty() ? i : order[static_cast<std::size_t>(i)];
      std::copy_n(node_values_.data() + from * target.components, target.components, out + i * target.components);
    }
  }

  // The values of an entry for an element a partitioned read left out.
  void skip_data_values(const DataTarget& target) {
    std::int64_t width = target.components;
    if (target.kind == DataKind::element_node) {
      const std::int64_t nodes = cursor_.binary() ? cursor_.raw<std::int32_t>() : cursor_.text_number<std::int64_t>();
      if (nodes < 1 || nodes > 1024) cursor_.fail("element-node data gives " + std::to_string(nodes) + " nodes");
      width *= nodes;
    }
    node_values_.resize(static_cast<std::size_t>(width));
    read_values(node_values_.data(), width);
  }

  void read_values(double* out, std::int64_t count) {
    if (cursor_.binary()) {
      std::memcpy(out, cursor_.take(cursor_.checked_bytes(static_cast<std::uint64_t>(count), 8)),
                  static_cast<std::size_t>(count) * 8);
      return;
    }
    cursor_.text().next_numbers(out, static_cast<std::size_t>(count));
  }

  // ---- assembling the mesh -------------------------------------------------------------
  Mesh assemble() {
    if (partitioned_) keep_only_used_nodes();
    Mesh mesh;
    mesh.points = points_.empty_handle() ? NDArray::allocate(DType::float64, {0, 3}) : points_;
    for (const BlockBuild& block : blocks_) {
      CellBlock& cells = mesh.cells.emplace_back();
      cells.type = block.type->name;
      cells.connectivity = block.connectivity;
    }
    name_data_targets();
    for (const DataTarget& target : targets_) {
      // The plain name first (where meshio's dict has it), sharing the last step's arrays.
      if (target.alias_of_last != nullptr) {
        if (target.kind == DataKind::node) mesh.point_data.set(target.alias_name, target.alias_of_last->point_values);
        else mesh.cell_data.set(target.alias_name, target.alias_of_last->cell_values);
      }
      if (target.kind == DataKind::node) mesh.point_data.set(target.output_name, target.point_values);
      else mesh.cell_data.set(target.output_name, target.cell_values);
    }
    if (!dim_tags_.empty_handle()) mesh.point_data.set("gmsh:dim_tags", dim_tags_);
    if (!blocks_.empty()) {
      if (version_ != Version::v2) derive_physical_from_entities();
      if (has_physical_information()) mesh.cell_data.set("gmsh:physical", collect(&BlockBuild::physical));
      mesh.cell_data.set("gmsh:geometrical", collect(&BlockBuild::geometrical));
    }
    for (const PhysicalName& name : physical_names_)
      mesh.field_data.set(name.name, NDArray::from_values<std::int64_t>({name.tag, name.dim}));
    mesh.regions = build_regions();
    if (partitioned_) {
      mesh.point_data.set("global_ids", node_tags_of_points_);
      mesh.cell_data.set("global_ids", collect(&BlockBuild::element_tags));
      if (ghost_cells_) {
        mesh.point_data.set("vtkGhostType", point_ghost_types());
        mesh.cell_data.set("vtkGhostType", collect(&BlockBuild::ghost_type));
      }
    } else {
      store_periodic(mesh);  // a partitioned read leaves the links out: their nodes span partitions
    }
    return mesh;
  }

  // A partitioned read: only the nodes the kept cells use, in file order; connectivity, node
  // data, gmsh:dim_tags and the node tags follow.
  void keep_only_used_nodes() {
    const std::int64_t all = num_points();
    std::vector<std::int64_t> renumber(static_cast<std::size_t>(all), -1);
    for (const BlockBuild& block : blocks_) {
      const std::int64_t* node = block.connectivity.data_as<std::int64_t>();
      for (std::int64_t i = 0, n = block.count * block.type->num_nodes; i < n; ++i) renumber[node[i]] = 0;
    }
    std::int64_t kept = 0;
    for (std::int64_t& index : renumber)
      if (index == 0) index = kept++;
    const auto gather = [&](NDArray& rows, std::int64_t width) {
      if (rows.empty_handle()) return;
      Shape shape = rows.shape();
      shape[0] = kept;
      NDArray compact = NDArray::allocate(rows.dtype(), std::move(shape));
      const std::size_t row_bytes = static_cast<std::size_t>(width) * dtype_size(rows.dtype());
      const auto* from = static_cast<const char*>(rows.data());
      auto* to = static_cast<char*>(compact.data());
      for (std::int64_t i = 0; i < all; ++i)
        if (renumber[i] >= 0) std::memcpy(to + renumber[i] * row_bytes, from + i * row_bytes, row_bytes);
      rows = std::move(compact);
    };
    gather(points_, 3);
    gather(dim_tags_, 2);
    gather(node_tags_of_points_, 1);
    for (DataTarget& target : targets_)
      if (target.kind == DataKind::node) gather(target.point_values, target.components);
    for (BlockBuild& block : blocks_) {
      std::int64_t* node = block.connectivity.data_as<std::int64_t>();
      for (std::int64_t i = 0, n = block.count * block.type->num_nodes; i < n; ++i) node[i] = renumber[node[i]];
    }
    if (points_.empty_handle()) points_ = NDArray::allocate(DType::float64, {0, 3});
    if (node_tags_of_points_.empty_handle()) node_tags_of_points_ = NDArray::allocate(DType::int64, {0});
  }

  // ghost_cells reads: vtkGhostType of the kept points, 0 where a kept partition owns the node,
  // else DUPLICATEPOINT. The owner is the lowest partition of the partitioned entity the node
  // is classified on (gmsh:dim_tags): an interface entity lists every partition meeting there,
  // so this is the partition the elements' rule gives shared entities, it is decided alike on
  // every rank, and each node is owned by exactly one. A node on an entity the file does not
  // list in $PartitionedEntities is owned where an owned cell uses it.
  NDArray point_ghost_types() const {
    const std::int64_t count = num_points();
    NDArray types = NDArray::allocate(DType::uint8, {count});
    std::uint8_t* type = types.data_as<std::uint8_t>();
    const std::int64_t* dim_tags = dim_tags_.empty_handle() ? nullptr : dim_tags_.data_as<std::int64_t>();
    bool unlisted = false;
    for (std::int64_t i = 0; i < count; ++i) {
      const auto owner = dim_tags == nullptr ? entity_owner_.end()
                                             : entity_owner_.find(entity_key(static_cast<int>(dim_tags[2 * i]),
                                                                             static_cast<int>(dim_tags[2 * i + 1])));
      if (owner == entity_owner_.end()) {
        type[i] = kUnlistedPoint;
        unlisted = true;
      } else {
        type[i] = kept_partitions_.contains(owner->second) ? std::uint8_t{0} : kDuplicatePoint;
      }
    }
    if (!unlisted) return types;
    for (const BlockBuild& block : blocks_) {
      const std::int64_t* node = block.connectivity.data_as<std::int64_t>();
      const std::uint8_t* ghost = block.ghost_type.data_as<std::uint8_t>();
      const int k = block.type->num_nodes;
      for (std::int64_t row = 0; row < block.count; ++row)
        if (ghost[row] == 0)
          for (int j = 0; j < k; ++j)
            if (type[node[row * k + j]] == kUnlistedPoint) type[node[row * k + j]] = 0;
    }
    std::replace(type, type + count, kUnlistedPoint, kDuplicatePoint);
    return types;
  }

  // field_data "gmsh:periodic" (int64): per link dim, tag, master tag, number of affine
  // values, number of node pairs, then the pairs as point indices; "gmsh:periodic_affine"
  // (float64): the links' affine values one after another. (The Python Mesh shows them as
  // meshio's gmsh_periodic.)
  void store_periodic(Mesh& mesh) const {
    if (periodic_.empty()) return;
    std::int64_t words = 0, reals = 0;
    for (const PeriodicLink& link : periodic_) {
      words += 5 + static_cast<std::int64_t>(link.nodes.size());
      reals += static_cast<std::int64_t>(link.affine.size());
    }
    NDArray links = NDArray::allocate(DType::int64, {words});
    NDArray affine = NDArray::allocate(DType::float64, {reals});
    std::int64_t* word = links.data_as<std::int64_t>();
    double* real = affine.data_as<double>();
    for (const PeriodicLink& link : periodic_) {
      *word++ = link.dim;
      *word++ = link.tag;
      *word++ = link.master;
      *word++ = static_cast<std::int64_t>(link.affine.size());
      *word++ = static_cast<std::int64_t>(link.nodes.size() / 2);
      word = std::copy(link.nodes.begin(), link.nodes.end(), word);
      real = std::copy(link.affine.begin(), link.affine.end(), real);
    }
    mesh.field_data.set("gmsh:periodic", links);
    mesh.field_data.set("gmsh:periodic_affine", affine);
  }

  std::vector<NDArray> collect(NDArray BlockBuild::*member) const {
    std::vector<NDArray> arrays;
    for (const BlockBuild& block : blocks_) arrays.push_back(block.*member);
    return arrays;
  }

  bool has_physical_information() const {
    return version_ == Version::v2 ? any_physical_ : !entity_physicals_.empty();
  }

  // The physical tags of the entity (dim, tag); null when it has none.
  const std::vector<std::int32_t>* entity_physicals(int dim, int tag) const {
    const auto found = entity_physicals_.find(entity_key(dim, tag));
    return found == entity_physicals_.end() ? nullptr : &found->second;
  }

  // meshio's "gmsh:physical" for 4.x: the entity's first physical tag, 0 for none (meshio
  // leaves such blocks out of the list, which then no longer matches the blocks).
  void derive_physical_from_entities() {
    if (entity_physicals_.empty()) return;
    for (BlockBuild& block : blocks_) block.physical = NDArray::allocate(DType::int64, {block.count});
    for (const ElementRun& run : runs_) {
      const std::vector<std::int32_t>* tags = entity_physicals(run.entity_dim, run.entity_tag);
      std::fill_n(blocks_[run.block].physical.data_as<std::int64_t>() + run.first_row, run.count,
                  std::int64_t{tags ? tags->front() : 0});
    }
  }

  // Calls fn(dim, physical tag, block, first row, end row) for each run of consecutive cells
  // of a block that belong to one physical group (cells with equal tags share their groups).
  // 4.x: a run lies on one entity, whose groups hold all its cells; the group's dimension is
  // the entity's. 2.x: each element carries its (first) physical tag. In block-major order.
  template <class Fn> void for_each_membership_run(Fn&& fn) const {
    if (version_ != Version::v2) {
      for (const ElementRun& run : runs_)
        if (const std::vector<std::int32_t>* groups = entity_physicals(run.entity_dim, run.entity_tag))
          for (const std::int32_t tag : *groups)
            fn(run.entity_dim, tag, run.block, run.first_row, run.first_row + static_cast<std::int64_t>(run.count));
      return;
    }
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const BlockBuild& block = blocks_[b];
      const int dim = block.type->dimension;
      const std::int32_t* tags = block.physical.data_as<std::int32_t>();
      for (std::int64_t first = 0; first < block.count;) {
        std::int64_t end = first + 1;
        while (end < block.count && tags[end] == tags[first]) ++end;
        if (tags[first] != 0) fn(dim, tags[first], b, first, end);
        first = end;
      }
    }
  }

  std::vector<Region> build_regions() const {
    using GroupKey = std::pair<int, int>;  // (dim, physical tag), ordered as the regions are
    std::map<GroupKey, std::int64_t> counts;
    for (const PhysicalName& name : physical_names_) counts.try_emplace({name.dim, name.tag}, 0);
    for (const auto& [key, tags] : entity_physicals_)
      for (const std::int32_t tag : tags) counts.try_emplace({static_cast<int>(key >> 32), tag}, 0);
    for_each_membership_run([&](int dim, int tag, std::size_t, std::int64_t first, std::int64_t end) {
      counts[{dim, tag}] += end - first;
    });

    std::vector<Region> regions;
    std::map<GroupKey, std::pair<std::size_t, std::int64_t>> cursor;  // region, next entry
    for (const auto& [key, count] : counts) {
      Region region;
      region.name = group_name(key.first, key.second);
      region.kind = key.first == 0 ? RegionKind::Point : RegionKind::Cell;
      region.dim = key.first;
      region.tag = key.second;
      region.entries = NDArray::allocate(DType::int64, {count});
      cursor[key] = {regions.size(), 0};
      regions.push_back(std::move(region));
    }
    for_each_membership_run([&](int dim, int tag, std::size_t block, std::int64_t first, std::int64_t end) {
      auto& [index, next] = cursor[{dim, tag}];
      std::int64_t* out = regions[index].entries.data_as<std::int64_t>() + next;
      const BlockBuild& cells = blocks_[block];
      for (std::int64_t row = first; row < end; ++row)
        *out++ = dim == 0 ? cells.connectivity.data_as<std::int64_t>()[row * cells.type->num_nodes] : bases_[block] + row;
      next += end - first;
    });
    for (Region& region : regions)
      if (region.kind == RegionKind::Point) sort_unique_points(region);
    return regions;
  }

  std::string group_name(int dim, int tag) const {
    for (const PhysicalName& name : physical_names_)
      if (name.dim == dim && name.tag == tag) return name.name;
    return std::to_string(tag);
  }

  // Several vertex elements may sit on one node; a Point region lists each node once.
  static void sort_unique_points(Region& region) {
    std::int64_t* begin = region.entries.data_as<std::int64_t>();
    std::int64_t* end = begin + region.entries.size();
    std::sort(begin, end);
    const std::int64_t unique = std::unique(begin, end) - begin;
    if (unique == region.entries.rows()) return;
    NDArray exact = NDArray::allocate(DType::int64, {unique});
    std::copy_n(begin, unique, exact.data_as<std::int64_t>());
    region.entries = exact;
  }

  Cursor cursor_;
  const ReadOptions options_;
  const bool partitioned_;  // a read of some partitions (ReadOptions)
  bool partitioned_entities_read_ = false;
  std::unordered_map<std::uint64_t, int> entity_owner_;  // partitioned entity → its lowest partition
  std::unordered_map<int, int> ghost_entity_partition_;  // ghost entity tag → the partition it is a ghost in
  std::unordered_set<int> kept_partitions_;
  // ghost_cells reads (single files): the partitions each partitioned entity lists, the runs
  // of blocks not kept (ghosts may be picked out of them), the $GhostElements list (tags of
  // the kept partitions' ghosts, their owners) and whether it was taken.
  const bool ghost_cells_;
  std::unordered_map<std::uint64_t, std::vector<int>> entity_partitions_;
  std::vector<ElementRun> ghost_candidates_;
  std::unordered_set<std::uint64_t> ghost_element_tags_;
  std::unordered_set<int> ghost_owners_;
  bool ghost_list_read_ = false;
  bool ghost_blocks_kept_ = false;  // split files: ghost-entity blocks were kept whole
  NDArray node_tags_of_points_;  // partitioned reads: each point's Gmsh node tag
  Version version_ = Version::v41;
  bool binary_ = false;
  bool nodes_read_ = false;
  bool elements_read_ = false;
  bool any_physical_ = false;  // 2.x: some element carries a physical tag

  std::vector<PhysicalName> physical_names_;
  std::vector<PeriodicLink> periodic_;
  std::unordered_map<std::uint64_t, std::vector<std::int32_t>> entity_physicals_;

  NDArray points_;
  NDArray dim_tags_;
  TagIndex node_index_;

  std::vector<ElementRun> runs_;
  std::vector<BlockBuild> blocks_;
  std::vector<WrittenBlock> written_blocks_;  // from $MeshioplusplusBlocks, when present
  std::vector<std::int64_t> written_ends_;    // their element counts' prefix sums
  std::vector<std::int64_t> bases_{0};  // block-major numbering: first cell of each block
  std::optional<TagIndex> element_index_;
  std::optional<bool> elements_from_zero_;  // some element has tag 0 (meshio's 4.0 writer)
  std::vector<std::uint64_t> node_tags_;  // one element's node tags (ASCII)

  std::vector<DataTarget> targets_;
  std::vector<double> node_values_;  // one element's element-node values
};

}  // namespace

Mesh read(const std::string& path, const ReadOptions& options) {
  if (options.ranks < 0 || (options.ranks > 0 && (options.rank < 0 || options.rank >= options.ranks)))
    throw ReadError(path, std::string(kFormatName),
                    "rank " + std::to_string(options.rank) + " of " + std::to_string(options.ranks) +
                        " is not a rank of a communicator of that size");
  const io::MappedFile file(path, kFormatName);
  io::reject_empty_file(file.bytes(), path, kFormatName);
  MshReader reader(file.bytes(), path, options);
  return reader.read();
}

Mesh read(const std::string& path) { return read(path, ReadOptions{}); }

}  // namespace meshioplusplus::gmsh
