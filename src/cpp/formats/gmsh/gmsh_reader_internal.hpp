// Private to the MSH reader (gmsh_reader*.cpp): its state, class MshReader, and the helpers
// several of its files use. The reader is one class, its sections defined in one file per part
// of the format: gmsh_reader.cpp (section dispatch, $MeshFormat, $PhysicalNames,
// $MeshioplusplusBlocks, $Periodic, $Nodes), gmsh_reader_partitions.cpp ($Entities,
// $PartitionedEntities, $GhostElements and what a partitioned read keeps),
// gmsh_reader_elements.cpp ($Elements) and gmsh_reader_data.cpp (the data sections and the
// assembled Mesh). Namespace detail::reader keeps these types apart from the writer's
// (gmsh_writer_internal.hpp has its own ElementRun, PeriodicLink and Version).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "formats/gmsh/gmsh.hpp"
#include "formats/gmsh/gmsh_cursor.hpp"
#include "formats/gmsh/gmsh_element_types.hpp"
#include "formats/gmsh/gmsh_tag_index.hpp"
#include "io/source/parallel.hpp"
#include "io/text/line_values.hpp"
#include "meshioplusplus/read_selection.hpp"

namespace meshioplusplus::gmsh::detail::reader {

enum class Version { v2, v40, v41 };

// vtkGhostType values (vtkDataSetAttributes): a cell / point another piece owns.
inline constexpr std::uint8_t kDuplicateCell = 1;
inline constexpr std::uint8_t kDuplicatePoint = 1;
inline constexpr std::uint8_t kUnlistedPoint = 0xff;  // point_ghost_types' "not decided yet"

inline std::uint64_t entity_key(int dim, int tag) noexcept {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(dim)) << 32) | static_cast<std::uint32_t>(tag);
}

template <class T> T load(const char* bytes) noexcept {
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

using io::parse_record_lines;

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
  // Not read: a selective read that does not want the view, or a metadata read (the values
  // were skipped on disk; the target only names and shapes the arrays).
  bool skipped = false;
};

class MshReader {
 public:
  MshReader(std::string_view document, const std::string& path, const ReadOptions& options)
      : cursor_(document, path),
        options_(options),
        partitioned_(options.partitioned()),
        ghost_cells_(partitioned_ && options.ghost_cells) {}

  Mesh read();
  // A read of what `request` keeps (gmsh_reader_metadata.cpp): data sections of views it does
  // not name are skipped on disk; points_only skips every element block but the vertex ones
  // (whose physical groups are the Point regions the request keeps). The registry narrows the
  // result further.
  Mesh read_selected(const ReadRequest& request);
  // The summary of the section headers: node blocks and element records are jumped over
  // (binary by their counts, ASCII token by token without number conversion), data values
  // likewise; 2.x element records give up their type and physical tag only.
  MeshMetadata metadata();

 private:
  // ---- sections, $MeshFormat, $PhysicalNames, $MeshioplusplusBlocks, $Periodic, $Nodes
  // (gmsh_reader.cpp)
  void read_section();
  void expect_end(std::string_view name);
  void skip_section(std::string_view name, std::size_t start);
  void read_mesh_format();
  void reread_mesh_format(std::size_t start);
  void parse_mesh_format(Version& version, bool& binary);
  void read_endianness_marker();
  void read_physical_names();
  void read_written_blocks();
  void read_periodic(std::size_t start);
  void read_nodes(std::size_t start);
  void allocate_points(std::uint64_t count, bool with_entities);
  void read_nodes_4(bool v41);
  void read_node_block_41(std::uint64_t first, std::uint64_t count, int extra);
  void read_node_block_40(std::uint64_t first, std::uint64_t count, int extra);
  bool read_node_block_lines(std::uint64_t first, std::uint64_t count, int extra, bool v41);
  void record_node_tag(std::uint64_t index, std::uint64_t tag);
  void read_nodes_2();
  bool read_nodes_2_by_lines(std::uint64_t count);

  // ---- $Entities, $PartitionedEntities, $GhostElements, partitioned reads
  // (gmsh_reader_partitions.cpp)
  enum class Keep { none, owned, ghost };
  void read_entities();
  void read_partitioned_entities();
  void choose_partitions(std::uint64_t num_partitions, std::size_t section_at);
  [[noreturn]] void fail_not_partitioned(std::size_t at) const;
  Keep keeps_entity(int dim, int tag, std::size_t block_at) const;
  bool entity_in_any(int dim, int tag, const std::unordered_set<int>& partitions) const;
  void read_entity_physicals(int dim, int tag);
  void read_ghost_elements_41();
  void look_ahead_for_ghost_elements(std::size_t from);
  void add_ghost_element_runs();
  void keep_only_used_nodes();
  NDArray point_ghost_types() const;

  // ---- $Elements (gmsh_reader_elements.cpp)
  void read_elements(std::size_t start);
  const GmshElementType& element_type_at(int gmsh_id, std::size_t offset) const;
  void add_run(const ElementRun& run);
  bool written_block_ends_before(std::uint64_t index) const;
  void assign_blocks();
  bool assign_written_blocks();
  bool read_elements_4_by_lines();
  bool read_elements_2_by_lines();
  std::optional<std::size_t> fill_run_4_lines(const ElementRun& run);
  bool scan_elements_4(bool by_lines = false);
  void scan_elements_2();
  void scan_elements_2_binary(std::uint64_t count);
  void allocate_blocks();
  template <class TagOf>
  void put_nodes(const GmshElementType& type, std::int64_t* out, TagOf&& tag_of, std::size_t element_at);
  void fill_run(const ElementRun& run);
  void fill_selected_run(const ElementRun& run);
  std::int64_t* element_tags_of(const ElementRun& run);
  void fill_run_4_binary(const ElementRun& run, std::int64_t* connectivity);
  void fill_run_4_ascii(const ElementRun& run, std::int64_t* connectivity);
  void fill_run_2_binary(const ElementRun& run, std::int64_t* connectivity, std::int32_t* physical,
                         std::int32_t* geometrical);
  void fill_run_2_ascii(const ElementRun& run, std::int64_t* connectivity, std::int32_t* physical,
                        std::int32_t* geometrical);
  const TagIndex& element_index();
  std::uint64_t next_element_tag(const ElementRun& run);

  // ---- $NodeData / $ElementData / $ElementNodeData, assembling the mesh (gmsh_reader_data.cpp)
  void read_data(DataKind kind, std::size_t start);
  std::int64_t small_count(std::string_view what);
  DataTarget& data_target(DataKind kind, const std::string& view, std::int64_t step, double time,
                          std::int64_t components, std::size_t start, bool skip);
  static Shape value_shape(std::int64_t rows, std::int64_t width);
  void name_data_targets();
  static std::string step_name(const std::string& view, std::int64_t step, double time);
  void read_data_entry(DataTarget& target);
  void skip_data_values(const DataTarget& target);
  void read_values(double* out, std::int64_t count);
  Mesh assemble();
  void store_periodic(Mesh& mesh) const;
  std::vector<NDArray> collect(NDArray BlockBuild::*member) const;
  bool has_physical_information() const;
  const std::vector<std::int32_t>* entity_physicals(int dim, int tag) const;
  void derive_physical_from_entities();
  template <class Fn> void for_each_membership_run(Fn&& fn) const;
  std::vector<Region> build_regions() const;
  std::string group_name(int dim, int tag) const;
  static void sort_unique_points(Region& region);
  std::int64_t num_points() const noexcept {
    if (metadata_only_) return static_cast<std::int64_t>(declared_nodes_);
    return points_.empty_handle() ? 0 : points_.rows();
  }

  // ---- selective and metadata reads (gmsh_reader_metadata.cpp)
  bool points_alone() const;
  bool skips_view(const std::string& view) const;
  void skip_data_entries(const DataTarget& target, std::int64_t count);
  void skip_node_block(bool v41, std::uint64_t count, int extra);
  void skip_elements_4_ascii();
  void count_physicals_2_binary(const ElementRun& run);
  void count_physical_2(const GmshElementType& type, std::int32_t physical);
  std::vector<RegionSummary> region_summaries() const;

  Cursor cursor_;
  const ReadOptions options_;
  // Selective / metadata reads: the request (null: read everything), whether only the
  // headers are wanted, the node count $Nodes announced (metadata reads allocate no points),
  // and for 2.x the element count per (dimension, physical tag).
  const ReadRequest* request_ = nullptr;
  bool metadata_only_ = false;
  std::uint64_t declared_nodes_ = 0;
  std::map<std::pair<int, int>, std::int64_t> physical_counts_2_;
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

}  // namespace meshioplusplus::gmsh::detail::reader
