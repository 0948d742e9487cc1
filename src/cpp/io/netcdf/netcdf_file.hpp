// Floor 2: the netCDF C library (an optional build feature, MESHIOPLUSPLUS_HAVE_NETCDF) behind
// two RAII handles, one for reading and one for writing. Used by Exodus II; every netCDF
// file kind the library knows (classic, 64-bit offset, CDF5, netCDF-4/HDF5) is read the same way.
//
// Errors: a reader throws ReadError(path, format, "variable 'connect1': <netCDF's message>"),
// a writer WriteError naming the file and the variable. Without the library every constructor
// throws saying the build lacks netCDF.
//
// The netCDF library is not thread-safe: each handle holds one process-wide lock for its
// lifetime, so two Python threads reading Exodus files at once take turns instead of crashing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "meshioplusplus/ndarray.hpp"

namespace meshioplusplus::io {

bool netcdf_available() noexcept;

struct NetcdfVariable {
  int id = -1;
  std::string name;
  int type = 0;  // nc_type
  std::vector<std::size_t> shape;
  std::vector<std::string> dimension_names;
};

class NetcdfReader {
 public:
  // Opens `path` read-only; ReadError when it is missing, not a netCDF file, or the build lacks netCDF.
  NetcdfReader(const std::string& path, std::string_view format);
  ~NetcdfReader();
  NetcdfReader(const NetcdfReader&) = delete;
  NetcdfReader& operator=(const NetcdfReader&) = delete;

  const std::string& path() const noexcept { return path_; }
  // The file kind as netCDF names it: "classic", "64-bit offset", "CDF5", "netCDF-4", "netCDF-4 classic".
  std::string kind() const;
  // A dimension's length; nullopt when the file has no such dimension.
  std::optional<std::size_t> dimension(std::string_view name) const;
  // Every variable, in file order.
  const std::vector<NetcdfVariable>& variables() const noexcept { return variables_; }
  const NetcdfVariable* find(std::string_view name) const noexcept;
  // ReadError "variable '<name>' is missing" when absent.
  const NetcdfVariable& require(std::string_view name) const;

  // A text attribute of a variable (nullptr: global); nullopt when absent or not text.
  std::optional<std::string> text_attribute(const NetcdfVariable* variable, std::string_view attribute) const;
  // A numeric attribute's first value; nullopt when absent.
  std::optional<double> number_attribute(const NetcdfVariable* variable, std::string_view attribute) const;

  // The hyperslab start/count (empty: the whole variable) converted by netCDF to `dtype`, in a
  // fresh NDArray of `shape` (whose size must equal the hyperslab's), allocated once.
  NDArray read(const NetcdfVariable& variable, DType dtype, Shape shape, std::span<const std::size_t> start = {},
               std::span<const std::size_t> count = {}) const;
  // The same into caller memory of the hyperslab's size.
  void read_into(const NetcdfVariable& variable, DType dtype, void* out, std::span<const std::size_t> start = {},
                 std::span<const std::size_t> count = {}) const;
  // A char variable (…, len) as strings, one per row over all leading dimensions, each cut at
  // its first NUL with trailing blanks removed.
  std::vector<std::string> read_strings(const NetcdfVariable& variable) const;

  // ReadError unless `elements` values of `variable` can be in this file (call it before
  // allocating scratch for them; read() and read_into() call it themselves).
  void check_stored_size(const NetcdfVariable& variable, std::size_t elements) const;

  [[noreturn]] void fail(std::string_view variable, const std::string& message) const;

 private:
  void check(int status, std::string_view variable) const;
  std::string path_, format_;
  int ncid_ = -1;
  std::size_t file_size_ = 0;
  bool compressed_ = false;
  std::vector<NetcdfVariable> variables_;
  std::shared_ptr<void> lock_;
};

class NetcdfWriter {
 public:
  enum class Kind { classic, offset64, cdf5, netcdf4 };
  static constexpr int kGlobal = -1;  // NC_GLOBAL

  // Creates a temporary file beside `path`; commit() puts it in place. WriteError on failure.
  NetcdfWriter(const std::string& path, std::string_view format, Kind kind);
  ~NetcdfWriter();
  NetcdfWriter(const NetcdfWriter&) = delete;
  NetcdfWriter& operator=(const NetcdfWriter&) = delete;

  Kind kind() const noexcept { return kind_; }
  // Whether this kind stores `dtype` (classic and 64-bit offset have no 64-bit or unsigned integers).
  bool stores(DType dtype) const noexcept;
  // Length 0 defines the unlimited dimension.
  int define_dimension(std::string_view name, std::size_t length);
  // The id of a dimension defined before; WriteError when there is none.
  int dimension_id(std::string_view name) const;
  int define_variable(std::string_view name, DType dtype, std::span<const int> dimensions);
  int define_text_variable(std::string_view name, std::span<const int> dimensions);
  void put_text_attribute(int variable, std::string_view name, std::string_view value);
  void put_attribute(int variable, std::string_view name, DType dtype, double value);
  void end_definitions();
  // `data` in `dtype`, converted by netCDF to the variable's type; empty start/count: whole variable.
  void write(int variable, DType dtype, const void* data, std::span<const std::size_t> start = {},
             std::span<const std::size_t> count = {});
  // Rows of text, each padded with NULs to the variable's last dimension (cut when longer).
  void write_strings(int variable, std::span<const std::string> rows);
  void commit();

  [[noreturn]] void fail(std::string_view variable, const std::string& message) const;

 private:
  void check(int status, std::string_view variable) const;
  std::string variable_name(int variable) const;
  std::string path_, temp_path_, format_;
  Kind kind_;
  int ncid_ = -1;
  bool committed_ = false;
  // Bytes of the fixed-size variables defined so far: the file's blocks are allocated for
  // them when the definitions end (reserve_blocks_of), and what the estimate allocated past
  // the file's end is freed at commit.
  std::uint64_t defined_bytes_ = 0;
  bool reserved_ = false;
  std::shared_ptr<void> lock_;
};

}  // namespace meshioplusplus::io
