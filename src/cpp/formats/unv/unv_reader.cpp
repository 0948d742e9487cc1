// I-deas Universal File reader (.unv, .uff).
//
// A universal file is a run of datasets, each opened by a "-1" line, named by the number on
// the next line and closed by another "-1" line. What becomes what:
//   2411 nodes      record 1 "label, export CS, displacement CS, colour" (4I10), record 2 the
//                   coordinates (1P3D25.16, a D or E exponent) -> points float64 (n, 3), labels
//                   renumbered 0..n-1 in file order. Several node datasets add up.
//   15 nodes        the single-precision layout (4I10, 1P3E13.5 on one line) -> points, alike.
//   2420 systems    a node whose export system is a Cartesian 2420 system with a matrix other
//                   than the identity is moved into the global system (x = R x_local + origin,
//                   R's rows records 5-7, the origin record 8: Salome's and meshio++ 17.21's
//                   reading); cylindrical and spherical systems are not applied.
//   2412 elements   record 1 "label, FE descriptor id, physical property, material property,
//                   colour, node count" (6I10); beams (formats/unv/unv_types.hpp) have a second
//                   record (orientation node, cross sections) that is passed over; then the
//                   node labels, eight a line. The descriptor and the node count give the cell
//                   type; one block per type in order of first appearance, parabolic node orders
//                   turned into VTK's. Descriptors without a geometry we hold (springs, gaps,
//                   rigid elements, cubic elements) are passed over, and so are their members in
//                   groups. The property numbers become cell_data "unv:pid" / "unv:mid" (int64).
//   2467, 2477, 2452, 2435 permanent groups
//                   record 1 "group number, six active set ids, entity count" (8I10), record 2
//                   the name, then (entity type, tag, leaf, component) quadruples, two a line.
//                   Type 7 (node) members -> a Point region of the group's name, type 8
//                   (element) members -> a Cell region (block-major indices, dim = the highest
//                   cell dimension among them); a group with both gives both; entries in file
//                   order; tag = the group number. Other entity types are passed over.
//   164 units       -> field_data "unv:units" int64 [units code] and "unv:unit_factors" float64
//                   [length, force, temperature, temperature offset] (what meshio++ 17.21 keeps).
//   anything else   (151 header, 2414/55/58 results, binary datasets) is passed over by its
//                   delimiters; 2414 and 55 results are the steps of unv::open_time_series
//                   (unv_time_series.cpp). The core has no warning channel, so the skip is
//                   silent (docs/formats.md lists what is read).
// Speed: a large 2411 dataset (in the global system) and a file's one large 2412 dataset of
// two-line elements are parsed on all cores (io::parse_lines_in_parallel), the elements in
// one pass; anything not so laid out goes to the sequential passes, which word the errors.
#include <algorithm>
#include <array>
#include <atomic>
#include <span>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/unv/unv.hpp"
#include "formats/unv/unv_internal.hpp"
#include "formats/unv/unv_records.hpp"
#include "formats/unv/unv_types.hpp"
#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::unv {
namespace {

using detail::kFormat;
using detail::Dataset;
using detail::Line;
using detail::Lines;

// One 2412 element record as the first pass sees it.
struct ElementHead {
  std::int64_t values[6] = {};  // label, descriptor, pid, mid, colour, node count
  Line first;                   // record 1
};

class Reader {
 public:
  Reader(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  detail::LabelledMesh read() {
    datasets_ = detail::scan_datasets(text_, path_);
    for (const Dataset& dataset : datasets_)
      if (dataset.number == 2420) read_coordinate_systems(dataset);
    read_nodes();
    read_elements();
    for (const Dataset& dataset : datasets_) {
      if (detail::is_group_dataset(dataset.number)) read_groups(dataset);
      if (dataset.number == 164) read_units(dataset);
    }
    return {std::move(mesh_), std::move(datasets_), std::move(node_ids_), std::move(element_ids_),
            std::move(element_index_)};
  }

 private:
  [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
    detail::fail_at(text_, path_, offset, message);
  }

  std::string where(const Dataset& dataset) const { return "dataset " + std::to_string(dataset.number); }

  // ---- coordinate systems (2420) ----

  struct CoordinateSystem {
    std::int64_t label = 0;
    std::array<double, 12> matrix{};  // records 5-8: rows of the rotation, then the origin
  };

  // Cartesian systems whose matrix is not the identity: their nodes are moved into the global
  // system (x_global = R x + origin, R's rows records 5-7, as Salome and meshio++ 17.21 do).
  // Cylindrical and spherical systems are left alone (their nodes stay in local coordinates).
  void read_coordinate_systems(const Dataset& dataset) {
    Lines lines(text_, dataset.begin, dataset.end);
    Line line;
    if (!lines.next_significant(line) || !lines.next(line)) return;  // part UID, part name
    while (lines.next_significant(line)) {
      std::int64_t head[3] = {};
      if (detail::read_ints(text_, line, head, 3, path_) < 2)
        fail(line.begin, "dataset 2420: a coordinate system starts with its label and type");
      Line name;
      if (!lines.next(name)) fail(line.begin, "dataset 2420: coordinate system " + std::to_string(head[0]) + " has no name");
      CoordinateSystem system;
      system.label = head[0];
      std::size_t have = 0;
      Line row;
      while (have < 12) {
        if (!lines.next_significant(row))
          fail(line.begin, "dataset 2420: coordinate system " + std::to_string(head[0]) + " needs a 4 x 3 matrix");
        const std::size_t got = detail::read_reals(text_, row, system.matrix.data() + have, 12 - have, path_, 25);
        if (got == 0 || got > 12 - have)
          fail(row.begin, "dataset 2420: coordinate system " + std::to_string(head[0]) + " needs a 4 x 3 matrix");
        have += got;
      }
      static constexpr std::array<double, 12> kIdentity{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
      if (head[1] == 0 && system.matrix != kIdentity) systems_.push_back(system);
    }
  }

  void to_global(std::int64_t system_label, double* xyz) const {
    for (const CoordinateSystem& system : systems_) {
      if (system.label != system_label) continue;
      const double* m = system.matrix.data();
      const double x = xyz[0], y = xyz[1], z = xyz[2];
      xyz[0] = m[0] * x + m[1] * y + m[2] * z + m[9];
      xyz[1] = m[3] * x + m[4] * y + m[5] * z + m[10];
      xyz[2] = m[6] * x + m[7] * y + m[8] * z + m[11];
      return;
    }
  }

  // ---- nodes ----

  void read_nodes() {
    std::int64_t total = 0;
    for (const Dataset& dataset : datasets_) {
      if (dataset.number == 2411) {
        if (dataset.lines % 2 != 0)
          fail(dataset.header_offset, "dataset 2411 has " + std::to_string(dataset.lines) +
                                          " lines; each node takes two (label record, coordinates)");
        total += dataset.lines / 2;
      } else if (dataset.number == 15) {
        total += dataset.lines;
      }
    }
    // Each node takes at least two lines of text: the claim is bounded by the file.
    io::check_claim_fits_limit(path_, kFormat, "nodes", static_cast<std::uint64_t>(total), 3 * sizeof(double));
    mesh_.points = NDArray::allocate(DType::float64, {total, 3});
    double* xyz = mesh_.points.data_as<double>();
    std::vector<std::int64_t> labels;
    labels.reserve(static_cast<std::size_t>(total));
    node_lines_.reserve(static_cast<std::size_t>(total));
    for (const Dataset& dataset : datasets_) {
      if (dataset.number != 2411 && dataset.number != 15) continue;
      if (dataset.number == 2411 && read_nodes_in_parallel(dataset, xyz, labels)) {
        xyz += 3 * (dataset.lines / 2);
        continue;
      }
      Lines lines(text_, dataset.begin, dataset.end);
      Line record;
      while (lines.next_significant(record)) {
        std::int64_t ids[4];
        if (dataset.number == 2411) {
          const std::size_t got = detail::read_ints(text_, record, ids, 4, path_);
          if (got != 4) fail(record.begin, "dataset 2411: a node's first record needs 4 integers (label, export and displacement coordinate systems, colour), it has " + std::to_string(got));
          Line coordinates;
          lines.next_significant(coordinates);  // the line count is even: it exists
          const std::size_t reals = detail::read_reals(text_, coordinates, xyz, 3, path_, 25);
          if (reals != 3) fail(coordinates.begin, "dataset 2411: node " + std::to_string(ids[0]) + " needs 3 coordinates, it has " + std::to_string(reals));
        } else {
          // 4I10 then 1P3E13.5 on one line.
          const std::string_view head = record.text.substr(0, std::min<std::size_t>(40, record.text.size()));
          const std::size_t got = detail::read_ints(text_, Line{record.begin, head}, ids, 4, path_);
          const Line tail{record.begin + head.size(), record.text.substr(head.size())};
          const std::size_t reals = got == 4 ? detail::read_reals(text_, tail, xyz, 3, path_, 13) : 0;
          if (got != 4 || reals != 3) fail(record.begin, "dataset 15: a node needs 4 integers and 3 coordinates");
        }
        if (!systems_.empty()) to_global(ids[1], xyz);
        xyz += 3;
        labels.push_back(ids[0]);
        node_lines_.push_back(record.begin);
      }
    }
    if (const auto repeat = node_ids_.build(labels))
      fail(node_lines_[*repeat], "node " + std::to_string(labels[*repeat]) + " is defined twice");
  }

  // A large 2411 dataset of two lines a node and nothing between them (what writers
  // write), in the global system, on all cores; false, with nothing kept, for anything else
  // (blank lines, a field that does not parse …): the sequential loop reads it and words the
  // errors.
  bool read_nodes_in_parallel(const Dataset& dataset, double* xyz, std::vector<std::int64_t>& labels) {
    if (!systems_.empty() || dataset.lines < 4) return false;
    const std::size_t base = labels.size(), nodes = static_cast<std::size_t>(dataset.lines / 2);
    labels.resize(base + nodes);
    node_lines_.resize(base + nodes);
    const auto parse_line = [&](std::uint64_t index, std::size_t from, std::size_t to) {
      const Line line{from, text_.substr(from, to - from)};
      const std::size_t node = static_cast<std::size_t>(index / 2);
      try {
        if (index % 2 == 0) {
          std::int64_t ids[4];
          if (detail::read_ints(text_, line, ids, 4, path_) != 4) return false;
          labels[base + node] = ids[0];
          node_lines_[base + node] = from;
          return true;
        }
        return detail::read_reals(text_, line, xyz + 3 * node, 3, path_, 25) == 3;
      } catch (const ReadError&) {
        return false;
      }
    };
    if (io::parse_lines_in_parallel(text_, dataset.begin, static_cast<std::uint64_t>(dataset.lines), parse_line)) return true;
    labels.resize(base);
    node_lines_.resize(base);
    return false;
  }

  // ---- elements ----

  // Reads element record 1 (and passes over a beam's record 2); false at the end.
  bool next_head(Lines& lines, ElementHead& head) {
    if (!lines.next_significant(head.first)) return false;
    const std::size_t got = detail::read_ints(text_, head.first, head.values, 6, path_);
    if (got != 6)
      fail(head.first.begin, "dataset 2412: an element's first record needs 6 integers (label, FE descriptor, "
                             "physical and material property, colour, node count), it has " + std::to_string(got));
    const std::int64_t nodes = head.values[5];
    if (nodes < 1 || nodes > 4096)
      fail(head.first.begin, "dataset 2412: element " + std::to_string(head.values[0]) + " has " + std::to_string(nodes) + " nodes");
    if (detail::is_beam(head.values[1])) {
      Line beam;
      if (!lines.next_significant(beam))
        fail(head.first.begin, "dataset 2412: beam element " + std::to_string(head.values[0]) + " has no orientation record");
    }
    return true;
  }

  // The node records of an element: `out` (nullptr in the first pass) takes the labels.
  void node_records(Lines& lines, const ElementHead& head, std::int64_t* out) {
    const std::int64_t nodes = head.values[5];
    std::int64_t have = 0;
    Line line;
    while (have < nodes) {
      if (!lines.next_significant(line))
        fail(head.first.begin, "dataset 2412: element " + std::to_string(head.values[0]) + " ends after " +
                                   std::to_string(have) + " of its " + std::to_string(nodes) + " node labels");
      const std::size_t room = static_cast<std::size_t>(nodes - have);
      const std::size_t got = out ? detail::read_ints(text_, line, out + have, room, path_) : detail::count_fields(line.text);
      if (got == 0 || got > room)
        fail(line.begin, "dataset 2412: element " + std::to_string(head.values[0]) + " lists " +
                             std::to_string(have + static_cast<std::int64_t>(got)) + " node labels, its record says " +
                             std::to_string(nodes));
      have += static_cast<std::int64_t>(got);
    }
  }

  // A file's one large 2412 dataset of two-line elements (no beams, at most 8 nodes: what
  // writers write for linear cells) read on all cores in one pass: the records into flat
  // arrays, then the blocks sized from them and filled. False, with nothing kept, for
  // anything else: the two sequential passes read it and word the errors.
  bool read_elements_in_parallel() {
    const Dataset* only = nullptr;
    for (const Dataset& dataset : datasets_)
      if (dataset.number == 2412) {
        if (only != nullptr) return false;
        only = &dataset;
      }
    if (only == nullptr || only->lines < 4 || only->lines % 2 != 0) return false;
    constexpr std::size_t kStride = 8;
    const auto records = static_cast<std::size_t>(only->lines / 2);
    // Its flat arrays take ~120 bytes a record: only for records of 16 bytes or more (a
    // record 1 alone holds six fields), so that they stay within a few times the file.
    if (only->end - only->begin < records * 16) return false;
    std::vector<std::int64_t> heads(records * 4), nodes(records * kStride);  // label, descriptor, pid, mid
    std::vector<std::int8_t> counts(records);
    std::vector<std::size_t> offsets(records);
    const auto parse_line = [&](std::uint64_t index, std::size_t from, std::size_t to) {
      if (index % 2 == 0) return true;  // record 1 is read with its node record
      const std::size_t e = static_cast<std::size_t>(index / 2);
      // Record 1 is the line before: it ends at from - 1.
      if (from < 2) return false;
      const char* const text = text_.data();
      std::size_t head_begin = from - 1;
      while (head_begin > 0 && text[head_begin - 1] != '\n') --head_begin;
      try {
        std::int64_t head[6];
        if (detail::read_ints(text_, Line{head_begin, text_.substr(head_begin, from - 1 - head_begin)}, head, 6, path_) != 6)
          return false;
        if (head[5] < 1 || head[5] > static_cast<std::int64_t>(kStride) || detail::is_beam(head[1])) return false;
        const Line line{from, text_.substr(from, to - from)};
        // read_ints counts every field of the record (it stores at most kStride): a count that
        // is not head[5] is a layout the sequential loop words.
        if (detail::read_ints(text_, line, nodes.data() + e * kStride, kStride, path_) != static_cast<std::size_t>(head[5]))
          return false;
        std::copy(head, head + 4, heads.data() + e * 4);
        counts[e] = static_cast<std::int8_t>(head[5]);
        offsets[e] = head_begin;
        return true;
      } catch (const ReadError&) {
        return false;
      }
    };
    if (!io::parse_lines_in_parallel(text_, only->begin, static_cast<std::uint64_t>(only->lines), parse_line)) return false;

    // The blocks, in order of first appearance, and each element's place in its block.
    std::vector<std::string_view> types;
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> place(records);  // block * 2^40 + row; -1: no cell
    std::vector<std::int64_t> labels(records);
    for (std::size_t e = 0; e < records; ++e) {
      labels[e] = heads[e * 4];
      const std::string_view type = detail::cell_type_of(heads[e * 4 + 1], counts[e]);
      if (type.empty()) {
        place[e] = -1;
        continue;
      }
      std::size_t b = 0;
      while (b < types.size() && types[b].data() != type.data() && types[b] != type) ++b;
      if (b == types.size()) {
        types.push_back(type);
        sizes.push_back(0);
      }
      place[e] = (static_cast<std::int64_t>(b) << 40) + sizes[b]++;
    }
    std::vector<std::int64_t*> connectivity, pid, mid;
    std::vector<NDArray> pids, mids;
    std::vector<std::int64_t> bases(types.size() + 1, 0);
    for (std::size_t b = 0; b < types.size(); ++b) {
      const CellTypeInfo& info = cell_type(types[b]);
      mesh_.cells.push_back({std::string(info.name), NDArray::allocate(DType::int64, {sizes[b], info.num_nodes}), {}, {}});
      connectivity.push_back(mesh_.cells.back().connectivity.data_as<std::int64_t>());
      pids.push_back(NDArray::allocate(DType::int64, {sizes[b]}));
      mids.push_back(NDArray::allocate(DType::int64, {sizes[b]}));
      pid.push_back(pids.back().data_as<std::int64_t>());
      mid.push_back(mids.back().data_as<std::int64_t>());
      bases[b + 1] = bases[b] + sizes[b];
      dims_.push_back(info.dimension);
    }
    element_index_.resize(records);
    std::atomic<std::size_t> first_missing{records};  // the earliest element naming an undefined node
    io::parallel_ranges(records, std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
      for (std::size_t e = first; e < last; ++e) {
        if (place[e] < 0) {
          element_index_[e] = -1;
          continue;
        }
        const auto b = static_cast<std::size_t>(place[e] >> 40);
        const std::int64_t row = place[e] & ((std::int64_t{1} << 40) - 1);
        const std::int64_t width = cell_type(types[b]).num_nodes;
        const std::span<const std::int8_t> order = detail::node_order(types[b]);
        std::int64_t* out = connectivity[b] + row * width;
        for (std::int64_t k = 0; k < counts[e]; ++k) {
          const std::int64_t index = node_ids_.find(nodes[e * kStride + static_cast<std::size_t>(k)]);
          if (index < 0) {
            std::size_t seen = first_missing.load();
            while (e < seen && !first_missing.compare_exchange_weak(seen, e)) {
            }
            break;
          }
          out[order.empty() ? k : order[static_cast<std::size_t>(k)]] = index;
        }
        pid[b][row] = heads[e * 4 + 2];
        mid[b][row] = heads[e * 4 + 3];
        element_index_[e] = bases[b] + row;
      }
    });
    if (const std::size_t e = first_missing.load(); e < records) {
      for (std::int64_t k = 0; k < counts[e]; ++k)
        if (node_ids_.find(nodes[e * kStride + static_cast<std::size_t>(k)]) < 0)
          fail(offsets[e], "dataset 2412: element " + std::to_string(labels[e]) + " names node " +
                               std::to_string(nodes[e * kStride + static_cast<std::size_t>(k)]) + ", which no node dataset defines");
    }
    if (!types.empty()) {
      mesh_.cell_data.set("unv:pid", std::move(pids));
      mesh_.cell_data.set("unv:mid", std::move(mids));
    }
    element_lines_ = std::move(offsets);
    if (const auto repeat = element_ids_.build(labels))
      fail(element_lines_[*repeat], "element " + std::to_string(labels[*repeat]) + " is defined twice");
    return true;
  }

  void read_elements() {
    if (read_elements_in_parallel()) return;
    // First pass: the blocks and their sizes.
    std::vector<std::string_view> types;
    std::vector<std::int64_t> counts;
    std::int64_t records = 0;
    ElementHead head;
    for (const Dataset& dataset : datasets_) {
      if (dataset.number != 2412) continue;
      Lines lines(text_, dataset.begin, dataset.end);
      while (next_head(lines, head)) {
        node_records(lines, head, nullptr);
        ++records;
        const std::string_view type = detail::cell_type_of(head.values[1], head.values[5]);
        if (type.empty()) continue;
        const auto it = std::find(types.begin(), types.end(), type);
        if (it == types.end()) {
          types.push_back(type);
          counts.push_back(1);
        } else {
          ++counts[static_cast<std::size_t>(it - types.begin())];
        }
      }
    }
    std::vector<std::int64_t> bases(types.size() + 1, 0);
    std::vector<std::int64_t*> cursor, pid, mid;
    NamedList<std::vector<NDArray>> data;
    std::vector<NDArray> pids, mids;
    for (std::size_t b = 0; b < types.size(); ++b) {
      const CellTypeInfo& info = cell_type(types[b]);
      mesh_.cells.push_back({std::string(info.name), NDArray::allocate(DType::int64, {counts[b], info.num_nodes}), {}, {}});
      cursor.push_back(mesh_.cells.back().connectivity.data_as<std::int64_t>());
      pids.push_back(NDArray::allocate(DType::int64, {counts[b]}));
      mids.push_back(NDArray::allocate(DType::int64, {counts[b]}));
      pid.push_back(pids.back().data_as<std::int64_t>());
      mid.push_back(mids.back().data_as<std::int64_t>());
      bases[b + 1] = bases[b] + counts[b];
      dims_.push_back(info.dimension);
    }
    // Second pass: the cells.
    std::vector<std::int64_t> labels;
    labels.reserve(static_cast<std::size_t>(records));
    element_lines_.reserve(static_cast<std::size_t>(records));
    element_index_.reserve(static_cast<std::size_t>(records));
    std::vector<std::int64_t> row;
    std::vector<std::int64_t> filled(types.size(), 0);
    for (const Dataset& dataset : datasets_) {
      if (dataset.number != 2412) continue;
      Lines lines(text_, dataset.begin, dataset.end);
      while (next_head(lines, head)) {
        const std::int64_t n = head.values[5];
        row.resize(static_cast<std::size_t>(n));
        node_records(lines, head, row.data());
        labels.push_back(head.values[0]);
        element_lines_.push_back(head.first.begin);
        const std::string_view type = detail::cell_type_of(head.values[1], n);
        if (type.empty()) {
          element_index_.push_back(-1);
          continue;
        }
        const std::size_t b = static_cast<std::size_t>(std::find(types.begin(), types.end(), type) - types.begin());
        const std::span<const std::int8_t> order = detail::node_order(type);
        std::int64_t* out = cursor[b];
        for (std::int64_t k = 0; k < n; ++k) {
          const std::int64_t index = node_ids_.find(row[static_cast<std::size_t>(k)]);
          if (index < 0)
            fail(head.first.begin, "dataset 2412: element " + std::to_string(head.values[0]) + " names node " +
                                       std::to_string(row[static_cast<std::size_t>(k)]) + ", which no node dataset defines");
          out[order.empty() ? k : order[static_cast<std::size_t>(k)]] = index;
        }
        cursor[b] += n;
        *pid[b]++ = head.values[2];
        *mid[b]++ = head.values[3];
        element_index_.push_back(bases[b] + filled[b]++);
      }
    }
    if (!types.empty()) {
      mesh_.cell_data.set("unv:pid", std::move(pids));
      mesh_.cell_data.set("unv:mid", std::move(mids));
    }
    if (const auto repeat = element_ids_.build(labels))
      fail(element_lines_[*repeat], "element " + std::to_string(labels[*repeat]) + " is defined twice");
  }

  // ---- groups ----

  void read_groups(const Dataset& dataset) {
    Lines lines(text_, dataset.begin, dataset.end);
    Line record;
    while (lines.next_significant(record)) {
      std::int64_t head[8];
      if (detail::read_ints(text_, record, head, 8, path_) != 8)
        fail(record.begin, where(dataset) + ": a group's first record needs 8 integers (group number, six active "
                                            "set ids, entity count)");
      const std::int64_t entities = head[7];
      if (entities < 0 || static_cast<std::uint64_t>(entities) > (dataset.end - record.begin) / 8)
        fail(record.begin, where(dataset) + ": group " + std::to_string(head[0]) + " claims " +
                               std::to_string(entities) + " entities, more than the dataset holds");
      Line name_line;
      if (!lines.next(name_line)) fail(record.begin, where(dataset) + ": group " + std::to_string(head[0]) + " has no name record");
      std::string_view name = name_line.text;
      while (!name.empty() && io::is_space(name.back())) name.remove_suffix(1);
      while (!name.empty() && io::is_space(name.front())) name.remove_prefix(1);
      std::vector<std::int64_t> nodes, cells;
      int dim = -1;
      std::int64_t read = 0;
      std::int64_t quad[8];
      Line line;
      while (read < entities) {
        if (!lines.next_significant(line))
          fail(record.begin, where(dataset) + ": group '" + std::string(name) + "' ends after " + std::to_string(read) +
                                 " of its " + std::to_string(entities) + " entities");
        const std::size_t got = detail::read_ints(text_, line, quad, 8, path_);
        if (got > 8 || got % 4 != 0 || got == 0 || read + static_cast<std::int64_t>(got / 4) > entities)
          fail(line.begin, where(dataset) + ": group '" + std::string(name) +
                               "': an entity line holds one or two (type, tag, leaf, component) quadruples");
        for (std::size_t q = 0; q < got / 4; ++q) {
          const std::int64_t type = quad[4 * q];
          const std::int64_t tag = quad[4 * q + 1];
          if (type == detail::kNodeEntity) {
            const std::int64_t index = node_ids_.find(tag);
            if (index < 0)
              fail(line.begin, where(dataset) + ": group '" + std::string(name) + "' names node " + std::to_string(tag) +
                                   ", which no node dataset defines");
            nodes.push_back(index);
          } else if (type == detail::kElementEntity) {
            const std::int64_t position = element_ids_.find(tag);
            if (position < 0)
              fail(line.begin, where(dataset) + ": group '" + std::string(name) + "' names element " +
                                   std::to_string(tag) + ", which no element dataset defines");
            const std::int64_t index = element_index_[static_cast<std::size_t>(position)];
            if (index < 0) continue;  // an element of a kind we do not read
            cells.push_back(index);
            dim = std::max(dim, cell_dim_of(index));
          }
        }
        read += static_cast<std::int64_t>(got / 4);
      }
      if (!nodes.empty()) add_region(name, RegionKind::Point, -1, head[0], nodes);
      if (!cells.empty() || nodes.empty()) add_region(name, RegionKind::Cell, dim, head[0], cells);
    }
  }

  int cell_dim_of(std::int64_t index) const {
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      if (index < mesh_.cells[b].num_cells()) return dims_[b];
      index -= mesh_.cells[b].num_cells();
    }
    return -1;
  }

  void add_region(std::string_view name, RegionKind kind, int dim, std::int64_t tag, const std::vector<std::int64_t>& members) {
    Region region;
    region.name = std::string(name);
    region.kind = kind;
    region.dim = dim;
    region.tag = tag;
    region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(members.size())});
    std::copy(members.begin(), members.end(), region.entries.data_as<std::int64_t>());
    mesh_.regions.push_back(std::move(region));
  }

  // ---- units ----

  void read_units(const Dataset& dataset) {
    Lines lines(text_, dataset.begin, dataset.end);
    Line record;
    if (!lines.next_significant(record)) fail(dataset.header_offset, "dataset 164 is empty");
    // I10, 20A1, I10: the code is in the first ten columns (the description may touch it).
    std::int64_t code = 0;
    const Line code_field{record.begin, record.text.substr(0, std::min<std::size_t>(10, record.text.size()))};
    if (detail::read_ints(text_, code_field, &code, 1, path_) != 1)
      fail(record.begin, "dataset 164: the first record starts with the units code (I10)");
    std::array<double, 4> factors{1.0, 1.0, 1.0, 0.0};
    std::size_t have = 0;
    Line line;
    while (have < factors.size() && lines.next_significant(line)) {
      const std::size_t got = detail::read_reals(text_, line, factors.data() + have, factors.size() - have, path_, 25);
      if (got > factors.size() - have) fail(line.begin, "dataset 164 holds more than 4 conversion factors");
      have += got;
    }
    if (have != factors.size())
      fail(dataset.header_offset, "dataset 164 needs 4 conversion factors (length, force, temperature, temperature offset), it has " +
                                      std::to_string(have));
    NDArray units = NDArray::allocate(DType::int64, {1});
    units.data_as<std::int64_t>()[0] = code;
    NDArray values = NDArray::allocate(DType::float64, {4});
    std::copy(factors.begin(), factors.end(), values.data_as<double>());
    mesh_.field_data.set("unv:units", std::move(units));
    mesh_.field_data.set("unv:unit_factors", std::move(values));
  }

  std::string_view text_;
  const std::string& path_;
  std::vector<Dataset> datasets_;
  io::IdMap node_ids_, element_ids_;
  std::vector<std::size_t> node_lines_, element_lines_;  // offsets of each record, for messages
  std::vector<std::int64_t> element_index_;              // per element in file order: block-major index, -1 skipped
  std::vector<int> dims_;  // per block
  std::vector<CoordinateSystem> systems_;
  Mesh mesh_;
};

}  // namespace

namespace detail {

LabelledMesh read_labelled(std::string_view text, const std::string& path) {
  io::reject_empty_file(text, path, kFormat);
  return Reader(text, path).read();
}

}  // namespace detail

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  return detail::read_labelled(file.bytes(), path).mesh;
}

}  // namespace meshioplusplus::unv
