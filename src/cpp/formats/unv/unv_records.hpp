// The reader's view of a universal file: its datasets (each between two "-1" lines) and the
// fields of one record line. Fortran-formatted records put their values in fixed columns
// (I10 integers, D25.16 / E13.5 reals), so neighbouring values may touch (a ten-digit label
// fills its field); a line whose tokens are wider than the field is cut in its columns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meshioplusplus::unv::detail {

// The format's name in every error and temporary file name of this folder.
inline constexpr std::string_view kFormat = "unv";

// One ASCII dataset: its number, where its number line stands, and its body (the lines
// between the number line and the closing "-1"), with the count of non-blank body lines.
struct Dataset {
  std::int64_t number = 0;
  std::size_t header_offset = 0;
  std::size_t begin = 0;
  std::size_t end = 0;
  std::int64_t lines = 0;
};

// Every dataset of `text`, in file order. Binary datasets ("58b" …: a number with a 'b'
// suffix, then byte order, format, ASCII line and byte counts) are passed over by their
// declared size and not listed. Throws ReadError (path, "unv", line) for text outside a
// dataset, a dataset without its closing "-1", or a malformed number line.
std::vector<Dataset> scan_datasets(std::string_view text, const std::string& path);

// A line of a dataset body without its terminator ('\r' included).
struct Line {
  std::size_t begin = 0;  // file offset of the first byte
  std::string_view text;
};

// Walks the lines of [begin, end) of the document.
class Lines {
 public:
  Lines(std::string_view document, std::size_t begin, std::size_t end) : document_(document), pos_(begin), end_(end) {}
  // The next line, blank lines included; false at the end.
  bool next(Line& line) noexcept;
  // The next line with a non-blank character.
  bool next_significant(Line& line) noexcept;
  std::size_t position() const noexcept { return pos_; }

 private:
  std::string_view document_;
  std::size_t pos_;
  std::size_t end_;
};

bool is_blank_line(std::string_view text) noexcept;

// Reads up to `capacity` integers of an I`width` record into `out`; returns how many. A '%'
// ends the record (Code_Aster writes "% comments" after its integers). Throws ReadError when a
// field is not an integer.
std::size_t read_ints(std::string_view document, const Line& line, std::int64_t* out, std::size_t capacity,
                      const std::string& path, std::size_t width = 10);

// The same for reals (E, D, or no exponent letter) of a `width`-column record.
std::size_t read_reals(std::string_view document, const Line& line, double* out, std::size_t capacity,
                       const std::string& path, std::size_t width);

// How many fields read_ints / read_reals would find in `text` (without reading them).
std::size_t count_fields(std::string_view text, std::size_t width = 10);

[[noreturn]] void fail_at(std::string_view document, const std::string& path, std::size_t offset,
                          const std::string& message);

}  // namespace meshioplusplus::unv::detail
