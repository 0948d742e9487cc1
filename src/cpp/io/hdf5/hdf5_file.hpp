// Floor 2: HDF5 files, an optional build feature (MESHIOPLUSPLUS_HAVE_HDF5, the C library
// from libhdf5-dev). Every HDF5-based format (XDMF heavy data, HMF, H5M, VTKHDF, MED) goes
// through this one class, so handle lifetimes, error-stack silencing, dtype mapping, size
// checks and "dataset → NDArray through the allocator hook" live in one place.
//
// Compressed datasets (gzip_level >= 0) are chunked in whole rows with HDF5's deflate filter;
// we compress those chunks on every core (libdeflate when the build has it, zlib otherwise)
// and store them with H5Dwrite_chunk. Reads of a dataset whose only filter is deflate read the
// chunks' raw bytes (H5Dread_chunk) and inflate them on every core into the final array; any
// other filter pipeline (shuffle, fletcher32, szip …) is read through H5Dread. The files are
// what HDF5's own deflate filter writes: h5py, HDF5's tools, VTK and meshio read them as usual.
//
// Errors: every failure throws ReadError (files opened for reading) or WriteError (files
// being written) naming the file and the HDF5 object path, with HDF5's innermost error
// message when it has one. HDF5's own printing of its error stack to stderr is switched off.
// Without HDF5 in the build, opening or creating a file throws ReadError/WriteError saying
// "built without HDF5 (install libhdf5-dev and rebuild)".
//
// Object paths are absolute ("/domain/grid/Geometry"); a missing leading '/' is tolerated.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meshioplusplus/ndarray.hpp"

namespace meshioplusplus::io::hdf5 {

bool available() noexcept;
// The message readers and writers use when the build lacks HDF5.
inline constexpr std::string_view kMissingLibrary = "built without HDF5 (install libhdf5-dev and rebuild)";

enum class ObjectKind { missing, group, dataset, named_datatype, other };

// What a dataset holds, before reading it. Elements of an HDF5 array type (H5M stores
// k-component tags that way) count as trailing dimensions: an (n,) dataset of int[3]
// elements has shape (n, 3).
// A member of a group: its link name and what the link leads to (missing: a dangling link).
struct Member {
  std::string name;
  ObjectKind kind = ObjectKind::missing;
};

struct DatasetInfo {
  DType dtype = DType::float64;
  Shape shape;
  bool compound = false;  // elements are records; `dtype` is meaningless then
  bool string = false;    // elements are strings; `dtype` is meaningless then
};

// One source of an HDF5 virtual dataset (VDS) built by rows: `rows` rows of `dataset` in
// `file` (a path relative to the virtual file's folder, as VTK's vtkHDFWriter writes them),
// stacked after the sources before it. Reading maps back to `first_row` in the virtual dataset.
struct VirtualSource {
  std::string file;
  std::string dataset;
  std::int64_t rows = 0;
  std::int64_t first_row = 0;  // filled in by virtual_sources()
};

struct DatasetWriteOptions {
  int gzip_level = -1;       // -1: no compression; 0-9: deflate filter (data is chunked then)
  bool as_array_type = false;  // store trailing dimensions as an HDF5 array element type (H5M tags)
};

class File {
 public:
  enum class Mode { read, write };

  // Opens an existing file read-only. `format` names the caller in errors ("xdmf", "hmf" …).
  static File open(const std::string& path, std::string_view format);
  // Creates a file: written to a temporary beside `path` that replaces it on commit();
  // dropped without commit(), the temporary is removed and any existing file is untouched.
  static File create(const std::string& path, std::string_view format);
  // Opens an existing file to add to it: the edits go to a copy beside `path` that replaces
  // it on commit(); dropped without commit(), the file is as it was (append_time_series).
  static File append(const std::string& path, std::string_view format);

  File(File&&) noexcept;
  File& operator=(File&&) noexcept;
  ~File();

  const std::string& path() const noexcept { return path_; }
  Mode mode() const noexcept { return mode_; }

  // ---- structure ----
  ObjectKind kind(std::string_view object_path) const;
  bool exists(std::string_view object_path) const { return kind(object_path) != ObjectKind::missing; }
  // The names of a group's members, in the order HDF5 lists them (by name).
  std::vector<std::string> children(std::string_view group_path) const;
  // The same names with their kinds, in one pass over the group: for readers that look at
  // every member (or at several names of one group), cheaper than kind() per name.
  std::vector<Member> members(std::string_view group_path) const;
  DatasetInfo dataset_info(std::string_view dataset_path) const;

  // ---- reading (all results allocated once, through the allocator hook) ----
  // The whole dataset in its own dtype and shape. Checks the declared size against what the
  // file holds (a truncated file or a forged shape is a ReadError, not a huge allocation).
  NDArray read(std::string_view dataset_path) const;
  // The same, converted by HDF5 to `dtype` while reading (one pass, no staging copy).
  NDArray read(std::string_view dataset_path, DType dtype) const;
  // Rows [first, first + count) along the first axis (a hyperslab): the building block of
  // partitioned reads. `count` rows of the full row width.
  NDArray read_rows(std::string_view dataset_path, std::int64_t first, std::int64_t count,
                    std::optional<DType> dtype = std::nullopt) const;
  // Into memory the caller owns; `out` must have the dataset's shape (element count) and
  // any numeric dtype (HDF5 converts).
  void read_into(std::string_view dataset_path, NDArray& out) const;
  // The bytes one chunk of a chunked dataset stores (as its filters left them, e.g. a zlib
  // stream), the chunk whose first element is at `offset`; `filter_mask` gets the chunk's
  // mask (bit i set: filter i skipped). Empty for a chunk never written. For tests and tools.
  std::vector<std::uint8_t> stored_chunk(std::string_view dataset_path, const std::vector<std::int64_t>& offset,
                                         std::uint32_t* filter_mask = nullptr) const;
  // The row blocks a virtual dataset maps, in row order (empty for an ordinary dataset).
  std::vector<VirtualSource> virtual_sources(std::string_view dataset_path) const;
  // A dataset of strings (fixed or variable length), one entry per element.
  std::vector<std::string> read_strings(std::string_view dataset_path) const;
  // ---- datasets of records (compound element types: MSC Nastran's HDF5 tables) ----
  // The member names of a compound dataset's records, in declaration order.
  std::vector<std::string> member_names(std::string_view dataset_path) const;
  // One numeric member of rows [first, first + count) (count -1: to the end), converted to
  // `dtype`: shape (count) for a scalar member, (count, k …) for an array member (X[3]).
  NDArray read_member(std::string_view dataset_path, std::string_view member, DType dtype, std::int64_t first = 0,
                      std::int64_t count = -1) const;
  // Throws ReadError naming the dataset unless `shape` matches `expected`; -1 in `expected`
  // matches any extent.
  void expect_shape(std::string_view dataset_path, const Shape& shape, const Shape& expected) const;

  // ---- attributes of any object ----
  bool has_attribute(std::string_view object_path, std::string_view name) const;
  std::optional<std::string> string_attribute(std::string_view object_path, std::string_view name) const;
  // Bytes per value of a fixed-length string attribute; 0 when absent, variable-length or not a
  // string. A value as long as this has no terminating NUL (C readers may run past it).
  std::size_t string_attribute_width(std::string_view object_path, std::string_view name) const;
  // A numeric attribute (scalar or first element), converted to int64 / double.
  std::optional<std::int64_t> integer_attribute(std::string_view object_path, std::string_view name) const;
  std::optional<double> float_attribute(std::string_view object_path, std::string_view name) const;
  std::vector<std::string> attribute_names(std::string_view object_path) const;

  // ---- writing ----
  void create_group(std::string_view group_path);
  // Contiguous (or chunked when compressed) dataset holding `array` in its dtype and shape.
  void write(std::string_view dataset_path, const NDArray& array, const DatasetWriteOptions& options = {});
  // One dataset whose rows are the pieces' rows in order (one dtype and row width; a 0-d
  // piece is one row). Each piece is written from its own memory into its rows (a
  // hyperslab), so stacking the blocks of a mesh costs no staging copy; compressed datasets
  // stage (partial chunk writes would re-read and re-compress chunks).
  void write_stacked(std::string_view dataset_path, const std::vector<NDArray>& pieces,
                     const DatasetWriteOptions& options = {});
  // A 1-D dataset of `rows` values of `dtype` that the writer derives (VTK's types and offsets
  // of a mesh) rather than holds: fill(first, count, out) writes values [first, first + count)
  // into `out`, a block of kGeneratedBlockBytes reused for the whole dataset, and each block
  // is written while it is still in cache. Compressed or small datasets are made whole first.
  using RowFiller = std::function<void(std::int64_t first, std::int64_t count, void* out)>;
  void write_generated(std::string_view dataset_path, DType dtype, std::int64_t rows, const RowFiller& fill,
                       const DatasetWriteOptions& options = {});
  static constexpr std::size_t kGeneratedBlockBytes = std::size_t{2} << 20;
  // A virtual dataset of `dtype` whose rows are the sources' rows stacked in order; `row_shape`
  // the trailing extents ({} for 1-D, {3} for points). Sources with no rows are skipped.
  void write_virtual(std::string_view dataset_path, DType dtype, const Shape& row_shape,
                     const std::vector<VirtualSource>& sources);
  // A 1-D dataset of strings: fixed-length (as h5py writes a list of bytes), or variable-length
  // ASCII, null-terminated (as VTK's vtkHDFWriter writes a vtkStringArray, and the only string
  // type vtkHDFReader converts: a fixed-length one makes its H5Dread fail, and VTK 9.7 crash).
  enum class StringStorage { fixed_length, variable_length };
  void write_strings(std::string_view dataset_path, const std::vector<std::string>& values,
                     int gzip_level = -1, StringStorage storage = StringStorage::fixed_length);
  // Scalar attributes. Strings are variable-length UTF-8, which h5py reads back as str.
  void set_attribute(std::string_view object_path, std::string_view name, std::string_view value);
  void set_attribute(std::string_view object_path, std::string_view name, std::int64_t value);
  void set_attribute(std::string_view object_path, std::string_view name, std::uint64_t value);
  void set_attribute(std::string_view object_path, std::string_view name, double value);
  // A 1-D integer array attribute (VTKHDF's Version = [2, 0]).
  void set_attribute(std::string_view object_path, std::string_view name, const std::vector<std::int64_t>& values);
  // As the MED library writes them: a 32-bit integer, and a fixed-length NUL-padded ASCII
  // string (h5py's np.bytes_; readers that decode bytes, like meshio's MED reader, need it).
  void set_int32_attribute(std::string_view object_path, std::string_view name, std::int32_t value);
  void set_fixed_string_attribute(std::string_view object_path, std::string_view name, std::string_view value);
  // A named (committed) datatype at `type_path`: `dtype` with `components` > 1 becomes an
  // array type of that many elements (H5M's tag type records).
  void commit_datatype(std::string_view type_path, DType dtype, int components = 1);
  // A named 32-bit integer enum type with the given members.
  void commit_enum_datatype(std::string_view type_path,
                            const std::vector<std::pair<std::string, int>>& members);
  // A scalar attribute whose type is the committed enum at `enum_type_path`.
  void set_enum_attribute(std::string_view object_path, std::string_view name,
                          std::string_view enum_type_path, int value);

  // Flushes, closes and moves the temporary over the target (write mode only).
  void commit();

  [[noreturn]] void fail(std::string_view object_path, const std::string& message) const;

 private:
  File() = default;
  static File unopened(const std::string& path, std::string_view format, Mode mode, const char* missing);
  // Throws ReadError/WriteError "not an HDF5 file" unless `path_` starts with HDF5's signature.
  void fail_unless_hdf5() const;
  // After H5Dopen2 failed on `path`: "no such dataset" when no dataset is there, else
  // "cannot open the dataset" with HDF5's reason.
  [[noreturn]] void fail_dataset_open(const std::string& path) const;
  void close() noexcept;

  std::string path_;
  std::string temp_path_;  // write mode: where the bytes go until commit()
  std::string format_;
  Mode mode_ = Mode::read;
  std::int64_t id_ = -1;   // hid_t
  std::uint64_t file_size_ = 0;  // read mode: bytes on disk, the bound every dataset is checked against
};

}  // namespace meshioplusplus::io::hdf5
