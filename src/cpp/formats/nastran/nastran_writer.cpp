// Nastran bulk data writer (see nastran.hpp), through a temporary file renamed over the
// target.
#include <cstdint>
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

// Writes cards in one field format: the name, then data fields, 8 to a line (4 in large
// format), continued with a '+' (large: '*') in field 10 and in field 1 of the next line.
class CardWriter {
 public:
  CardWriter(io::OutputBuffer& out, FieldFormat format) : out_(out), format_(format) {}

  std::size_t width() const noexcept {
    return format_ == FieldFormat::fixed_large ? 16 : format_ == FieldFormat::fixed_small ? 8 : 0;
  }

  std::string integer(std::int64_t value) const {
    std::string text = std::to_string(value);
    if (width() != 0 && text.size() > width())
      throw std::invalid_argument("the id " + text + " does not fit in " + std::to_string(width()) +
                                  " columns; write another field format");
    return text;
  }
  std::string real(double value) const { return detail::format_real(value, width()); }

  void card(std::string_view name, std::span<const std::string> fields) {
    const std::string_view mark = large() ? "*" : "+";
    start_line(std::string(name) + (large() ? "*" : ""));
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (i > 0 && i % fields_per_line() == 0) {
        end_line(mark);
        start_line(mark);
      }
      add_field(fields[i]);
    }
    end_line({});
  }

 private:
  bool free() const noexcept { return format_ == FieldFormat::free; }
  bool large() const noexcept { return format_ == FieldFormat::fixed_large; }
  std::size_t fields_per_line() const noexcept { return large() ? 4 : 8; }

  // Fixed fields start at their columns: 1, 9, 9 + width, …; field 10 after the last one.
  void pad_to(std::size_t column) {
    if (line_.size() < column) line_.append(column - line_.size(), ' ');
  }

  void start_line(std::string_view head) {
    line_.clear();
    line_.append(head);
    fields_on_line_ = 0;
  }

  void add_field(std::string_view text) {
    if (free()) {
      line_ += ',';
      line_ += text;
      return;
    }
    pad_to(8 + fields_on_line_ * width());
    line_ += text;
    ++fields_on_line_;
  }

  void end_line(std::string_view mark) {
    if (!mark.empty()) {
      if (free()) {
        line_ += ',';
      } else {
        pad_to(8 + fields_per_line() * width());
      }
      line_ += mark;
    }
    out_.text(line_);
    out_.put('\n');
  }

  io::OutputBuffer& out_;
  FieldFormat format_;
  std::string line_;
  std::size_t fields_on_line_ = 0;
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

void write_grids(CardWriter& writer, const Mesh& mesh) {
  const IntegerColumn cp(mesh.point_data.find("nastran:ref"), mesh.num_points());
  const std::int64_t dim = mesh.points.dim(1);
  if (dim > 3) throw std::invalid_argument("Nastran GRIDs have 3 coordinates; the points have " + std::to_string(dim));
  std::vector<std::string> fields(5);
  visit_dtype(mesh.points.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T* x = mesh.points.data_as<T>();
      for (std::int64_t i = 0; i < mesh.num_points(); ++i) {
        fields[0] = writer.integer(i + 1);
        fields[1] = cp.present() ? writer.integer(cp.at(i)) : std::string();
        for (std::int64_t axis = 0; axis < 3; ++axis)
          fields[2 + axis] = writer.real(axis < dim ? static_cast<double>(x[i * dim + axis]) : 0.0);
        writer.card("GRID", fields);
      }
    }
  });
}

void write_elements(CardWriter& writer, const Mesh& mesh) {
  const std::vector<NDArray>* refs = mesh.cell_data.find("nastran:ref");
  std::int64_t element_id = 1;
  std::vector<std::string> fields;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    const detail::WrittenElement element = detail::written_element(block.type);
    if (element.card.empty()) throw std::invalid_argument("Nastran has no card for cells of type '" + block.type + "'");
    const IntegerColumn pid(refs != nullptr && refs->size() == mesh.cells.size() ? &(*refs)[b] : nullptr,
                            block.num_cells());
    const std::int64_t nodes = block.connectivity.row_width();
    const std::int64_t* ids = block.connectivity.data_as<std::int64_t>();
    fields.resize(static_cast<std::size_t>(2 + nodes));
    for (std::int64_t cell = 0; cell < block.num_cells(); ++cell, ++element_id) {
      fields[0] = writer.integer(element_id);
      fields[1] = pid.present() ? writer.integer(pid.at(cell)) : std::string();
      for (std::int64_t k = 0; k < nodes; ++k) {
        const std::int64_t from = element.file_order.empty() ? k : element.file_order[k];
        fields[2 + k] = writer.integer(ids[cell * nodes + from] + 1);
      }
      writer.card(element.card, fields);
    }
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
  CardWriter grids(out, point_format);
  write_grids(grids, mesh);
  CardWriter elements(out, cell_format);
  write_elements(elements, mesh);
  out.text("ENDDATA\n");
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::nastran
