// Private to formats/op2: the Fortran-record layer and the pieces the reader's files share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::op2::detail {

inline constexpr std::string_view kFormat = "op2";

// One Fortran record's payload: [int32 length][payload][int32 length].
struct Piece {
  std::size_t offset = 0;  // of the payload
  std::size_t size = 0;
};

// The data between two markers of a table; long ones are split over several Fortran records
// (each after a record holding its word count), concatenated when read.
struct LogicalRecord {
  std::vector<Piece> pieces;
  std::size_t bytes = 0;
  std::size_t offset() const noexcept { return pieces.empty() ? 0 : pieces.front().offset; }
};

struct Table {
  std::string name;  // trimmed
  std::size_t offset = 0;
  std::vector<LogicalRecord> records;  // records[0] follows marker -2, records[i] marker -(i + 2)
};

// The tables the reader reads (geometry, result tables, LAMA): their record structure is
// checked word by word. Every other table (matrices, DIT, PCOMPTS …, whose layouts vary) is
// passed over record by record to the next table.
bool is_read_table(std::string_view name) noexcept;
bool is_geom1_table(std::string_view name) noexcept;  // GEOM1, GEOM1S (superelements), GEOM1N
bool is_geom2_table(std::string_view name) noexcept;  // GEOM2, GEOM2S, GEOM2N

// The whole file's record structure: tables and where their records lie. Opening reads the
// markers and lengths only (each a jump over the payload).
struct File {
  std::string path;
  std::unique_ptr<io::MappedFile> file;
  std::string_view bytes;
  bool little_endian = true;
  std::vector<Table> tables;

  [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
    throw ReadError(path, std::string(kFormat), message, offset);
  }
  std::int32_t word(std::size_t offset) const noexcept {
    std::uint32_t value;
    std::memcpy(&value, bytes.data() + offset, 4);
    if (!little_endian) value = __builtin_bswap32(value);
    return static_cast<std::int32_t>(value);
  }
  float real(std::size_t offset) const noexcept {
    const std::int32_t bits = word(offset);
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
  }
  // A logical record's bytes, copied together when it spans several Fortran records.
  std::string_view record_bytes(const LogicalRecord& record, std::string& storage) const;
};

File scan(const std::string& path);

// Words of a record, in the file's byte order.
class Words {
 public:
  Words(const File& file, std::string_view bytes, std::size_t offset) : file_(&file), bytes_(bytes), offset_(offset) {}
  std::size_t size() const noexcept { return bytes_.size() / 4; }
  std::int32_t integer(std::size_t i) const noexcept {
    std::uint32_t value;
    std::memcpy(&value, bytes_.data() + 4 * i, 4);
    if (!file_->little_endian) value = __builtin_bswap32(value);
    return static_cast<std::int32_t>(value);
  }
  float real(std::size_t i) const noexcept {
    const std::int32_t bits = integer(i);
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
  }
  // A float64 over words i and i + 1 (NX's double-precision GRID entries).
  double real64(std::size_t i) const noexcept {
    std::uint64_t bits;
    std::memcpy(&bits, bytes_.data() + 4 * i, 8);
    if (!file_->little_endian) bits = __builtin_bswap64(bits);
    double value;
    std::memcpy(&value, &bits, 8);
    return value;
  }
  std::size_t offset_of(std::size_t i) const noexcept { return offset_ + 4 * i; }  // for errors

 private:
  const File* file_;
  std::string_view bytes_;
  std::size_t offset_;
};

struct Geometry {
  Mesh mesh;  // points, cells, nastran:grid_id, nastran:element_id, nastran:ref, regions
  io::IdMap grids;
  // Element id -> (block, row in block).
  io::IdMap elements;
  std::vector<std::int32_t> element_block;
  std::vector<std::int64_t> element_row;
};

Geometry read_geometry(const File& file);

}  // namespace meshioplusplus::op2::detail
