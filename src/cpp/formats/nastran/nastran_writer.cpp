// Nastran bulk data writer (see nastran.hpp), through a temporary file renamed over the
// target. GRID and element cards are formatted on all cores (io/output/parallel_rows.hpp), in
// file order: the bytes do not depend on the thread count.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "formats/nastran/nastran.hpp"
#include "formats/nastran/nastran_cards.hpp"
#include "formats/nastran/nastran_fields.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"

namespace meshioplusplus::nastran {
namespace {

enum class FieldFormat { free, fixed_small, fixed_large };

FieldFormat field_format(const WriteOptions& options, std::string_view option, std::string_view fallback) {
  const std::string_view value = options.get(option, fallback);
  if (value == "free") return FieldFormat::free;
  if (value == "fixed-small") return FieldFormat::fixed_small;
  if (value == "fixed-large") return FieldFormat::fixed_large;
  throw std::invalid_argument(std::string(option) + " must be free, fixed-small or fixed-large, not '" +
                              std::string(value) + "'");
}

// One field's text, formatted before it is placed (fixed fields are padded to their column).
struct Field {
  char text[64];
  std::uint8_t size = 0;
  std::string_view view() const noexcept { return {text, size}; }
};

// Writes cards in one field format: the name, then data fields, 8 to a line (4 in large
// format), continued with a '+' (large: '*') in field 10 and in field 1 of the next line.
// Cards are formatted straight into a row's buffer (no string per field): the GRID and element
// sections go through io::write_rows_in_parallel, so every method here is const.
class CardWriter {
 public:
  explicit CardWriter(FieldFormat format) : format_(format) {}

  std::size_t width() const noexcept {
    return format_ == FieldFormat::fixed_large ? 16 : format_ == FieldFormat::fixed_small ? 8 : 0;
  }

  // At most this many bytes for a card of `fields` fields named `name`.
  std::size_t longest_card(std::string_view name, std::size_t fields) const noexcept {
    const std::size_t lines = fields / fields_per_line() + 1;
    return lines * (name.size() + 4) + fields * (sizeof(Field::text) + width() + 1) + 8 * lines;
  }

  void integer(Field& field, std::int64_t value) const {
    const char* end = std::to_chars(field.text, field.text + sizeof field.text, value).ptr;
    field.size = static_cast<std::uint8_t>(end - field.text);
    if (width() != 0 && field.size > width())
      throw std::invalid_argument("the id " + std::string(field.view()) + " does not fit in " + std::to_string(width()) +
                                  " columns; write another field format");
  }

  // detail::format_real's text. Its common case is done here without a string: a finite value
  // whose shortest form has no exponent, with the decimal point added where it has none,
  // that fits the field; everything else is detail::format_real's.
  void real(Field& field, double value) const {
    if (std::isfinite(value)) {
      char* end = std::to_chars(field.text, field.text + sizeof field.text - 1, value).ptr;
      const std::string_view shortest(field.text, static_cast<std::size_t>(end - field.text));
      if (shortest.find_first_of("eE") == std::string_view::npos) {
        if (shortest.find('.') == std::string_view::npos) *end++ = '.';
        const auto size = static_cast<std::size_t>(end - field.text);
        if (width() == 0 || size <= width()) {
          field.size = static_cast<std::uint8_t>(size);
          return;
        }
      }
    }
    const std::string text = detail::format_real(value, width());
    if (text.size() > sizeof field.text) throw std::invalid_argument("cannot write the real " + text);
    std::copy(text.begin(), text.end(), field.text);
    field.size = static_cast<std::uint8_t>(text.size());
  }

  // Writes the card at p (at most longest_card bytes); returns its end.
  char* card(char* p, std::string_view name, std::span<const Field> fields) const {
    const std::string_view mark = large() ? "*" : "+";
    char* line = p;
    p = put(p, name);
    if (large()) *p++ = '*';
    std::size_t on_line = 0;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (i > 0 && i % fields_per_line() == 0) {
        p = end_line(line, p, mark);
        line = p;
        p = put(p, mark);
        on_line = 0;
      }
      if (free()) {
        *p++ = ',';
      } else {
        p = pad_to(line, p, 8 + on_line * width());
        ++on_line;
      }
      p = put(p, fields[i].view());
    }
    return end_line(line, p, {});
  }

 private:
  bool free() const noexcept { return format_ == FieldFormat::free; }
  bool large() const noexcept { return format_ == FieldFormat::fixed_large; }
  std::size_t fields_per_line() const noexcept { return large() ? 4 : 8; }

  static char* put(char* p, std::string_view text) noexcept {
    std::memcpy(p, text.data(), text.size());
    return p + text.size();
  }

  // Fixed fields start at their columns: 1, 9, 9 + width, …; field 10 after the last one.
  static char* pad_to(const char* line, char* p, std::size_t column) noexcept {
    const auto size = static_cast<std::size_t>(p - line);
    if (size >= column) return p;
    std::memset(p, ' ', column - size);
    return p + (column - size);
  }

  char* end_line(const char* line, char* p, std::string_view mark) const noexcept {
    if (!mark.empty()) {
      if (free()) {
        *p++ = ',';
      } else {
        p = pad_to(line, p, 8 + fields_per_line() * width());
      }
      p = put(p, mark);
    }
    *p++ = '\n';
    return p;
  }

  FieldFormat format_;
};

bool is_integer(DType dtype) noexcept { return dtype_is_signed_int(dtype) || dtype_is_unsigned_int(dtype); }

// An integer array with one value per row, as an int64 reader; nullptr-safe.
class IntegerColumn {
 public:
  IntegerColumn() = default;
  IntegerColumn(const NDArray* array, std::int64_t rows) {
    if (array != nullptr && is_integer(array->dtype()) && array->size() == static_cast<std::size_t>(rows) &&
        array->rows() == rows)
      array_ = array;
  }
  bool present() const noexcept { return array_ != nullptr; }
  std::int64_t at(std::int64_t row) const {
    return visit_dtype(array_->dtype(), [&](auto tag) -> std::int64_t {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T>) {
        return static_cast<std::int64_t>(array_->data_as<T>()[row]);
      } else {
        return 0;
      }
    });
  }

 private:
  const NDArray* array_ = nullptr;
};

void write_grids(io::OutputBuffer& out, io::AtomicFile& file, const CardWriter& writer, const Mesh& mesh) {
  const IntegerColumn cp(mesh.point_data.find("nastran:ref"), mesh.num_points());
  const std::int64_t dim = mesh.points.dim(1);
  if (dim > 3) throw std::invalid_argument("Nastran GRIDs have 3 coordinates; the points have " + std::to_string(dim));
  visit_dtype(mesh.points.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T* x = mesh.points.data_as<T>();
      io::write_rows_in_parallel(out, file, mesh.num_points(), writer.longest_card("GRID", 5), [&](char* p, std::int64_t i) {
        Field fields[5];
        writer.integer(fields[0], i + 1);
        if (cp.present()) writer.integer(fields[1], cp.at(i));
        for (std::int64_t axis = 0; axis < 3; ++axis)
          writer.real(fields[2 + axis], axis < dim ? static_cast<double>(x[i * dim + axis]) : 0.0);
        return writer.card(p, "GRID", fields);
      });
    }
  });
}

void write_elements(io::OutputBuffer& out, io::AtomicFile& file, const CardWriter& writer, const Mesh& mesh) {
  const std::vector<NDArray>* refs = mesh.cell_data.find("nastran:ref");
  std::int64_t first_id = 1;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    const detail::WrittenElement element = detail::written_element(block.type);
    if (element.card.empty()) throw std::invalid_argument("Nastran has no card for cells of type '" + block.type + "'");
    const IntegerColumn pid(refs != nullptr && refs->size() == mesh.cells.size() ? &(*refs)[b] : nullptr,
                            block.num_cells());
    const std::int64_t nodes = block.connectivity.row_width();
    const std::int64_t* ids = block.connectivity.data_as<std::int64_t>();
    const auto field_count = static_cast<std::size_t>(2 + nodes);
    const std::size_t longest = writer.longest_card(element.card, field_count);
    io::write_rows_in_parallel(out, file, block.num_cells(), longest, [&](char* p, std::int64_t cell) {
      // Small cells (every linear one) format their fields on the stack.
      Field stack_fields[32];
      std::vector<Field> heap_fields(field_count > std::size(stack_fields) ? field_count : 0);
      Field* fields = heap_fields.empty() ? stack_fields : heap_fields.data();
      writer.integer(fields[0], first_id + cell);
      if (pid.present()) writer.integer(fields[1], pid.at(cell));
      for (std::int64_t k = 0; k < nodes; ++k) {
        const std::int64_t from = element.file_order.empty() ? k : element.file_order[k];
        writer.integer(fields[2 + k], ids[cell * nodes + from] + 1);
      }
      return writer.card(p, element.card, std::span<const Field>(fields, field_count));
    });
    first_id += block.num_cells();
  }
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const FieldFormat point_format = field_format(options, "point_format", "fixed-large");
  const FieldFormat cell_format = field_format(options, "cell_format", "fixed-small");
  for (const CellBlock& block : mesh.cells)
    if (detail::written_element(block.type).card.empty())
      throw std::invalid_argument("Nastran has no card for cells of type '" + block.type + "'");
  io::AtomicFile file(path, "nastran");
  io::OutputBuffer out(file);
  out.text("$ Nastran bulk data written by meshio++\nBEGIN BULK\n");
  write_grids(out, file, CardWriter(point_format), mesh);
  write_elements(out, file, CardWriter(cell_format), mesh);
  out.text("ENDDATA\n");
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::nastran
