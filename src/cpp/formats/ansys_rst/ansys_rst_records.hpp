// MAPDL's binary records, as the results file stores them (ansys_rst_records.cpp).
//
// A record at word w (4-byte words from the file's start): int32 n (data words), int32 flags,
// n data words, int32 trailer; the next record starts at w + n + 3. Flags (the top byte of the
// second word): bit 7 integer data (else reals), bit 6 single precision (int16 / float32, else
// int32 / float64), bit 3 bit-sparse (n_values, a 32-bit mask, the values whose bit is set),
// bit 4 windowed-sparse (n_values, n_windows, then per window: an index > 0 and one value, or
// -start and a length, then length values or, for a negative length, one repeated value),
// bit 5 zlib (MAPDL's /FCOMP; not read: a ReadError says to write with /FCOMP,RST,0).
// Every offset is checked against the file before it is read; sizes a record claims are
// checked against its own bytes and read_limits before allocating.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meshioplusplus::ansys_rst::detail {

inline constexpr std::string_view kFormat = "ansys_rst";

class RecordFile {
 public:
  RecordFile(const std::string& path, std::string_view bytes) : path_(path), bytes_(bytes) {}

  // Record at `word`: its values as int64 (integer records) or float64 (real records).
  // `what` names it in errors. ReadError when the record is cut, of the other kind, or bad.
  std::vector<std::int64_t> integers(std::int64_t word, std::string_view what) const;
  std::vector<double> reals(std::int64_t word, std::string_view what) const;
  // The word just after the record at `word` (where MAPDL puts the record that follows).
  std::int64_t next(std::int64_t word, std::string_view what) const;

  [[noreturn]] void fail(std::string message, std::int64_t word) const;
  const std::string& path() const noexcept { return path_; }
  std::uint64_t size() const noexcept { return bytes_.size(); }

 private:
  struct Header {
    std::uint64_t data_offset = 0;
    std::uint64_t data_words = 0;
    unsigned flags = 0;
  };
  Header header(std::int64_t word, std::string_view what) const;
  template <class Out> std::vector<Out> decode(std::int64_t word, std::string_view what, bool want_integers) const;

  std::string path_;
  std::string_view bytes_;
};

}  // namespace meshioplusplus::ansys_rst::detail
