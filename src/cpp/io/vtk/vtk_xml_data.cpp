// The VTK XML <DataArray> layer's names (VTK type and compressor names, the layout lookups) and
// DataArrayReader's public members, which forward to its implementation class
// (vtk_xml_internal.hpp). The rest is split by concern to keep each file under the project's
// 1,000 lines: the XML scan (vtk_xml_scan.cpp), the encodings of an array's bytes
// (vtk_xml_encodings.cpp), typed arrays (vtk_xml_arrays.cpp) and writing (vtk_xml_write.cpp).
#include "io/vtk/vtk_xml_internal.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <memory>
#include <system_error>
#include <utility>

#include "io/source/parallel.hpp"

namespace meshioplusplus::io::vtk_xml {

using namespace detail;

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

// ------------------------------------------------------------------ shared by the reader's files

namespace detail {

NDArray allocate(Lifetime lifetime, DType dtype, Shape shape) {
  return lifetime == Lifetime::result ? NDArray::allocate(dtype, std::move(shape))
                                      : NDArray::allocate_scratch(dtype, std::move(shape));
}

std::string_view trim(std::string_view text) noexcept {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::uint64_t count_tokens(std::string_view text) noexcept {
  return io::count_tokens(text.data(), text.data() + text.size());
}

}  // namespace detail

namespace {

using Slice = DataArrayReader::Slice;

}  // namespace

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

namespace {
bool is_data_section(std::string_view name) { return name == "PointData" || name == "CellData"; }
}  // namespace

std::vector<std::string> DataArrayReader::data_array_names() const {
  std::vector<std::string> names;
  const auto add = [&names](const ArrayInfo& info) {
    if (std::find(names.begin(), names.end(), info.name) == names.end()) names.push_back(info.name);
  };
  for (const Piece& piece : impl_->layout_.pieces)
    for (const Section& section : piece.sections)
      if (is_data_section(section.name)) std::for_each(section.arrays.begin(), section.arrays.end(), add);
  std::for_each(impl_->layout_.field_data.begin(), impl_->layout_.field_data.end(), add);
  return names;
}

void DataArrayReader::keep_data_arrays(std::span<const std::string> names) {
  const auto unwanted = [names](const ArrayInfo& info) {
    return std::find(names.begin(), names.end(), info.name) == names.end();
  };
  for (Piece& piece : impl_->layout_.pieces)
    for (Section& section : piece.sections)
      if (is_data_section(section.name)) std::erase_if(section.arrays, unwanted);
  std::erase_if(impl_->layout_.field_data, unwanted);
}
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
void DataArrayReader::count_cell_types(const ArrayInfo& info, std::int64_t count, VtkTypeCounts& counts) const {
  impl_->count_cell_types(info, count, counts);
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

}  // namespace meshioplusplus::io::vtk_xml
