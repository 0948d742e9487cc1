// EnSight Gold internals shared by the case, geometry, variable and reader sources
// (ensight_reader.cpp says what becomes what).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::ensight {

inline constexpr const char* kFormat = "ensight";

// ---- the bytes of one geometry or variable file --------------------------------------------

enum class Encoding { ascii, c_binary, fortran_binary };

// Reads EnSight's three encodings through one interface: strings (a line in ASCII, an
// 80-byte record in binary), ints and floats (whitespace-free runs parsed in ASCII, where
// EnSight's fixed-width %12.5e fields may touch; 4-byte values in binary, byte order found from
// the first int read; Fortran records' length markers consumed and checked). Every read is
// bounds-checked and throws ReadError(path, "ensight", …, byte offset).
class Stream {
 public:
  // `encoding` unset: from the file's first bytes ("C Binary", a Fortran record holding
  // "Fortran Binary", else ASCII), as geometry files start; variable files carry no such
  // header and take their geometry's.
  Stream(std::string_view bytes, std::string path, std::optional<Encoding> encoding = std::nullopt);

  Encoding encoding() const noexcept { return encoding_; }
  bool at_end();                // only white space (ASCII) or nothing (binary) is left
  std::size_t offset() const noexcept { return position_; }
  // Positions the stream after the BEGIN TIME STEP marker of step `step` (a FILE set's file).
  void seek_step(std::int64_t step);

  std::string read_line();      // the next line / 80-byte string, trailing blanks trimmed
  std::string read_keyword();   // as read_line, blank ASCII lines skipped
  std::int64_t read_int();
  void read_ints(std::int32_t* out, std::size_t count);
  // Binary: float32 values as stored; ASCII: parsed as double and stored as `out`'s type.
  void read_floats(float* out, std::size_t count);
  void read_doubles(double* out, std::size_t count);
  // Consumes the string `word` when it comes next (optional headers such as "ghost_flags").
  bool skip_optional(std::string_view word);
  // Passes over `count` 4-byte values (binary, undecoded) or numbers (ASCII).
  void skip_values(std::size_t count);

  // Binary: bytes left; ASCII: bytes left / 2 (a value and a separator at least): for the
  // read_limits checks of counts before allocating.
  std::uint64_t values_left(std::size_t bytes_each) const noexcept;
  [[noreturn]] void fail(const std::string& message) const;
  const std::string& path() const noexcept { return path_; }

 private:
  void take(void* out, std::size_t size);   // binary bytes, across Fortran records
  void skip_blank();
  void decide_byte_order(const unsigned char* four);

  std::string_view bytes_;
  std::string path_;
  Encoding encoding_ = Encoding::ascii;
  std::size_t position_ = 0;
  std::size_t record_left_ = 0;            // Fortran: payload bytes left in the open record
  std::optional<bool> little_endian_;      // binary: decided at the first int
};

// ---- the case file --------------------------------------------------------------------------

struct TimeSet {
  std::vector<double> times;
  std::vector<std::int64_t> file_numbers;  // one per step; empty: files without numbers
};

// A single file holding several steps between BEGIN/END TIME STEP (a FILE set), or files
// numbered by `filename index` each holding some of the steps.
struct FileSet {
  struct Piece {
    std::optional<std::int64_t> index;
    std::int64_t steps = 0;
  };
  std::vector<Piece> pieces;
};

struct CaseEntry {
  std::string file;               // with its wildcards; relative to the case's folder
  std::optional<int> time_set;
  std::optional<int> file_set;
};

enum class VariableKind { scalar, vector, tensor_symm, tensor_asym };
enum class VariableSite { node, element };

struct CaseVariable {
  VariableKind kind = VariableKind::scalar;
  VariableSite site = VariableSite::node;
  std::string name;
  CaseEntry entry;
  int components() const noexcept;
};

struct CaseConstant {
  std::string name;
  std::optional<int> time_set;
  std::vector<double> values;  // one, or one per step of its time set
};

struct CaseFile {
  std::string path;
  std::string folder;
  CaseEntry geometry;
  bool change_coords_only = false;
  std::vector<CaseVariable> variables;
  std::vector<CaseConstant> constants;
  std::vector<std::string> skipped;   // entries read past (measured, complex, match …)
  std::map<int, TimeSet> time_sets;
  std::map<int, FileSet> file_sets;
};

CaseFile read_case(const std::string& path);

// The file of `entry` at step `step` of its time set (wildcards replaced by the step's file
// number) and, for a file set, the step's position inside that file. ReadError when the entry
// has no such step.
struct StepFile {
  std::string path;
  std::optional<std::int64_t> step_in_file;
};
StepFile step_file(const CaseFile& case_file, const CaseEntry& entry, std::size_t step);
std::size_t steps_of(const CaseFile& case_file, const CaseEntry& entry);

// ---- geometry -----------------------------------------------------------------------------

struct Section {
  std::string type;     // EnSight's element type ("tria3", "nfaced", "g_hexa8", "block")
  CellBlock block;      // node indices local to the part, 0-based
  bool ghost = false;   // a g_ type: every cell a ghost
  std::vector<std::uint8_t> ghost_flags;  // a block "with_ghost": per cell kept, 1 = ghost
  // Structured blocks: the cells the file counts (blanked ones too) and, where some are
  // blanked out, the file's index of each cell kept. Element sections: file_cells = cells.
  std::vector<std::int64_t> kept_cells;
  std::int64_t file_cells = 0;
  // The cells this section gives (the connectivity's rows; file_cells where the connectivity
  // was passed over: GeometryDetail below).
  std::int64_t num_cells() const noexcept {
    return block.connectivity.empty_handle() ? file_cells : block.num_cells();
  }
};

struct Part {
  std::int64_t number = 0;
  std::string name;
  NDArray points;                 // (n, 3) float64; empty where passed over (GeometryDetail)
  std::int64_t point_count = 0;   // the part's nodes, read or passed over
  std::vector<Section> sections;  // element types in file order
  std::int64_t num_points() const noexcept { return point_count; }
};

struct Geometry {
  Encoding encoding = Encoding::ascii;
  std::vector<Part> parts;
};

// How much of a geometry file a read keeps: everything; the nodes only (element connectivity
// passed over, its counts kept: read(points_only=True)); or the counts only (read_metadata).
// Structured blocks are read whole at every detail (their blanking decides which cells exist).
enum class GeometryDetail { full, points, counts };

// `step_in_file`: a FILE set's step (its BEGIN TIME STEP block).
Geometry read_geometry(const std::string& path, std::optional<std::int64_t> step_in_file,
                       GeometryDetail detail = GeometryDetail::full);

// The values of one variable file over `geometry`'s parts: per part, (n, components) float
// arrays (NaN where the file leaves a value undefined or a part out), n nodes or, per element,
// one array per section.
struct PartValues {
  NDArray node_values;                   // site node
  std::vector<NDArray> section_values;   // site element, one per section
};
std::vector<PartValues> read_variable(const std::string& path, std::optional<std::int64_t> step_in_file,
                                      const Geometry& geometry, const CaseVariable& variable);

}  // namespace meshioplusplus::ensight
