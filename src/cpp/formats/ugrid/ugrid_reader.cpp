// UGRID reader: ASCII, C binary and Fortran-unformatted variants (see ugrid_variant.hpp).
//
// Layout: 7 counts (nodes, triangles, quads, tetrahedra, pyramids, prisms, hexahedra); the
// nodes (x y z); triangle then quad connectivity; one surface id per triangle then per quad;
// then tetrahedron, pyramid, prism and hexahedron connectivity. Indices are 1-based. What
// may follow (volume ids, boundary-layer counts) is optional in the format and not read.
// Fortran files wrap the counts in one record and everything after them in a second; the
// record markers are checked (meshio 5.3.5's miscounted lengths, equal at both ends of a
// record, are accepted; see fortran_marker_end and check_fortran_body).
//
// What becomes what (as meshio): points (n, 3), float64 — float32 for the 4-byte-real
// variants, which is what those files hold; one block per non-empty section in file order;
// pyramids permuted to our node order; cell data "ugrid:ref" (int32; int64 for the 8-byte
// integer variants) with the surface ids and 0 for volume cells. Additionally one Cell
// region per non-zero surface id, "ugrid:ref <id>" (dim 2, tag id).
//
// The counts fix every size up front, so each array is allocated once in its final shape
// and, for binary files, the file length is checked against the counts before any copy.
// ASCII points and volume elements written one record per line (as meshio and we write
// them) parse on all cores; any other layout or any malformed value sends the section to
// the sequential parse, which alone words errors.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/ugrid/ugrid.hpp"
#include "formats/ugrid/ugrid_variant.hpp"
#include "io/source/byte_order.hpp"
#include "io/text/line_values.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/source/parallel.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::ugrid {
namespace {

using detail::Encoding;
using detail::kSections;
using detail::Variant;
constexpr std::string_view kFormat = "ugrid";

struct Counts {
  std::int64_t points = 0;
  std::array<std::int64_t, 6> elements{};  // in kSections order
};

// Where the numbers come from: text tokens or fixed-size binary values, in file order.
class Source {
 public:
  Source(std::string_view bytes, const std::string& path, const Variant& variant)
      : bytes_(bytes), path_(path), variant_(variant), text_(bytes, path, kFormat) {}

  bool is_text() const noexcept { return variant_.encoding == Encoding::ascii; }
  std::size_t position() const noexcept { return is_text() ? text_.position() : offset_; }
  void seek(std::size_t offset) noexcept {
    offset_ = offset;
    text_.seek(offset);
  }
  std::string_view bytes() const noexcept { return bytes_; }

  // The offset the next value starts at (past blanks for text).
  std::size_t next_offset() {
    if (is_text()) text_.skip_whitespace();
    return position();
  }

  std::int64_t integer() {
    if (is_text()) return text_.next_number<std::int64_t>();
    if (variant_.int_size == 8) return binary<std::int64_t>();
    return binary<std::int32_t>();
  }
  double real() {
    if (is_text()) return text_.next_number<double>();
    if (variant_.real_size == 8) return binary<double>();
    return binary<float>();
  }
  // Bulk copy of `count` binary reals in the file's size into `target` (host order).
  void reals(void* target, std::size_t count) {
    require(count * variant_.real_size);
    io::copy_from_file_order(target, bytes_.data() + offset_, variant_.real_size, count, variant_.little_endian);
    offset_ += count * variant_.real_size;
  }

  void require(std::size_t size) const {
    if (offset_ + size > bytes_.size())
      fail_at(offset_, "unexpected end of file: " + std::to_string(size) + " more bytes needed, " +
                           std::to_string(bytes_.size() - std::min(offset_, bytes_.size())) + " left");
  }
  std::size_t bytes_left() const noexcept { return bytes_.size() - std::min(position(), bytes_.size()); }

  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    if (is_text()) text_.fail_at(offset, message);
    throw ReadError(path_, std::string(kFormat), message, offset);
  }

 private:
  template <class T> T binary() {
    require(sizeof(T));
    T value;
    io::copy_from_file_order(&value, bytes_.data() + offset_, sizeof(T), 1, variant_.little_endian);
    offset_ += sizeof(T);
    return value;
  }

  std::string_view bytes_;
  const std::string& path_;
  Variant variant_;
  io::TextScanner text_;
  std::size_t offset_ = 0;
};

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path, const Variant& variant)
      : source_(bytes, path, variant), variant_(variant), size_(bytes.size()) {}

  Mesh read() {
    const std::size_t record = fortran_marker_begin();
    const Counts counts = read_counts();
    fortran_marker_end(record, 7 * variant_.int_size);
    const std::size_t body = fortran_marker_begin();
    check_size(counts);
    read_points(counts.points);
    for (std::size_t s = 0; s < 2; ++s) read_elements(s, counts);
    read_surface_ids(counts);
    for (std::size_t s = 2; s < kSections.size(); ++s) read_elements(s, counts);
    if (variant_.encoding == Encoding::fortran) check_fortran_body(body);
    if (!refs_.empty()) mesh_.cell_data.set("ugrid:ref", std::move(refs_));
    return std::move(mesh_);
  }

 private:
  // ---- Fortran records ----

  std::size_t fortran_marker_begin() {
    if (variant_.encoding != Encoding::fortran) return 0;
    const std::size_t offset = source_.position();
    record_length_ = source_.integer();
    return offset;
  }
  // The header record holds the 7 counts. meshio 5.3.5 writes its length as the size of its
  // in-memory count array (7 8-byte integers, 56) although the counts themselves are 4-byte:
  // that length is accepted when the end marker right after the counts repeats it.
  void fortran_marker_end(std::size_t record, std::size_t expected) {
    if (variant_.encoding != Encoding::fortran) return;
    const bool meshio_length = variant_.int_size == 4 && record_length_ == 7 * 8;
    if (record_length_ != static_cast<std::int64_t>(expected) && !meshio_length)
      source_.fail_at(record, "Fortran record of " + std::to_string(record_length_) + " bytes where the 7 counts (" +
                                  std::to_string(expected) + " bytes) belong");
    const std::size_t offset = source_.position();
    if (source_.integer() != record_length_)
      source_.fail_at(offset, meshio_length ? "Fortran record of 56 bytes where the 7 counts (" +
                                                  std::to_string(expected) + " bytes) belong, and its end marker differs"
                                            : std::string("Fortran record end marker differs from its start"));
  }
  void check_fortran_body(std::size_t body) {
    const std::size_t used = source_.position() - body - variant_.int_size;
    if (record_length_ < static_cast<std::int64_t>(used))
      source_.fail_at(body, "Fortran record of " + std::to_string(record_length_) + " bytes, but the counts need " +
                                std::to_string(used));
    // meshio 5.3.5 writes a record length counted with its in-memory (8-byte) sizes, at both
    // ends: an end marker right after the data with the same value is accepted as such.
    const std::size_t after_data = source_.position();
    if (after_data + variant_.int_size <= size_ && source_.integer() == record_length_) return;
    // Otherwise optional sections after the hexahedra fill the rest of the record.
    source_.seek(body + variant_.int_size + static_cast<std::size_t>(record_length_));
    const std::size_t offset = source_.position();
    if (source_.integer() != record_length_) source_.fail_at(offset, "Fortran record end marker differs from its start");
  }

  // ---- header ----

  Counts read_counts() {
    Counts counts;
    const char* names[7] = {"node", "triangle", "quad", "tetrahedron", "pyramid", "prism", "hexahedron"};
    for (int i = 0; i < 7; ++i) {
      const std::size_t offset = source_.next_offset();
      const std::int64_t value = source_.integer();
      if (value < 0) source_.fail_at(offset, "negative " + std::string(names[i]) + " count in the header");
      (i == 0 ? counts.points : counts.elements[static_cast<std::size_t>(i - 1)]) = value;
    }
    return counts;
  }

  // A corrupt count must not drive a huge allocation. Binary sizes are exact; text values
  // need at least two bytes each (a digit and a separator).
  void check_size(const Counts& counts) {
    const std::uint64_t real = source_.is_text() ? 2 : variant_.real_size;
    const std::uint64_t integer = source_.is_text() ? 2 : variant_.int_size;
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / 64;
    std::uint64_t need = 0;
    bool overflow = static_cast<std::uint64_t>(counts.points) > limit;
    need += static_cast<std::uint64_t>(counts.points) * 3 * real;
    for (std::size_t s = 0; s < kSections.size(); ++s) {
      const auto n = static_cast<std::uint64_t>(counts.elements[s]);
      overflow = overflow || n > limit;
      need += n * (static_cast<std::uint64_t>(kSections[s].nodes) + (s < 2 ? 1 : 0)) * integer;
    }
    if (overflow || need > source_.bytes_left())
      source_.fail_at(source_.position(), "the header's counts need " + (overflow ? std::string("more") : std::to_string(need)) +
                                              " bytes, but " + std::to_string(source_.bytes_left()) + " are left");
  }

  // ---- sections ----

  void read_points(std::int64_t count) {
    const bool single = !source_.is_text() && variant_.real_size == 4;
    mesh_.points = NDArray::allocate(single ? DType::float32 : DType::float64, {count, 3});
    if (!source_.is_text()) {
      source_.reals(mesh_.points.data(), static_cast<std::size_t>(count * 3));
      return;
    }
    double* values = mesh_.points.data_as<double>();
    const bool by_lines = parse_lines(count, [values](std::uint64_t i, io::LineValues& line) {
      double* const out = values + 3 * i;
      return line.next(out[0]) && line.next(out[1]) && line.next(out[2]);
    });
    if (by_lines) return;
    for (std::int64_t i = 0; i < count * 3; ++i) values[i] = source_.real();
  }

  void read_elements(std::size_t section, const Counts& counts) {
    const std::int64_t count = counts.elements[section];
    if (count == 0) return;
    const int nodes = kSections[section].nodes;
    NDArray connectivity = NDArray::allocate(DType::int64, {count, nodes});
    std::int64_t* out = connectivity.data_as<std::int64_t>();
    const bool pyramid = kSections[section].type == "pyramid";
    const auto points = static_cast<std::uint64_t>(counts.points);
    const bool by_lines = source_.is_text() && parse_lines(count, [&](std::uint64_t cell, io::LineValues& line) {
      std::int64_t file_nodes[8];
      std::int64_t* const row = out + cell * static_cast<std::uint64_t>(nodes);
      std::int64_t* const target = pyramid ? file_nodes : row;
      for (int k = 0; k < nodes; ++k) {
        std::uint64_t index = 0;
        if (!line.next(index) || index < 1 || index > points) return false;
        target[k] = static_cast<std::int64_t>(index) - 1;
      }
      if (pyramid)
        for (int k = 0; k < nodes; ++k) row[k] = file_nodes[detail::kPyramidFromFile[k]];
      return true;
    });
    if (!source_.is_text()) {
      read_binary_connectivity(section, count, counts.points, out);
      mesh_.cells.push_back(CellBlock{std::string(kSections[section].type), std::move(connectivity), {}, {}});
      if (section >= 2) refs_.push_back(NDArray::zeros(ref_dtype(), {count}));
      return;
    }
    std::int64_t file_nodes[8];
    for (std::int64_t cell = by_lines ? count : 0; cell < count; ++cell) {
      for (int k = 0; k < nodes; ++k) {
        const std::size_t offset = source_.next_offset();
        const std::int64_t index = source_.integer();
        if (index < 1 || index > counts.points)
          source_.fail_at(offset, std::string(kSections[section].type) + " " + std::to_string(cell + 1) +
                                      " refers to node " + std::to_string(index) + ", outside [1, " +
                                      std::to_string(counts.points) + "]");
        file_nodes[k] = index - 1;
      }
      for (int k = 0; k < nodes; ++k) out[cell * nodes + k] = file_nodes[pyramid ? detail::kPyramidFromFile[k] : k];
    }
    mesh_.cells.push_back(CellBlock{std::string(kSections[section].type), std::move(connectivity), {}, {}});
    if (section >= 2) refs_.push_back(NDArray::zeros(ref_dtype(), {count}));
  }

  // Binary connectivity straight from the mapped bytes, cells on all cores; a bad index is
  // reported at its own offset with the words of the value-by-value read (the first one).
  void read_binary_connectivity(std::size_t section, std::int64_t count, std::int64_t points, std::int64_t* out) {
    const int nodes = kSections[section].nodes;
    const bool pyramid = kSections[section].type == "pyramid";
    const std::size_t width = variant_.int_size, begin = source_.position();
    const std::size_t bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(nodes) * width;
    source_.require(bytes);
    const char* const values = source_.bytes().data() + begin;
    const auto index_at = [&](std::size_t at) -> std::int64_t {
      if (width == 8) {
        std::int64_t value;
        io::copy_from_file_order(&value, values + at, 8, 1, variant_.little_endian);
        return value;
      }
      std::int32_t value;
      io::copy_from_file_order(&value, values + at, 4, 1, variant_.little_endian);
      return value;
    };
    io::parallel_ranges(static_cast<std::size_t>(count), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
      std::int64_t file_nodes[8];
      for (std::size_t cell = first; cell < last; ++cell) {
        for (int k = 0; k < nodes; ++k) {
          const std::size_t at = (cell * static_cast<std::size_t>(nodes) + static_cast<std::size_t>(k)) * width;
          const std::int64_t index = index_at(at);
          if (index < 1 || index > points)
            source_.fail_at(begin + at, std::string(kSections[section].type) + " " + std::to_string(cell + 1) +
                                            " refers to node " + std::to_string(index) + ", outside [1, " +
                                            std::to_string(points) + "]");
          file_nodes[k] = index - 1;
        }
        std::int64_t* const row = out + cell * static_cast<std::size_t>(nodes);
        for (int k = 0; k < nodes; ++k) row[k] = file_nodes[pyramid ? detail::kPyramidFromFile[k] : k];
      }
    });
    source_.seek(begin + bytes);
  }

  // Text sections of `records` records written one per line: parse(index, line) reads the
  // record from the line, on all cores (io::parse_lines_in_parallel), and the source moves
  // past the section. False, the source unmoved, for small sections, other layouts and any
  // value parse refuses: the sequential parse then reads the section and words its errors.
  template <class Parse> bool parse_lines(std::int64_t records, Parse&& parse) {
    if (!source_.is_text()) return false;
    const std::string_view document = source_.bytes();
    const std::optional<std::size_t> begin = io::records_begin(document, source_.position());
    if (!begin) return false;
    const char* const text = document.data();
    const std::optional<std::size_t> end = io::parse_lines_in_parallel(
        document, *begin, static_cast<std::uint64_t>(records), [&](std::uint64_t index, std::size_t line, std::size_t stop) {
          io::LineValues reader{text + line, text + stop, text + document.size()};
          return parse(index, reader) && reader.done();
        });
    if (!end) return false;
    source_.seek(*end);
    return true;
  }

  DType ref_dtype() const noexcept { return variant_.int_size == 8 && !source_.is_text() ? DType::int64 : DType::int32; }

  void read_surface_ids(const Counts& counts) {
    std::map<std::int64_t, std::vector<std::int64_t>> members;
    std::int64_t first_cell = 0;
    for (std::size_t s = 0; s < 2; ++s) {
      const std::int64_t count = counts.elements[s];
      if (count == 0) continue;
      NDArray ids = NDArray::allocate(ref_dtype(), {count});
      for (std::int64_t cell = 0; cell < count; ++cell) {
        const std::size_t offset = source_.next_offset();
        const std::int64_t id = source_.integer();
        if (ids.dtype() == DType::int32) {
          if (id < std::numeric_limits<std::int32_t>::min() || id > std::numeric_limits<std::int32_t>::max())
            source_.fail_at(offset, "surface id " + std::to_string(id) + " outside the 32-bit range");
          ids.data_as<std::int32_t>()[cell] = static_cast<std::int32_t>(id);
        } else {
          ids.data_as<std::int64_t>()[cell] = id;
        }
        if (id != 0) members[id].push_back(first_cell + cell);
      }
      refs_.push_back(std::move(ids));
      first_cell += count;
    }
    for (auto& [id, cells] : members) {
      Region region;
      region.name = "ugrid:ref " + std::to_string(id);
      region.kind = RegionKind::Cell;
      region.dim = 2;
      region.tag = id;
      region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(cells.size())});
      std::copy(cells.begin(), cells.end(), region.entries.data_as<std::int64_t>());
      mesh_.regions.push_back(std::move(region));
    }
  }

  Source source_;
  Variant variant_;
  std::size_t size_;
  std::int64_t record_length_ = 0;
  std::vector<NDArray> refs_;
  Mesh mesh_;
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file.bytes(), path, detail::variant_for_path(path)).read();
}

}  // namespace meshioplusplus::ugrid
