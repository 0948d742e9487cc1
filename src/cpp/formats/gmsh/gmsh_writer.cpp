// MSH writer: 2.2, 4.0 and 4.1, ASCII and binary. See gmsh.hpp for how regions become physical
// groups. A WritePlan is computed first (element types, groups, entities, runs); the
// emitters then only format.
//
// The writer is spread over gmsh_writer*.cpp (gmsh_writer_internal.hpp says what each holds);
// this one holds the options, the mesh sections ($MeshFormat … $Periodic in every version and
// encoding), write() and MshStream.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "formats/gmsh/gmsh.hpp"
#include "formats/gmsh/gmsh_element_types.hpp"
#include "formats/gmsh/gmsh_time_series.hpp"
#include "formats/gmsh/gmsh_writer_internal.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"
#include "io/source/parallel.hpp"

namespace meshioplusplus::gmsh::detail::writer {

[[noreturn]] void reject(const std::string& message) { throw std::invalid_argument(message); }

// Gmsh cannot escape quotes inside names.
std::string quoted(std::string_view name) {
  std::string text = "\"";
  for (const char c : name) text += c == '"' ? '\'' : (c == '\n' || c == '\r') ? ' ' : c;
  return text + "\"";
}

std::string number_text(std::int64_t value) { return std::to_string(value); }

namespace {

Options parse_options(const WriteOptions& options) {
  Options parsed;
  const std::string_view version = options.get("fmt_version", "4.1");
  if (version == "2.2") parsed.version = Version::v22;
  else if (version == "4.0") parsed.version = Version::v40;
  else if (version != "4.1") reject("fmt_version must be 2.2, 4.0 or 4.1, got '" + std::string(version) + "'");
  parsed.binary = options.get_bool("binary", true);
  try {
    parsed.float_format = io::parse_float_format(options.get("float_fmt", ""));
  } catch (const std::invalid_argument& error) {
    reject(error.what());
  }
  return parsed;
}

class MshWriter {
 public:
  // `file` is `out`'s file: the 2.2 text node and element lines go to it straight from all cores.
  MshWriter(io::OutputBuffer& out, io::AtomicFile& file, const Mesh& mesh, const WritePlan& plan, const Options& options)
      : out_(out, options.binary), file_(file), mesh_(mesh), plan_(plan), options_(options), data_(out_, plan_.blocks, false) {}

  void write() {
    write_mesh_sections();
    write_point_data();
    write_cell_data();
  }

  // Everything but the data sections (MshStream writes those step by step).
  void write_mesh_sections() {
    write_mesh_format();
    write_block_marker();
    write_physical_names();
    if (options_.entities()) {
      write_entities();
      write_nodes_4();
      write_elements_4();
    } else {
      write_nodes_22();
      write_elements_22();
    }
    write_periodic();
  }

 private:
  const double* xyz() const { return plan_.xyz.empty() ? mesh_.points.data_as<double>() : plan_.xyz.data(); }
  std::int64_t num_points() const { return mesh_.num_points(); }

  void write_mesh_format() {
    out_.begin_section("MeshFormat");
    // "4.0", not "4": readers (meshio's among them) take a bare "4" for 4.1.
    const std::string_view version = options_.version == Version::v22 ? "2.2" : options_.version == Version::v40 ? "4.0" : "4.1";
    out_.text_line(std::string(version) + (options_.binary ? " 1 8" : " 0 8"));
    if (options_.binary) {
      const std::int32_t one = 1;
      out_.out().bytes(&one, 4);
      out_.out().put('\n');
    }
    out_.text_line("$EndMeshFormat");
  }

  // Readers cut blocks as meshio does: 4.x one per element block, 2.x one per stretch of one
  // type. Where that would not give back the mesh's blocks (a block split over entities, an
  // empty block, two consecutive blocks of one type in 2.2), $MeshioplusplusBlocks lists
  // them (type and size) for our reader; Gmsh and meshio skip sections they do not know.
  void write_block_marker() {
    bool needed = false;
    if (options_.entities()) {
      std::vector<std::int64_t> runs(plan_.blocks.size(), 0);
      for (const ElementRun& run : plan_.element_runs) ++runs[run.block];
      needed = std::any_of(runs.begin(), runs.end(), [](std::int64_t count) { return count != 1; });
    } else {
      for (std::size_t b = 0; b < plan_.blocks.size() && !needed; ++b)
        needed = plan_.blocks[b].count == 0 || (b > 0 && plan_.blocks[b].type == plan_.blocks[b - 1].type);
    }
    if (!needed) return;
    out_.text_line("$MeshioplusplusBlocks");
    out_.text_line(number_text(static_cast<std::int64_t>(plan_.blocks.size())));
    for (const BlockPlan& block : plan_.blocks)
      out_.text_line(std::to_string(block.type->gmsh_id) + " " + number_text(block.count));
    out_.text_line("$EndMeshioplusplusBlocks");
  }

  // Names equal to the tag were made up by the reader; leave them out so they stay made up.
  // Sorted by (dim, tag, name) as meshio sorts them.
  void write_physical_names() {
    std::vector<const Group*> named;
    for (const Group& group : plan_.groups)
      if (group.name != std::to_string(group.tag)) named.push_back(&group);
    for (const Group& extra : plan_.extra_names) named.push_back(&extra);
    if (named.empty()) return;
    std::stable_sort(named.begin(), named.end(), [](const Group* a, const Group* b) {
      return std::tie(a->dim, a->tag, a->name) < std::tie(b->dim, b->tag, b->name);
    });
    out_.text_line("$PhysicalNames");
    out_.text_line(number_text(static_cast<std::int64_t>(named.size())));
    for (const Group* group : named)
      out_.text_line(std::to_string(group->dim) + " " + std::to_string(group->tag) + " " + quoted(group->name));
    out_.text_line("$EndPhysicalNames");
  }

  std::vector<std::size_t> entities_in_order() const {
    std::vector<std::size_t> order(plan_.entities.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const Entity& x = plan_.entities[a];
      const Entity& y = plan_.entities[b];
      return x.dim != y.dim ? x.dim < y.dim : x.tag < y.tag;
    });
    return order;
  }

  void write_entities() {
    out_.begin_section("Entities");
    std::array<std::uint64_t, 4> counts{};
    for (const Entity& entity : plan_.entities) ++counts[static_cast<std::size_t>(entity.dim)];
    for (const std::uint64_t count : counts) out_.size(count);
    out_.end_record();
    for (const std::size_t e : entities_in_order()) {
      const Entity& entity = plan_.entities[e];
      const std::array<double, 6> box = entity.written_box();
      out_.int32(entity.tag);
      // 4.1 gives a point entity its position, 4.0 a (degenerate) box like any other.
      const int box_values = entity.dim == 0 && options_.version == Version::v41 ? 3 : 6;
      for (int a = 0; a < box_values; ++a) out_.real(box[static_cast<std::size_t>(a)]);
      const std::vector<std::int32_t>& members = plan_.signatures.members(entity.signature);
      out_.size(members.size());
      for (const std::int32_t group : members) out_.int32(plan_.groups[static_cast<std::size_t>(group)].tag);
      if (entity.dim > 0) out_.size(0);  // bounding entities: unknown
      out_.end_record();
    }
    out_.end_section("Entities");
  }

  // A 4.x block header: 4.1 names the entity (dim, tag), 4.0 (tag, dim).
  void entity_header(const Entity& entity) {
    const bool v41 = options_.version == Version::v41;
    out_.int32(v41 ? entity.dim : entity.tag);
    out_.int32(v41 ? entity.tag : entity.dim);
  }

  // 4.1: per block all tags, then all coordinates; min and max tag in the section header.
  // 4.0: per node its (int) tag and coordinates.
  void write_nodes_4() {
    const bool v41 = options_.version == Version::v41;
    out_.begin_section("Nodes");
    const auto n = static_cast<std::uint64_t>(num_points());
    out_.size(plan_.node_runs.size());
    out_.size(n);
    if (v41) {
      out_.size(n == 0 ? 0 : 1);
      out_.size(n);
    }
    out_.end_record();
    const double* points = xyz();
    for (const NodeRun& run : plan_.node_runs) {
      entity_header(plan_.entities[static_cast<std::size_t>(run.entity)]);
      out_.int32(0);  // no parametric coordinates
      out_.size(static_cast<std::uint64_t>(run.count));
      out_.end_record();
      if (!v41) {
        if (out_.binary()) write_binary_nodes_40(run);
        else
          for (std::int64_t i = run.first; i < run.first + run.count; ++i) {
            out_.int32(static_cast<std::int32_t>(i + 1));
            write_xyz_record(points + 3 * i);
          }
        continue;
      }
      if (out_.binary()) {
        write_binary_node_tags(run);
        out_.out().bytes(points + 3 * run.first, static_cast<std::size_t>(run.count) * 24);
        continue;
      }
      for (std::int64_t i = run.first; i < run.first + run.count; ++i) {
        out_.size(static_cast<std::uint64_t>(i) + 1);
        out_.end_record();
      }
      for (std::int64_t i = run.first; i < run.first + run.count; ++i) write_xyz_record(points + 3 * i);
    }
    out_.end_section("Nodes");
  }

  // 4.0 binary node records: int32 tag and three doubles (28 bytes), gathered in chunks.
  void write_binary_nodes_40(const NodeRun& run) {
    constexpr std::int64_t kChunk = 4096;
    constexpr std::size_t kRecord = 4 + 24;
    std::vector<char> records(kChunk * kRecord);
    const double* points = xyz();
    for (std::int64_t first = run.first; first < run.first + run.count; first += kChunk) {
      const std::int64_t count = std::min(kChunk, run.first + run.count - first);
      for (std::int64_t i = 0; i < count; ++i) {
        const auto tag = static_cast<std::int32_t>(first + i + 1);
        char* record = records.data() + static_cast<std::size_t>(i) * kRecord;
        std::memcpy(record, &tag, 4);
        std::memcpy(record + 4, points + 3 * (first + i), 24);
      }
      out_.out().bytes(records.data(), static_cast<std::size_t>(count) * kRecord);
    }
  }

  void write_binary_node_tags(const NodeRun& run) {
    constexpr std::int64_t kChunk = 4096;
    std::array<std::uint64_t, kChunk> tags;
    for (std::int64_t first = run.first; first < run.first + run.count; first += kChunk) {
      const std::int64_t count = std::min(kChunk, run.first + run.count - first);
      for (std::int64_t i = 0; i < count; ++i) tags[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(first + i + 1);
      out_.out().bytes(tags.data(), static_cast<std::size_t>(count) * 8);
    }
  }

  void write_xyz_record(const double* point) {
    out_.real(point[0]);
    out_.real(point[1]);
    out_.real(point[2]);
    out_.end_record();
  }

  // Gmsh-ordered point indices of one element.
  void gmsh_nodes(const GmshElementType& type, const std::int64_t* meshio_nodes, std::int64_t* out) const {
    const std::span<const std::uint16_t> order = type.gmsh_from_meshio;
    for (int j = 0; j < type.num_nodes; ++j) out[j] = meshio_nodes[order.empty() ? j : order[static_cast<std::size_t>(j)]];
  }

  struct ElementView {
    std::int64_t tag;
    const GmshElementType* type;
    std::int32_t signature;
  };

  // Element `i` of `run`; its gmsh-ordered point indices go to `nodes` (room for 1024).
  ElementView element_of(const ElementRun& run, std::int64_t i, std::int64_t* nodes) const {
    const BlockPlan& block = plan_.blocks[run.block];
    const std::int64_t row = run.first + i;
    gmsh_nodes(*block.type, block.cells->connectivity.data_as<std::int64_t>() + row * block.type->num_nodes, nodes);
    return {block.base + row + 1, block.type, plan_.cell_signature_of(block.base + row)};
  }

  // Calls fn(element tag, type, gmsh-ordered node indices, group signature) per element.
  template <class Fn> void for_each_element(const ElementRun& run, Fn&& fn) const {
    std::int64_t nodes[1024];  // the largest element, hexahedron1000, fits
    for (std::int64_t i = 0; i < run.count; ++i) {
      const ElementView element = element_of(run, i, nodes);
      fn(element.tag, *element.type, nodes, element.signature);
    }
  }

  // A run's binary element records, `words` Words each: filled by fill(element, nodes,
  // record) a few MiB at a time on all cores, each piece written as it is ready.
  template <class Word, class Fill> void write_binary_records(const ElementRun& run, std::size_t words, const Fill& fill) {
    const auto per_chunk = static_cast<std::int64_t>(std::max<std::size_t>(1, kRecordChunkBytes / (words * sizeof(Word))));
    // Scratch memory of the default heap: whole huge pages, not a fault per 4 KiB page.
    NDArray chunk_array = NDArray::allocate_scratch(dtype_of<Word>(), {std::min(per_chunk, run.count) * static_cast<std::int64_t>(words)});
    Word* const chunk = chunk_array.data_as<Word>();
    for (std::int64_t first = 0; first < run.count; first += per_chunk) {
      const std::int64_t count = std::min(per_chunk, run.count - first);
      io::parallel_ranges(static_cast<std::size_t>(count), kRecordsPerThread, [&](std::size_t begin, std::size_t end) {
        std::int64_t nodes[1024];
        // A block's cells straight from its connectivity: the per-element lookups of
        // element_of hoisted out of the loop.
        const BlockPlan& block = plan_.blocks[run.block];
        const std::int64_t k = block.type->num_nodes, row = run.first + first;
        const std::int64_t* connectivity = block.cells->connectivity.data_as<std::int64_t>() + row * k;
        const std::int32_t* signatures =
            plan_.cell_signatures() == nullptr ? nullptr : plan_.cell_signatures() + block.base + row;
        const bool reordered = !block.type->gmsh_from_meshio.empty();
        for (std::size_t i = begin; i < end; ++i) {
          const std::int64_t* cell = connectivity + static_cast<std::int64_t>(i) * k;
          if (reordered) {
            gmsh_nodes(*block.type, cell, nodes);
            cell = nodes;
          }
          fill(ElementView{block.base + row + static_cast<std::int64_t>(i) + 1, block.type,
                           signatures != nullptr ? signatures[i] : 0},
               cell, chunk + i * words);
        }
      });
      out_.out().bytes(chunk, static_cast<std::size_t>(count) * words * sizeof(Word));
    }
  }

  const GmshElementType& run_type(const ElementRun& run) const { return *plan_.blocks[run.block].type; }

  std::int64_t num_elements() const { return plan_.num_cells; }

  // 4.1 element records are size_t words, 4.0 ones ints; 4.0 has no min/max tags.
  void write_elements_4() {
    const bool v41 = options_.version == Version::v41;
    out_.begin_section("Elements");
    const auto total = static_cast<std::uint64_t>(num_elements());
    out_.size(plan_.element_runs.size());
    out_.size(total);
    if (v41) {
      out_.size(total == 0 ? 0 : 1);
      out_.size(total);
    }
    out_.end_record();
    for (const ElementRun& run : plan_.element_runs) {
      const GmshElementType& type = run_type(run);
      entity_header(plan_.entities[static_cast<std::size_t>(run.entity)]);
      out_.int32(type.gmsh_id);
      out_.size(static_cast<std::uint64_t>(run.count));
      out_.end_record();
      if (out_.binary()) {
        const auto fill = [](const ElementView& element, const std::int64_t* nodes, auto* record) {
          using Word = std::remove_pointer_t<decltype(record)>;
          record[0] = static_cast<Word>(element.tag);
          for (int j = 0; j < element.type->num_nodes; ++j) record[1 + j] = static_cast<Word>(nodes[j] + 1);
        };
        const std::size_t words = 1 + static_cast<std::size_t>(type.num_nodes);
        if (v41) write_binary_records<std::uint64_t>(run, words, [&](const ElementView& e, const std::int64_t* nodes, std::uint64_t* record) { fill(e, nodes, record); });
        else write_binary_records<std::int32_t>(run, words, [&](const ElementView& e, const std::int64_t* nodes, std::int32_t* record) { fill(e, nodes, record); });
        continue;
      }
      for_each_element(run, [&](std::int64_t tag, const GmshElementType& element_type, const std::int64_t* nodes, std::int32_t) {
        out_.size(static_cast<std::uint64_t>(tag));
        for (int j = 0; j < element_type.num_nodes; ++j) out_.size(static_cast<std::uint64_t>(nodes[j]) + 1);
        out_.end_record();
      });
    }
    out_.end_section("Elements");
  }

  void write_nodes_22() {
    out_.begin_section("Nodes");
    out_.text_line(number_text(num_points()));
    const double* points = xyz();
    if (!out_.binary()) {
      // "tag x y z" per node, formatted on all cores (io/output/parallel_rows.hpp).
      const io::FloatFormat& format = options_.float_format;
      const std::size_t longest = io::kMaxNumberChars + 3 * (io::max_float_chars(format) + 1) + 1;
      io::write_rows_in_parallel(out_.out(), file_, num_points(), longest, [&](char* p, std::int64_t i) {
        p = io::put_number(p, static_cast<std::int32_t>(i + 1));
        for (int a = 0; a < 3; ++a) {
          *p++ = ' ';
          p = io::put_float(p, points[3 * i + a], format);
        }
        *p++ = '\n';
        return p;
      });
      out_.end_section("Nodes");
      return;
    }
    char record[28];
    for (std::int64_t i = 0; i < num_points(); ++i) {
      const auto tag = static_cast<std::int32_t>(i + 1);
      if (out_.binary()) {
        std::memcpy(record, &tag, 4);
        std::memcpy(record + 4, points + 3 * i, 24);
        out_.out().bytes(record, sizeof record);
        continue;
      }
      out_.int32(tag);
      write_xyz_record(points + 3 * i);
    }
    out_.end_section("Nodes");
  }

  // 2.2: (tag, type, 2 tags: physical and elementary, nodes); binary under one header per run.
  void write_elements_22() {
    out_.begin_section("Elements");
    out_.text_line(number_text(num_elements()));
    for (const ElementRun& run : plan_.element_runs) {
      const GmshElementType& type = run_type(run);
      const Entity& entity = plan_.entities[static_cast<std::size_t>(run.entity)];
      if (out_.binary()) {
        const std::int32_t header[3]{type.gmsh_id, static_cast<std::int32_t>(run.count), 2};
        out_.out().bytes(header, sizeof header);
      }
      if (out_.binary()) {
        write_binary_records<std::int32_t>(
            run, 3 + static_cast<std::size_t>(type.num_nodes),
            [&](const ElementView& element, const std::int64_t* nodes, std::int32_t* record) {
              record[0] = static_cast<std::int32_t>(element.tag);
              record[1] = plan_.physical_of(element.signature);
              record[2] = entity.tag;
              for (int j = 0; j < element.type->num_nodes; ++j) record[3 + j] = static_cast<std::int32_t>(nodes[j] + 1);
            });
        continue;
      }
      write_text_elements_22(run, entity);
    }
    out_.end_section("Elements");
  }

  // A run's 2.2 text element lines "tag type 2 physical elementary nodes…", formatted on all
  // cores (io/output/parallel_rows.hpp); the numbers as ValueWriter::int32 writes them.
  void write_text_elements_22(const ElementRun& run, const Entity& entity) {
    const BlockPlan& block = plan_.blocks[run.block];
    const GmshElementType& type = *block.type;
    const std::int64_t k = type.num_nodes;
    const std::int64_t* connectivity = block.cells->connectivity.data_as<std::int64_t>();
    const std::size_t longest = static_cast<std::size_t>(5 + k) * (io::kMaxNumberChars + 1) + 1;
    io::write_rows_in_parallel(out_.out(), file_, run.count, longest, [&](char* p, std::int64_t i) {
      const std::int64_t row = run.first + i;
      const std::int64_t* cell = connectivity + row * k;
      const std::span<const std::uint16_t> order = type.gmsh_from_meshio;
      p = io::put_number(p, static_cast<std::int32_t>(block.base + row + 1));
      *p++ = ' ';
      p = io::put_number(p, type.gmsh_id);
      p = io::put_text(p, " 2 ");
      p = io::put_number(p, plan_.physical_of(plan_.cell_signature_of(block.base + row)));
      *p++ = ' ';
      p = io::put_number(p, entity.tag);
      for (std::int64_t j = 0; j < k; ++j) {
        *p++ = ' ';
        p = io::put_number(p, static_cast<std::int32_t>(cell[order.empty() ? j : order[static_cast<std::size_t>(j)]] + 1));
      }
      *p++ = '\n';
      return p;
    });
  }

  // ---- $Periodic: 4.1 in the file's encoding, 2.2 as text (Gmsh writes it so in binary
  // files too). 4.0's layout is not written (its reader here skips the section as well).
  void write_periodic() {
    if (plan_.periodic.empty() || options_.version == Version::v40) return;
    if (options_.version == Version::v22) {
      out_.text_line("$Periodic");
      out_.text_line(number_text(static_cast<std::int64_t>(plan_.periodic.size())));
      for (const PeriodicLink& link : plan_.periodic) {
        out_.text_line(std::to_string(link.dim) + " " + std::to_string(link.tag) + " " + std::to_string(link.master));
        if (!link.affine.empty()) {
          std::string line = "Affine";
          char text[32];
          for (const double value : link.affine) {
            line += ' ';
            line.append(text, std::to_chars(text, text + sizeof text, value).ptr);
          }
          out_.text_line(line);
        }
        out_.text_line(number_text(static_cast<std::int64_t>(link.nodes.size() / 2)));
        for (std::size_t k = 0; k < link.nodes.size(); k += 2)
          out_.text_line(number_text(link.nodes[k] + 1) + " " + number_text(link.nodes[k + 1] + 1));
      }
      out_.text_line("$EndPeriodic");
      return;
    }
    out_.begin_section("Periodic");
    out_.size(plan_.periodic.size());
    out_.end_record();
    for (const PeriodicLink& link : plan_.periodic) {
      out_.int32(link.dim);
      out_.int32(link.tag);
      out_.int32(link.master);
      out_.end_record();
      out_.size(link.affine.size());
      for (const double value : link.affine) out_.real(value);
      out_.end_record();
      out_.size(link.nodes.size() / 2);
      out_.end_record();
      for (std::size_t k = 0; k < link.nodes.size(); k += 2) {
        out_.size(static_cast<std::uint64_t>(link.nodes[k]) + 1);
        out_.size(static_cast<std::uint64_t>(link.nodes[k + 1]) + 1);
        out_.end_record();
      }
    }
    out_.end_section("Periodic");
  }

  // ---- $NodeData / $ElementData ------------------------------------------------------
  // The reader names the steps of a view read as steps "view[step k]" or "view[step k,
  // time t]" (t when it is not k) and shows the last step plainly as "view" too, sharing its
  // arrays: the steps are written back as steps of "view", the plain alias not again.
  static DataStep parse_data_name(const std::string& name) {
    const DataStep plain{name};
    const std::size_t open = name.rfind("[step ");
    if (open == std::string::npos || open == 0 || !name.ends_with("]")) return plain;
    const char* const last = name.data() + name.size() - 1;
    DataStep parsed{name.substr(0, open)};
    const auto [step_end, step_error] = std::from_chars(name.data() + open + 6, last, parsed.step);
    if (step_error != std::errc{} || parsed.step < 0) return plain;
    parsed.time = static_cast<double>(parsed.step);
    parsed.named_step = true;
    if (step_end == last) return parsed;
    constexpr std::string_view kTime = ", time ";
    if (std::string_view(step_end, static_cast<std::size_t>(last - step_end)).substr(0, kTime.size()) != kTime) return plain;
    const auto [time_end, time_error] = std::from_chars(step_end + kTime.size(), last, parsed.time);
    return time_error == std::errc{} && time_end == last ? parsed : plain;
  }

  // Equal dtype, shape and bytes (NaN rows included): the reader's alias, also after a copy.
  static bool same_bytes(const NDArray& a, const NDArray& b) {
    if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
    return a.data() == b.data() || std::memcmp(a.data(), b.data(), a.size() * dtype_size(a.dtype())) == 0;
  }

  // A plain entry equal to a "name[step …]" entry of its view (the alias the reader makes
  // of the last step) is already written as that step.
  template <class Entries, class SameArrays>
  static bool is_step_alias(const Entries& entries, const std::string& name, SameArrays&& same_arrays) {
    for (const auto& [other, arrays] : entries) {
      if (other.size() <= name.size() || !other.starts_with(name) || other.compare(name.size(), 6, "[step ") != 0) continue;
      if (parse_data_name(other).named_step && same_arrays(arrays)) return true;
    }
    return false;
  }

  // A plain entry beside step entries of the same view (not their alias: an array the caller
  // set) becomes the step after the view's last.
  template <class Entries> static DataStep data_step_of(const Entries& entries, const std::string& name) {
    DataStep step = parse_data_name(name);
    if (step.named_step) return step;
    for (const auto& [other, arrays] : entries) {
      const DataStep other_step = parse_data_name(other);
      if (!other_step.named_step || other_step.view != name || other_step.step < step.step) continue;
      step.step = other_step.step + 1;
      step.time = static_cast<double>(step.step);
    }
    return step;
  }

  void write_point_data() {
    for (const auto& [name, array] : mesh_.point_data) {
      if (name == "gmsh:dim_tags" || array.rows() != num_points() || array.row_width() == 0) continue;
      // Init-captures: a lambda may not capture a structured binding itself before C++20's P1091 (Clang 14).
      if (is_step_alias(mesh_.point_data, name, [&array = array](const NDArray& other) { return same_bytes(other, array); }))
        continue;
      data_.node_data(data_step_of(mesh_.point_data, name), array);
    }
  }

  // Arrays that fit neither $ElementData nor $ElementNodeData are left out.
  void write_cell_data() {
    for (const auto& [name, arrays] : mesh_.cell_data) {
      if (name == "gmsh:physical" || name == "gmsh:geometrical" || arrays.size() != plan_.blocks.size()) continue;
      if (plan_.num_cells == 0 || !rows_match_blocks(arrays)) continue;
      const auto same_arrays = [&arrays = arrays](const std::vector<NDArray>& other) {
        return other.size() == arrays.size() && std::equal(other.begin(), other.end(), arrays.begin(), same_bytes);
      };
      if (is_step_alias(mesh_.cell_data, name, same_arrays)) continue;
      data_.element_data(data_step_of(mesh_.cell_data, name), arrays);
    }
  }

  bool rows_match_blocks(const std::vector<NDArray>& arrays) const {
    for (std::size_t b = 0; b < arrays.size(); ++b)
      if (arrays[b].rows() != plan_.blocks[b].count) return false;
    return true;
  }

  ValueWriter out_;
  io::AtomicFile& file_;
  const Mesh& mesh_;
  const WritePlan& plan_;
  Options options_;
  DataSectionWriter data_;
};

}  // namespace

}  // namespace meshioplusplus::gmsh::detail::writer

namespace meshioplusplus::gmsh {

using namespace detail::writer;  // the pieces above and in gmsh_writer_internal.hpp

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const Options parsed = parse_options(options);
  const WritePlan plan = plan_write(mesh, parsed);
  io::AtomicFile file(path, kFormatName);
  io::OutputBuffer out(file);
  out.set_float_format(parsed.float_format);
  MshWriter(out, file, mesh, plan, parsed).write();
  out.flush();
  file.commit();
}

// ---- MshStream (gmsh_time_series.hpp): the pieces above, one step at a time ------------------

struct MshStream::State {
  State(const std::string& path, const Options& parsed) : options(parsed), file(path, kFormatName), out(file) {
    out.set_float_format(parsed.float_format);
  }
  Options options;
  io::AtomicFile file;
  io::OutputBuffer out;
  std::vector<BlockPlan> blocks;  // type, base and count per block (no cells: the mesh may be gone)
  std::int64_t num_points = 0;
};

MshStream::MshStream(const std::string& path, const WriteOptions& options) {
  const Options parsed = parse_options(options);  // bad options fail before a file is created
  state_ = std::make_unique<State>(path, parsed);
}

MshStream::~MshStream() = default;

void MshStream::write_mesh(const Mesh& mesh) {
  const WritePlan plan = plan_write(mesh, state_->options);
  MshWriter(state_->out, state_->file, mesh, plan, state_->options).write_mesh_sections();
  state_->blocks = plan.blocks;
  for (BlockPlan& block : state_->blocks) block.cells = nullptr;
  state_->num_points = mesh.num_points();
}

std::int64_t MshStream::num_points() const { return state_->num_points; }

std::vector<std::int64_t> MshStream::block_sizes() const {
  std::vector<std::int64_t> sizes;
  for (const BlockPlan& block : state_->blocks) sizes.push_back(block.count);
  return sizes;
}

void MshStream::write_node_data(std::string_view view, std::int64_t step, double time, const NDArray& values) {
  ValueWriter out(state_->out, state_->options.binary);
  DataSectionWriter(out, state_->blocks, true).node_data({std::string(view), step, time}, values);
}

bool MshStream::write_element_data(std::string_view view, std::int64_t step, double time,
                                   const std::vector<NDArray>& per_block) {
  if (per_block.empty()) return true;  // a mesh without blocks: nothing to write
  ValueWriter out(state_->out, state_->options.binary);
  return DataSectionWriter(out, state_->blocks, true).element_data({std::string(view), step, time}, per_block);
}

bool MshStream::fits_element_data(const std::vector<NDArray>& per_block) const {
  return per_block.empty() || DataSectionWriter::fits(state_->blocks, per_block);
}

void MshStream::commit() {
  state_->out.flush();
  state_->file.commit();
}

}  // namespace meshioplusplus::gmsh
