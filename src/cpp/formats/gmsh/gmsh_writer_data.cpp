// MSH writer, data sections: $NodeData, $ElementData and $ElementNodeData records (see the
// layout above DataStep in gmsh_writer_internal.hpp), the rows of one array per section. Apart
// from the mesh sections because two writers use it: write() (MshWriter, gmsh_writer.cpp) for a
// mesh's point and cell data, and MshStream (the time-series writer) one step at a time.
#include <algorithm>
#include <charconv>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "formats/gmsh/gmsh_writer_internal.hpp"

namespace meshioplusplus::gmsh::detail::writer {

// $NodeData: one record per point that has a value (all-NaN rows are left out).
void DataSectionWriter::node_data(const DataStep& step, const NDArray& array) {
  header("NodeData", step, array.row_width(), count_rows(array));
  write_rows(array, 1, array.row_width());
  out_.end_section("NodeData");
}

// One array per block, rows matching the blocks (the caller checks). Equal widths in every
// block: $ElementData. Widths of (nodes of the block's type) × c for one c, as the reader
// makes from $ElementNodeData: $ElementNodeData again. Other widths: nothing, false.
bool DataSectionWriter::element_data(const DataStep& step, const std::vector<NDArray>& arrays) {
  if (!fits(blocks_, arrays)) return false;
  std::int64_t count = 0;
  for (const NDArray& array : arrays) count += count_rows(array);
  if (const std::int64_t width = common_width(arrays); width > 0) {
    header("ElementData", step, width, count);
    for (std::size_t b = 0; b < arrays.size(); ++b) write_rows(arrays[b], blocks_[b].base + 1, width);
    out_.end_section("ElementData");
    return true;
  }
  if (const std::int64_t components = per_node_components(blocks_, arrays); components > 0) {
    header("ElementNodeData", step, components, count);
    for (std::size_t b = 0; b < arrays.size(); ++b)
      write_rows(arrays[b], blocks_[b].base + 1, components, blocks_[b].type);
    out_.end_section("ElementNodeData");
    return true;
  }
  return false;
}

// Whether element_data() can write `arrays` (one per block, at least one block).
bool DataSectionWriter::fits(const std::vector<BlockPlan>& blocks, const std::vector<NDArray>& arrays) {
  return common_width(arrays) > 0 || per_node_components(blocks, arrays) > 0;
}

std::int64_t DataSectionWriter::common_width(const std::vector<NDArray>& arrays) {
  for (const NDArray& array : arrays)
    if (array.row_width() != arrays.front().row_width()) return 0;
  return arrays.front().row_width();
}

std::int64_t DataSectionWriter::per_node_components(const std::vector<BlockPlan>& blocks, const std::vector<NDArray>& arrays) {
  const std::int64_t components = arrays.front().row_width() / blocks.front().type->num_nodes;
  for (std::size_t b = 0; b < arrays.size(); ++b)
    if (components == 0 || arrays[b].row_width() != blocks[b].type->num_nodes * components) return 0;
  return components;
}

void DataSectionWriter::header(std::string_view section, const DataStep& step, std::int64_t components, std::int64_t count) {
  out_.begin_section(section);
  out_.text_line("1");
  out_.text_line(quoted(step.view));
  out_.text_line("1");
  char time[32];
  const auto result = std::to_chars(time, time + sizeof time, step.time);
  out_.text_line(std::string_view(time, static_cast<std::size_t>(result.ptr - time)));
  out_.text_line(partition_tag_ ? "4" : "3");
  out_.text_line(number_text(step.step));
  out_.text_line(number_text(components));
  out_.text_line(number_text(count));
  if (partition_tag_) out_.text_line("0");
}

// A row the reader would have made from no entry (all NaN) is left out again.
template <class T> bool DataSectionWriter::has_values(const T* row, std::int64_t width) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::any_of(row, row + width, [](T value) { return value == value; });
  } else {
    return width > 0;
  }
}

// Writes the rows of `array` as data records tagged first_tag, first_tag + 1, ….
// `type` given: element-node records (tag, node count, values per node in Gmsh node
// order) for elements of `type`.
void DataSectionWriter::write_rows(const NDArray& array, std::int64_t first_tag, std::int64_t components,
                const GmshElementType* type) {
  visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* values = array.data_as<T>();
    const std::int64_t width = array.row_width();
    std::vector<double> row(static_cast<std::size_t>(width));
    for (std::int64_t r = 0; r < array.rows(); ++r) {
      const T* in = values + r * width;
      if (!has_values(in, width)) continue;
      if (type == nullptr) {
        for (std::int64_t c = 0; c < width; ++c) row[static_cast<std::size_t>(c)] = static_cast<double>(in[c]);
      } else {
        const std::span<const std::uint16_t> order = type->gmsh_from_meshio;
        for (int j = 0; j < type->num_nodes; ++j) {
          const std::int64_t from = order.empty() ? j : order[static_cast<std::size_t>(j)];
          for (std::int64_t c = 0; c < components; ++c)
            row[static_cast<std::size_t>(j * components + c)] = static_cast<double>(in[from * components + c]);
        }
      }
      write_record(first_tag + r, type ? type->num_nodes : 0, row);
    }
  });
}

void DataSectionWriter::write_record(std::int64_t tag, int node_count, const std::vector<double>& row) {
  if (out_.binary()) {
    const auto tag32 = static_cast<std::int32_t>(tag);
    out_.out().bytes(&tag32, 4);
    if (node_count > 0) out_.out().bytes(&node_count, 4);
    out_.out().bytes(row.data(), row.size() * 8);
    return;
  }
  out_.size(static_cast<std::uint64_t>(tag));
  if (node_count > 0) out_.int32(node_count);
  for (const double value : row) out_.real(value);
  out_.end_record();
}

std::int64_t DataSectionWriter::count_rows(const NDArray& array) {
  std::int64_t count = 0;
  visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* values = array.data_as<T>();
    const std::int64_t width = array.row_width();
    for (std::int64_t r = 0; r < array.rows(); ++r) count += has_values(values + r * width, width) ? 1 : 0;
  });
  return count;
}

}  // namespace meshioplusplus::gmsh::detail::writer
