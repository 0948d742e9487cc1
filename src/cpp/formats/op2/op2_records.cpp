// The Fortran-record layer of an OP2 file (pyNastran's "OP2 format" notes describe it).
//
// Every record is [int32 n][n bytes][int32 n]; the first record's length (4, in either byte
// order) tells the byte order. The file starts with a header (a record holding 3, the date
// (3 words), 7, "NASTRAN FORT TAPE ID CODE - ", 2, an 8-character label, -1, 0), which some
// writers leave out. Then tables, each:
//   2, name (8 characters), -1, 7, the table's 7-word header, -2,
//   then per record: 1, 0, the word count, the data (several count + data pairs when long),
//   and the next marker (-3, -4, …); a marker followed by 1, 0, 0 ends the table.
// A record holding 0 after the last table ends the file. Every length is checked against the
// end of the file before anything is read from behind it. Tables the reader does not read
// (matrices such as BHH, whose column records differ; DIT; PCOMPTS …) are walked over one
// Fortran record at a time up to the next table's start, as pyNastran skips what it does not
// know.
#include <algorithm>
#include <initializer_list>
#include <string>

#include "formats/op2/op2_internal.hpp"

namespace meshioplusplus::op2::detail {
namespace {

class RecordReader {
 public:
  explicit RecordReader(File& file) : file_(file) {}

  bool at_end() const noexcept { return position_ >= file_.bytes.size(); }
  std::size_t position() const noexcept { return position_; }

  Piece next(std::string_view what) {
    const std::size_t size = file_.bytes.size();
    if (size - position_ < 8) file_.fail(position_, "truncated file: " + std::string(what) + " cut off");
    const std::int32_t length = file_.word(position_);
    if (length < 0 || static_cast<std::size_t>(length) > size - position_ - 8)
      file_.fail(position_, "record length " + std::to_string(length) + " of " + std::string(what) +
                                " runs past the end of the file");
    const std::size_t trailer = position_ + 4 + static_cast<std::size_t>(length);
    if (file_.word(trailer) != length)
      file_.fail(trailer, "record of " + std::to_string(length) + " bytes (" + std::string(what) +
                              ") not closed by its length: not an OP2 file or a corrupt one");
    const Piece piece{position_ + 4, static_cast<std::size_t>(length)};
    position_ = trailer + 4;
    return piece;
  }

  std::int32_t integer(std::string_view what) {
    const std::size_t at = position_;
    const Piece piece = next(what);
    if (piece.size != 4) file_.fail(at, std::string(what) + ": expected a one-word record, found " +
                                            std::to_string(piece.size) + " bytes");
    return file_.word(piece.offset);
  }

  void expect(std::int32_t value, std::string_view what) {
    const std::size_t at = position_;
    const std::int32_t found = integer(what);
    if (found != value)
      file_.fail(at, std::string(what) + ": expected " + std::to_string(value) + ", found " + std::to_string(found));
  }

  // Whether a table starts here: 2, an 8-byte name, [6, a 24-byte record], -1, 7.
  bool at_table() const noexcept {
    const std::string_view b = file_.bytes;
    std::size_t p = position_;
    auto word_record = [&](std::int32_t value) {
      if (b.size() - p < 12 || file_.word(p) != 4 || file_.word(p + 4) != value || file_.word(p + 8) != 4) return false;
      p += 12;
      return true;
    };
    if (p > b.size() || !word_record(2)) return false;
    if (b.size() - p < 16 || file_.word(p) != 8 || file_.word(p + 12) != 8) return false;
    p += 16;
    if (word_record(6)) {
      if (b.size() - p < 32 || file_.word(p) != 24 || file_.word(p + 28) != 24) return false;
      p += 32;
    }
    return word_record(-1) && word_record(7);
  }

  // Whether the next record holds the one word `value` (read nothing).
  bool at_word(std::int32_t value) const noexcept {
    const std::string_view b = file_.bytes;
    return position_ <= b.size() && b.size() - position_ >= 12 && file_.word(position_) == 4 &&
           file_.word(position_ + 4) == value && file_.word(position_ + 8) == 4;
  }

 private:
  File& file_;
  std::size_t position_ = 0;
};

std::string trimmed_name(std::string_view bytes) {
  std::string name(bytes);
  while (!name.empty() && (name.back() == ' ' || name.back() == '\0')) name.pop_back();
  return name;
}

void read_table(File& file, RecordReader& records) {
  Table table;
  table.offset = records.position();
  records.expect(2, "table name length");
  const Piece name = records.next("table name");
  table.name = trimmed_name(file.bytes.substr(name.offset, name.size));
  const std::string what = "table " + table.name;
  if (!is_read_table(table.name)) {
    // Walked to the next table; a walk that meets the end of the file must have passed the
    // end-of-file record (one word 0) last, or the file was cut inside this table.
    Piece last{};
    while (!records.at_end() && !records.at_table()) last = records.next(what + ": a record");
    if (records.at_end() && (last.size != 4 || file.word(last.offset) != 0))
      file.fail(records.position(), "truncated file: " + what + " is cut off before the end-of-file record");
    return;  // not kept: nothing reads it
  }
  if (records.at_word(6)) {  // MSC 2014+: the version and name record
    records.next(what + ": version record length");
    records.next(what + ": version record");
  }
  records.expect(-1, what + ": marker -1");
  records.expect(7, what + ": header length");
  records.next(what + ": header");
  records.expect(-2, what + ": marker -2");
  for (std::int32_t marker = -2;; --marker) {
    records.expect(1, what + ": record start (1)");
    records.expect(0, what + ": record start (0)");
    const std::size_t count_at = records.position();
    std::int32_t words = records.integer(what + ": word count");
    if (words == 0) break;  // the end of the table
    if (words < 0) file.fail(count_at, what + ": negative word count " + std::to_string(words));
    LogicalRecord record;
    while (words > 0) {
      const std::size_t data_at = records.position();
      const Piece piece = records.next(what + ": data");
      if (piece.size != 4 * static_cast<std::size_t>(words))
        file.fail(data_at, what + ": data record of " + std::to_string(piece.size) + " bytes, its count says " +
                               std::to_string(words) + " words");
      record.pieces.push_back(piece);
      record.bytes += piece.size;
      const std::size_t next_at = records.position();
      words = records.integer(what + ": marker");
      if (words < 0 && words != marker - 1)
        file.fail(next_at, what + ": marker " + std::to_string(words) + " where " + std::to_string(marker - 1) +
                               " belongs");
    }
    table.records.push_back(std::move(record));
  }
  file.tables.push_back(std::move(table));
}

bool starts_with_any(std::string_view name, std::initializer_list<std::string_view> prefixes) noexcept {
  for (const std::string_view prefix : prefixes)
    if (name.starts_with(prefix)) return true;
  return false;
}

}  // namespace

bool is_geom1_table(std::string_view name) noexcept { return name == "GEOM1" || name == "GEOM1S" || name == "GEOM1N"; }
bool is_geom2_table(std::string_view name) noexcept { return name == "GEOM2" || name == "GEOM2S" || name == "GEOM2N"; }

bool is_read_table(std::string_view name) noexcept {
  return is_geom1_table(name) || is_geom2_table(name) || name == "LAMA" ||
         starts_with_any(name, {"OUG", "BOUG", "OQG", "OPG", "OQMG", "OES", "OSTR"});
}

std::string_view File::record_bytes(const LogicalRecord& record, std::string& storage) const {
  if (record.pieces.size() == 1) return bytes.substr(record.pieces.front().offset, record.bytes);
  storage.clear();
  storage.reserve(record.bytes);
  for (const Piece& piece : record.pieces) storage.append(bytes.substr(piece.offset, piece.size));
  return storage;
}

File scan(const std::string& path) {
  File file;
  file.path = path;
  file.file = std::make_unique<io::MappedFile>(path, std::string(kFormat));
  file.bytes = file.file->bytes();
  const std::string_view b = file.bytes;
  if (b.size() < 12) file.fail(0, "too short for an OP2 file (" + std::to_string(b.size()) + " bytes)");
  const auto first = reinterpret_cast<const unsigned char*>(b.data());
  if (first[0] == 4 && first[1] == 0 && first[2] == 0 && first[3] == 0) file.little_endian = true;
  else if (first[0] == 0 && first[1] == 0 && first[2] == 0 && first[3] == 4) file.little_endian = false;
  else if ((first[0] == 8 && first[1] == 0) || (first[3] == 8 && first[2] == 0))
    file.fail(0, "a 64-bit OP2 file (8-byte words): only 32-bit OP2 files are read");
  else file.fail(0, "not an OP2 file: the first record is not one 4-byte word");
  RecordReader records(file);
  // The header: records up to the first table (their layout varies between writers).
  for (int skipped = 0; !records.at_table(); ++skipped) {
    if (records.at_end() || skipped > 16) file.fail(records.position(), "no table found after the OP2 header");
    records.next("header");
  }
  while (!records.at_end()) {
    if (records.at_table()) {
      read_table(file, records);
      continue;
    }
    const std::size_t at = records.position();
    if (records.integer("end of file") != 0) file.fail(at, "expected a table or the end-of-file record 0: a truncated or corrupt file");
    break;
  }
  return file;
}

}  // namespace meshioplusplus::op2::detail
