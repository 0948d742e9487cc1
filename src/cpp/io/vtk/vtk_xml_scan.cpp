// DataArrayReader's scan of a VTK XML document's structure: <VTKFile> and its file-level
// encoding, the dataset element, FieldData, the Pieces and their sections, each <DataArray>'s
// tag (ArrayInfo) and where <AppendedData> lies. Nothing is decoded here (vtk_xml_encodings.cpp
// does that); split from it so that no file passes the project's 1,000-line limit.
#include "io/vtk/vtk_xml_internal.hpp"

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

Attributes DataArrayReader::Impl::attributes_of(const XmlTag& tag) {
  Attributes attributes;
  for (const XmlAttribute& attribute : tag.attributes)
    attributes.values.emplace_back(std::string(attribute.name), decode_xml_entities(attribute.value));
  return attributes;
}

void DataArrayReader::Impl::open_element(const XmlTag& tag, const std::vector<std::string_view>& open,
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
  if (!tag.self_closing) info.content_end = std::min(doc_.find('<', tag.end), doc_.size());
  return info;
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
