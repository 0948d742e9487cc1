// What the .cdb reader's passes share: the Fortran format lines of NBLOCK / EBLOCK / CMBLOCK
// and fixed-width fields cut by them (ansys_cdb_fields.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshioplusplus::ansys_cdb::detail {

// One edit descriptor of a format line, repeats expanded: an integer (I) or a real (E, G, F,
// D, ES, EN) field of `width` columns.
struct FortranField {
  bool integer = true;
  int width = 0;
};

// "(3i9,6e21.13e3)", "(19i8)", "(2i8,6g16.9)" -> their fields; nullopt with `error` set when
// the line is not such a format (unknown descriptor, no field, a width of 0 or over 64, more
// than 1,000 fields).
std::optional<std::vector<FortranField>> parse_fortran_format(std::string_view text, std::string& error);

// Fixed-width integer and real fields: io/text/fortran_fields.hpp.

// "ET,  1,186" -> {"ET", "1", "186"}: the comma-separated fields of a command line, blanks
// trimmed, cut at a '!' comment.
std::vector<std::string_view> command_fields(std::string_view line);

// The routine number of an ET command's element name: "186", "SOLID186", "solid186" -> 186;
// -1 when it ends in no digits.
std::int64_t routine_number(std::string_view name) noexcept;

}  // namespace meshioplusplus::ansys_cdb::detail
