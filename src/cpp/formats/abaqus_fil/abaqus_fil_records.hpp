// The record layer of Abaqus .fil files: both encodings give the same records of 8-byte words
// (word 0 the record length in words, word 1 the key, then the record's fields).
//   ASCII:  `*` starts a record; fields `I` + 2-digit width + digits, `D` + 22 characters
//           (Fortran D exponent), `A` + 8 characters; lines break every 80 columns anywhere,
//           also inside a field, so line ends are skipped between and inside fields.
//   binary: Fortran sequential records of 4096 bytes (512 words), each framed by 4-byte length
//           markers; a record may continue across blocks; the last block is padded with zero
//           words (a zero length word ends the records).
// Binary words carry no type: a record's reader asks for integer, real or text per field,
// as the key's layout says; ASCII words remember their field letter and convert.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meshioplusplus::abaqus_fil::detail {

inline constexpr std::string_view kFormat = "abaqus_fil";

struct Word {
  std::uint64_t bits = 0;
  char kind = 0;  // 'I', 'D', 'A' in ASCII files; 0 in binary ones
};

struct Record {
  std::int64_t key = 0;
  std::size_t offset = 0;   // byte offset of the record in the file
  std::vector<Word> words;  // the fields after the key
};

std::int64_t integer(const Word& word) noexcept;
double real(const Word& word) noexcept;
std::string text(const Word& word);  // 8 characters, trailing blanks removed

// Reads the records of bytes [begin, end) (begin at a record start). Malformed records throw
// ReadError naming the file and the byte offset.
class RecordStream {
 public:
  // Tells the encoding from the first bytes; checks the block markers of a binary file.
  RecordStream(std::string_view bytes, const std::string& path);
  // The same file, records from byte `begin` to byte `end` (offsets next_offset() gave).
  RecordStream(const RecordStream& file, std::size_t begin, std::size_t end);

  bool binary() const noexcept { return binary_; }
  // False at the end; the record's words are replaced. A binary record whose key `wanted`
  // refuses is stepped over with no words (walking a file for its structure copies only the
  // records it keeps).
  bool next(Record& record, bool (*wanted)(std::int64_t key) = nullptr);
  // Byte offset where the next record starts (the end when there is none).
  std::size_t next_offset() const noexcept;

 private:
  bool next_ascii(Record& record);
  bool next_binary(Record& record, bool (*wanted)(std::int64_t key));
  std::size_t word_offset(std::uint64_t word) const noexcept;
  std::uint64_t word_bits(std::uint64_t word) const noexcept;
  [[noreturn]] void fail(std::size_t offset, const std::string& message) const;

  std::string_view bytes_;
  const std::string* path_;
  bool binary_ = false;
  std::size_t position_ = 0;  // ASCII: byte offset
  std::size_t end_ = 0;
  std::uint64_t word_ = 0;       // binary: the next word
  std::uint64_t end_word_ = 0;   // binary: words in the range
};

}  // namespace meshioplusplus::abaqus_fil::detail
