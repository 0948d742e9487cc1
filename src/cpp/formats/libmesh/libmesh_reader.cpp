// libMesh XdrIO reader (.xda ASCII, .xdr XDR binary); layout from libMesh's
// src/mesh/xdr_io.C (XdrIO::read), versions "libMesh-0.7.0+" to "libMesh-1.8.0".
//
// The file: a version string; a header (element and node counts, the names of the optional
// boundary, subdomain, partition and p-level "files" — "." means the field is stored inline,
// "n/a" that it is absent —, from 0.9.2 the byte widths of each field, from 1.8.0 the names of
// extra node/element integers and the elemset codes); from 0.9.2 the subdomain id → name map;
// the elements level by level ("n_elem at level L" then, per element: type, [unique id],
// [parent id on levels > 0], [processor id], [subdomain id], [p level], its node ids, its
// extra integers); the coordinates of nodes 0..n_nodes-1 (always x y z); from 0.9.6 the
// node unique ids if flagged; the node extra integers; unless the boundary file is "n/a":
// the side boundary conditions (sideset names from 0.9.2, then (element, side, boundary
// id) triples), from 0.9.2 the nodesets (names, then (node, boundary id) pairs), from 1.1.0
// the edge and shell-face boundary conditions. Header counts are 4-byte before 1.3.0 and
// 8-byte after; ids are of the "type size" width (4-byte in every file older than 1.3.0,
// as libMesh itself reads them on 64-bit Linux).
//
// What becomes what:
// - points: the n_nodes coordinates, (n, 3) float64 (libMesh always stores three).
// - cells: the active elements (those no other element names as parent: the leaves of an
//   adaptively refined mesh), one block per cell type in order of first appearance, nodes
//   reordered to VTK's (libmesh_types.hpp). Parents are dropped: they overlap their children.
// - cell data "libmesh:subdomain" (int64): each cell's subdomain id; one Cell region per
//   subdomain id, named from the file's subdomain map or "subdomain_<id>", tag = id.
// - extra element integers (1.8.0) → int64 cell data of their names; extra node integers →
//   int64 point data.
// - side boundary conditions → one Side region per boundary id, (cell, local facet) in our
//   facet numbering (side_regions.hpp), named from the sideset map or "boundary_<id>";
//   a condition on a refined-away parent goes to each active descendant with a side on the
//   parent's side (libMesh keeps conditions on level-0 elements; children inherit them).
// - nodesets → one Point region per boundary id, named from the nodeset map or
//   "boundary_<id>".
// Not kept: unique ids, processor ids, p levels, elemset codes, edge and shell-face boundary
// conditions (an edge of a 3-D cell is no facet in our model).
// Speed: in .xda files a level's elements (one a line, all of the first one's type) and the
// coordinates (one node a line) are parsed on all cores (io::parse_lines_in_parallel); any
// other layout goes to the sequential stream, which words the errors.
#include <algorithm>
#include <array>
#include <span>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <type_traits>
#include <string>
#include <string_view>
#include <vector>

#include "formats/libmesh/libmesh.hpp"
#include "formats/libmesh/libmesh_streams.hpp"
#include "formats/libmesh/libmesh_types.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/source/uninitialized.hpp"
#include "io/text/line_values.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus::libmesh {
namespace {

using detail::ElemType;

struct Version {
  bool at_least_0_9_2 = false, at_least_0_9_6 = false, at_least_1_1_0 = false, at_least_1_3_0 = false,
       at_least_1_8_0 = false;
  // libMesh's own test: the version string names one of the releases that changed the layout.
  explicit Version(std::string_view text) {
    auto has = [&](std::string_view release) { return text.find(release) != std::string_view::npos; };
    at_least_1_8_0 = has("1.8.0");
    at_least_1_3_0 = at_least_1_8_0 || has("1.3.0");
    at_least_1_1_0 = at_least_1_3_0 || has("1.1.0");
    at_least_0_9_6 = at_least_1_1_0 || has("0.9.6");
    at_least_0_9_2 = at_least_0_9_6 || has("0.9.2");
  }
};

template <class Stream> class XdrIoReader {
 public:
  XdrIoReader(Stream& stream, const std::string& path) : in_(stream), path_(path), version_("") {}

  Mesh read() {
    const std::string_view version_text = in_.string_line();
    if (version_text.find("libMesh") == std::string_view::npos)
      in_.fail_at(0, "not a libMesh XdrIO file: the version string is '" + std::string(version_text.substr(0, 40)) +
                         "' (legacy files without one are not read, as libMesh no longer reads them)");
    version_ = Version(version_text);
    header_width_ = version_.at_least_1_3_0 ? 8 : 4;
    read_header();
    read_names(subdomain_names_);
    read_elements();
    read_nodes();
    if (boundary_file_ != "n/a") {
      read_boundary_conditions(3, side_names_, side_conditions_);
      if (version_.at_least_0_9_2) read_boundary_conditions(2, node_names_, node_conditions_);
      // Edge and shell-face conditions follow from 1.1.0; they are not kept (header comment).
    }
    return build_mesh();
  }

 private:
  std::uint64_t header_value() { return in_.header_value(header_width_); }

  // A count the file claims, each item taking at least `min_bytes_each` bytes of it.
  std::uint64_t checked_count(std::uint64_t count, std::string_view what, std::uint64_t min_bytes_each) {
    io::check_claim(path_, detail::kFormat, what, count, min_bytes_each, in_.bytes_left(), 8,
                    io::ClaimSite{in_.position(), std::nullopt});
    return count;
  }

  void read_header() {
    n_elem_ = header_value();
    n_nodes_ = header_value();
    boundary_file_ = in_.string_line();
    const bool subdomain_inline = in_.string_line() == ".";
    const bool partition_inline = in_.string_line() == ".";
    const bool p_level_inline = in_.string_line() == ".";
    if (version_.at_least_0_9_2) {
      const std::uint64_t type_size = header_value();
      has_unique_ids_ = header_value() != 0;
      for (int i = 0; i < 6; ++i) header_value();  // pid, sid, p-level, eid, side, bid sizes
      // xdr_io.C reads every id with the "type size" width, 4 bytes in files older than 1.3.0.
      if (type_size != 4 && type_size != 8) in_.fail("type size " + std::to_string(type_size) + " (libMesh writes 4 or 8)");
      field_width_ = version_.at_least_1_3_0 ? static_cast<int>(type_size) : 4;
      unique_id_width_ = static_cast<int>(type_size);
    }
    if (version_.at_least_1_8_0) {
      header_value();  // extra integer size
      read_string_vector(node_integer_names_);
      read_string_vector(elem_integer_names_);
      std::vector<std::uint64_t> codes;
      read_id_vector(codes, field_width_);
      std::vector<std::uint64_t> ids;
      for (std::size_t i = 0; i < codes.size(); ++i) read_id_vector(ids, field_width_);
    }
    stored_before_nodes_ = (has_unique_ids_ ? 1 : 0) + (partition_inline ? 1 : 0) + (subdomain_inline ? 1 : 0) +
                           (p_level_inline ? 1 : 0);
    has_partition_ = partition_inline;
    has_subdomain_ = subdomain_inline;
    has_p_level_ = p_level_inline;
    checked_count(n_elem_, "elements", 2 * Stream::min_item_bytes(field_width_));
    checked_count(n_nodes_, "nodes", 3 * Stream::min_item_bytes(8));
  }

  void read_string_vector(std::vector<std::string>& out) {
    const std::uint64_t length = checked_count(in_.vector_length(), "names", 1);
    out.clear();
    for (std::uint64_t i = 0; i < length; ++i) out.emplace_back(in_.string_item());
    in_.end_vector();
  }
  void read_id_vector(std::vector<std::uint64_t>& out, int width) {
    const std::uint64_t length = checked_count(in_.vector_length(), "ids", Stream::min_item_bytes(width));
    out.resize(length);
    for (std::uint64_t i = 0; i < length; ++i) out[i] = in_.item(width);
    in_.end_vector();
  }

  // An id → name map (subdomains, sidesets, nodesets), from 0.9.2.
  void read_names(std::map<std::int64_t, std::string>& names) {
    if (!version_.at_least_0_9_2) return;
    const std::uint64_t count = checked_count(header_value(), "names", 1);
    if (count == 0) return;
    std::vector<std::uint64_t> ids;
    read_id_vector(ids, header_width_);
    std::vector<std::string> texts;
    read_string_vector(texts);
    if (ids.size() != count || texts.size() != count)
      in_.fail("a name map announces " + std::to_string(count) + " entries and holds " + std::to_string(ids.size()) +
               " ids and " + std::to_string(texts.size()) + " names");
    for (std::size_t i = 0; i < count; ++i) names.emplace(static_cast<std::int64_t>(ids[i]), texts[i]);
  }

  void read_elements() {
    types_.resize(n_elem_);
    subdomains_.resize(n_elem_);
    parents_.assign(n_elem_, -1);
    node_offsets_.resize(n_elem_ + 1);
    node_offsets_[0] = 0;
    elem_integers_.resize(n_elem_ * elem_integer_names_.size());
    nodes_.reserve(n_elem_ * 4);
    std::uint64_t at_level = 0, done_at_level = 0;
    int level = -1;
    std::uint64_t fields[8];
    for (std::uint64_t e = 0; e < n_elem_; ++e, ++done_at_level) {
      if (done_at_level == at_level) {
        at_level = in_.header_value(field_width_);
        done_at_level = 0;
        ++level;
      }
      if (done_at_level == 0 && read_level_in_parallel(e, at_level, level)) {
        e += at_level - 1;
        done_at_level = at_level - 1;
        continue;
      }
      const std::size_t record = in_.position();
      const std::uint64_t type_id = in_.item(field_width_);
      const ElemType* type = detail::find_by_id(static_cast<std::int64_t>(type_id));
      if (type == nullptr) {
        const std::string_view name = detail::unsupported_type_name(static_cast<std::int64_t>(type_id));
        in_.fail_at(record, name.empty() ? "unknown libMesh element type " + std::to_string(type_id)
                                         : "libMesh element type " + std::string(name) + " is not supported");
      }
      const int extra = stored_before_nodes_ + (level > 0 ? 1 : 0);
      in_.items(fields, static_cast<std::size_t>(extra), field_width_);
      int at = has_unique_ids_ ? 1 : 0;
      if (level > 0) {
        const std::uint64_t parent = fields[at++];
        if (parent >= e) in_.fail_at(record, "element " + std::to_string(e) + " names parent " + std::to_string(parent) +
                                                 ", which is not an earlier element");
        parents_[e] = static_cast<std::int64_t>(parent);
      }
      if (has_partition_) ++at;
      subdomains_[e] = has_subdomain_ ? static_cast<std::int64_t>(fields[at]) : 0;
      types_[e] = type;
      const std::size_t first = nodes_.size();
      nodes_.resize(first + static_cast<std::size_t>(type->num_nodes));
      in_.items(nodes_.data() + first, static_cast<std::size_t>(type->num_nodes), field_width_);
      for (int k = 0; k < type->num_nodes; ++k)
        if (nodes_[first + k] >= n_nodes_)
          in_.fail_at(record, "element " + std::to_string(e) + " names node " + std::to_string(nodes_[first + k]) +
                                  " of " + std::to_string(n_nodes_));
      node_offsets_[e + 1] = nodes_.size();
      if (!elem_integer_names_.empty())
        in_.items(elem_integers_.data() + e * elem_integer_names_.size(), elem_integer_names_.size(), field_width_);
    }
  }

  // ASCII files written one element per line — what libMesh writes — read a level's
  // elements [first, first + count) on all cores when all are of the first one's type. False,
  // with nothing read, for anything else: the sequential loop reads them then and words any
  // error.
  bool read_level_in_parallel(std::uint64_t first, std::uint64_t count, int level) {
    if constexpr (!std::is_same_v<Stream, detail::AsciiStream>) {
      return false;
    } else {
      if (count < 2 || count > n_elem_ - first) return false;
      const std::string_view document = in_.document();
      const char* const text = document.data();
      const std::optional<std::size_t> start = io::records_begin(document, in_.position());
      if (!start || *start >= document.size()) return false;
      const std::size_t begin = *start;
      std::uint64_t type_id = 0;
      if (!io::LineValues(text + begin, text + document.size()).next(type_id)) return false;
      const ElemType* type = detail::find_by_id(static_cast<std::int64_t>(type_id));
      if (type == nullptr) return false;
      const int extra = stored_before_nodes_ + (level > 0 ? 1 : 0);
      const auto width = static_cast<std::size_t>(type->num_nodes);
      const std::size_t integers = elem_integer_names_.size();
      // Every value takes a digit and a separator: no more elements than the file holds.
      if (count * 2 * (1 + static_cast<std::uint64_t>(extra) + width + integers) > document.size() - begin) return false;
      const std::size_t nodes_before = nodes_.size();
      nodes_.resize(nodes_before + count * width);
      const std::optional<std::size_t> end = io::parse_lines_in_parallel(
          document, begin, count, [&](std::uint64_t i, std::size_t from, std::size_t to) {
            const std::uint64_t e = first + i;
            io::LineValues values(text + from, text + to, text + document.size());
            std::uint64_t id = 0, fields[8];
            if (!values.next(id) || id != type_id) return false;
            for (int k = 0; k < extra; ++k)
              if (!values.next(fields[k])) return false;
            int at = has_unique_ids_ ? 1 : 0;
            if (level > 0) {
              if (fields[at] >= e) return false;
              parents_[e] = static_cast<std::int64_t>(fields[at++]);
            }
            if (has_partition_) ++at;
            subdomains_[e] = has_subdomain_ ? static_cast<std::int64_t>(fields[at]) : 0;
            types_[e] = type;
            std::uint64_t* const nodes = nodes_.data() + nodes_before + i * width;
            for (std::size_t k = 0; k < width; ++k)
              if (!values.next(nodes[k]) || nodes[k] >= n_nodes_) return false;
            node_offsets_[e + 1] = nodes_before + (i + 1) * width;
            for (std::size_t k = 0; k < integers; ++k)
              if (!values.next(elem_integers_[e * integers + k])) return false;
            return values.done();
          });
      if (!end) {
        nodes_.resize(nodes_before);
        return false;
      }
      in_.seek(*end);
      return true;
    }
  }

  // ASCII coordinates written "x y z" a line — what libMesh writes — on all cores.
  bool read_points_in_parallel() {
    if constexpr (!std::is_same_v<Stream, detail::AsciiStream>) {
      return false;
    } else {
      const std::string_view document = in_.document();
      const char* const text = document.data();
      const std::optional<std::size_t> start = io::records_begin(document, in_.position());
      if (!start || *start >= document.size()) return false;
      const std::size_t begin = *start;
      double* const xyz = points_.data_as<double>();
      const std::optional<std::size_t> end = io::parse_lines_in_parallel(
          document, begin, n_nodes_, [&](std::uint64_t i, std::size_t from, std::size_t to) {
            io::LineValues values(text + from, text + to, text + document.size());
            return values.next(xyz[3 * i]) && values.next(xyz[3 * i + 1]) && values.next(xyz[3 * i + 2]) && values.done();
          });
      if (!end) return false;
      in_.seek(*end);
      return true;
    }
  }

  void read_nodes() {
    points_ = NDArray::allocate(DType::float64, {static_cast<std::int64_t>(n_nodes_), 3});
    if (!read_points_in_parallel()) in_.reals(points_.data_as<double>(), n_nodes_ * 3);
    if (version_.at_least_0_9_6 && in_.header_value(4) != 0)
      for (std::uint64_t i = 0; i < n_nodes_; ++i) in_.item(unique_id_width_);
    node_integers_.resize(n_nodes_ * node_integer_names_.size());
    if (!node_integers_.empty()) in_.items(node_integers_.data(), node_integers_.size(), field_width_);
  }

  void read_boundary_conditions(int width, std::map<std::int64_t, std::string>& names, std::vector<std::uint64_t>& out) {
    read_names(names);
    const std::uint64_t count = checked_count(header_value(), "boundary conditions",
                                              static_cast<std::uint64_t>(width) * Stream::min_item_bytes(field_width_));
    out.resize(count * static_cast<std::uint64_t>(width));
    in_.items(out.data(), out.size(), field_width_);
  }

  Mesh build_mesh();
  void fill_uniform_block(CellBlock& block, NDArray& subdomains, std::vector<std::vector<NDArray>>& integer_data,
                          std::map<std::int64_t, std::vector<std::int64_t>>& subdomain_cells) const;
  // The node ids of libMesh side `side` of element `e` (its corners).
  std::vector<std::int64_t> side_corners(std::uint64_t e, std::uint64_t side) const {
    const ElemType& type = *types_[e];
    const std::int64_t facet = type.side_map.empty() ? static_cast<std::int64_t>(side) : type.side_map[side];
    const FacetCorners& corners = cell_facets(type.name)[static_cast<std::size_t>(facet)];
    std::vector<std::int64_t> nodes;
    for (int k = 0; k < corners.count; ++k) nodes.push_back(static_cast<std::int64_t>(nodes_[node_offsets_[e] + static_cast<std::size_t>(corners.corners[static_cast<std::size_t>(k)])]));
    return nodes;
  }

  Stream& in_;
  const std::string& path_;
  Version version_;
  int header_width_ = 4, field_width_ = 4, unique_id_width_ = 4;
  std::uint64_t n_elem_ = 0, n_nodes_ = 0;
  std::string boundary_file_;
  bool has_unique_ids_ = false, has_partition_ = false, has_subdomain_ = false, has_p_level_ = false;
  int stored_before_nodes_ = 0;
  std::vector<std::string> node_integer_names_, elem_integer_names_;
  std::map<std::int64_t, std::string> subdomain_names_, side_names_, node_names_;
  // Sized to the element count, then written for every element by the sequential or the
  // parallel loop: not zeroed first (io/source/uninitialized.hpp).
  io::UninitializedVector<const ElemType*> types_;
  io::UninitializedVector<std::int64_t> subdomains_;
  io::UninitializedVector<std::uint64_t> nodes_, node_offsets_;
  std::vector<std::int64_t> parents_;
  std::vector<std::uint64_t> elem_integers_, node_integers_;
  std::vector<std::uint64_t> side_conditions_, node_conditions_;
  NDArray points_;
};

std::string region_name(const std::map<std::int64_t, std::string>& names, std::string_view prefix, std::int64_t id) {
  const auto it = names.find(id);
  return it != names.end() ? it->second : std::string(prefix) + std::to_string(id);
}

// Whether point `x` lies on the side through `corners` (a vertex, a line or a plane), within
// a tolerance relative to the side's size.
bool lies_on(const double* points, std::span<const std::int64_t> corners, const double* x) {
  auto at = [&](std::size_t i) { return points + 3 * corners[i]; };
  double a[3], b[3], d[3];
  for (int k = 0; k < 3; ++k) {
    d[k] = x[k] - at(0)[k];
    a[k] = corners.size() > 1 ? at(1)[k] - at(0)[k] : 0.0;
  }
  auto dot = [](const double* u, const double* v) { return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]; };
  auto cross = [](const double* u, const double* v, double* w) {
    w[0] = u[1] * v[2] - u[2] * v[1];
    w[1] = u[2] * v[0] - u[0] * v[2];
    w[2] = u[0] * v[1] - u[1] * v[0];
  };
  constexpr double kTolerance = 1e-8;
  if (corners.size() == 1) return dot(d, d) <= kTolerance * kTolerance;
  const double length2 = dot(a, a);
  if (corners.size() == 2) {
    double w[3];
    cross(d, a, w);
    return dot(w, w) <= kTolerance * kTolerance * length2 * length2;
  }
  // A plane: for quadrilaterals through the diagonals, which bilinear faces bend least from.
  double n[3];
  if (corners.size() == 4) {
    for (int k = 0; k < 3; ++k) {
      a[k] = at(2)[k] - at(0)[k];
      b[k] = at(3)[k] - at(1)[k];
    }
  } else {
    for (int k = 0; k < 3; ++k) b[k] = at(2)[k] - at(0)[k];
  }
  cross(a, b, n);
  const double offset = dot(n, d);
  return offset * offset <= kTolerance * kTolerance * dot(n, n) * dot(a, a);
}

// build_mesh's cells when every element is active and of one type: element e is cell e.
// Nodes, subdomains and extra integers are copied on all cores; the subdomain regions
// gather runs of equal subdomains (one run per subdomain, as a rule) a run at a time.
template <class Stream>
void XdrIoReader<Stream>::fill_uniform_block(CellBlock& block, NDArray& subdomains, std::vector<std::vector<NDArray>>& integer_data,
                                             std::map<std::int64_t, std::vector<std::int64_t>>& subdomain_cells) const {
  const ElemType& type = *types_[0];
  const auto width = static_cast<std::size_t>(type.num_nodes);
  std::int64_t* const out = block.connectivity.template data_as<std::int64_t>();
  std::int64_t* const subdomain_out = subdomains.template data_as<std::int64_t>();
  const std::size_t n_integers = elem_integer_names_.size();
  io::parallel_ranges(n_elem_, std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
    for (std::size_t e = first; e < last; ++e) {
      const std::uint64_t* in = nodes_.data() + e * width;  // node_offsets_[e]: every element has `width` nodes
      for (std::size_t k = 0; k < width; ++k)
        out[e * width + k] = static_cast<std::int64_t>(in[type.order.empty() ? k : static_cast<std::size_t>(type.order[k])]);
      subdomain_out[e] = subdomains_[e];
      for (std::size_t i = 0; i < n_integers; ++i)
        integer_data[i][0].template data_as<std::int64_t>()[e] = static_cast<std::int64_t>(elem_integers_[e * n_integers + i]);
    }
  });
  for (std::size_t run = 0; run < n_elem_;) {
    std::size_t run_end = run + 1;
    while (run_end < n_elem_ && subdomains_[run_end] == subdomains_[run]) ++run_end;
    std::vector<std::int64_t>& cells = subdomain_cells[subdomains_[run]];
    const std::size_t before = cells.size();
    cells.resize(before + (run_end - run));
    std::iota(cells.begin() + static_cast<std::ptrdiff_t>(before), cells.end(), static_cast<std::int64_t>(run));
    run = run_end;
  }
}

template <class Stream> Mesh XdrIoReader<Stream>::build_mesh() {
  Mesh mesh;
  mesh.points = std::move(points_);
  std::vector<char> active(n_elem_, 1);
  bool any_parent = false;
  for (const std::int64_t parent : parents_)
    if (parent >= 0) {
      active[static_cast<std::size_t>(parent)] = 0;
      any_parent = true;
    }
  // One element type and nothing refined — what nearly every file holds: element e is cell e
  // of the only block, so the per-element block tables below (16 bytes an element) are not
  // built and the cells are filled on all cores.
  const bool uniform = !any_parent && n_elem_ > 0 &&
                       std::all_of(types_.begin(), types_.end(), [&](const ElemType* type) { return type == types_[0]; });

  // Blocks by type in order of first appearance; each element's block-major index.
  std::vector<const ElemType*> block_types;
  std::vector<std::int64_t> block_of, position_in_block, block_counts;
  if (uniform) {
    block_types.push_back(types_[0]);
    block_counts.push_back(static_cast<std::int64_t>(n_elem_));
  } else {
    block_of.assign(n_elem_, -1);
    position_in_block.assign(n_elem_, -1);
  }
  const auto block_index = [&](std::uint64_t e) { return uniform ? std::size_t{0} : static_cast<std::size_t>(block_of[e]); };
  const auto position_of = [&](std::uint64_t e) { return uniform ? static_cast<std::int64_t>(e) : position_in_block[e]; };
  std::size_t last_block = 0;
  for (std::uint64_t e = 0; e < n_elem_ && !uniform; ++e) {
    if (!active[e]) continue;
    std::size_t b = last_block;  // runs of one type are the rule
    if (b >= block_types.size() || block_types[b] != types_[e]) {
      b = 0;
      while (b < block_types.size() && block_types[b]->name != types_[e]->name) ++b;
    }
    last_block = b;
    if (b == block_types.size()) {
      block_types.push_back(types_[e]);
      block_counts.push_back(0);
    }
    block_of[e] = static_cast<std::int64_t>(b);
    position_in_block[e] = block_counts[b]++;
  }
  const NDArray bases = block_bases(block_counts);
  const std::int64_t* base = bases.data_as<std::int64_t>();
  const std::size_t n_elem_integers = elem_integer_names_.size();
  std::vector<std::vector<NDArray>> integer_data(n_elem_integers);
  std::vector<NDArray> subdomain_data;
  for (std::size_t b = 0; b < block_types.size(); ++b) {
    mesh.cells.push_back({std::string(block_types[b]->name),
                          NDArray::allocate(DType::int64, {block_counts[b], block_types[b]->num_nodes}), {}, {}});
    subdomain_data.push_back(NDArray::allocate(DType::int64, {block_counts[b]}));
    for (auto& data : integer_data) data.push_back(NDArray::allocate(DType::int64, {block_counts[b]}));
  }
  std::map<std::int64_t, std::vector<std::int64_t>> subdomain_cells;
  std::vector<std::int64_t>* subdomain_run = nullptr;  // the last subdomain's list: runs are the rule
  std::int64_t subdomain_run_id = 0;
  if (uniform) fill_uniform_block(mesh.cells[0], subdomain_data[0], integer_data, subdomain_cells);
  for (std::uint64_t e = 0; e < n_elem_ && !uniform; ++e) {
    if (!active[e]) continue;
    const std::size_t b = static_cast<std::size_t>(block_of[e]);
    const ElemType& type = *types_[e];
    std::int64_t* out = mesh.cells[b].connectivity.data_as<std::int64_t>() + position_in_block[e] * type.num_nodes;
    const std::uint64_t* in = nodes_.data() + node_offsets_[e];
    for (int k = 0; k < type.num_nodes; ++k)
      out[k] = static_cast<std::int64_t>(in[type.order.empty() ? k : type.order[static_cast<std::size_t>(k)]]);
    subdomain_data[b].data_as<std::int64_t>()[position_in_block[e]] = subdomains_[e];
    for (std::size_t i = 0; i < n_elem_integers; ++i)
      integer_data[i][b].data_as<std::int64_t>()[position_in_block[e]] =
          static_cast<std::int64_t>(elem_integers_[e * n_elem_integers + i]);
    if (subdomain_run == nullptr || subdomains_[e] != subdomain_run_id) {
      subdomain_run_id = subdomains_[e];
      subdomain_run = &subdomain_cells[subdomain_run_id];
    }
    subdomain_run->push_back(base[b] + position_in_block[e]);
  }
  mesh.cell_data.set("libmesh:subdomain", std::move(subdomain_data));
  for (std::size_t i = 0; i < n_elem_integers; ++i) mesh.cell_data.set(elem_integer_names_[i], std::move(integer_data[i]));
  for (std::size_t i = 0; i < node_integer_names_.size(); ++i) {
    NDArray values = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(n_nodes_)});
    for (std::uint64_t n = 0; n < n_nodes_; ++n)
      values.data_as<std::int64_t>()[n] = static_cast<std::int64_t>(node_integers_[n * node_integer_names_.size() + i]);
    mesh.point_data.set(node_integer_names_[i], std::move(values));
  }

  int max_dim = 0;
  for (const ElemType* type : block_types) max_dim = std::max(max_dim, type->dim);
  for (auto& [id, cells] : subdomain_cells) {
    Region region{region_name(subdomain_names_, "subdomain_", id), RegionKind::Cell, max_dim, id,
                  NDArray::allocate(DType::int64, {static_cast<std::int64_t>(cells.size())})};
    std::copy(cells.begin(), cells.end(), region.entries.template data_as<std::int64_t>());
    mesh.regions.push_back(std::move(region));
  }

  // Conditions on refined-away parents move to the active descendants with a side on
  // theirs (libMesh stores them on level-0 elements and children inherit them).
  std::vector<std::vector<std::uint64_t>> children(any_parent ? n_elem_ : 0);  // only inactive elements have some
  for (std::uint64_t e = 0; e < n_elem_ && any_parent; ++e)
    if (parents_[e] >= 0) children[static_cast<std::size_t>(parents_[e])].push_back(e);
  const double* xyz = mesh.points.data_as<double>();
  std::map<std::int64_t, std::vector<std::int64_t>> sides;  // boundary id → cell, facet pairs
  std::vector<std::array<std::uint64_t, 3>> pending;
  for (std::size_t i = 0; i + 2 < side_conditions_.size(); i += 3) {
    const std::uint64_t e = side_conditions_[i], side = side_conditions_[i + 1];
    if (e >= n_elem_)
      in_.fail("a side boundary condition names element " + std::to_string(e) + " of " + std::to_string(n_elem_));
    if (side >= static_cast<std::uint64_t>(detail::num_sides(*types_[e])))
      in_.fail("a side boundary condition names side " + std::to_string(side) + " of a " + std::string(types_[e]->name));
    pending.push_back({e, side, side_conditions_[i + 2]});
  }
  for (std::size_t k = 0; k < pending.size(); ++k) {  // grows while it runs: children queue up
    const auto [e, side, id] = pending[k];
    if (!active[e]) {
      const std::vector<std::int64_t> parent_side = side_corners(e, side);
      for (const std::uint64_t child : children[e])
        for (int t = 0; t < detail::num_sides(*types_[child]); ++t) {
          const std::vector<std::int64_t> child_side = side_corners(child, static_cast<std::uint64_t>(t));
          if (std::all_of(child_side.begin(), child_side.end(), [&](std::int64_t node) { return lies_on(xyz, parent_side, xyz + 3 * node); }))
            pending.push_back({child, static_cast<std::uint64_t>(t), id});
        }
      continue;
    }
    const ElemType& type = *types_[e];
    const std::int64_t facet = type.side_map.empty() ? static_cast<std::int64_t>(side) : type.side_map[side];
    auto& pairs = sides[static_cast<std::int64_t>(id)];
    pairs.push_back(base[block_index(e)] + position_of(e));
    pairs.push_back(facet);
  }
  for (auto& [id, pairs] : sides) {
    Region region{region_name(side_names_, "boundary_", id), RegionKind::Side, std::max(max_dim - 1, 0), id,
                  NDArray::allocate(DType::int64, {static_cast<std::int64_t>(pairs.size() / 2), 2})};
    std::copy(pairs.begin(), pairs.end(), region.entries.template data_as<std::int64_t>());
    mesh.regions.push_back(std::move(region));
  }
  std::map<std::int64_t, std::vector<std::int64_t>> nodesets;
  for (std::size_t i = 0; i + 1 < node_conditions_.size(); i += 2) {
    if (node_conditions_[i] >= n_nodes_)
      in_.fail("a nodeset names node " + std::to_string(node_conditions_[i]) + " of " + std::to_string(n_nodes_));
    nodesets[static_cast<std::int64_t>(node_conditions_[i + 1])].push_back(static_cast<std::int64_t>(node_conditions_[i]));
  }
  for (auto& [id, nodes] : nodesets) {
    std::sort(nodes.begin(), nodes.end());
    Region region{region_name(node_names_, "boundary_", id), RegionKind::Point, 0, id,
                  NDArray::allocate(DType::int64, {static_cast<std::int64_t>(nodes.size())})};
    std::copy(nodes.begin(), nodes.end(), region.entries.template data_as<std::int64_t>());
    mesh.regions.push_back(std::move(region));
  }
  return mesh;
}

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, detail::kFormat);
  io::reject_empty_file(file.bytes(), path, detail::kFormat);
  const std::string_view bytes = file.bytes();
  // An XDR file opens with the version string's 4-byte length, so a zero byte; text never has one.
  if (bytes.size() >= 4 && bytes[0] == '\0') {
    detail::XdrStream stream(bytes, path);
    return XdrIoReader<detail::XdrStream>(stream, path).read();
  }
  detail::AsciiStream stream(bytes, path);
  return XdrIoReader<detail::AsciiStream>(stream, path).read();
}

}  // namespace meshioplusplus::libmesh
