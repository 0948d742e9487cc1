#include "io/vtk_xml_data.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <system_error>
#include <type_traits>
#include <utility>

#include "io/atomic_file.hpp"
#include "io/base64.hpp"
#include "io/byte_order.hpp"
#include "io/parallel.hpp"
#include "io/read_limits.hpp"
#include "io/text_scanner.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus::io::vtk_xml {

// ------------------------------------------------------------------ names

namespace {

struct VtkTypeName {
  std::string_view vtk_name;
  DType dtype;
};

constexpr std::array<VtkTypeName, 10> kVtkTypeNames{{
    {"Int8", DType::int8},
    {"Int16", DType::int16},
    {"Int32", DType::int32},
    {"Int64", DType::int64},
    {"UInt8", DType::uint8},
    {"UInt16", DType::uint16},
    {"UInt32", DType::uint32},
    {"UInt64", DType::uint64},
    {"Float32", DType::float32},
    {"Float64", DType::float64},
}};

}  // namespace

std::optional<DType> dtype_from_vtk_name(std::string_view vtk_name) noexcept {
  for (const VtkTypeName& entry : kVtkTypeNames)
    if (entry.vtk_name == vtk_name) return entry.dtype;
  // VTK's id type and the legacy names some writers use.
  if (vtk_name == "vtkIdType") return DType::int64;
  return std::nullopt;
}

std::string_view vtk_name_of(DType dtype) noexcept {
  for (const VtkTypeName& entry : kVtkTypeNames)
    if (entry.dtype == dtype) return entry.vtk_name;
  return "Float64";
}

std::string_view codec_of_vtk_compressor(std::string_view vtk_class) noexcept {
  for (const VtkCompressorName& entry : kVtkCompressors)
    if (entry.vtk_class == vtk_class) return entry.codec;
  return {};
}

std::string_view vtk_compressor_of_codec(std::string_view codec) noexcept {
  for (const VtkCompressorName& entry : kVtkCompressors)
    if (entry.codec == codec) return entry.vtk_class;
  return {};
}

const ArrayInfo* Section::find(std::string_view array_name) const noexcept {
  for (const ArrayInfo& info : arrays)
    if (info.name == array_name) return &info;
  return nullptr;
}

const std::string* Attributes::find(std::string_view name) const noexcept {
  for (const auto& entry : values)
    if (entry.first == name) return &entry.second;
  return nullptr;
}

const Section* Piece::section(std::string_view name) const noexcept {
  for (const Section& candidate : sections)
    if (candidate.name == name) return &candidate;
  return nullptr;
}

std::string DataArrayReader::label(const ArrayInfo& info) {
  return info.name.empty() ? std::string("unnamed DataArray") : "DataArray '" + info.name + "'";
}

// ------------------------------------------------------------------ reading

namespace {

using Slice = DataArrayReader::Slice;

// Work sizes below which a thread costs more than it saves.
// (A thread starts in tens of microseconds and parses 1 MiB of numbers in about one millisecond.)
constexpr std::size_t kParallelTextBytes = std::size_t{1} << 20;  // an ASCII section worth splitting
constexpr std::size_t kTextPieceBytes = std::size_t{512} << 10;   // the least text per thread
constexpr std::size_t kBase64QuantaPerThread = std::size_t{1} << 20;
constexpr std::size_t kCompressedBlocksPerThread = 16;

NDArray allocate(Lifetime lifetime, DType dtype, Shape shape) {
  return lifetime == Lifetime::result ? NDArray::allocate(dtype, std::move(shape))
                                      : NDArray::allocate_scratch(dtype, std::move(shape));
}

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

std::string_view trim(std::string_view text) noexcept {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

enum Base64Class : std::uint8_t { kInvalid, kSymbol, kPadding, kSpace };

constexpr std::array<std::uint8_t, 256> kBase64Classes = [] {
  std::array<std::uint8_t, 256> classes{};
  for (int c = 0; c < 256; ++c) {
    const bool symbol = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
    classes[static_cast<std::size_t>(c)] = symbol ? kSymbol : c == '=' ? kPadding : kInvalid;
  }
  for (unsigned char c : {' ', '\n', '\t', '\r', '\f', '\v'}) classes[c] = kSpace;
  return classes;
}();

std::uint64_t count_tokens(std::string_view text) noexcept {
  return io::count_tokens(text.data(), text.data() + text.size());
}

// Element-wise static_cast from a decoded array into `out` of another dtype.
void convert_values(const NDArray& source, DType target, void* out) {
  visit_dtype(source.dtype(), [&](auto source_tag) {
    using Source = decltype(source_tag);
    const Source* values = static_cast<const Source*>(source.data());
    visit_dtype(target, [&](auto target_tag) {
      using Target = decltype(target_tag);
      Target* result = static_cast<Target*>(out);
      for (std::size_t i = 0; i < source.size(); ++i) result[i] = static_cast<Target>(values[i]);
    });
  });
}


}  // namespace

// Raw arrays at least this large are copied out of a mapped file with pread (copy_out).
constexpr std::size_t kCopyOutBytesMin = std::size_t{1} << 20;

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


  // ---------------------------------------------------------------- XML structure

  const DocumentLayout& scan(std::span<const std::string_view> expected_types) {
    XmlScanner xml(doc_, 0, path_, format_);
    std::vector<std::string_view> open;
    while (std::optional<XmlTag> tag = xml.next_tag()) {
      if (tag->closing) {
        if (open.empty() || open.back() != tag->name)
          fail(tag->begin, "unexpected </" + std::string(tag->name) + ">" +
                               (open.empty() ? std::string() : ", expected </" + std::string(open.back()) + ">"));
        open.pop_back();
        continue;
      }
      open_element(*tag, open, expected_types);
      // Raw appended bytes follow; they are addressed by offset, never scanned as markup.
      if (tag->name == "AppendedData") break;
      if (!tag->self_closing) open.push_back(tag->name);
    }
    if (!layout_.has_appended && !open.empty())
      fail(doc_.size(), "file ends inside <" + std::string(open.back()) + ">");
    if (!seen_root_) fail(0, "not a VTK XML file: no <VTKFile> element");
    if (!seen_dataset_) fail(0, "no <" + layout_.type + "> element");
    return layout_;
  }

  static Attributes attributes_of(const XmlTag& tag) {
    Attributes attributes;
    for (const XmlAttribute& attribute : tag.attributes)
      attributes.values.emplace_back(std::string(attribute.name), decode_xml_entities(attribute.value));
    return attributes;
  }

  void open_element(const XmlTag& tag, const std::vector<std::string_view>& open,
                    std::span<const std::string_view> expected_types) {
    const std::string_view name = tag.name;
    const std::string_view parent = open.empty() ? std::string_view() : open.back();
    if (parent.empty()) {
      if (name != "VTKFile")
        fail(tag.begin, "expected <VTKFile> as the root element, found <" + std::string(name) + ">");
      read_file_attributes(tag, expected_types);
    } else if (parent == "VTKFile" && name == layout_.type) {
      seen_dataset_ = true;
      layout_.dataset_offset = tag.begin;
      layout_.dataset = attributes_of(tag);
    } else if (name == "Piece") {
      require_parent(tag, parent, layout_.type);
      Piece& piece = layout_.pieces.emplace_back();
      piece.tag_offset = tag.begin;
      piece.attributes = attributes_of(tag);
    } else if (name == "FieldData") {
      // Its arrays are collected by add_array, wherever it sits (VTK writes it in the
      // dataset element; some writers put it in a Piece).
    } else if (name == "DataArray" || name == "Array") {
      add_array(describe_array(tag), parent, open, tag);
    } else if (name == "AppendedData") {
      require_parent(tag, parent, "VTKFile");
      locate_appended_data(tag);
    } else if (parent == "Piece") {
      // PointData, CellData, Points, Cells, Verts, Lines, Strips, Polys, Coordinates.
      Section& section = layout_.pieces.back().sections.emplace_back();
      section.name = std::string(name);
      section.tag_offset = tag.begin;
    }
    // Anything else (InformationKey, Value, ...) is metadata this layer has no use for.
  }

  void require_parent(const XmlTag& tag, std::string_view parent, std::string_view expected) const {
    if (parent != expected)
      fail(tag.begin, "<" + std::string(tag.name) + "> must be inside <" + std::string(expected) + ">, found it in <" +
                          std::string(parent) + ">");
  }

  std::optional<std::int64_t> count_attribute(const XmlTag& tag, std::string_view name) const {
    const std::string_view* raw = tag.attribute(name);
    if (raw == nullptr) return std::nullopt;
    return parse_count(*raw, name, tag.begin, tag.name);
  }

  std::int64_t parse_count(std::string_view raw, std::string_view name, std::size_t offset, std::string_view element) const {
    const std::string_view text = trim(raw);
    std::int64_t value = -1;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc{} || end != text.data() + text.size() || value < 0)
      fail(offset, std::string(name) + "=\"" + std::string(raw) + "\" of <" + std::string(element) +
                       "> is not a non-negative integer");
    return value;
  }

  void read_file_attributes(const XmlTag& tag, std::span<const std::string_view> expected_types) {
    seen_root_ = true;
    const std::string_view* type = tag.attribute("type");
    const std::string_view type_name = type ? *type : std::string_view();
    std::string expected;
    bool known = false;
    for (std::string_view candidate : expected_types) {
      known = known || candidate == type_name;
      expected += (expected.empty() ? "" : " or ") + std::string(candidate);
    }
    if (!known)
      fail(tag.begin, "VTKFile type is '" + std::string(type_name) + "'; ." + std::string(format_) + " files hold " +
                          expected);
    layout_.type = std::string(type_name);
    if (const std::string_view* order = tag.attribute("byte_order")) {
      if (*order == "BigEndian") layout_.little_endian = false;
      else if (*order != "LittleEndian") fail(tag.begin, "unknown byte_order '" + std::string(*order) + "'");
    }
    if (const std::string_view* header = tag.attribute("header_type")) {
      if (*header == "UInt64") layout_.header_bytes = 8;
      else if (*header != "UInt32") fail(tag.begin, "unknown header_type '" + std::string(*header) + "'");
    }
    if (const std::string_view* compressor = tag.attribute("compressor")) {
      layout_.compressor = std::string(*compressor);
      layout_.codec = find_block_codec(codec_of_vtk_compressor(*compressor));
    }
  }

  ArrayInfo describe_array(const XmlTag& tag) const {
    ArrayInfo info;
    info.tag_offset = tag.begin;
    const std::string_view* type = tag.attribute("type");
    if (type == nullptr) fail(tag.begin, "<" + std::string(tag.name) + "> without a type attribute");
    if (*type != "String") {
      info.dtype = dtype_from_vtk_name(*type);
      if (!info.dtype) fail(tag.begin, "unsupported data type '" + std::string(*type) + "'");
    }
    if (const std::string_view* name = tag.attribute("Name")) info.name = decode_xml_entities(*name);
    // NumberOfComponents="" (some writers emit it; VTK reads it as absent) means one.
    const std::string_view* components = tag.attribute("NumberOfComponents");
    if (components != nullptr && !trim(*components).empty())
      info.components = count_attribute(tag, "NumberOfComponents").value_or(1);
    if (info.components < 1) fail(tag.begin, DataArrayReader::label(info) + " has NumberOfComponents=0");
    info.tuples = count_attribute(tag, "NumberOfTuples");
    const std::string_view* format = tag.attribute("format");
    const std::string_view format_name = format ? *format : std::string_view("ascii");
    if (format_name == "ascii") {
      info.encoding = Encoding::ascii;
    } else if (format_name == "binary") {
      info.encoding = Encoding::inline_base64;
    } else if (format_name == "appended") {
      info.encoding = Encoding::appended;
      const std::optional<std::int64_t> offset = count_attribute(tag, "offset");
      if (!offset) fail(tag.begin, DataArrayReader::label(info) + " is appended but has no offset attribute");
      info.appended_offset = static_cast<std::uint64_t>(*offset);
    } else {
      fail(tag.begin, DataArrayReader::label(info) + " has unknown format '" + std::string(format_name) + "'");
    }
    info.content_begin = info.content_end = tag.end;
    if (!tag.self_closing) info.content_end = std::min(doc_.find('<', tag.end), doc_.size());
    return info;
  }

  void add_array(ArrayInfo info, std::string_view parent, const std::vector<std::string_view>& open, const XmlTag& tag) {
    if (parent == "FieldData") {
      layout_.field_data.push_back(std::move(info));
      return;
    }
    // VTK has no text point or cell data that a mesh could hold; such arrays are skipped.
    if (info.is_string()) return;
    // Arrays belong to the section of a Piece they sit in (its direct child).
    if (open.size() >= 2 && open[open.size() - 2] == "Piece" && !layout_.pieces.empty() &&
        !layout_.pieces.back().sections.empty() && layout_.pieces.back().sections.back().name == parent) {
      Section& section = layout_.pieces.back().sections.back();
      if (section.name == "Points" && !section.arrays.empty()) fail(tag.begin, "<Points> holds more than one DataArray");
      section.arrays.push_back(std::move(info));
    }
  }

  void locate_appended_data(const XmlTag& tag) {
    const std::string_view* encoding = tag.attribute("encoding");
    const std::string_view encoding_name = encoding ? *encoding : std::string_view("raw");
    if (encoding_name == "base64") layout_.appended_base64 = true;
    else if (encoding_name != "raw") fail(tag.begin, "unknown AppendedData encoding '" + std::string(encoding_name) + "'");
    std::size_t position = tag.end;
    while (position < doc_.size() && is_space(doc_[position])) ++position;
    if (position >= doc_.size() || doc_[position] != '_') fail(position, "<AppendedData> must start with '_'");
    layout_.has_appended = true;
    layout_.appended_begin = position + 1;
    // The last closing tag ends the data; raw bytes may contain any byte sequence before it.
    const std::size_t close = doc_.rfind("</AppendedData>");
    layout_.appended_end = close != std::string_view::npos && close >= layout_.appended_begin ? close : doc_.size();
  }
  // ---------------------------------------------------------------- binary payloads

  bool compressed() const noexcept { return !layout_.compressor.empty(); }

  std::uint64_t read_word(const std::uint8_t* bytes) const noexcept {
    if (layout_.header_bytes == 4) {
      std::uint32_t value;
      copy_from_file_order(&value, bytes, 4, 1, layout_.little_endian);
      return value;
    }
    std::uint64_t value;
    copy_from_file_order(&value, bytes, 8, 1, layout_.little_endian);
    return value;
  }

  [[noreturn]] void fail_past_end(const ArrayInfo& info, std::size_t offset) const {
    fail(offset, label(info) + " extends past the end of its data (file truncated?)");
  }

  void check_compressor(const ArrayInfo& info) const {
    if (!compressed()) return;
    if (layout_.codec == nullptr) {
      std::string known;
      for (const VtkCompressorName& entry : kVtkCompressors)
        known += (known.empty() ? "" : ", ") + std::string(entry.vtk_class);
      fail(info.tag_offset, "unsupported compressor '" + layout_.compressor + "' (known: " + known + ")");
    }
    if (!layout_.codec->available)
      fail(info.tag_offset, "the data is " + std::string(layout_.codec->name) + "-compressed (" + layout_.compressor +
                                ") but this meshio++ build has no " + std::string(layout_.codec->library) +
                                "; rebuild with it installed");
  }

  Payload open_payload(const ArrayInfo& info) const {
    check_compressor(info);
    if (info.encoding == Encoding::inline_base64) {
      const std::string_view content = trim(doc_.substr(info.content_begin, info.content_end - info.content_begin));
      return open_base64(info, content, false);
    }
    if (!layout_.has_appended) fail(info.tag_offset, label(info) + " is appended but the file has no <AppendedData>");
    const std::uint64_t available = layout_.appended_end - layout_.appended_begin;
    if (info.appended_offset >= available)
      fail(info.tag_offset, label(info) + " has offset " + std::to_string(info.appended_offset) +
                                " beyond the appended data (" + std::to_string(available) + " bytes)");
    const std::size_t start = layout_.appended_begin + static_cast<std::size_t>(info.appended_offset);
    const std::string_view region = doc_.substr(start, layout_.appended_end - start);
    return layout_.appended_base64 ? open_base64(info, region, true) : open_raw(info, region);
  }

  Payload open_raw(const ArrayInfo& info, std::string_view region) const {
    Payload payload;
    payload.header_offset = offset_of(region);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(region.data());
    const std::size_t word = layout_.header_bytes;
    if (!compressed()) {
      if (region.size() < word) fail_past_end(info, payload.header_offset);
      payload.size = read_word(bytes);
      if (payload.size > region.size() - word) fail_past_end(info, payload.header_offset);
      payload.data = region.substr(word, static_cast<std::size_t>(payload.size));
      return payload;
    }
    if (region.size() < 3 * word) fail_past_end(info, payload.header_offset);
    const std::uint64_t blocks = read_word(bytes);
    if (blocks > (region.size() - 3 * word) / word) fail_past_end(info, payload.header_offset);
    const std::size_t header_size = static_cast<std::size_t>(3 + blocks) * word;
    read_block_table(info, payload, bytes, blocks);
    if (payload.compressed_total > region.size() - header_size) fail_past_end(info, payload.header_offset);
    payload.data = region.substr(header_size, static_cast<std::size_t>(payload.compressed_total));
    return payload;
  }

  // Parses [nblocks, blocksize, lastblocksize, compressed sizes...] and derives the size.
  void read_block_table(const ArrayInfo& info, Payload& payload, const std::uint8_t* header,
                        std::uint64_t blocks) const {
    const std::size_t word = layout_.header_bytes;
    const std::size_t at = payload.header_offset;
    payload.compressed = true;
    payload.block_size = read_word(header + word);
    payload.last_block_size = read_word(header + 2 * word);
    if (blocks > 0 && payload.block_size == 0) fail(at, label(info) + ": compression block size is 0");
    if (payload.last_block_size > payload.block_size)
      fail(at, label(info) + ": last compression block is larger than the block size");
    payload.compressed_sizes.resize(static_cast<std::size_t>(blocks));
    for (std::uint64_t b = 0; b < blocks; ++b) {
      const std::uint64_t size = read_word(header + (3 + b) * word);
      if (size > std::numeric_limits<std::uint64_t>::max() - payload.compressed_total)
        fail(at, label(info) + ": compressed sizes overflow");
      payload.compressed_sizes[b] = size;
      payload.compressed_total += size;
    }
    if (blocks > 0) {
      const std::uint64_t last = payload.last_block_size != 0 ? payload.last_block_size : payload.block_size;
      payload.size = checked_product(blocks - 1, payload.block_size, at);
      if (payload.size > std::numeric_limits<std::uint64_t>::max() - last) fail(at, "array size overflows");
      payload.size += last;
    }
    // The per-block allowance covers container overhead (an .xz stream's header and index).
    if (payload.size / layout_.codec->max_expansion > payload.compressed_total + 64 * blocks)
      fail(at, label(info) + ": header claims " + std::to_string(payload.size) + " bytes from " +
                   std::to_string(payload.compressed_total) + " compressed bytes, more than " +
                   std::string(layout_.codec->name) + " can produce");
    // Compressed data is a claim the file's size does not bound: it must fit the read limit.
    if (payload.size > max_array_bytes())
      fail(at, label(info) + ": header claims " + std::to_string(payload.size) +
                   " bytes of compressed data, more than the read limit of " + std::to_string(max_array_bytes()) +
                   " bytes (max_array_bytes; raise it with set_max_array_bytes or MESHIOPLUSPLUS_MAX_ARRAY_BYTES)");
  }

  // Decodes the base64 quanta covering a `header_size`-byte header. VTK encodes the
  // header of compressed data as its own padded stream but uncompressed data as one
  // stream with its header, so the last quantum may also carry the first data bytes.
  HeaderChunk decode_header_chunk(const ArrayInfo& info, std::string_view text, std::size_t header_size) const {
    const std::size_t needed = (header_size + 2) / 3 * 4;
    std::string symbols;
    symbols.reserve(needed);
    std::size_t position = 0;
    for (; position < text.size() && symbols.size() < needed; ++position)
      if (!is_space(text[position])) symbols.push_back(text[position]);
    if (symbols.size() < needed) fail(offset_of(text) + position, label(info) + ": base64 data ends inside its header");
    std::vector<std::uint8_t> decoded(base64_decoded_capacity(needed));
    std::size_t bad = 0;
    const std::optional<std::size_t> decoded_size = base64_decode(symbols, decoded.data(), &bad);
    if (!decoded_size) fail(offset_of(text), label(info) + ": invalid base64 in the size header");
    if (*decoded_size < header_size) fail(offset_of(text), label(info) + ": base64 size header is too short");
    HeaderChunk chunk;
    chunk.header.assign(decoded.begin(), decoded.begin() + static_cast<std::ptrdiff_t>(header_size));
    chunk.lead_size = *decoded_size - header_size;
    std::copy_n(decoded.begin() + static_cast<std::ptrdiff_t>(header_size), chunk.lead_size, chunk.lead.begin());
    chunk.consumed = position;
    return chunk;
  }

  Payload open_base64(const ArrayInfo& info, std::string_view text, bool appended) const {
    Payload payload;
    payload.base64 = true;
    payload.header_offset = offset_of(text);
    const std::size_t word = layout_.header_bytes;
    HeaderChunk chunk;
    std::uint64_t data_bytes = 0;  // bytes that follow the header in the stream
    if (!compressed()) {
      chunk = decode_header_chunk(info, text, word);
      payload.size = read_word(chunk.header.data());
      data_bytes = payload.size;
    } else {
      const HeaderChunk first = decode_header_chunk(info, text, 3 * word);
      const std::uint64_t blocks = read_word(first.header.data());
      // Every header word takes more than one base64 character.
      if (blocks > text.size() / word) fail(payload.header_offset, label(info) + ": block count exceeds the data");
      chunk = decode_header_chunk(info, text, static_cast<std::size_t>(3 + blocks) * word);
      read_block_table(info, payload, chunk.header.data(), blocks);
      data_bytes = payload.compressed_total;
    }
    if (chunk.lead_size > data_bytes) fail(payload.header_offset, label(info) + ": base64 data is longer than its header says");
    payload.lead = chunk.lead;
    payload.lead_size = chunk.lead_size;
    payload.data = text.substr(chunk.consumed);
    const std::uint64_t remaining = data_bytes - chunk.lead_size;
    if (remaining / 3 * 4 > payload.data.size())
      fail(payload.header_offset, label(info) + ": base64 data is shorter than its header says (" +
                                      std::to_string(data_bytes) + " bytes)");
    // Appended arrays sit back to back; the header says where this one stops.
    if (appended) payload.data = payload.data.substr(0, base64_encoded_size(static_cast<std::size_t>(remaining)));
    return payload;
  }

  // Decodes `text` into exactly `expected` bytes, checking the count before writing.
  void decode_base64_exact(const ArrayInfo& info, std::string_view text, std::uint8_t* out,
                           std::uint64_t expected) const {
    if (decode_unbroken_base64(text, out, expected)) return;
    std::array<std::uint64_t, 4> classes{};
    for (char c : text) ++classes[kBase64Classes[static_cast<unsigned char>(c)]];
    if (classes[kInvalid] != 0) {
      const auto bad = std::find_if(text.begin(), text.end(), [](char c) {
        return kBase64Classes[static_cast<unsigned char>(c)] == kInvalid;
      });
      fail(offset_of(text) + static_cast<std::size_t>(bad - text.begin()),
           label(info) + ": invalid base64 character '" + std::string(1, *bad) + "'");
    }
    const std::uint64_t symbols = classes[kSymbol] + classes[kPadding];
    if (symbols % 4 != 0 || symbols / 4 * 3 != expected + classes[kPadding])
      fail(offset_of(text), label(info) + ": base64 data does not decode to the " + std::to_string(expected) +
                                " bytes its header announces");
    std::size_t bad = 0;
    if (!base64_decode(text, out, &bad)) fail(offset_of(text) + bad, label(info) + ": invalid base64 data");
  }

  // The layout every VTK writer produces: one stream of exactly the right length, no
  // whitespace. All but its last quantum decode straight into `out` (in parallel when
  // large) and cannot overrun it: base64_decode writes three bytes per complete quantum,
  // and those quanta hold fewer than `expected` bytes. False: take the careful path.
  bool decode_unbroken_base64(std::string_view text, std::uint8_t* out, std::uint64_t expected) const {
    if (expected == 0 || text.size() != base64_encoded_size(static_cast<std::size_t>(expected))) return false;
    const std::size_t body_quanta = text.size() / 4 - 1;
    std::atomic<bool> body_ok{true};
    parallel_ranges(body_quanta, kBase64QuantaPerThread, [&](std::size_t first, std::size_t last) {
      const std::optional<std::size_t> written =
          base64_decode(text.substr(4 * first, 4 * (last - first)), out + 3 * first);
      if (!written || *written != 3 * (last - first)) body_ok = false;
    });
    if (!body_ok) return false;
    std::uint8_t tail[6];
    const std::optional<std::size_t> written = base64_decode(text.substr(4 * body_quanta), tail);
    if (!written || 3 * body_quanta + *written != expected) return false;
    std::copy_n(tail, *written, out + 3 * body_quanta);
    return true;
  }

  // Blocks inflate independently, so large arrays use every core. `block_bytes(b, start,
  // buffer)` yields block b's deflate bytes, which start at `start` in the stream.
  template <class BlockBytes>
  void inflate_blocks(const ArrayInfo& info, const Payload& payload, std::uint8_t* out, BlockBytes&& block_bytes) const {
    const std::vector<std::uint64_t>& sizes = payload.compressed_sizes;
    std::vector<std::uint64_t> starts(sizes.size() + 1, 0);
    for (std::size_t b = 0; b < sizes.size(); ++b) starts[b + 1] = starts[b] + sizes[b];
    const BlockCodec& codec = *layout_.codec;
    parallel_ranges(sizes.size(), kCompressedBlocksPerThread, [&](std::size_t first, std::size_t last) {
      std::vector<std::uint8_t> buffer;  // per thread: one block's bytes, when they need decoding
      for (std::size_t b = first; b < last; ++b) {
        const bool partial = b + 1 == sizes.size() && payload.last_block_size != 0;
        const std::uint64_t size = partial ? payload.last_block_size : payload.block_size;
        const std::uint8_t* bytes = block_bytes(b, starts[b], buffer);
        if (bytes == nullptr || !codec.decompress(bytes, sizes[b], out + b * payload.block_size, size)) {
          const std::size_t at = offset_of(payload.data) + (payload.base64 ? 0 : static_cast<std::size_t>(starts[b]));
          fail(at, label(info) + ": " + std::string(codec.name) + " block " + std::to_string(b) +
                       " is corrupt or does not decompress to " +
                       std::to_string(size) + " bytes");
        }
      }
    });
  }

  // Bytes [start, start + size) of a deflate stream held as `lead` then the unbroken base64
  // `text`, decoded into `buffer`; nullptr when the text there is not valid base64.
  static const std::uint8_t* base64_block(const Payload& payload, std::uint64_t start, std::uint64_t size,
                                          std::vector<std::uint8_t>& buffer) {
    buffer.resize(static_cast<std::size_t>(size));
    std::uint64_t filled = 0;
    for (; filled < size && start + filled < payload.lead_size; ++filled)
      buffer[static_cast<std::size_t>(filled)] = payload.lead[static_cast<std::size_t>(start + filled)];
    if (filled == size) return buffer.data();
    const std::uint64_t first = start + filled - payload.lead_size;  // byte offset in the text's stream
    const std::uint64_t end = start + size - payload.lead_size;
    const std::uint64_t first_quantum = first / 3, end_quantum = (end + 2) / 3;
    std::uint8_t decoded[3 * 4096];
    for (std::uint64_t q = first_quantum; q < end_quantum; q += 4096) {
      const std::uint64_t quanta = std::min<std::uint64_t>(4096, end_quantum - q);
      const std::optional<std::size_t> written =
          base64_decode(payload.data.substr(static_cast<std::size_t>(4 * q), static_cast<std::size_t>(4 * quanta)), decoded);
      if (!written) return nullptr;
      const std::uint64_t decoded_first = 3 * q;
      const std::uint64_t from = std::max(first, decoded_first), to = std::min(end, decoded_first + *written);
      if (to < from) return nullptr;
      if (to > from) std::memcpy(buffer.data() + filled, decoded + (from - decoded_first), static_cast<std::size_t>(to - from));
      filled += to - from;
    }
    return filled == size ? buffer.data() : nullptr;
  }

  void decode_payload(const ArrayInfo& info, const Payload& payload, void* out) const {
    auto* target = static_cast<std::uint8_t*>(out);
    if (!payload.compressed) {
      if (!payload.base64) {
        const auto bytes = static_cast<std::size_t>(payload.size);
        // Raw bytes of a mapped file: pread them, leaving the mapping's pages untouched.
        if (file_ != nullptr && file_->is_mapped() && bytes >= kCopyOutBytesMin &&
            payload.data.data() >= doc_.data() && payload.data.data() + bytes <= doc_.data() + doc_.size()) {
          if (!file_->copy_out(offset_of(payload.data), target, bytes))
            fail(offset_of(payload.data), label(info) + ": the file ends inside its bytes (file changed size while being read)");
          return;
        }
        copy_in_parallel(target, payload.data.data(), bytes);
        return;
      }
      std::copy_n(payload.lead.begin(), payload.lead_size, target);
      decode_base64_exact(info, payload.data, target + payload.lead_size, payload.size - payload.lead_size);
      return;
    }
    const auto* stream = reinterpret_cast<const std::uint8_t*>(payload.data.data());
    const auto in_stream = [&stream](std::size_t, std::uint64_t start, std::vector<std::uint8_t>&) {
      return stream + start;
    };
    if (!payload.base64) return inflate_blocks(info, payload, target, in_stream);
    // VTK writes the deflate blocks as one unbroken base64 stream: then each block decodes by
    // itself as it is inflated, and the whole compressed stream never sits in memory.
    if (payload.data.size() == base64_encoded_size(static_cast<std::size_t>(payload.compressed_total - payload.lead_size))) {
      const auto decoded_block = [&](std::size_t b, std::uint64_t start, std::vector<std::uint8_t>& buffer) {
        const std::uint8_t* bytes = base64_block(payload, start, payload.compressed_sizes[b], buffer);
        if (bytes == nullptr) {  // bad text: the careful decoder names the character and its offset
          std::vector<std::uint8_t> whole(static_cast<std::size_t>(payload.compressed_total - payload.lead_size));
          decode_base64_exact(info, payload.data, whole.data(), whole.size());
        }
        return bytes;
      };
      return inflate_blocks(info, payload, target, decoded_block);
    }
    std::vector<std::uint8_t> compressed_bytes(static_cast<std::size_t>(payload.compressed_total));  // scratch
    std::copy_n(payload.lead.begin(), payload.lead_size, compressed_bytes.begin());
    decode_base64_exact(info, payload.data, compressed_bytes.data() + payload.lead_size,
                        payload.compressed_total - payload.lead_size);
    stream = compressed_bytes.data();
    inflate_blocks(info, payload, target, in_stream);
  }

  // ---------------------------------------------------------------- arrays

  // Checks that `info` holds exactly `count` values, before anything is allocated for it.
  PreparedArray prepare(const ArrayInfo& info, std::uint64_t count) const {
    PreparedArray prepared{&info, count, std::nullopt};
    const std::size_t item = info.is_string() ? 1 : dtype_size(*info.dtype);
    const std::uint64_t bytes = checked_product(count, item, info.tag_offset);
    if (info.encoding == Encoding::ascii) {
      // Every value takes at least one character and one separator.
      const std::uint64_t length = info.content_end - info.content_begin;
      if (count > (length + 1) / 2)
        fail(info.content_begin, label(info) + " holds fewer than the " + std::to_string(count) + " values expected");
      return prepared;
    }
    prepared.payload = open_payload(info);
    if (prepared.payload->size != bytes)
      fail(prepared.payload->header_offset,
           label(info) + " holds " + std::to_string(prepared.payload->size) + " bytes, expected " +
               std::to_string(bytes) + " (" + std::to_string(count) + " values of " +
               std::string(dtype_name(*info.dtype)) + ")");
    return prepared;
  }

  void decode(const PreparedArray& prepared, void* out) const {
    const ArrayInfo& info = *prepared.info;
    if (info.encoding == Encoding::ascii) {
      parse_ascii(info, out, prepared.count);
      return;
    }
    decode_payload(info, *prepared.payload, out);
    if (layout_.little_endian != kHostIsLittleEndian)
      swap_bytes_in_place(out, dtype_size(*info.dtype), static_cast<std::size_t>(prepared.count));
  }

  // Decodes into `out`, which holds values of `dtype` (a wider type when pieces disagree).
  void decode_as(const PreparedArray& prepared, DType dtype, void* out) const {
    if (*prepared.info->dtype == dtype) {
      decode(prepared, out);
      return;
    }
    NDArray scratch = NDArray::allocate_scratch(*prepared.info->dtype, {static_cast<std::int64_t>(prepared.count)});
    decode(prepared, scratch.data());
    convert_values(scratch, dtype, out);
  }

  void parse_ascii(const ArrayInfo& info, void* out, std::uint64_t count) const {
    const std::size_t length = info.content_end - info.content_begin;
    const std::size_t pieces = std::min<std::size_t>(thread_count(), length / kTextPieceBytes);
    if (length >= kParallelTextBytes && pieces > 1 && parse_ascii_in_pieces(info, out, count, pieces)) return;
    parse_ascii_range(info, info.content_begin, info.content_end, out, count);
  }

  void parse_ascii_range(const ArrayInfo& info, std::size_t begin, std::size_t end, void* out,
                         std::uint64_t count) const {
    TextScanner scanner(doc_, begin, end, path_, format_);
    visit_dtype(*info.dtype, [&](auto tag) {
      using Value = decltype(tag);
      scanner.next_numbers(static_cast<Value*>(out), static_cast<std::size_t>(count));
    });
    scanner.skip_whitespace();
    if (!scanner.at_end()) scanner.fail(label(info) + " holds more than the " + std::to_string(count) + " values expected");
  }

  // Splits the section at whitespace and parses the pieces on separate threads; every
  // number is still one from_chars call on the same characters, so the result and the
  // first error are those of a sequential parse. False when the value count is off: the
  // sequential parse then says precisely where.
  bool parse_ascii_in_pieces(const ArrayInfo& info, void* out, std::uint64_t count, std::size_t pieces) const {
    const std::size_t length = info.content_end - info.content_begin;
    std::vector<std::size_t> bounds(pieces + 1, info.content_begin);
    bounds[pieces] = info.content_end;
    for (std::size_t p = 1; p < pieces; ++p) {
      std::size_t at = std::max(bounds[p - 1], info.content_begin + length / pieces * p);
      while (at < info.content_end && !is_space(doc_[at])) ++at;
      bounds[p] = at;
    }
    std::vector<std::uint64_t> firsts(pieces + 1, 0);  // index of each piece's first value
    parallel_ranges(pieces, 1, [&](std::size_t first, std::size_t last) {
      for (std::size_t p = first; p < last; ++p) firsts[p + 1] = count_tokens(doc_.substr(bounds[p], bounds[p + 1] - bounds[p]));
    });
    for (std::size_t p = 0; p < pieces; ++p) firsts[p + 1] += firsts[p];
    if (firsts[pieces] != count) return false;
    const std::size_t item = dtype_size(*info.dtype);
    parallel_ranges(pieces, 1, [&](std::size_t first, std::size_t last) {
      for (std::size_t p = first; p < last; ++p)
        parse_ascii_range(info, bounds[p], bounds[p + 1], static_cast<std::uint8_t*>(out) + firsts[p] * item,
                          firsts[p + 1] - firsts[p]);
    });
    return true;
  }

  // How many values an array holds when no attribute says so.
  std::uint64_t stored_count(const ArrayInfo& info) const {
    if (info.encoding == Encoding::ascii) return count_tokens(doc_.substr(info.content_begin, info.content_end - info.content_begin));
    const Payload payload = open_payload(info);
    const std::size_t item = info.is_string() ? 1 : dtype_size(*info.dtype);
    if (payload.size % item != 0)
      fail(payload.header_offset, label(info) + " holds " + std::to_string(payload.size) +
                                      " bytes, not a whole number of " + std::string(dtype_name(*info.dtype)) + " values");
    return payload.size / item;
  }

  Shape array_shape(const ArrayInfo& info, std::int64_t rows) const {
    if (info.components > 1) return {rows, info.components};
    return {rows};
  }

  // Raw appended bytes in the host's byte order, aligned for their type, already are the
  // array: scratch (read, converted and dropped within this read) then views the mapped file
  // instead of copying it, which for a cell stream saved a pass over tens of megabytes and
  // the page faults of a fresh scratch buffer. VTK reads each array once; so do we now.
  std::optional<NDArray> mapped_view(const PreparedArray& prepared, const Shape& shape, bool any_alignment = false) const {
    const ArrayInfo& info = *prepared.info;
    if (info.encoding != Encoding::appended || !prepared.payload || prepared.payload->base64 ||
        prepared.payload->compressed || layout_.little_endian != kHostIsLittleEndian || info.is_string())
      return std::nullopt;
    const char* data = prepared.payload->data.data();
    if (!any_alignment && reinterpret_cast<std::uintptr_t>(data) % dtype_size(*info.dtype) != 0) return std::nullopt;
    return NDArray::view(const_cast<char*>(data), *info.dtype, shape);
  }

  std::optional<NDArray> mapped_values(const ArrayInfo& info, std::int64_t count) const {
    if (dtype_is_float(*info.dtype)) fail(info.tag_offset, label(info) + " must hold integers");
    if (info.components != 1) fail(info.tag_offset, label(info) + " must have one component");
    return mapped_view(prepare(info, static_cast<std::uint64_t>(count)), {count}, /*any_alignment=*/true);
  }

  std::optional<NDArray> mapped_array(const ArrayInfo& info, const Shape& shape) const {
    if (info.is_string()) return std::nullopt;
    std::uint64_t count = 1;
    for (std::int64_t extent : shape) count = checked_product(count, static_cast<std::uint64_t>(extent), info.tag_offset);
    return mapped_view(prepare(info, count), shape, /*any_alignment=*/true);
  }

  NDArray read_array(const ArrayInfo& info, Shape shape, Lifetime lifetime) const {
    std::uint64_t count = 1;
    for (std::int64_t extent : shape) count = checked_product(count, static_cast<std::uint64_t>(extent), info.tag_offset);
    const PreparedArray prepared = prepare(info, count);
    if (lifetime == Lifetime::scratch)
      if (std::optional<NDArray> view = mapped_view(prepared, shape)) return std::move(*view);
    NDArray array = allocate(lifetime, *info.dtype, std::move(shape));
    decode(prepared, array.data());
    return array;
  }

  NDArray read_integer_array(const ArrayInfo& info, std::int64_t count, Lifetime lifetime) const {
    if (dtype_is_float(*info.dtype)) fail(info.tag_offset, label(info) + " must hold integers");
    if (info.components != 1) fail(info.tag_offset, label(info) + " must have one component");
    return read_array(info, {count}, lifetime);
  }

  // Index arrays the cell converter takes as int64 spans (types, offsets, face tables).
  std::vector<std::int64_t> read_index_vector(const ArrayInfo& info, std::int64_t count) const {
    const NDArray raw = read_integer_array(info, count, Lifetime::scratch);
    std::vector<std::int64_t> values(static_cast<std::size_t>(count));
    visit_dtype(raw.dtype(), [&](auto tag) {
      using Value = decltype(tag);
      const Value* source = static_cast<const Value*>(raw.data());
      for (std::size_t i = 0; i < values.size(); ++i) {
        if constexpr (std::is_same_v<Value, std::uint64_t>) {
          if (source[i] > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            fail(info.tag_offset, label(info) + " holds a value beyond int64");
        }
        values[i] = static_cast<std::int64_t>(source[i]);
      }
    });
    return values;
  }

  // One byte per cell: VTK's ids all fit, and a mesh's cell types are a large scratch array.
  // Converted on all cores; a bad id is reported as a sequential pass would (the first).
  NDArray read_cell_types(const ArrayInfo& info, std::int64_t count) const {
    NDArray raw = read_integer_array(info, count, Lifetime::scratch);
    if (raw.dtype() == DType::uint8) return raw;  // every byte is a valid id; no second copy
    NDArray types = NDArray::allocate_scratch(DType::uint8, {count});
    std::uint8_t* out = types.data_as<std::uint8_t>();
    visit_dtype(raw.dtype(), [&](auto tag) {
      using Value = decltype(tag);
      if constexpr (std::is_integral_v<Value>) {  // read_integer_array gives integers only
        const Value* source = static_cast<const Value*>(raw.data());
        parallel_ranges(static_cast<std::size_t>(count), std::size_t{1} << 20, [&](std::size_t first, std::size_t last) {
          for (std::size_t i = first; i < last; ++i) {
            if (!std::in_range<std::uint8_t>(source[i]))
              fail(info.tag_offset, "unknown VTK cell type " + std::to_string(source[i]) + " (cell " + std::to_string(i) + ")");
            out[i] = static_cast<std::uint8_t>(source[i]);
          }
        });
      }
    });
    return types;
  }

  // VTU offsets are the n end positions; the cell converter wants n+1 starts (int64, scratch),
  // written behind the leading 0 on all cores, with the first error a sequential pass finds.
  NDArray read_starts(const ArrayInfo& info, std::int64_t count) const {
    // Raw values are read where they lie in the file, at whatever alignment VTK left them.
    std::optional<NDArray> in_file = mapped_values(info, count);
    const NDArray raw = in_file ? std::move(*in_file) : read_integer_array(info, count, Lifetime::scratch);
    NDArray starts_array = NDArray::allocate_scratch(DType::int64, {count + 1});
    std::int64_t* starts = starts_array.data_as<std::int64_t>();
    starts[0] = 0;
    visit_dtype(raw.dtype(), [&](auto tag) {
      using Value = decltype(tag);
      const auto* bytes = static_cast<const unsigned char*>(raw.data());
      const auto value_at = [bytes](std::size_t i) { return load_integer<Value, false>(bytes + i * sizeof(Value)); };
      parallel_ranges(static_cast<std::size_t>(count), std::size_t{1} << 20, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {
          const Value stored = value_at(i);
          if constexpr (std::is_same_v<Value, std::uint64_t>) {
            if (stored > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
              fail(info.tag_offset, label(info) + " holds a value beyond int64");
          }
          const auto end = static_cast<std::int64_t>(stored);
          const auto start = i == 0 ? std::int64_t{0} : static_cast<std::int64_t>(value_at(i - 1));
          if (end < start)
            fail(info.tag_offset, label(info) + " decreases at entry " + std::to_string(i) + " (" + std::to_string(end) +
                                      " after " + std::to_string(start) + ")");
          starts[i + 1] = end;
        }
      });
    });
    return starts_array;
  }

  // Reads a logical array that each piece holds some rows of into one allocation.
  NDArray gather(const std::vector<DataArrayReader::Slice>& slices, DType dtype, std::int64_t components, bool keep_component_axis) const {
    std::vector<PreparedArray> prepared;
    std::int64_t rows = 0;
    for (const DataArrayReader::Slice& slice : slices) {
      prepared.push_back(prepare(*slice.info, checked_product(slice.rows, components, slice.info->tag_offset)));
      rows += slice.rows;
    }
    const Shape shape = components > 1 || keep_component_axis ? Shape{rows, components} : Shape{rows};
    NDArray result = NDArray::allocate(dtype, shape);
    auto* out = static_cast<std::uint8_t*>(result.data());
    for (const PreparedArray& part : prepared) {
      decode_as(part, dtype, out);
      out += part.count * dtype_size(dtype);
    }
    return result;
  }

  std::vector<std::uint8_t> string_bytes(const ArrayInfo& info) const {
    std::vector<std::uint8_t> bytes;
    if (info.encoding != Encoding::ascii) {
      const Payload payload = open_payload(info);
      bytes.resize(static_cast<std::size_t>(payload.size));
      decode_payload(info, payload, bytes.data());
      return bytes;
    }
    // VTK writes each character as its (possibly signed) code and ends each string with 0.
    TextScanner scanner(doc_, info.content_begin, info.content_end, path_, format_);
    for (scanner.skip_whitespace(); !scanner.at_end(); scanner.skip_whitespace()) {
      const int code = scanner.next_number<int>();
      if (code < -128 || code > 255) scanner.fail("character code " + std::to_string(code) + " outside a byte");
      bytes.push_back(static_cast<std::uint8_t>(code));
    }
    return bytes;
  }

  std::vector<std::string> read_strings(const ArrayInfo& info) const {
    const std::vector<std::uint8_t> bytes = string_bytes(info);
    std::vector<std::string> strings;
    std::size_t start = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      if (bytes[i] != 0) continue;
      strings.emplace_back(reinterpret_cast<const char*>(bytes.data()) + start, i - start);
      start = i + 1;
    }
    if (start < bytes.size()) strings.emplace_back(reinterpret_cast<const char*>(bytes.data()) + start, bytes.size() - start);
    if (info.tuples) {
      const std::uint64_t expected = checked_product(*info.tuples, info.components, info.tag_offset);
      if (strings.size() != expected)
        fail(info.tag_offset, "String array '" + info.name + "' holds " + std::to_string(strings.size()) +
                                  " strings, expected " + std::to_string(expected));
    }
    return strings;
  }

  void read_field_data(Mesh& mesh) const {
    for (const ArrayInfo& info : layout_.field_data) {
      if (info.is_string()) {
        mesh.string_field_data.set(info.name, read_strings(info));
        continue;
      }
      std::int64_t tuples = 0;
      if (info.tuples) {
        tuples = *info.tuples;
      } else {
        const std::uint64_t count = stored_count(info);
        if (count % static_cast<std::uint64_t>(info.components) != 0)
          fail(info.tag_offset, label(info) + " holds " + std::to_string(count) + " values, not a multiple of " +
                                    std::to_string(info.components) + " components");
        tuples = static_cast<std::int64_t>(count / static_cast<std::uint64_t>(info.components));
      }
      mesh.field_data.set(info.name, read_array(info, DataArrayReader::array_shape(info, tuples), Lifetime::result));
    }
  }


  const std::string& path_;
  std::string_view format_;
  std::string_view doc_;
  const MappedFile* file_ = nullptr;  // the file doc_ is the bytes of, when known
  DocumentLayout layout_;
  bool seen_root_ = false, seen_dataset_ = false;
};

// ------------------------------------------------------------------ DataArrayReader

DataArrayReader::DataArrayReader(const std::string& path, std::string_view format, std::string_view document)
    : impl_(std::make_unique<Impl>(path, format, document)) {}
DataArrayReader::DataArrayReader(const MappedFile& file, std::string_view format)
    : impl_(std::make_unique<Impl>(file.path(), format, file.bytes(), &file)) {}
DataArrayReader::~DataArrayReader() = default;

const DocumentLayout& DataArrayReader::scan(std::span<const std::string_view> expected_types) {
  return impl_->scan(expected_types);
}
const DocumentLayout& DataArrayReader::layout() const noexcept { return impl_->layout_; }
void DataArrayReader::fail(std::size_t offset, const std::string& message) const { impl_->fail(offset, message); }
const std::string& DataArrayReader::path() const noexcept { return impl_->path_; }
std::string_view DataArrayReader::document() const noexcept { return impl_->doc_; }

std::optional<std::int64_t> DataArrayReader::count_attribute(const Attributes& attributes, std::string_view name,
                                                             std::size_t tag_offset, std::string_view element) const {
  const std::string* raw = attributes.find(name);
  if (raw == nullptr) return std::nullopt;
  return impl_->parse_count(*raw, name, tag_offset, element);
}

namespace {

template <class Value>
std::optional<std::vector<Value>> number_list(const DataArrayReader& reader, const Attributes& attributes,
                                              std::string_view name, std::size_t count, std::size_t tag_offset) {
  const std::string* raw = attributes.find(name);
  if (raw == nullptr) return std::nullopt;
  std::vector<Value> values;
  const char* at = raw->data();
  const char* const end = raw->data() + raw->size();
  while (true) {
    while (at < end && is_space(*at)) ++at;
    if (at == end) break;
    Value value{};
    const auto [next, error] = std::from_chars(at, end, value);
    if (error != std::errc{}) reader.fail(tag_offset, std::string(name) + "=\"" + *raw + "\" holds a non-number");
    values.push_back(value);
    at = next;
  }
  if (values.size() != count)
    reader.fail(tag_offset, std::string(name) + "=\"" + *raw + "\" must hold " + std::to_string(count) + " numbers");
  return values;
}

}  // namespace

std::optional<std::vector<std::int64_t>> DataArrayReader::integer_list_attribute(const Attributes& attributes,
                                                                                 std::string_view name, std::size_t count,
                                                                                 std::size_t tag_offset) const {
  return number_list<std::int64_t>(*this, attributes, name, count, tag_offset);
}

std::optional<std::vector<double>> DataArrayReader::float_list_attribute(const Attributes& attributes,
                                                                         std::string_view name, std::size_t count,
                                                                         std::size_t tag_offset) const {
  return number_list<double>(*this, attributes, name, count, tag_offset);
}

NDArray DataArrayReader::read_array(const ArrayInfo& info, Shape shape, Lifetime lifetime) const {
  return impl_->read_array(info, std::move(shape), lifetime);
}

NDArray DataArrayReader::read_array_as(const ArrayInfo& info, Shape shape, DType dtype, Lifetime lifetime) const {
  if (info.dtype == dtype) return impl_->read_array(info, std::move(shape), lifetime);
  std::uint64_t count = 1;
  for (std::int64_t extent : shape) count = impl_->checked_product(count, static_cast<std::uint64_t>(extent), info.tag_offset);
  const auto prepared = impl_->prepare(info, count);
  NDArray array = allocate(lifetime, dtype, std::move(shape));
  impl_->decode_as(prepared, dtype, array.data());
  return array;
}

std::optional<NDArray> DataArrayReader::mapped_values(const ArrayInfo& info, std::int64_t count) const {
  return impl_->mapped_values(info, count);
}

std::optional<NDArray> DataArrayReader::mapped_array(const ArrayInfo& info, const Shape& shape) const {
  return impl_->mapped_array(info, shape);
}

NDArray DataArrayReader::read_integer_array(const ArrayInfo& info, std::int64_t count, Lifetime lifetime) const {
  return impl_->read_integer_array(info, count, lifetime);
}
std::vector<std::int64_t> DataArrayReader::read_index_vector(const ArrayInfo& info, std::int64_t count) const {
  return impl_->read_index_vector(info, count);
}
NDArray DataArrayReader::read_cell_types(const ArrayInfo& info, std::int64_t count) const {
  return impl_->read_cell_types(info, count);
}
NDArray DataArrayReader::read_starts(const ArrayInfo& info, std::int64_t count) const {
  return impl_->read_starts(info, count);
}
std::uint64_t DataArrayReader::stored_count(const ArrayInfo& info) const { return impl_->stored_count(info); }
std::vector<std::string> DataArrayReader::read_strings(const ArrayInfo& info) const { return impl_->read_strings(info); }
NDArray DataArrayReader::gather(const std::vector<Slice>& slices, DType dtype, std::int64_t components,
                                bool keep_component_axis) const {
  return impl_->gather(slices, dtype, components, keep_component_axis);
}
void DataArrayReader::read_field_data(Mesh& mesh) const { impl_->read_field_data(mesh); }

// ------------------------------------------------------------------ writing

namespace {

// Each codec at its fast end (zlib level 1: about three times faster than VTK's default 6
// for output some 4% larger on typical mesh data); any level reads back the same.
constexpr std::size_t kEncodeBlocksPerThread = 16;
// A multiple of 3 bytes, so consecutive base64 pieces form one unpadded stream.
constexpr std::size_t kBase64Chunk = 3 * 16384;
constexpr std::size_t kAsciiValuesPerLine = 6;

// Calls `consume(data, size, transient)` on consecutive `chunk_size`-byte pieces (the last
// may be shorter) of the concatenated segments. Only pieces that straddle two segments are
// copied, into a buffer that is reused: those are the `transient` ones.
template <class Consume>
void for_each_chunk(std::span<const ByteSpan> segments, std::size_t chunk_size, Consume&& consume) {
  std::vector<std::uint8_t> pending;
  for (ByteSpan segment : segments) {
    while (!segment.empty()) {
      if (pending.empty() && segment.size() >= chunk_size) {
        consume(segment.data(), chunk_size, false);
        segment = segment.subspan(chunk_size);
        continue;
      }
      const std::size_t take = std::min(chunk_size - pending.size(), segment.size());
      pending.insert(pending.end(), segment.begin(), segment.begin() + static_cast<std::ptrdiff_t>(take));
      segment = segment.subspan(take);
      if (pending.size() == chunk_size) {
        consume(pending.data(), pending.size(), true);
        pending.clear();
      }
    }
  }
  if (!pending.empty()) consume(pending.data(), pending.size(), true);
}

// The compression blocks of an array, copying only those that straddle segments.
std::vector<ByteSpan> compression_blocks(const ArrayPlan& array, std::deque<std::vector<std::uint8_t>>& copies) {
  std::vector<ByteSpan> blocks;
  for_each_chunk(array.segments, kCompressionBlockSize,
                 [&](const std::uint8_t* data, std::size_t size, bool transient) {
                   if (transient) data = copies.emplace_back(data, data + size).data();
                   blocks.emplace_back(data, size);
                 });
  return blocks;
}

void append_header_word(std::vector<std::uint8_t>& header, std::uint64_t value, const WriteSettings& settings,
                        const ArrayPlan& array) {
  if (settings.header_bytes == 4) {
    if (value > std::numeric_limits<std::uint32_t>::max())
      throw std::invalid_argument("array '" + array.name + "' needs a size of " + std::to_string(value) +
                                  " in its header, more than header_type UInt32 holds; write with header_type=UInt64");
    const auto word = static_cast<std::uint32_t>(value);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(&word);
    header.insert(header.end(), bytes, bytes + 4);
  } else {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(&value);
    header.insert(header.end(), bytes, bytes + 8);
  }
}

BinaryBlob encode_blob(const ArrayPlan& array, const WriteSettings& settings) {
  BinaryBlob blob;
  if (settings.codec == nullptr) {
    append_header_word(blob.header, array.nbytes, settings, array);
    return blob;
  }
  blob.is_compressed = true;
  std::deque<std::vector<std::uint8_t>> copies;
  const std::vector<ByteSpan> blocks = compression_blocks(array, copies);
  // Blocks compress independently, so large arrays use every core.
  std::vector<std::vector<std::uint8_t>> compressed(blocks.size());
  const io::BlockCodec& codec = *settings.codec;
  parallel_ranges(blocks.size(), kEncodeBlocksPerThread, [&](std::size_t first, std::size_t last) {
    for (std::size_t b = first; b < last; ++b)
      codec.compress_append(blocks[b].data(), blocks[b].size(), codec.default_level, compressed[b]);
  });
  // VTK's convention: the last block's size, or 0 when it is a full block.
  append_header_word(blob.header, blocks.size(), settings, array);
  append_header_word(blob.header, kCompressionBlockSize, settings, array);
  append_header_word(blob.header, array.nbytes % kCompressionBlockSize, settings, array);
  for (const std::vector<std::uint8_t>& block : compressed) {
    append_header_word(blob.header, block.size(), settings, array);
    blob.compressed.insert(blob.compressed.end(), block.begin(), block.end());
  }
  return blob;
}

std::uint64_t appended_size(const ArrayPlan& array) {
  const BinaryBlob& blob = *array.blob;
  return blob.header.size() + (blob.is_compressed ? blob.compressed.size() : array.nbytes);
}

std::int64_t components_of(const NDArray& array) { return array.ndim() > 1 ? array.row_width() : 1; }

// VTK points always have three coordinates; meshio meshes may have fewer.
NDArray padded_to_3d(const NDArray& points) {
  const std::int64_t dim = points.dim(1);
  if (dim > 3) throw std::invalid_argument("VTK points have at most 3 coordinates, got " + std::to_string(dim));
  NDArray padded = NDArray::zeros(points.dtype(), {points.rows(), 3});
  const std::size_t item = dtype_size(points.dtype());
  const auto* source = static_cast<const std::uint8_t*>(points.data());
  auto* target = static_cast<std::uint8_t*>(padded.data());
  for (std::int64_t row = 0; row < points.rows(); ++row)
    std::memcpy(target + row * 3 * item, source + row * dim * item, static_cast<std::size_t>(dim) * item);
  return padded;
}

class DocumentWriter {
 public:
  DocumentWriter(OutputBuffer& out, const WriteSettings& settings) : out_(out), settings_(settings) {}

  void write(const DocumentPlan& plan) {
    write_prologue(plan.type);
    out_.text("  <");
    out_.text(plan.type);
    if (!plan.dataset_attributes.empty()) {
      out_.put(' ');
      out_.text(plan.dataset_attributes);
    }
    out_.text(">\n");
    write_section("    ", "FieldData", plan.field_data, true);
    for (const PiecePlan& piece : plan.pieces) {
      out_.text("    <Piece");
      if (!piece.attributes.empty()) {
        out_.put(' ');
        out_.text(piece.attributes);
      }
      out_.text(">\n");
      for (const SectionPlan& section : piece.sections)
        write_section("      ", section.element, section.arrays, section.omit_when_empty);
      out_.text("    </Piece>\n");
    }
    out_.text("  </");
    out_.text(plan.type);
    out_.text(">\n");
    if (settings_.mode == DataMode::appended_raw) write_appended_data(plan);
    out_.text("</VTKFile>\n");
  }

 private:
  void write_prologue(std::string_view type) {
    out_.text("<?xml version=\"1.0\"?>\n<VTKFile type=\"");
    out_.text(type);
    out_.put('"');
    // VTK marks files with 64-bit headers as version 1.0; 0.1 readers assume 32-bit ones.
    out_.text(settings_.header_bytes == 8 ? " version=\"1.0\"" : " version=\"0.1\"");
    out_.text(kHostIsLittleEndian ? " byte_order=\"LittleEndian\"" : " byte_order=\"BigEndian\"");
    out_.text(settings_.header_bytes == 8 ? " header_type=\"UInt64\"" : " header_type=\"UInt32\"");
    if (settings_.codec != nullptr) {
      out_.text(" compressor=\"");
      out_.text(vtk_compressor_of_codec(settings_.codec->name));
      out_.put('"');
    }
    out_.text(">\n");
  }

  void write_section(std::string_view indent, std::string_view element, const std::vector<ArrayPlan>& arrays,
                     bool omit_when_empty) {
    if (arrays.empty() && omit_when_empty) return;
    out_.text(indent);
    out_.put('<');
    out_.text(element);
    out_.text(">\n");
    const std::string inner = std::string(indent) + "  ";
    for (const ArrayPlan& array : arrays) write_array(inner, array);
    out_.text(indent);
    out_.text("</");
    out_.text(element);
    out_.text(">\n");
  }

  void write_array(std::string_view indent, const ArrayPlan& array) {
    out_.text(indent);
    out_.put('<');
    out_.text(array.element);
    out_.text(" type=\"");
    out_.text(array.vtk_type);
    out_.text("\" Name=\"");
    out_.text(escape_xml_attribute(array.name));
    out_.put('"');
    if (array.components > 1) {
      out_.text(" NumberOfComponents=\"");
      out_.number(array.components);
      out_.put('"');
    }
    if (array.tuples) {
      out_.text(" NumberOfTuples=\"");
      out_.number(*array.tuples);
      out_.put('"');
    }
    switch (settings_.mode) {
      case DataMode::appended_raw:
        out_.text(" format=\"appended\" offset=\"");
        out_.number(array.appended_offset);
        out_.text("\"/>\n");
        return;
      case DataMode::ascii:
        out_.text(" format=\"ascii\">\n");
        write_ascii_values(indent, array);
        break;
      case DataMode::inline_base64:
        out_.text(" format=\"binary\">\n");
        out_.text(indent);
        out_.text("  ");
        write_inline_binary(array);
        out_.put('\n');
        break;
    }
    out_.text(indent);
    out_.text("</");
    out_.text(array.element);
    out_.text(">\n");
  }

  void write_ascii_values(std::string_view indent, const ArrayPlan& array) {
    const auto per_line = static_cast<std::size_t>(array.components > 1 ? array.components : kAsciiValuesPerLine);
    std::size_t column = 0;
    visit_dtype(array.dtype, [&](auto tag) {
      using Value = decltype(tag);
      for (ByteSpan segment : array.segments) {
        for (std::size_t at = 0; at + sizeof(Value) <= segment.size(); at += sizeof(Value)) {
          Value value;
          std::memcpy(&value, segment.data() + at, sizeof(Value));  // segments need not be aligned
          if (column == 0) {
            out_.text(indent);
            out_.text("  ");
          } else {
            out_.put(' ');
          }
          out_.number(value);
          if (++column == per_line) {
            out_.put('\n');
            column = 0;
          }
        }
      }
    });
    if (column != 0) out_.put('\n');
  }

  void write_base64(std::span<const ByteSpan> segments) {
    for_each_chunk(segments, kBase64Chunk, [&](const std::uint8_t* data, std::size_t size, bool) {
      base64_encode_append(data, size, out_.raw());
      out_.maybe_flush();
    });
  }

  // As VTK does: an uncompressed array is one base64 stream of header and data; a
  // compressed one is its header and its blocks encoded as two separate streams.
  void write_inline_binary(const ArrayPlan& array) {
    if (settings_.codec == nullptr) {
      std::vector<ByteSpan> stream{ByteSpan(array.blob->header)};
      stream.insert(stream.end(), array.segments.begin(), array.segments.end());
      write_base64(stream);
      return;
    }
    const BinaryBlob blob = encode_blob(array, settings_);
    const ByteSpan header(blob.header), compressed(blob.compressed);
    write_base64({&header, 1});
    write_base64({&compressed, 1});
  }

  void write_appended_data(const DocumentPlan& plan) {
    out_.text("  <AppendedData encoding=\"raw\">\n   _");
    plan.for_each_array([&](const ArrayPlan& array) {
      const BinaryBlob& blob = *array.blob;
      out_.bytes(blob.header.data(), blob.header.size());
      if (blob.is_compressed) {
        out_.bytes(blob.compressed.data(), blob.compressed.size());
        return;
      }
      for (ByteSpan segment : array.segments) out_.bytes(segment.data(), segment.size());
    });
    out_.text("\n  </AppendedData>\n");
  }

  OutputBuffer& out_;
  const WriteSettings& settings_;
};

}  // namespace

WriteSettings parse_write_settings(const WriteOptions& options) {
  WriteSettings settings;
  const bool binary = options.get_bool("binary", true);
  const bool appended = options.get_bool("appended", false);
  if (appended && !binary) throw std::invalid_argument("appended=true needs binary=true");
  settings.mode = !binary ? DataMode::ascii : appended ? DataMode::appended_raw : DataMode::inline_base64;

  // An empty value is meshio's compression=None. The default is zlib when the build has it.
  const BlockCodec* zlib = find_block_codec("zlib");
  const std::string_view compression = options.get("compression", zlib->available ? "zlib" : "none");
  if (compression != "none" && !compression.empty()) {
    const BlockCodec* codec = find_block_codec(compression);
    if (codec == nullptr)
      throw std::invalid_argument("unknown compression '" + std::string(compression) +
                                  "' (expected zlib, lzma, lz4 or none)");
    if (!codec->available)
      throw std::invalid_argument("compression=" + std::string(compression) + ", but this meshio++ build has no " +
                                  std::string(codec->library));
    // ascii files are never compressed (VTK and meshio alike).
    if (binary) settings.codec = codec;
  }

  const std::string_view header_type = options.get("header_type", "");
  if (header_type == "UInt64") settings.header_bytes = 8;
  else if (header_type != "UInt32" && !header_type.empty())
    throw std::invalid_argument("unknown header_type '" + std::string(header_type) + "' (expected UInt32 or UInt64)");
  return settings;
}

ArrayPlan numeric_plan(std::string name, DType dtype, std::int64_t components, std::vector<ByteSpan> segments) {
  if (components < 1) throw std::invalid_argument("array '" + name + "' has no components");
  ArrayPlan plan;
  plan.vtk_type = vtk_name_of(dtype);
  plan.name = std::move(name);
  plan.dtype = dtype;
  plan.components = components;
  for (ByteSpan segment : segments) plan.nbytes += segment.size();
  plan.segments = std::move(segments);
  return plan;
}

ArrayPlan plan_points(const NDArray& points, DocumentPlan& plan) {
  const NDArray* padded = &points;
  if (points.dim(1) != 3) padded = &plan.converted.emplace_back(padded_to_3d(points));
  return numeric_plan("Points", padded->dtype(), 3, {bytes_of(*padded)});
}

void plan_point_data(const Mesh& mesh, std::vector<ArrayPlan>& out) {
  for (const auto& [name, array] : mesh.point_data)
    out.push_back(numeric_plan(name, array.dtype(), components_of(array), {bytes_of(array)}));
}

void plan_cell_data(const Mesh& mesh, const std::vector<BlockRows>& pieces, DocumentPlan& plan,
                    std::vector<ArrayPlan>& out) {
  for (const auto& [name, arrays] : mesh.cell_data) {
    if (arrays.empty() || pieces.empty()) continue;
    DType dtype = arrays[pieces.front().block].dtype();
    const std::int64_t components = components_of(arrays[pieces.front().block]);
    for (const BlockRows& rows : pieces) {
      const NDArray& array = arrays[rows.block];
      if (components_of(array) != components)
        throw std::invalid_argument("cell_data['" + name + "'] has blocks with different numbers of components");
      if (array.dtype() != dtype)
        dtype = dtype_is_float(dtype) || dtype_is_float(array.dtype()) ? DType::float64 : DType::int64;
    }
    std::vector<ByteSpan> segments;
    for (const BlockRows& rows : pieces) {
      const NDArray& array = arrays[rows.block];
      const NDArray& typed = array.dtype() == dtype ? array : plan.converted.emplace_back(array.astype(dtype));
      const std::size_t row_bytes = static_cast<std::size_t>(components) * dtype_size(dtype);
      const ByteSpan all = bytes_of(typed);
      segments.push_back(all.subspan(static_cast<std::size_t>(rows.first) * row_bytes,
                                     static_cast<std::size_t>(rows.count) * row_bytes));
    }
    out.push_back(numeric_plan(name, dtype, components, std::move(segments)));
  }
}

void plan_field_data(const Mesh& mesh, DocumentPlan& plan, std::vector<ArrayPlan>& out) {
  for (const auto& [name, array] : mesh.field_data) {
    ArrayPlan field = numeric_plan(name, array.dtype(), components_of(array), {bytes_of(array)});
    field.tuples = array.ndim() == 0 ? 1 : array.rows();
    out.push_back(std::move(field));
  }
  for (const auto& [name, strings] : mesh.string_field_data) {
    // VTK stores a string array as the strings' bytes, each followed by a NUL.
    std::vector<std::uint8_t>& bytes = plan.strings.emplace_back();
    for (const std::string& text : strings) {
      if (text.find('\0') != std::string::npos)
        throw std::invalid_argument("string_field_data['" + name + "'] holds a NUL character, which VTK cannot store");
      bytes.insert(bytes.end(), text.begin(), text.end());
      bytes.push_back(0);
    }
    ArrayPlan field = numeric_plan(name, DType::uint8, 1, {ByteSpan(bytes)});
    field.element = "Array";
    field.vtk_type = "String";
    field.tuples = static_cast<std::int64_t>(strings.size());
    out.push_back(std::move(field));
  }
}

void write_document(const std::string& path, std::string_view format, DocumentPlan& plan,
                    const WriteSettings& settings) {
  try {
    if (settings.mode != DataMode::ascii) {
      // Uncompressed headers are cheap and catch UInt32 overflow before the file is touched;
      // appended offsets need every compressed size up front.
      std::uint64_t offset = 0;
      plan.for_each_array([&](ArrayPlan& array) {
        if (settings.codec == nullptr || settings.mode == DataMode::appended_raw) array.blob = encode_blob(array, settings);
        if (settings.mode == DataMode::appended_raw) {
          array.appended_offset = offset;
          offset += appended_size(array);
        }
      });
    }
    AtomicFile file(path, format);
    OutputBuffer out(file);
    DocumentWriter(out, settings).write(plan);
    out.flush();
    file.commit();
  } catch (const MeshIOError&) {
    throw;
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::runtime_error& error) {  // compressor failures
    throw WriteError(path, std::string(format), error.what());
  }
}

}  // namespace meshioplusplus::io::vtk_xml
