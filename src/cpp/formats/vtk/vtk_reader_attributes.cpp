// VTK legacy reader, attributes: POINT_DATA / CELL_DATA and the arrays under them (SCALARS,
// COLOR_SCALARS, LOOKUP_TABLE, VECTORS, NORMALS, TEXTURE_COORDINATES, TENSORS, TENSORS6,
// GLOBAL_IDS, PEDIGREE_IDS), FIELD arrays, and the check of the declared counts against the
// dataset. Apart from the geometry (vtk_reader_geometry.cpp): the same in every dataset kind.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "formats/vtk/vtk_reader_internal.hpp"

namespace meshioplusplus::vtk::detail {

// ---- attribute sections ----

void LegacyReader::declare_attribute(const HeaderLine& header, Attribute attribute, DeclaredCount& declared) {
  require_tokens(header, 2, std::string(header.keyword()) + " n");
  const std::int64_t count = header_count(header, 1, "count");
  if (declared.count >= 0 && declared.count != count)
    fail(header, std::string(header.keyword()) + " declared again with a different count");
  declared = {count, header.offset};
  attribute_ = attribute;
}

const DeclaredCount& LegacyReader::attribute_count() const {
  return attribute_ == Attribute::point ? point_data_count_ : cell_data_count_;
}

void LegacyReader::store_attribute(std::string_view encoded_name, NDArray array) {
  std::string name = detail::decode_name(encoded_name);
  if (attribute_ == Attribute::point) {
    mesh_.point_data.set(std::move(name), std::move(array));
  } else if (attribute_ == Attribute::cell) {
    raw_cell_data_.set(std::move(name), std::move(array));
  } else {
    mesh_.field_data.set(std::move(name), std::move(array));
  }
}

// "KEYWORD name dataType" followed by rows of fixed shape.
void LegacyReader::read_named_array(const HeaderLine& header, Shape shape) {
  require_tokens(header, 3, std::string(header.keyword()) + " name dataType");
  read_attribute(header.tokens[1], header_type(header, 2), std::move(shape), header.keyword());
}

void LegacyReader::read_scalars(const HeaderLine& header, std::int64_t rows) {
  require_tokens(header, 3, "SCALARS name dataType [numComp]");
  const LegacyType type = header_type(header, 2);
  const std::int64_t components = header.tokens.size() > 3 ? header_count(header, 3, "numComp") : 1;
  if (components < 1 || components > 4) fail(header, "SCALARS numComp must be 1 to 4");
  if (next_line_starts_with("LOOKUP_TABLE")) scan_.next_line();  // the table's name; colours are not kept
  read_attribute(header.tokens[1], type, {rows, components}, "SCALARS");
}

// Colours are bytes in binary files but floats in [0, 1] in ASCII ones; each keeps its type.
void LegacyReader::read_color_scalars(const HeaderLine& header, std::int64_t rows) {
  require_tokens(header, 3, "COLOR_SCALARS name nValues");
  const std::int64_t components = header_count(header, 2, "nValues");
  read_attribute(header.tokens[1], color_type(), {rows, components}, "COLOR_SCALARS");
}

LegacyType LegacyReader::color_type() const noexcept {
  return binary_ ? LegacyType{DType::uint8, DType::uint8} : LegacyType{DType::float32, DType::float32};
}

void LegacyReader::read_texture_coordinates(const HeaderLine& header, std::int64_t rows) {
  require_tokens(header, 4, "TEXTURE_COORDINATES name dim dataType");
  const std::int64_t dim = header_count(header, 2, "dim");
  if (dim < 1 || dim > 3) fail(header, "TEXTURE_COORDINATES dim must be 1, 2 or 3");
  read_attribute(header.tokens[1], header_type(header, 3), {rows, dim}, "TEXTURE_COORDINATES");
}

void LegacyReader::skip_lookup_table(const HeaderLine& header) {
  require_tokens(header, 3, "LOOKUP_TABLE name size");
  const std::int64_t size = header_count(header, 2, "size");
  if (size > std::numeric_limits<std::int64_t>::max() / 4) fail(header, "LOOKUP_TABLE size is too large");
  skip_values(color_type(), static_cast<std::uint64_t>(size) * 4, "LOOKUP_TABLE");  // RGBA per entry
}

void LegacyReader::read_field(const HeaderLine& header) {
  require_tokens(header, 3, "FIELD name numArrays");
  const std::int64_t num_arrays = header_count(header, 2, "array count");
  for (std::int64_t index = 0; index < num_arrays;) {
    scan_.skip_whitespace();
    if (scan_.at_end())
      fail(header, "FIELD declares " + std::to_string(num_arrays) + " arrays but the file ends after " +
                       std::to_string(index));
    const HeaderLine array_header = next_header_line();
    if (array_header.is("METADATA")) {
      skip_metadata();
      continue;
    }
    ++index;
    if (array_header.is("NULL_ARRAY")) continue;
    read_field_array(array_header);
  }
}

void LegacyReader::read_field_array(const HeaderLine& header) {
  require_tokens(header, 4, "arrayName numComponents numTuples dataType");
  const std::int64_t components = header_count(header, 1, "numComponents");
  const std::int64_t tuples = header_count(header, 2, "numTuples");
  if (components < 1) fail(header, "numComponents must be at least 1");
  if (attribute_ != Attribute::none && tuples != attribute_count().count)
    fail(header, "array '" + std::string(header.tokens[0]) + "' has " + std::to_string(tuples) +
                     " tuples but its section declares " + std::to_string(attribute_count().count));
  const LegacyType type = header_type(header, 3);
  Shape shape = components == 1 ? Shape{tuples} : Shape{tuples, components};
  read_attribute(header.tokens[0], type, std::move(shape), "FIELD array");
}

void LegacyReader::check_attribute_counts() {
  if (point_data_count_.count >= 0 && point_data_count_.count != mesh_.num_points())
    scan_.fail_at(point_data_count_.offset, "POINT_DATA declares " + std::to_string(point_data_count_.count) +
                                                " values but the dataset has " + std::to_string(mesh_.num_points()) +
                                                " points");
  // (A points_only read jumped over the cells, and their data with them.)
  if (cell_data_count_.count >= 0 && !skips_cells() && cell_data_count_.count != num_source_cells_)
    scan_.fail_at(cell_data_count_.offset, "CELL_DATA declares " + std::to_string(cell_data_count_.count) +
                                               " values but the dataset has " + std::to_string(num_source_cells_) +
                                               " cells");
}

}  // namespace meshioplusplus::vtk::detail
