// The names of a file sequence (include/meshioplusplus/file_sequence.hpp): the step-number
// field of a pattern (printf `%04d` or Python `{:04d}`), glob matching of `*`/`?`, and the
// natural order of the numbers matched. Shared by the sequence's reader and writer.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace meshioplusplus::file_sequence {

// `step_%04d.vtk` → prefix "step_", width 4, suffix ".vtk". `{}` and `%d` have width 0.
struct NumberField {
  std::string prefix;
  std::string suffix;
  int width = 0;
};

// The one number field of a file name, if it has one (a second one is an error: nullopt and
// `*problem` set).
std::optional<NumberField> parse_number_field(std::string_view name, std::string* problem);

std::string format_number(const NumberField& field, long long number);

// The text `name` gives the wildcards of `pattern` (`*`, `?`), concatenated; nullopt when it
// does not match.
std::optional<std::string> match_glob(std::string_view pattern, std::string_view name);

// `text` as a number (the whole of it), for times taken from file names.
std::optional<double> parse_number(std::string_view text);

// Natural order: runs of digits compare by value (out_2 before out_10).
bool natural_less(std::string_view a, std::string_view b);

}  // namespace meshioplusplus::file_sequence

#include <vector>

#include "meshioplusplus/file_sequence.hpp"

namespace meshioplusplus::file_sequence {

// ParaView's `.series` index: {"file-series-version": "1.0", "files": [{"name", "time"}, …]},
// names resolved against the index's folder. ReadError(path, offset) when malformed.
FileSequence read_series_index(const std::string& path);

// The index of `files` (paths) at `times`, as `.series` (JSON) or `.pvd` by the extension of
// `index`, names relative to its folder; written atomically.
void write_sequence_index(const std::string& index, const std::vector<std::string>& files,
                          const std::vector<double>& times);

}  // namespace meshioplusplus::file_sequence
