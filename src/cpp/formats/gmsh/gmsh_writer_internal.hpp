// Private to the MSH writer (gmsh_writer*.cpp): what its files share. The writer computes a
// WritePlan (gmsh_writer_plan.cpp: element types, physical groups, entities, runs), then
// formats it (gmsh_writer.cpp: the mesh sections, write() and MshStream; gmsh_writer_data.cpp:
// the data sections, which MshStream also writes one at a time). Here: the options, the plan's
// types, the value formatter and the data-section writer. Namespace detail::writer keeps these
// types apart from the reader's (gmsh_reader_internal.hpp has its own ElementRun,
// PeriodicLink and Version).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/gmsh/gmsh.hpp"
#include "formats/gmsh/gmsh_element_types.hpp"
#include "io/output/atomic_file.hpp"

namespace meshioplusplus::gmsh::detail::writer {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Work sizes below which a thread costs more than it saves.
inline constexpr std::size_t kBoxRowsPerThread = std::size_t{1} << 15;
inline constexpr std::size_t kRecordsPerThread = std::size_t{1} << 14;
inline constexpr std::size_t kRecordChunkBytes = std::size_t{4} << 20;  // binary element records filled per write

[[noreturn]] void reject(const std::string& message);

enum class Version { v22, v40, v41 };

struct Options {
  Version version = Version::v41;
  bool binary = true;
  io::FloatFormat float_format;  // meshio's float_fmt (text sections); shortest exact by default
  // 4.x: $Entities and node blocks; 2.2 tags every element with its groups instead.
  bool entities() const noexcept { return version != Version::v22; }
  // 2.2 and 4.0 store node and element tags as 32-bit ints (4.1 as size_t).
  bool int32_tags() const noexcept { return version != Version::v41; }
};

// ---- physical groups ------------------------------------------------------------------

struct Group {
  int dim;
  std::int32_t tag;
  std::string name;
};

// Sets of groups, numbered; signature 0 is the empty set. Cells in several regions get the
// signature of the union, so each distinct combination becomes its own Gmsh entity.
class SignatureTable {
 public:
  SignatureTable() : members_(1) {}

  std::int32_t with_group(std::int32_t signature, std::int32_t group) {
    const std::uint64_t key = (static_cast<std::uint64_t>(signature) << 32) | static_cast<std::uint32_t>(group);
    if (key == last_key_) return last_result_;  // consecutive cells mostly share their groups
    last_key_ = key;
    if (const auto cached = cache_.find(key); cached != cache_.end()) return last_result_ = cached->second;
    std::vector<std::int32_t> members = members_[static_cast<std::size_t>(signature)];
    const auto at = std::lower_bound(members.begin(), members.end(), group);
    if (at == members.end() || *at != group) members.insert(at, group);
    const auto [found, added] = ids_.try_emplace(members, static_cast<std::int32_t>(members_.size()));
    if (added) members_.push_back(members);
    return last_result_ = cache_[key] = found->second;
  }
  const std::vector<std::int32_t>& members(std::int32_t signature) const {
    return members_[static_cast<std::size_t>(signature)];
  }

 private:
  std::vector<std::vector<std::int32_t>> members_;
  std::map<std::vector<std::int32_t>, std::int32_t> ids_;
  std::unordered_map<std::uint64_t, std::int32_t> cache_;
  std::uint64_t last_key_ = ~std::uint64_t{0};  // no signature is -1
  std::int32_t last_result_ = 0;
};

struct BlockPlan {
  const GmshElementType* type;
  const CellBlock* cells;
  std::int64_t base;  // block-major index of the first cell
  std::int64_t count;
};

struct Entity {
  int dim;
  std::int32_t tag;
  std::int32_t signature;
  std::array<double, 6> box{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  void expand(const double* xyz) {
    for (int a = 0; a < 3; ++a) {
      box[a] = std::min(box[a], xyz[a]);
      box[3 + a] = std::max(box[3 + a], xyz[a]);
    }
  }
  void merge(const std::array<double, 6>& other) {
    for (int a = 0; a < 3; ++a) {
      box[a] = std::min(box[a], other[a]);
      box[3 + a] = std::max(box[3 + a], other[3 + a]);
    }
  }
  // An entity without nodes gets a degenerate box at the origin rather than infinities.
  std::array<double, 6> written_box() const {
    if (box[0] > box[3]) return {0, 0, 0, 0, 0, 0};
    return box;
  }
};

// A stretch of consecutive cells of one block on one entity.
struct ElementRun {
  std::size_t block;
  std::int64_t first;
  std::int64_t count;
  std::int32_t entity;
};

// One $Periodic link, from field_data "gmsh:periodic" / "gmsh:periodic_affine" (the
// reader's layout, see gmsh.hpp).
struct PeriodicLink {
  std::int32_t dim, tag, master;
  std::span<const double> affine;
  std::span<const std::int64_t> nodes;  // (node, master node) point-index pairs
};

struct NodeRun {
  std::int64_t first;
  std::int64_t count;
  std::int32_t entity;
};

struct WritePlan {
  std::vector<BlockPlan> blocks;
  std::int64_t num_cells = 0;
  std::vector<Group> groups;
  SignatureTable signatures;
  NDArray cell_signature_array;  // int32 per cell (scratch); an empty handle when no groups
  // field_data [tag, dim] entries no group names, written to $PhysicalNames as meshio does.
  std::vector<Group> extra_names;
  std::vector<PeriodicLink> periodic;
  std::vector<Entity> entities;
  std::vector<ElementRun> element_runs;
  std::vector<NodeRun> node_runs;
  std::vector<double> xyz;  // points as (n, 3) float64 when the mesh's are not already

  std::int32_t physical_of(std::int32_t signature) const {
    const std::vector<std::int32_t>& members = signatures.members(signature);
    return members.empty() ? 0 : groups[static_cast<std::size_t>(members.front())].tag;
  }
  // Per-cell signatures, or nullptr when every cell has the empty one.
  const std::int32_t* cell_signatures() const {
    return cell_signature_array.empty_handle() ? nullptr : cell_signature_array.data_as<std::int32_t>();
  }
  std::int32_t cell_signature_of(std::int64_t cell) const {
    return cell_signatures() == nullptr ? 0 : cell_signatures()[cell];
  }
};

// The plan of `mesh` written with `options` (PlanBuilder, gmsh_writer_plan.cpp); a mesh Gmsh
// cannot hold is rejected (std::invalid_argument) before anything is written.
WritePlan plan_write(const Mesh& mesh, const Options& options);

// ---- formatting ---------------------------------------------------------------------------

// Writes values as text (space-separated, one record per line) or raw host-order bytes.
class ValueWriter {
 public:
  ValueWriter(io::OutputBuffer& out, bool binary) : out_(out), binary_(binary) {}

  bool binary() const noexcept { return binary_; }
  io::OutputBuffer& out() noexcept { return out_; }

  void int32(std::int32_t value) { put(value); }
  void size(std::uint64_t value) { put(value); }
  void real(double value) { put(value); }
  void end_record() {
    if (!binary_) out_.put('\n');
    line_start_ = true;
  }
  // Text in both encodings (section markers, counts before 2.2 binary payloads, headers).
  void text_line(std::string_view text) {
    out_.text(text);
    out_.put('\n');
  }
  void begin_section(std::string_view name) {
    out_.put('$');
    text_line(name);
  }
  // Binary payloads end with a newline before the $End marker, as Gmsh writes them.
  void end_section(std::string_view name) {
    if (binary_) out_.put('\n');
    out_.text("$End");
    text_line(name);
  }

 private:
  template <class T> void put(T value) {
    if (binary_) {
      out_.bytes(&value, sizeof value);
      return;
    }
    if (!line_start_) out_.put(' ');
    out_.number(value);
    line_start_ = false;
  }

  io::OutputBuffer& out_;
  bool binary_;
  bool line_start_ = true;
};

// A name as $PhysicalNames and string tags hold it; an integer as text (gmsh_writer.cpp).
std::string quoted(std::string_view name);
std::string number_text(std::int64_t value);

// ---- $NodeData / $ElementData / $ElementNodeData ---------------------------------------
// One section per view step: the view name (string tag), the time (real tag), then as integer
// tags the time-step index, the component count, the number of records and — for the
// time-series writer — the partition (0: the whole model, as Gmsh reads a missing one).
// Shared by write() and MshStream (the time-series writer).

struct DataStep {
  std::string view;
  std::int64_t step = 0;
  double time = 0;
  bool named_step = false;  // write(): the array was named "view[step k…]"
};

class DataSectionWriter {
 public:
  DataSectionWriter(ValueWriter& out, const std::vector<BlockPlan>& blocks, bool partition_tag)
      : out_(out), blocks_(blocks), partition_tag_(partition_tag) {}

  void node_data(const DataStep& step, const NDArray& array);
  bool element_data(const DataStep& step, const std::vector<NDArray>& arrays);
  static bool fits(const std::vector<BlockPlan>& blocks, const std::vector<NDArray>& arrays);

 private:
  static std::int64_t common_width(const std::vector<NDArray>& arrays);
  static std::int64_t per_node_components(const std::vector<BlockPlan>& blocks, const std::vector<NDArray>& arrays);
  void header(std::string_view section, const DataStep& step, std::int64_t components, std::int64_t count);
  template <class T> static bool has_values(const T* row, std::int64_t width);
  void write_rows(const NDArray& array, std::int64_t first_tag, std::int64_t components,
                  const GmshElementType* type = nullptr);
  void write_record(std::int64_t tag, int node_count, const std::vector<double>& row);
  static std::int64_t count_rows(const NDArray& array);

  ValueWriter& out_;
  const std::vector<BlockPlan>& blocks_;
  bool partition_tag_;
};

}  // namespace meshioplusplus::gmsh::detail::writer
