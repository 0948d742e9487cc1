// MSH reader: versions 2.x, 4.0 and 4.1, ASCII and binary. See gmsh.hpp for what it
// produces. Elements are read in two passes over the mapped file: the first finds the runs
// of elements and counts them per type (binary runs are jumped over, ASCII ones tokenised
// without number conversion), so that every array is allocated once in its final shape;
// the second fills them. ASCII 4.x files laid out as writers lay them out (one node tag,
// node or element per line) take a faster route: the scan jumps over element lines instead
// of tokenising them and the big sections parse on all cores; any other layout, and any
// malformed value, sends the section back to the sequential code, which alone words errors.
//
// The reader is one class (gmsh_reader_internal.hpp) defined over four files, one per part of
// the format; this one holds the section dispatch, $MeshFormat, $PhysicalNames,
// $MeshioplusplusBlocks, $Periodic and $Nodes, and the entry points.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "formats/gmsh/gmsh.hpp"
#include "formats/gmsh/gmsh_reader_internal.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/source/uninitialized.hpp"
#include "io/text/line_values.hpp"
#include "io/text/text_scanner.hpp"

namespace meshioplusplus::gmsh::detail::reader {

Mesh MshReader::read() {
  read_mesh_format();
  while (true) {
    cursor_.skip_whitespace();
    if (cursor_.at_end()) break;
    read_section();
  }
  if (partitioned_ && !partitioned_entities_read_) fail_not_partitioned(cursor_.position());
  return assemble();
}

// ---- sections ------------------------------------------------------------------------
void MshReader::read_section() {
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

void MshReader::expect_end(std::string_view name) {
  cursor_.skip_whitespace();
  const std::size_t at = cursor_.position();
  const std::string_view token = cursor_.text_token();
  if (token.size() != name.size() + 4 || !token.starts_with("$End") || token.substr(4) != name)
    cursor_.fail_at(at, "expected $End" + std::string(name) + ", found '" +
                            std::string(token.substr(0, 40)) +
                            "' (do the counts in the section match its contents?)");
}

void MshReader::skip_section(std::string_view name, std::size_t start) {
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
void MshReader::read_mesh_format() {
  cursor_.skip_whitespace();
  const std::size_t start = cursor_.position();
  if (cursor_.text_token() != "$MeshFormat")
    cursor_.fail_at(start, "not a Gmsh MSH file: it does not start with $MeshFormat");
  parse_mesh_format(version_, binary_);
  cursor_.set_binary(binary_);
}

void MshReader::reread_mesh_format(std::size_t start) {
  Version version{};
  bool binary = false;
  parse_mesh_format(version, binary);
  if (version != version_ || binary != binary_)
    cursor_.fail_at(start, "a second $MeshFormat changes the version or encoding");
}

void MshReader::parse_mesh_format(Version& version, bool& binary) {
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

void MshReader::read_endianness_marker() {
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
void MshReader::read_physical_names() {
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
void MshReader::read_written_blocks() {
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

// ---- $Periodic (2.x, 4.1): links of an entity's nodes to its master's -----------------
// 4.1 in the file's encoding; 2.x as text in both encodings, an optional "Affine" line of
// 16 values before the node count.
void MshReader::read_periodic(std::size_t start) {
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
      const std::int64_t node = metadata_only_ ? 0 : node_index_.find(tag);  // metadata: only the count
      if (node < 0) cursor_.fail_at(at, "periodic link names node tag " + std::to_string(tag) + ", which $Nodes does not define");
      link.nodes.push_back(node);
    }
  }
  expect_end("Periodic");
}

// ---- $Nodes --------------------------------------------------------------------------
void MshReader::read_nodes(std::size_t start) {
  if (nodes_read_) cursor_.fail_at(start, "more than one $Nodes section is not supported");
  nodes_read_ = true;
  switch (version_) {
    case Version::v41: read_nodes_4(true); break;
    case Version::v40: read_nodes_4(false); break;
    case Version::v2: read_nodes_2(); break;
  }
  if (metadata_only_) return expect_end("Nodes");  // no tags were indexed
  if (const std::optional<std::uint64_t> duplicate = node_index_.finish())
    cursor_.fail_at(start, "node tag " + std::to_string(*duplicate) + " occurs twice");
  expect_end("Nodes");
}

void MshReader::allocate_points(std::uint64_t count, bool with_entities) {
  const auto rows = static_cast<std::int64_t>(count);
  points_ = NDArray::allocate(DType::float64, {rows, 3});
  if (with_entities) dim_tags_ = NDArray::allocate(DType::int64, {rows, 2});
  if (partitioned_) node_tags_of_points_ = NDArray::allocate(DType::int64, {rows});
  node_index_ = TagIndex(rows);
}

// 4.1: per block the tags, then the coordinates. 4.0: per node its tag and coordinates;
// block header fields in another order; int tags in binary.
void MshReader::read_nodes_4(bool v41) {
  const std::uint64_t num_blocks = cursor_.size_value();
  const std::uint64_t num_nodes = cursor_.size_value();
  if (v41) cursor_.skip_values(2, 8);  // min and max tag
  cursor_.check_count(num_nodes, cursor_.binary() ? 28 : 8, "node");
  cursor_.check_count(num_blocks, cursor_.binary() ? 20 : 8, "node block");
  if (metadata_only_) declared_nodes_ = num_nodes;
  else allocate_points(num_nodes, true);
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
    if (metadata_only_) {
      skip_node_block(v41, count, extra);
      filled += count;
      continue;
    }
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

void MshReader::read_node_block_41(std::uint64_t first, std::uint64_t count, int extra) {
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

void MshReader::read_node_block_40(std::uint64_t first, std::uint64_t count, int extra) {
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
bool MshReader::read_node_block_lines(std::uint64_t first, std::uint64_t count, int extra, bool v41) {
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
void MshReader::record_node_tag(std::uint64_t index, std::uint64_t tag) {
  if (!node_tags_of_points_.empty_handle()) node_tags_of_points_.data_as<std::int64_t>()[index] = static_cast<std::int64_t>(tag);
}

void MshReader::read_nodes_2() {
  const auto count = cursor_.text_number<std::uint64_t>();
  cursor_.check_count(count, cursor_.binary() ? 28 : 8, "node");
  if (metadata_only_) {
    declared_nodes_ = count;
    if (cursor_.binary()) cursor_.end_text_line();
    cursor_.skip_values(cursor_.binary() ? count : 4 * count, 28);  // tag x y z per node
    return;
  }
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
  if (read_nodes_2_by_lines(count)) return;
  for (std::uint64_t i = 0; i < count; ++i) {
    node_index_.add(cursor_.text_number<std::uint64_t>(), static_cast<std::int64_t>(i));
    cursor_.text().next_numbers(xyz + 3 * i, 3);
  }
}

// ASCII 2.x nodes one per line ("tag x y z", what Gmsh and meshio write) on all cores, the
// tags noted and indexed after in file order. False, with nothing read, for any other
// layout or value the loop above must read or refuse.
bool MshReader::read_nodes_2_by_lines(std::uint64_t count) {
  const std::string_view document = cursor_.document();
  const std::optional<std::size_t> begin = io::records_begin(document, cursor_.position());
  if (!begin || count == 0 || thread_count() < 2) return false;
  const char* const text = document.data();
  double* const xyz = points_.data_as<double>();
  io::UninitializedVector<std::uint64_t> tags;
  tags.resize(static_cast<std::size_t>(count));
  const std::optional<std::size_t> end =
      io::parse_lines_in_parallel(document, *begin, count, [&](std::uint64_t i, std::size_t line, std::size_t stop) {
        io::LineValues reader{text + line, text + stop, text + document.size()};
        return reader.next(tags[i]) && reader.next(xyz[3 * i]) && reader.next(xyz[3 * i + 1]) && reader.next(xyz[3 * i + 2]) &&
               reader.done();
      });
  if (!end) return false;
  for (std::uint64_t i = 0; i < count; ++i) node_index_.add(tags[i], static_cast<std::int64_t>(i));
  cursor_.seek(*end);
  return true;
}

}  // namespace meshioplusplus::gmsh::detail::reader

namespace meshioplusplus::gmsh {

Mesh read(const std::string& path, const ReadOptions& options) {
  if (options.ranks < 0 || (options.ranks > 0 && (options.rank < 0 || options.rank >= options.ranks)))
    throw ReadError(path, std::string(kFormatName),
                    "rank " + std::to_string(options.rank) + " of " + std::to_string(options.ranks) +
                        " is not a rank of a communicator of that size");
  const io::MappedFile file(path, kFormatName);
  io::reject_empty_file(file.bytes(), path, kFormatName);
  detail::reader::MshReader reader(file.bytes(), path, options);
  return reader.read();
}

Mesh read(const std::string& path) { return read(path, ReadOptions{}); }

}  // namespace meshioplusplus::gmsh
