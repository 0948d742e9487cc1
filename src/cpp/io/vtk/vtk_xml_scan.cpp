// DataArrayReader's scan of a VTK XML document's structure: <VTKFile> and its file-level
// encoding, the dataset element, FieldData, the Pieces and their sections, each <DataArray>'s
// tag (ArrayInfo) and where <AppendedData> lies. Nothing is decoded here (vtk_xml_encodings.cpp
// does that); split from it so that no file passes the project's 1,000-line limit.
#include "io/vtk/vtk_xml_internal.hpp"

#include "io/codecs/base64.hpp"

#include <algorithm>
#include <charconv>
#include <system_error>
#include <utility>

namespace meshioplusplus::io::vtk_xml {

using namespace detail;

const DocumentLayout& DataArrayReader::Impl::scan(std::span<const std::string_view> expected_types) {
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
    const std::size_t resume = open_element(*tag, open, expected_types);
    // Raw appended bytes follow; they are addressed by offset, never scanned as markup.
    if (tag->name == "AppendedData") break;
    if (!tag->self_closing) open.push_back(tag->name);
    xml.seek(resume);
  }
  if (!layout_.has_appended && !open.empty())
    fail(doc_.size(), "file ends inside <" + std::string(open.back()) + ">");
  if (!seen_root_) fail(0, "not a VTK XML file: no <VTKFile> element");
  if (!seen_dataset_) fail(0, "no <" + layout_.type + "> element");
  return layout_;
}

Attributes DataArrayReader::Impl::attributes_of(const XmlTag& tag) {
  Attributes attributes;
  for (const XmlAttribute& attribute : tag.attributes)
    attributes.values.emplace_back(std::string(attribute.name), decode_xml_entities(attribute.value));
  return attributes;
}

std::size_t DataArrayReader::Impl::open_element(const XmlTag& tag, const std::vector<std::string_view>& open,
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
    ArrayInfo info = describe_array(tag);
    const std::size_t text_end = info.content_end;  // the array's text is never markup
    add_array(std::move(info), parent, open, tag);
    return text_end;
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
  return tag.end;
}

void DataArrayReader::Impl::require_parent(const XmlTag& tag, std::string_view parent,
                                           std::string_view expected) const {
  if (parent != expected)
    fail(tag.begin, "<" + std::string(tag.name) + "> must be inside <" + std::string(expected) + ">, found it in <" +
                        std::string(parent) + ">");
}

std::optional<std::int64_t> DataArrayReader::Impl::count_attribute(const XmlTag& tag, std::string_view name) const {
  const std::string_view* raw = tag.attribute(name);
  if (raw == nullptr) return std::nullopt;
  return parse_count(*raw, name, tag.begin, tag.name);
}

std::int64_t DataArrayReader::Impl::parse_count(std::string_view raw, std::string_view name, std::size_t offset,
                                                std::string_view element) const {
  const std::string_view text = trim(raw);
  std::int64_t value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() || value < 0)
    fail(offset, std::string(name) + "=\"" + std::string(raw) + "\" of <" + std::string(element) +
                     "> is not a non-negative integer");
  return value;
}

void DataArrayReader::Impl::read_file_attributes(const XmlTag& tag, std::span<const std::string_view> expected_types) {
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

ArrayInfo DataArrayReader::Impl::describe_array(const XmlTag& tag) const {
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
  if (tag.self_closing) return info;
  const std::optional<std::size_t> stated_end =
      info.encoding == Encoding::inline_base64 ? base64_text_end(tag) : std::nullopt;
  info.content_end = stated_end ? *stated_end : std::min(doc_.find('<', tag.end), doc_.size());
  return info;
}

// Where an inline base64 array's text ends (its closing tag), from the size header at its start,
// without reading the text: searching 23 MB of base64 for the next '<' touched every page of it
// and was most of a metadata read. Only for an unbroken stream (VTK's, meshio's), header and data
// encoded together or as two padded streams, followed by whitespace and this element's closing
// tag; anything else (line breaks inside, an empty or broken header) is nullopt and searched. A
// header that lies about the size lands inside base64 text, where no closing tag is (searched
// then), or, in a crafted file, on a later array's closing tag: decoding this array's text then
// meets the skipped markup and fails with a ReadError.
std::optional<std::size_t> DataArrayReader::Impl::base64_text_end(const XmlTag& tag) const {
  constexpr std::size_t kSpaceLimit = 4096;  // indentation before and after the text
  std::size_t begin = tag.end;
  while (begin < doc_.size() && begin - tag.end < kSpaceLimit && is_space(doc_[begin])) ++begin;
  const std::string_view text = doc_.substr(begin);
  const std::size_t word = layout_.header_bytes;
  std::uint64_t header_size = word;
  std::uint64_t data_size = 0;
  if (!compressed()) {
    const std::optional<std::vector<std::uint8_t>> header = unbroken_base64_header(text, word);
    if (!header) return std::nullopt;
    data_size = read_word(header->data());
  } else {
    const std::optional<std::vector<std::uint8_t>> first = unbroken_base64_header(text, 3 * word);
    if (!first) return std::nullopt;
    const std::uint64_t blocks = read_word(first->data());
    if (blocks > text.size() / word) return std::nullopt;  // every word takes more than a character
    header_size = (3 + blocks) * word;
    const std::optional<std::vector<std::uint8_t>> header = unbroken_base64_header(text, static_cast<std::size_t>(header_size));
    if (!header) return std::nullopt;
    for (std::uint64_t b = 0; b < blocks; ++b) {
      const std::uint64_t size = read_word(header->data() + (3 + b) * word);
      if (size > text.size() || data_size > text.size()) return std::nullopt;
      data_size += size;
    }
  }
  if (data_size > text.size()) return std::nullopt;
  std::string closing("</");
  closing.append(tag.name).push_back('>');
  const auto ends_at = [&](std::uint64_t length) -> std::optional<std::size_t> {
    if (length > text.size()) return std::nullopt;
    std::size_t at = begin + static_cast<std::size_t>(length);
    const std::size_t spaces_from = at;
    while (at < doc_.size() && at - spaces_from < kSpaceLimit && is_space(doc_[at])) ++at;
    if (doc_.compare(at, closing.size(), closing) != 0) return std::nullopt;
    return at;
  };
  const auto encoded = [](std::uint64_t bytes) { return (bytes + 2) / 3 * 4; };
  if (std::optional<std::size_t> end = ends_at(encoded(header_size + data_size))) return end;  // one stream
  return ends_at(encoded(header_size) + encoded(data_size));                                   // two streams
}

// The first `header_size` bytes of base64 `text` whose characters up to there are all symbols
// (no whitespace, no markup); nullopt otherwise.
std::optional<std::vector<std::uint8_t>> DataArrayReader::Impl::unbroken_base64_header(std::string_view text,
                                                                                      std::size_t header_size) const {
  const std::size_t needed = base64_encoded_size(header_size);
  if (header_size == 0 || needed > text.size()) return std::nullopt;
  const std::string_view quanta = text.substr(0, needed);
  if (std::any_of(quanta.begin(), quanta.end(), [](char c) { return is_space(c); })) return std::nullopt;
  std::vector<std::uint8_t> decoded(base64_decoded_capacity(needed));
  const std::optional<std::size_t> size = base64_decode(quanta, decoded.data());
  if (!size || *size < header_size) return std::nullopt;
  decoded.resize(header_size);
  return decoded;
}

void DataArrayReader::Impl::add_array(ArrayInfo info, std::string_view parent,
                                      const std::vector<std::string_view>& open, const XmlTag& tag) {
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

void DataArrayReader::Impl::locate_appended_data(const XmlTag& tag) {
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

}  // namespace meshioplusplus::io::vtk_xml
