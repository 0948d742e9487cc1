// Fortran format lines and fixed-width fields of .cdb blocks (ansys_cdb_internal.hpp).
#include <cctype>
#include <charconv>
#include <cstring>
#include <system_error>

#include "formats/ansys_cdb/ansys_cdb_internal.hpp"
#include "io/text/fortran_fields.hpp"

namespace meshioplusplus::ansys_cdb::detail {
namespace {

bool digits(std::string_view text, std::size_t& pos, int& value) noexcept {
  const std::size_t start = pos;
  value = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) && pos - start < 6)
    value = value * 10 + (text[pos++] - '0');
  return pos > start;
}

}  // namespace

std::optional<std::vector<FortranField>> parse_fortran_format(std::string_view text, std::string& error) {
  text = io::trim_blanks(text);
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') {
    error = "expected a Fortran format line such as (3i9,6e21.13e3)";
    return std::nullopt;
  }
  text = text.substr(1, text.size() - 2);
  std::vector<FortranField> fields;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t next = text.find(',', pos);
    if (next == std::string_view::npos) next = text.size();
    const std::string_view item = io::trim_blanks(text.substr(pos, next - pos));
    pos = next + 1;
    std::size_t k = 0;
    int repeat = 1;
    if (!digits(item, k, repeat)) repeat = 1;
    if (k < item.size() && (item[k] == 'p' || item[k] == 'P')) {  // a scale factor: 1PE21.13
      ++k;
      if (!digits(item, k, repeat)) repeat = 1;
    }
    if (k >= item.size()) {
      error = "format item '" + std::string(item) + "' has no edit descriptor";
      return std::nullopt;
    }
    const char letter = static_cast<char>(std::toupper(static_cast<unsigned char>(item[k++])));
    bool integer = false;
    if (letter == 'I') integer = true;
    else if (letter == 'E' || letter == 'G' || letter == 'F' || letter == 'D') {
      if (k < item.size() && (item[k] == 's' || item[k] == 'S' || item[k] == 'n' || item[k] == 'N')) ++k;
    } else {
      error = "format item '" + std::string(item) + "' is not an I, E, G, F or D field";
      return std::nullopt;
    }
    int width = 0;
    if (!digits(item, k, width) || width == 0 || width > 64) {
      error = "format item '" + std::string(item) + "' has no field width between 1 and 64";
      return std::nullopt;
    }
    // What follows the width (.13, .13e3) only says how a writer prints the number.
    if (repeat <= 0 || fields.size() + static_cast<std::size_t>(repeat) > 1000) {
      error = "format line with more than 1000 fields";
      return std::nullopt;
    }
    fields.insert(fields.end(), static_cast<std::size_t>(repeat), FortranField{integer, width});
    if (next == text.size()) break;
  }
  if (fields.empty()) {
    error = "format line without fields";
    return std::nullopt;
  }
  return fields;
}

std::vector<std::string_view> command_fields(std::string_view line) {
  const std::size_t comment = line.find('!');
  if (comment != std::string_view::npos) line = line.substr(0, comment);
  std::vector<std::string_view> fields;
  std::size_t pos = 0;
  while (true) {
    const std::size_t next = line.find(',', pos);
    fields.push_back(io::trim_blanks(line.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos)));
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return fields;
}

std::int64_t routine_number(std::string_view name) noexcept {
  std::size_t k = name.size();
  while (k > 0 && std::isdigit(static_cast<unsigned char>(name[k - 1]))) --k;
  if (k == name.size() || name.size() - k > 6) return -1;
  std::int64_t value = 0;
  std::from_chars(name.data() + k, name.data() + name.size(), value);
  return value;
}

}  // namespace meshioplusplus::ansys_cdb::detail
