// DataArrayReader's typed arrays: the count checks made before anything is allocated, dtype
// conversions, views of raw appended values in the mapped file, the index, cell-type and
// offset arrays the cell converter takes, arrays gathered from several pieces, string arrays
// and FieldData. Built on the decoders of vtk_xml_encodings.cpp, split from them so that no
// file passes the project's 1,000-line limit.
#include "io/vtk/vtk_xml_internal.hpp"

#include <limits>
#include <type_traits>
#include <utility>

#include "core/parallel_ranges.hpp"
#include "io/source/byte_order.hpp"

namespace meshioplusplus::io::vtk_xml {

using namespace detail;

namespace {

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

// Checks that `info` holds exactly `count` values, before anything is allocated for it.
PreparedArray DataArrayReader::Impl::prepare(const ArrayInfo& info, std::uint64_t count) const {
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

void DataArrayReader::Impl::decode(const PreparedArray& prepared, void* out) const {
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
void DataArrayReader::Impl::decode_as(const PreparedArray& prepared, DType dtype, void* out) const {
  if (*prepared.info->dtype == dtype) {
    decode(prepared, out);
    return;
  }
  NDArray scratch = NDArray::allocate_scratch(*prepared.info->dtype, {static_cast<std::int64_t>(prepared.count)});
  decode(prepared, scratch.data());
  convert_values(scratch, dtype, out);
}

// How many values an array holds when no attribute says so.
std::uint64_t DataArrayReader::Impl::stored_count(const ArrayInfo& info) const {
  if (info.encoding == Encoding::ascii) return count_tokens(doc_.substr(info.content_begin, info.content_end - info.content_begin));
  const Payload payload = open_payload(info);
  const std::size_t item = info.is_string() ? 1 : dtype_size(*info.dtype);
  if (payload.size % item != 0)
    fail(payload.header_offset, label(info) + " holds " + std::to_string(payload.size) +
                                    " bytes, not a whole number of " + std::string(dtype_name(*info.dtype)) + " values");
  return payload.size / item;
}

// Raw appended bytes in the host's byte order, aligned for their type, already are the
// array: scratch (read, converted and dropped within this read) then views the mapped file
// instead of copying it, which for a cell stream saved a pass over tens of megabytes and
// the page faults of a fresh scratch buffer. VTK reads each array once; so do we now.
std::optional<NDArray> DataArrayReader::Impl::mapped_view(const PreparedArray& prepared, const Shape& shape,
                                                          bool any_alignment) const {
  const ArrayInfo& info = *prepared.info;
  if (info.encoding != Encoding::appended || !prepared.payload || prepared.payload->base64 ||
      prepared.payload->compressed || layout_.little_endian != kHostIsLittleEndian || info.is_string())
    return std::nullopt;
  const char* data = prepared.payload->data.data();
  if (!any_alignment && reinterpret_cast<std::uintptr_t>(data) % dtype_size(*info.dtype) != 0) return std::nullopt;
  return NDArray::view(const_cast<char*>(data), *info.dtype, shape);
}

std::optional<NDArray> DataArrayReader::Impl::mapped_values(const ArrayInfo& info, std::int64_t count) const {
  if (dtype_is_float(*info.dtype)) fail(info.tag_offset, label(info) + " must hold integers");
  if (info.components != 1) fail(info.tag_offset, label(info) + " must have one component");
  return mapped_view(prepare(info, static_cast<std::uint64_t>(count)), {count}, /*any_alignment=*/true);
}

std::optional<NDArray> DataArrayReader::Impl::mapped_array(const ArrayInfo& info, const Shape& shape) const {
  if (info.is_string()) return std::nullopt;
  std::uint64_t count = 1;
  for (std::int64_t extent : shape) count = checked_product(count, static_cast<std::uint64_t>(extent), info.tag_offset);
  return mapped_view(prepare(info, count), shape, /*any_alignment=*/true);
}

NDArray DataArrayReader::Impl::read_array(const ArrayInfo& info, Shape shape, Lifetime lifetime) const {
  std::uint64_t count = 1;
  for (std::int64_t extent : shape) count = checked_product(count, static_cast<std::uint64_t>(extent), info.tag_offset);
  const PreparedArray prepared = prepare(info, count);
  if (lifetime == Lifetime::scratch)
    if (std::optional<NDArray> view = mapped_view(prepared, shape)) return std::move(*view);
  NDArray array = allocate(lifetime, *info.dtype, std::move(shape));
  decode(prepared, array.data());
  return array;
}

NDArray DataArrayReader::Impl::read_integer_array(const ArrayInfo& info, std::int64_t count, Lifetime lifetime) const {
  if (dtype_is_float(*info.dtype)) fail(info.tag_offset, label(info) + " must hold integers");
  if (info.components != 1) fail(info.tag_offset, label(info) + " must have one component");
  return read_array(info, {count}, lifetime);
}

// Index arrays the cell converter takes as int64 spans (types, offsets, face tables).
std::vector<std::int64_t> DataArrayReader::Impl::read_index_vector(const ArrayInfo& info, std::int64_t count) const {
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
NDArray DataArrayReader::Impl::read_cell_types(const ArrayInfo& info, std::int64_t count) const {
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

void DataArrayReader::Impl::count_cell_types(const ArrayInfo& info, std::int64_t count, VtkTypeCounts& counts) const {
  if (*info.dtype == DType::uint8 && info.components == 1 && file_ != nullptr && file_->is_mapped()) {
    const PreparedArray prepared = prepare(info, static_cast<std::uint64_t>(count));
    if (prepared.payload && !prepared.payload->base64 && !prepared.payload->compressed) {
      const std::string_view data = prepared.payload->data;  // checked against the file by prepare
      constexpr std::size_t kChunk = std::size_t{1} << 16;
      std::vector<std::uint8_t> chunk(std::min(kChunk, data.size()));
      for (std::size_t done = 0; done < data.size();) {
        const std::size_t size = std::min(kChunk, data.size() - done);
        if (!file_->copy_out(offset_of(data) + done, chunk.data(), size))
          fail(offset_of(data), label(info) + ": the file ends inside its bytes (file changed size while being read)");
        counts.add({chunk.data(), size});  // runs cut at a chunk's end add to the same counts
        done += size;
      }
      return;
    }
  }
  const NDArray types = read_cell_types(info, count);
  counts.add(types.values<std::uint8_t>());
}

// VTU offsets are the n end positions; the cell converter wants n+1 starts (int64, scratch),
// written behind the leading 0 on all cores, with the first error a sequential pass finds.
NDArray DataArrayReader::Impl::read_starts(const ArrayInfo& info, std::int64_t count) const {
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
NDArray DataArrayReader::Impl::gather(const std::vector<DataArrayReader::Slice>& slices, DType dtype,
                                      std::int64_t components, bool keep_component_axis) const {
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

std::vector<std::uint8_t> DataArrayReader::Impl::string_bytes(const ArrayInfo& info) const {
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

std::vector<std::string> DataArrayReader::Impl::read_strings(const ArrayInfo& info) const {
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

void DataArrayReader::Impl::read_field_data(Mesh& mesh) const {
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

}  // namespace meshioplusplus::io::vtk_xml
