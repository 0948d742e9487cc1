// PLY reader: format ascii, binary_little_endian and binary_big_endian 1.0.
//
// Header: every scalar type by its original name (char … double) or sized alias (int8 …
// float64), plus int64/uint64 as meshio writes them; comment and obj_info lines skipped.
//
// What becomes what:
//  - element "vertex": x, y (and z when present) are the points — float32 when all of them
//    are float, float64 otherwise. Every other scalar property becomes point data under its
//    own name and dtype (nx, red, s …, as meshio). A list property becomes point data
//    (n, length) when every vertex has the same length; otherwise it is dropped.
//  - element "face": the list "vertex_indices" (or "vertex_index"), with any integer count
//    and index types, gives the faces. They are cut into one block per run of consecutive
//    faces of one cell type — vertex, line, triangle, quad, polygon — in file order, as
//    meshio does (io/cells/face_blocks.hpp). Every other
//    face property becomes cell data split the same way: scalars as (faces,), lists such
//    as "texcoord" as (faces, length) when the length is the same for all faces of a block
//    (it may differ between blocks); a list whose length varies within a block is dropped.
//  - every other element (edge, material, …), and any repeated vertex/face element, is
//    skipped: PLY has no generic slot for it in the mesh model.
//
// ASCII data is read one record per line, each value parsed with from_chars in its declared
// type, so out-of-range values fail. A record may continue on the next lines, but values left
// on its last line after the declared properties are not part of the next record: MeshLab
// (VCGLIB) writes such undeclared values, e.g. a texture number after each face's texcoord
// list. On faces they are kept as cell data "ply:extra_values" (float64, (faces, k) per
// block) when every face of a type has the same number k of them, else dropped; on other
// elements they are skipped.
// Binary data is bounds-checked against the file size before any array is allocated.
// Speed: ASCII vertices, and faces of one fixed corner count (1-4) with no other property,
// laid out one record per line (what writers print) are read on all cores; any other
// layout, and every error, is the sequential reading's.
//
// Arrays: the header gives every element count, so points and point data are allocated
// once in final shape. Faces take two passes over their element: the first collects each
// face's corner count (and list lengths), the second writes straight into blocks allocated
// once in final shape.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/ply/ply.hpp"
#include "formats/ply/ply_types.hpp"
#include "io/source/byte_order.hpp"
#include "io/cells/face_blocks.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/line_values.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::ply {
namespace {

constexpr std::string_view kFormat = "ply";

enum class Encoding { ascii, binary_little_endian, binary_big_endian };

struct Property {
  std::string name;
  DType type;  // the value type (of the items, for a list)
  bool is_list = false;
  DType count_type = DType::uint8;
};

struct Element {
  std::string name;
  std::int64_t count = 0;
  std::vector<Property> properties;
  std::size_t offset = 0;  // of its header line, for messages

  int find(std::string_view property_name) const noexcept {
    for (std::size_t p = 0; p < properties.size(); ++p)
      if (properties[p].name == property_name) return static_cast<int>(p);
    return -1;
  }
  bool has_lists() const noexcept {
    return std::any_of(properties.begin(), properties.end(), [](const Property& p) { return p.is_list; });
  }
};

struct Header {
  Encoding encoding = Encoding::ascii;
  std::vector<Element> elements;
  std::size_t data_begin = 0;
};

// ---- header ------------------------------------------------------------------------------

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && io::is_space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !io::is_space(line[i])) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

class HeaderParser {
 public:
  HeaderParser(std::string_view bytes, const std::string& path) : scanner_(bytes, path, kFormat) {}

  Header parse() {
    const std::vector<std::string_view> magic = split_words(scanner_.next_line());
    if (magic.size() != 1 || magic[0] != "ply") scanner_.fail_at(0, "not a PLY file: the first line must be 'ply'");
    bool have_format = false;
    for (;;) {
      if (scanner_.at_end()) scanner_.fail("the header ends without 'end_header'");
      const std::size_t line_offset = scanner_.position();
      const std::vector<std::string_view> words = split_words(scanner_.next_line());
      if (words.empty() || words[0] == "comment" || words[0] == "obj_info") continue;
      if (words[0] == "end_header") break;
      if (words[0] == "format") {
        parse_format(words, line_offset);
        have_format = true;
      } else if (words[0] == "element") {
        parse_element(words, line_offset);
      } else if (words[0] == "property") {
        parse_property(words, line_offset);
      } else {
        scanner_.fail_at(line_offset, "unexpected header line starting with '" + std::string(words[0].substr(0, 40)) + "'");
      }
    }
    if (!have_format) scanner_.fail_at(0, "the header has no 'format' line");
    header_.data_begin = scanner_.position();
    return std::move(header_);
  }

 private:
  std::size_t offset_of(std::string_view word) const noexcept {
    return static_cast<std::size_t>(word.data() - scanner_.document().data());
  }

  void parse_format(const std::vector<std::string_view>& words, std::size_t line_offset) {
    if (words.size() != 3 || words[2] != "1.0") scanner_.fail_at(line_offset, "expected 'format <encoding> 1.0'");
    if (words[1] == "ascii") header_.encoding = Encoding::ascii;
    else if (words[1] == "binary_little_endian") header_.encoding = Encoding::binary_little_endian;
    else if (words[1] == "binary_big_endian") header_.encoding = Encoding::binary_big_endian;
    else scanner_.fail_at(offset_of(words[1]), "unknown encoding '" + std::string(words[1].substr(0, 40)) + "'");
  }

  void parse_element(const std::vector<std::string_view>& words, std::size_t line_offset) {
    if (words.size() != 3) scanner_.fail_at(line_offset, "expected 'element <name> <count>'");
    std::int64_t count = -1;
    const auto [end, error] = std::from_chars(words[2].data(), words[2].data() + words[2].size(), count);
    if (error != std::errc{} || end != words[2].data() + words[2].size() || count < 0)
      scanner_.fail_at(offset_of(words[2]), "invalid element count '" + std::string(words[2].substr(0, 40)) + "'");
    header_.elements.push_back(Element{std::string(words[1]), count, {}, line_offset});
  }

  DType parse_type(std::string_view word) const {
    const std::optional<DType> dtype = detail::dtype_of_type_name(word);
    if (!dtype) scanner_.fail_at(offset_of(word), "unknown property type '" + std::string(word.substr(0, 40)) + "'");
    return *dtype;
  }

  void parse_property(const std::vector<std::string_view>& words, std::size_t line_offset) {
    if (header_.elements.empty()) scanner_.fail_at(line_offset, "a property before any element");
    Property property;
    if (words.size() == 5 && words[1] == "list") {
      property.is_list = true;
      property.count_type = parse_type(words[2]);
      if (dtype_is_float(property.count_type)) scanner_.fail_at(offset_of(words[2]), "a list length must have an integer type");
      property.type = parse_type(words[3]);
    } else if (words.size() == 3 && words[1] != "list") {
      property.type = parse_type(words[1]);
    } else {
      scanner_.fail_at(line_offset, "expected 'property <type> <name>' or 'property list <type> <type> <name>'");
    }
    property.name = std::string(words.back());
    header_.elements.back().properties.push_back(std::move(property));
  }

  io::TextScanner scanner_;
  Header header_;
};

// ---- value decoders: one per encoding, same interface ------------------------------------

class BinaryDecoder {
 public:
  static constexpr bool kBinary = true;

  BinaryDecoder(std::string_view bytes, std::size_t begin, bool little_endian, const std::string& path)
      : bytes_(bytes), position_(begin), little_endian_(little_endian), path_(path) {}
  const std::string& path() const noexcept { return path_; }

  std::size_t position() const noexcept { return position_; }
  std::size_t value_offset() noexcept { return position_; }
  void seek(std::size_t position) noexcept { position_ = position; }
  std::size_t remaining() const noexcept { return bytes_.size() - position_; }
  // Least bytes one value of `property` takes (a list: its length field).
  static std::uint64_t min_bytes(const Property& property) noexcept {
    return dtype_size(property.is_list ? property.count_type : property.type);
  }

  // Reads one value stored as `stored` into `out`, which has that same type.
  void read_raw(DType stored, void* out) {
    const std::size_t size = dtype_size(stored);
    require(size);
    io::copy_from_file_order(out, bytes_.data() + position_, size, 1, little_endian_);
    position_ += size;
  }
  template <class T> T read(DType stored) {
    return visit_dtype(stored, [&](auto zero) {
      decltype(zero) value;
      read_raw(stored, &value);
      return static_cast<T>(value);
    });
  }
  // Binary records have no line to hold undeclared values.
  static std::int64_t end_record() noexcept { return 0; }
  static double read_extra() noexcept { return 0; }
  void skip(DType stored, std::uint64_t count) {
    const std::size_t size = dtype_size(stored);
    if (count > remaining() / size) fail("unexpected end of file: " + std::to_string(count) + " more values announced");
    position_ += count * size;
  }

  [[noreturn]] void fail(const std::string& message) const { fail_at(position_, message); }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, offset);
  }

 private:
  void require(std::size_t size) const {
    if (size > remaining()) fail("unexpected end of file");
  }

  std::string_view bytes_;
  std::size_t position_;
  bool little_endian_;
  const std::string& path_;
};

class AsciiDecoder {
 public:
  static constexpr bool kBinary = false;

  AsciiDecoder(std::string_view bytes, std::size_t begin, const std::string& path)
      : scanner_(bytes, begin, bytes.size(), path, kFormat) {}
  const std::string& path() const noexcept { return scanner_.path(); }

  std::size_t position() const noexcept { return scanner_.position(); }
  std::size_t value_offset() noexcept {
    scanner_.skip_whitespace();
    return scanner_.position();
  }
  void seek(std::size_t position) noexcept { scanner_.seek(position); }
  std::size_t remaining() const noexcept { return scanner_.end() - scanner_.position(); }
  std::string_view document() const noexcept { return scanner_.document(); }
  // A digit and a separator.
  static std::uint64_t min_bytes(const Property&) noexcept { return 2; }

  void read_raw(DType stored, void* out) {
    visit_dtype(stored, [&](auto zero) {
      using T = decltype(zero);
      *static_cast<T*>(out) = scanner_.next_number<T>();
    });
  }
  template <class T> T read(DType stored) {
    return visit_dtype(stored, [&](auto zero) { return static_cast<T>(scanner_.next_number<decltype(zero)>()); });
  }
  void skip(DType, std::uint64_t count) {
    for (std::uint64_t i = 0; i < count; ++i)
      if (scanner_.next_token().empty()) fail("unexpected end of file");
  }
  // After a record's declared values: skips the values left on its line and says how many.
  std::int64_t end_record() {
    scanner_.skip_blanks();
    const std::string_view text = scanner_.document();
    std::size_t at = scanner_.position();
    if (at >= scanner_.end() || text[at] == '\n') [[likely]] return 0;
    std::int64_t extra = 0;
    while (at < scanner_.end() && text[at] != '\n') {
      while (at < scanner_.end() && !io::is_space(text[at])) ++at;
      ++extra;
      while (at < scanner_.end() && text[at] != '\n' && io::is_space(text[at])) ++at;
    }
    scanner_.seek(at);
    return extra;
  }
  // One undeclared value, as a number.
  double read_extra() { return scanner_.next_number<double>(); }

  [[noreturn]] void fail(const std::string& message) const { scanner_.fail(message); }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const { scanner_.fail_at(offset, message); }

 private:
  io::TextScanner scanner_;
};

// ---- the body ----------------------------------------------------------------------------

// One value of declared type `stored` from a line (io::LineValues: false where TextScanner
// would read anything else), converted as AsciiDecoder::read converts it.
template <class T> bool read_line_value(io::LineValues& reader, DType stored, T& out) noexcept {
  return visit_dtype(stored, [&](auto zero) {
    decltype(zero) value{};
    if (!reader.next(value)) return false;
    out = static_cast<T>(value);
    return true;
  });
}

// Per cell type, the length a face list property has (kVarying once two faces disagree).
class ListLengths {
 public:
  static constexpr std::int64_t kVarying = -1;
  void record(std::string_view cell_type, std::int64_t length) {
    for (auto& [type, known] : lengths_)
      if (type == cell_type) {
        if (known != length) known = kVarying;
        return;
      }
    lengths_.emplace_back(cell_type, length);
  }
  std::int64_t length(std::string_view cell_type) const noexcept {
    for (const auto& [type, known] : lengths_)
      if (type == cell_type) return known;
    return 0;
  }

 private:
  std::vector<std::pair<std::string_view, std::int64_t>> lengths_;
};

template <class Decoder>
class BodyReader {
 public:
  BodyReader(const Header& header, Decoder& decoder) : header_(header), decoder_(decoder) {
    for (const Element& element : header.elements)
      if (element.name == "vertex") {
        num_vertices_ = element.count;
        break;
      }
  }

  Mesh read() {
    bool have_vertices = false, have_faces = false;
    for (const Element& element : header_.elements) {
      check_room(element);
      if (element.name == "vertex" && !have_vertices) {
        read_vertices(element);
        have_vertices = true;
      } else if (element.name == "face" && !have_faces) {
        read_faces(element);
        have_faces = true;
      } else {
        skip_element(element);
      }
    }
    if (mesh_.points.empty_handle()) mesh_.points = NDArray::allocate(DType::float64, {0, 3});
    return std::move(mesh_);
  }

 private:
  // A corrupt count must not drive a huge allocation: every record takes some bytes.
  void check_room(const Element& element) {
    std::uint64_t record_bytes = 0;
    for (const Property& property : element.properties) record_bytes += Decoder::min_bytes(property);
    if (element.count == 0) return;
    if (record_bytes == 0) {
      // Records without properties take no bytes (and are skipped in one step): the count
      // is bounded by the read limit instead of by the file.
      io::check_claim_fits_limit(decoder_.path(), "ply", "records of element '" + element.name + "'",
                                 static_cast<std::uint64_t>(element.count), 1, io::ClaimSite{element.offset, std::nullopt});
      return;
    }
    const std::uint64_t available = decoder_.remaining() + (Decoder::kBinary ? 0 : 1);  // last value needs no separator
    if (static_cast<std::uint64_t>(element.count) > available / record_bytes)
      decoder_.fail_at(element.offset, "element '" + element.name + "' announces " + std::to_string(element.count) +
                                           " records, more than the " + std::to_string(decoder_.remaining()) +
                                           " bytes after the header can hold");
  }

  std::int64_t read_list_length(const Property& property) {
    const std::size_t offset = decoder_.value_offset();
    const auto length = decoder_.template read<std::int64_t>(property.count_type);
    if (length < 0) decoder_.fail_at(offset, "negative length of list '" + property.name + "'");
    return length;
  }

  void skip_record(const Element& element) {
    for (const Property& property : element.properties)
      decoder_.skip(property.type, property.is_list ? static_cast<std::uint64_t>(read_list_length(property)) : 1);
    decoder_.end_record();
  }

  void skip_element(const Element& element) {
    if (Decoder::kBinary && !element.has_lists()) {  // fixed-size records: one jump
      std::uint64_t values = 0, bytes = 0;
      for (const Property& property : element.properties) {
        ++values;
        bytes += dtype_size(property.type);
      }
      if constexpr (Decoder::kBinary) decoder_.skip(DType::uint8, bytes * static_cast<std::uint64_t>(element.count));
      else decoder_.skip(DType::uint8, values * static_cast<std::uint64_t>(element.count));
      return;
    }
    // A record without properties consumes nothing but what is left of its line, and the next
    // one then nothing at all: one step stands for any count (a 127-byte file announcing 241 M
    // such records was 241 M steps, a timeout under a sanitizer: fuzz finding).
    const std::int64_t steps = element.properties.empty() ? std::min<std::int64_t>(element.count, 1) : element.count;
    for (std::int64_t i = 0; i < steps; ++i) skip_record(element);
  }

  // Per property: the list length shared by all records, ListLengths::kVarying, or 0 for
  // scalars. Leaves the decoder where it was.
  std::vector<std::int64_t> uniform_list_lengths(const Element& element) {
    std::vector<ListLengths> lengths(element.properties.size());
    const std::size_t start = decoder_.position();
    for (std::int64_t i = 0; i < element.count; ++i) {
      for (std::size_t p = 0; p < element.properties.size(); ++p) {
        const Property& property = element.properties[p];
        if (!property.is_list) {
          decoder_.skip(property.type, 1);
          continue;
        }
        const std::int64_t length = read_list_length(property);
        lengths[p].record("", length);
        decoder_.skip(property.type, static_cast<std::uint64_t>(length));
      }
      decoder_.end_record();
    }
    decoder_.seek(start);
    std::vector<std::int64_t> uniform;
    for (const ListLengths& list : lengths) uniform.push_back(list.length(""));
    return uniform;
  }

  void read_into(const Property& property, NDArray& array, std::int64_t first_value, std::int64_t count) {
    char* out = static_cast<char*>(array.data()) + static_cast<std::size_t>(first_value) * dtype_size(property.type);
    for (std::int64_t v = 0; v < count; ++v, out += dtype_size(property.type)) decoder_.read_raw(property.type, out);
  }

  // ---- vertices ----

  int coordinate_axis(const Element& element, std::string_view name) {
    const int p = element.find(name);
    if (p >= 0 && element.properties[static_cast<std::size_t>(p)].is_list)
      decoder_.fail_at(element.offset, "the vertex property '" + std::string(name) + "' is a list");
    return p;
  }

  void read_vertices(const Element& element) {
    const int axes[3] = {coordinate_axis(element, "x"), coordinate_axis(element, "y"), coordinate_axis(element, "z")};
    if (axes[0] < 0 || axes[1] < 0) decoder_.fail_at(element.offset, "the vertex element has no x and y properties");
    const std::int64_t dim = axes[2] >= 0 ? 3 : 2;
    bool all_float32 = true;
    for (std::int64_t a = 0; a < dim; ++a) all_float32 &= element.properties[static_cast<std::size_t>(axes[a])].type == DType::float32;
    mesh_.points = NDArray::allocate(all_float32 ? DType::float32 : DType::float64, {element.count, dim});

    const std::vector<std::int64_t> lengths =
        element.has_lists() ? uniform_list_lengths(element) : std::vector<std::int64_t>(element.properties.size(), 0);
    std::vector<int> axis_of(element.properties.size(), -1);
    for (int a = 0; a < dim; ++a) axis_of[static_cast<std::size_t>(axes[a])] = a;
    std::vector<NDArray> data(element.properties.size());
    for (std::size_t p = 0; p < element.properties.size(); ++p) {
      const Property& property = element.properties[p];
      if (axis_of[p] >= 0 || lengths[p] == ListLengths::kVarying) continue;
      data[p] = property.is_list ? NDArray::allocate(property.type, {element.count, lengths[p]})
                                 : NDArray::allocate(property.type, {element.count});
    }

    bool by_lines = false;
    if constexpr (!Decoder::kBinary) by_lines = !element.has_lists() && read_vertex_lines(element, axis_of, dim, data);
    if (!by_lines) visit_dtype(mesh_.points.dtype(), [&](auto zero) {
      using T = decltype(zero);
      T* points = mesh_.points.data_as<T>();
      for (std::int64_t i = 0; i < element.count; ++i) {
        for (std::size_t p = 0; p < element.properties.size(); ++p) {
          const Property& property = element.properties[p];
          if (axis_of[p] >= 0) {
            points[i * dim + axis_of[p]] = decoder_.template read<T>(property.type);
          } else if (!property.is_list) {
            read_into(property, data[p], i, 1);
          } else {
            const std::int64_t length = read_list_length(property);
            if (lengths[p] == ListLengths::kVarying) decoder_.skip(property.type, static_cast<std::uint64_t>(length));
            else read_into(property, data[p], i * length, length);
          }
        }
        decoder_.end_record();
      }
    });
    for (std::size_t p = 0; p < element.properties.size(); ++p)
      if (!data[p].empty_handle()) mesh_.point_data.set(element.properties[p].name, std::move(data[p]));
  }

  // ASCII vertices of scalar properties one per line, on all cores. False (the sequential
  // loop rewrites every value) for any other layout or value.
  bool read_vertex_lines(const Element& element, const std::vector<int>& axis_of, std::int64_t dim, std::vector<NDArray>& data) {
    const std::string_view document = decoder_.document();
    const std::optional<std::size_t> begin = io::records_begin(document, decoder_.position());
    if (!begin) return false;
    const char* const text = document.data();
    const std::optional<std::size_t> end = visit_dtype(mesh_.points.dtype(), [&](auto zero) {
      using T = decltype(zero);
      T* const points = mesh_.points.data_as<T>();
      return io::parse_lines_in_parallel(
          document, *begin, static_cast<std::uint64_t>(element.count), [&](std::uint64_t i, std::size_t line, std::size_t stop) {
            io::LineValues reader{text + line, text + stop, text + document.size()};
            for (std::size_t p = 0; p < element.properties.size(); ++p) {
              const DType stored = element.properties[p].type;
              const bool read = axis_of[p] >= 0
                                    ? read_line_value(reader, stored, points[static_cast<std::int64_t>(i) * dim + axis_of[p]])
                                    : visit_dtype(stored, [&](auto kind) {
                                        return reader.next(data[p].template data_as<decltype(kind)>()[i]);
                                      });
              if (!read) return false;
            }
            return reader.done();
          });
    });
    if (!end) return false;
    decoder_.seek(*end);
    return true;
  }

  // ASCII faces whose only property is the corner list, one per line, all with the first
  // face's corner count (1-4: one block of fixed width), on all cores. False (nothing kept)
  // for any other layout or value, which the two passes of read_faces then read or refuse.
  bool read_face_lines(const Element& element, std::size_t indices) {
    const Property& property = element.properties[indices];
    const std::string_view document = decoder_.document();
    const std::optional<std::size_t> begin = io::records_begin(document, decoder_.position());
    // parse_lines_in_parallel's own bar, asked before allocating: a file the sequential reading
    // takes allocates nothing it drops (an allocator hook sees every array a read makes).
    if (!begin || element.properties.size() != 1 || element.count < 2 || meshioplusplus::thread_count() < 2 ||
        document.size() - *begin < io::kParallelLinesMinBytes)
      return false;
    const char* const text = document.data();
    const char* const first_end = io::find_newline(text + *begin, text + document.size());
    io::LineValues first{text + *begin, first_end ? first_end : text + document.size(), text + document.size()};
    std::int64_t k = 0;
    if (!read_line_value(first, property.count_type, k) || k < 1 || k > 4) return false;
    NDArray connectivity = NDArray::allocate(DType::int64, {element.count, k});
    std::int64_t* const corners = connectivity.data_as<std::int64_t>();
    const std::optional<std::size_t> end = io::parse_lines_in_parallel(
        document, *begin, static_cast<std::uint64_t>(element.count), [&](std::uint64_t face, std::size_t line, std::size_t stop) {
          io::LineValues reader{text + line, text + stop, text + document.size()};
          std::int64_t length = 0;
          if (!read_line_value(reader, property.count_type, length) || length != k) return false;
          std::int64_t* const out = corners + static_cast<std::int64_t>(face) * k;
          for (std::int64_t c = 0; c < k; ++c)
            if (!read_line_value(reader, property.type, out[c]) || out[c] < 0 || out[c] >= num_vertices_) return false;
          return reader.done();
        });
    if (!end) return false;
    mesh_.cells.clear();
    mesh_.cells.push_back(CellBlock{std::string(io::face_cell_type(k)), std::move(connectivity), {}, {}});
    decoder_.seek(*end);
    return true;
  }

  // ---- faces ----

  std::size_t indices_property(const Element& element) {
    int p = element.find("vertex_indices");
    if (p < 0) p = element.find("vertex_index");
    if (p < 0 || !element.properties[static_cast<std::size_t>(p)].is_list)
      decoder_.fail_at(element.offset, "the face element has no 'vertex_indices' list");
    if (dtype_is_float(element.properties[static_cast<std::size_t>(p)].type))
      decoder_.fail_at(element.offset, "vertex indices must have an integer type");
    return static_cast<std::size_t>(p);
  }

  struct FacePlan {
    std::vector<std::int64_t> corner_counts;
    std::vector<ListLengths> list_lengths;  // per property
    // Undeclared values per face (ASCII), per face type slot (io::FaceBlockLayout::type_slot):
    // kUnset, one count for all faces of the type, or ListLengths::kVarying.
    static constexpr std::int64_t kUnset = -2;
    std::array<std::int64_t, 5> extra_widths{kUnset, kUnset, kUnset, kUnset, kUnset};
    bool any_extra_values = false;
  };

  // First pass: every face's corner count, and the lengths of its other lists.
  FacePlan plan_faces(const Element& element, std::size_t indices) {
    FacePlan plan;
    plan.corner_counts.reserve(static_cast<std::size_t>(element.count));  // bounded by check_room
    plan.list_lengths.resize(element.properties.size());
    std::vector<std::int64_t> record_lengths(element.properties.size(), 0);
    for (std::int64_t face = 0; face < element.count; ++face) {
      for (std::size_t p = 0; p < element.properties.size(); ++p) {
        const Property& property = element.properties[p];
        if (!property.is_list) {
          decoder_.skip(property.type, 1);
          continue;
        }
        const std::size_t offset = decoder_.value_offset();
        record_lengths[p] = read_list_length(property);
        if (p == indices && record_lengths[p] == 0) decoder_.fail_at(offset, "face " + std::to_string(face) + " has no vertices");
        decoder_.skip(property.type, static_cast<std::uint64_t>(record_lengths[p]));
      }
      const std::int64_t corners = record_lengths[indices];
      plan.corner_counts.push_back(corners);
      if constexpr (!Decoder::kBinary) {
        const std::int64_t extra = decoder_.end_record();
        std::int64_t& width = plan.extra_widths[io::FaceBlockLayout::type_slot(corners)];
        if (width == FacePlan::kUnset) width = extra;
        else if (width != extra) width = ListLengths::kVarying;
        plan.any_extra_values |= extra > 0;
      }
      for (std::size_t p = 0; p < element.properties.size(); ++p)
        if (element.properties[p].is_list && p != indices) plan.list_lengths[p].record(io::face_cell_type(corners), record_lengths[p]);
    }
    return plan;
  }

  void read_faces(const Element& element) {
    const std::size_t indices = indices_property(element);
    if constexpr (!Decoder::kBinary)
      if (read_face_lines(element, indices)) return;
    const std::size_t start = decoder_.position();
    const FacePlan plan = plan_faces(element, indices);

    const io::FaceBlockLayout layout(plan.corner_counts);
    std::vector<CellBlock> blocks = layout.allocate_blocks();
    // Per property, its arrays (one per block), or none for the indices and dropped lists.
    std::vector<std::vector<NDArray>> data(element.properties.size());
    for (std::size_t p = 0; p < element.properties.size(); ++p) {
      const Property& property = element.properties[p];
      if (p == indices) continue;
      if (!property.is_list) {
        data[p] = layout.allocate_per_face(property.type);
        continue;
      }
      std::vector<std::int64_t> widths;
      for (const CellBlock& block : blocks) widths.push_back(plan.list_lengths[p].length(block.type));
      if (std::find(widths.begin(), widths.end(), ListLengths::kVarying) == widths.end())
        data[p] = layout.allocate_per_face(property.type, widths);
    }

    // Undeclared values are kept when each block has one width for them.
    std::vector<NDArray> extra_values;
    if (plan.any_extra_values) {
      std::vector<std::int64_t> widths;
      for (std::size_t b = 0; b < blocks.size(); ++b)
        widths.push_back(plan.extra_widths[io::FaceBlockLayout::type_slot(layout.max_corners(b))]);
      if (std::find(widths.begin(), widths.end(), ListLengths::kVarying) == widths.end())
        extra_values = layout.allocate_per_face(DType::float64, widths);
    }

    decoder_.seek(start);
    io::FaceBlockFiller filler(layout, blocks);
    for (std::int64_t face = 0; face < element.count; ++face) {
      const io::FaceSlot slot = filler.place(plan.corner_counts[static_cast<std::size_t>(face)]);
      for (std::size_t p = 0; p < element.properties.size(); ++p) {
        const Property& property = element.properties[p];
        if (p == indices) {
          read_corners(property, face, slot.corners);
        } else if (!property.is_list) {
          read_into(property, data[p][slot.block], slot.row, 1);
        } else {
          const std::int64_t length = read_list_length(property);
          if (data[p].empty()) decoder_.skip(property.type, static_cast<std::uint64_t>(length));
          else read_into(property, data[p][slot.block], slot.row * length, length);
        }
      }
      if (!extra_values.empty()) {
        NDArray& values = extra_values[slot.block];
        const std::int64_t width = values.row_width();
        for (std::int64_t k = 0; k < width; ++k) values.data_as<double>()[slot.row * width + k] = decoder_.read_extra();
      }
      decoder_.end_record();
    }

    mesh_.cells = std::move(blocks);
    for (std::size_t p = 0; p < element.properties.size(); ++p)
      if (!data[p].empty() && !mesh_.cells.empty()) mesh_.cell_data.set(element.properties[p].name, std::move(data[p]));
    if (!extra_values.empty()) mesh_.cell_data.set("ply:extra_values", std::move(extra_values));
  }

  void read_corners(const Property& property, std::int64_t face, std::int64_t* corners) {
    const std::int64_t length = read_list_length(property);
    for (std::int64_t k = 0; k < length; ++k) {
      const std::size_t offset = decoder_.value_offset();
      const auto index = decoder_.template read<std::int64_t>(property.type);
      if (index < 0 || index >= num_vertices_)
        decoder_.fail_at(offset, "face " + std::to_string(face) + " refers to vertex " + std::to_string(index) +
                                     ", outside [0, " + std::to_string(num_vertices_) + ")");
      corners[k] = index;
    }
  }

  const Header& header_;
  Decoder& decoder_;
  std::int64_t num_vertices_ = 0;
  Mesh mesh_;
};

template <class Decoder> Mesh read_body(const Header& header, Decoder decoder) {
  return BodyReader<Decoder>(header, decoder).read();
}

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  const std::string_view bytes = file.bytes();
  const Header header = HeaderParser(bytes, path).parse();
  switch (header.encoding) {
    case Encoding::ascii: return read_body(header, AsciiDecoder(bytes, header.data_begin, path));
    case Encoding::binary_little_endian: return read_body(header, BinaryDecoder(bytes, header.data_begin, true, path));
    case Encoding::binary_big_endian: break;
  }
  return read_body(header, BinaryDecoder(bytes, header.data_begin, false, path));
}

}  // namespace meshioplusplus::ply
