// Private to src/cpp/io/vtk/ (nothing outside this folder includes it): DataArrayReader's
// implementation class and the helpers its files share. The reader is split by concern so no
// file passes the project's 1,000 lines: the XML structure (vtk_xml_scan.cpp), the encodings
// of an array's bytes (vtk_xml_encodings.cpp), typed arrays, strings and field data
// (vtk_xml_arrays.cpp), and the public members that forward here (vtk_xml_data.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/text/text_scanner.hpp"
#include "io/text/xml_scanner.hpp"
#include "io/vtk/vtk_xml_data.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::io::vtk_xml::detail {

NDArray allocate(Lifetime lifetime, DType dtype, Shape shape);

// A binary array whose size header has been read and whose data has been located.
struct Payload {
  std::size_t header_offset = 0;  // file offset of the header, for messages
  std::uint64_t size = 0;         // decoded bytes
  bool base64 = false;
  bool compressed = false;
  std::uint64_t block_size = 0, last_block_size = 0, compressed_total = 0;
  std::vector<std::uint64_t> compressed_sizes;
  std::string_view data;  // raw: the bytes after the header; base64: the text after it
  // base64 whose header and data share one stream: data bytes decoded with the header.
  std::array<std::uint8_t, 3> lead{};
  std::size_t lead_size = 0;
};

struct PreparedArray {
  const ArrayInfo* info = nullptr;
  std::uint64_t count = 0;         // values: tuples × components
  std::optional<Payload> payload;  // binary encodings only
};

// The decoded base64 quanta that cover a size header.
struct HeaderChunk {
  std::vector<std::uint8_t> header;
  std::array<std::uint8_t, 3> lead{};
  std::size_t lead_size = 0;
  std::size_t consumed = 0;  // characters of the text used, whitespace included
};

std::string_view trim(std::string_view text) noexcept;
std::uint64_t count_tokens(std::string_view text) noexcept;

}  // namespace meshioplusplus::io::vtk_xml::detail

namespace meshioplusplus::io::vtk_xml {

class DataArrayReader::Impl {
 public:
  Impl(const std::string& path, std::string_view format, std::string_view document, const MappedFile* file = nullptr)
      : path_(path), format_(format), doc_(document), file_(file) {}

  static std::string label(const ArrayInfo& info) { return DataArrayReader::label(info); }

  [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
    std::optional<std::uint64_t> line;
    // Line numbers mean nothing inside raw binary data.
    const bool in_raw_bytes = layout_.has_appended && !layout_.appended_base64 && offset >= layout_.appended_begin;
    if (!in_raw_bytes) line = line_of_offset(doc_, offset);
    throw ReadError(path_, std::string(format_), message, offset, line);
  }

  std::size_t offset_of(std::string_view part) const noexcept {
    return static_cast<std::size_t>(part.data() - doc_.data());
  }

  std::uint64_t checked_product(std::uint64_t a, std::uint64_t b, std::size_t offset) const {
    if (b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b) fail(offset, "array size overflows");
    return a * b;
  }

  // ---------------------------------------------------------------- XML structure (vtk_xml_scan.cpp)

  const DocumentLayout& scan(std::span<const std::string_view> expected_types);
  static Attributes attributes_of(const XmlTag& tag);
  // Returns where markup resumes: after the tag, or after an array's text.
  std::size_t open_element(const XmlTag& tag, const std::vector<std::string_view>& open,
                           std::span<const std::string_view> expected_types);
  void require_parent(const XmlTag& tag, std::string_view parent, std::string_view expected) const;
  std::optional<std::int64_t> count_attribute(const XmlTag& tag, std::string_view name) const;
  std::int64_t parse_count(std::string_view raw, std::string_view name, std::size_t offset, std::string_view element) const;
  void read_file_attributes(const XmlTag& tag, std::span<const std::string_view> expected_types);
  ArrayInfo describe_array(const XmlTag& tag) const;
  std::optional<std::size_t> base64_text_end(const XmlTag& tag) const;
  std::optional<std::vector<std::uint8_t>> unbroken_base64_header(std::string_view text, std::size_t header_size) const;
  void add_array(ArrayInfo info, std::string_view parent, const std::vector<std::string_view>& open, const XmlTag& tag);
  void locate_appended_data(const XmlTag& tag);

  // ---------------------------------------------------------------- binary payloads, ASCII text (vtk_xml_encodings.cpp)

  bool compressed() const noexcept;
  std::uint64_t read_word(const std::uint8_t* bytes) const noexcept;
  [[noreturn]] void fail_past_end(const ArrayInfo& info, std::size_t offset) const;
  void check_compressor(const ArrayInfo& info) const;
  detail::Payload open_payload(const ArrayInfo& info) const;
  detail::Payload open_raw(const ArrayInfo& info, std::string_view region) const;
  void read_block_table(const ArrayInfo& info, detail::Payload& payload, const std::uint8_t* header,
                        std::uint64_t blocks) const;
  detail::HeaderChunk decode_header_chunk(const ArrayInfo& info, std::string_view text, std::size_t header_size) const;
  detail::Payload open_base64(const ArrayInfo& info, std::string_view text, bool appended) const;
  void decode_base64_exact(const ArrayInfo& info, std::string_view text, std::uint8_t* out,
                           std::uint64_t expected) const;
  bool decode_unbroken_base64(std::string_view text, std::uint8_t* out, std::uint64_t expected) const;
  template <class BlockBytes>
  void inflate_blocks(const ArrayInfo& info, const detail::Payload& payload, std::uint8_t* out, BlockBytes&& block_bytes) const;
  static const std::uint8_t* base64_block(const detail::Payload& payload, std::uint64_t start, std::uint64_t size,
                                          std::vector<std::uint8_t>& buffer);
  void decode_payload(const ArrayInfo& info, const detail::Payload& payload, void* out) const;
  void parse_ascii(const ArrayInfo& info, void* out, std::uint64_t count) const;
  void parse_ascii_range(const ArrayInfo& info, std::size_t begin, std::size_t end, void* out,
                         std::uint64_t count) const;
  bool parse_ascii_in_pieces(const ArrayInfo& info, void* out, std::uint64_t count, std::size_t pieces) const;

  // ---------------------------------------------------------------- arrays (vtk_xml_arrays.cpp)

  detail::PreparedArray prepare(const ArrayInfo& info, std::uint64_t count) const;
  void decode(const detail::PreparedArray& prepared, void* out) const;
  void decode_as(const detail::PreparedArray& prepared, DType dtype, void* out) const;
  std::uint64_t stored_count(const ArrayInfo& info) const;
  std::optional<NDArray> mapped_view(const detail::PreparedArray& prepared, const Shape& shape, bool any_alignment = false) const;
  std::optional<NDArray> mapped_values(const ArrayInfo& info, std::int64_t count) const;
  std::optional<NDArray> mapped_array(const ArrayInfo& info, const Shape& shape) const;
  NDArray read_array(const ArrayInfo& info, Shape shape, Lifetime lifetime) const;
  NDArray read_integer_array(const ArrayInfo& info, std::int64_t count, Lifetime lifetime) const;
  std::vector<std::int64_t> read_index_vector(const ArrayInfo& info, std::int64_t count) const;
  NDArray read_cell_types(const ArrayInfo& info, std::int64_t count) const;
  void count_cell_types(const ArrayInfo& info, std::int64_t count, VtkTypeCounts& counts) const;
  NDArray read_starts(const ArrayInfo& info, std::int64_t count) const;
  NDArray gather(const std::vector<DataArrayReader::Slice>& slices, DType dtype, std::int64_t components, bool keep_component_axis) const;
  std::vector<std::uint8_t> string_bytes(const ArrayInfo& info) const;
  std::vector<std::string> read_strings(const ArrayInfo& info) const;
  void read_field_data(Mesh& mesh) const;

  const std::string& path_;
  std::string_view format_;
  std::string_view doc_;
  const MappedFile* file_ = nullptr;  // the file doc_ is the bytes of, when known
  DocumentLayout layout_;
  bool seen_root_ = false, seen_dataset_ = false;
};

}  // namespace meshioplusplus::io::vtk_xml
