// Private to src/cpp/io/hdf5/ (nothing outside this folder includes it): what the files that
// implement io::hdf5::File share. File is split by concern (hdf5_file.cpp: the handle and the
// structure queries; hdf5_read.cpp: dataset reads; hdf5_chunks.cpp: chunks read and written on
// every core; hdf5_write.cpp: dataset writes; hdf5_attributes.cpp) so no file passes the
// project's 1,000 lines; the helpers more than one of them uses are declared here, once. Only
// these files see <hdf5.h> and MESHIOPLUSPLUS_HAVE_HDF5 (a source property, CMakeLists.txt).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/hdf5/hdf5_file.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_HDF5
#include <hdf5.h>
#endif

namespace meshioplusplus::io::hdf5::detail {

std::string absolute_object_path(std::string_view object_path);

#ifdef MESHIOPLUSPLUS_HAVE_HDF5

// HDF5 keeps its error stack per thread (the Debian build is thread-safe), so automatic
// printing is switched off once in every thread that touches a file.
void silence_error_printing();

// One HDF5 identifier, closed with the function that matches its kind.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, -1)), closer_(other.closer_) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, -1);
      closer_ = other.closer_;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }

  hid_t get() const noexcept { return id_; }
  bool valid() const noexcept { return id_ >= 0; }
  void reset() noexcept {
    if (id_ >= 0 && closer_ != nullptr) closer_(id_);
    id_ = -1;
  }

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

inline Handle dataset_handle(hid_t id) { return {id, H5Dclose}; }
inline Handle space_handle(hid_t id) { return {id, H5Sclose}; }
inline Handle type_handle(hid_t id) { return {id, H5Tclose}; }
inline Handle attribute_handle(hid_t id) { return {id, H5Aclose}; }
inline Handle plist_handle(hid_t id) { return {id, H5Pclose}; }
inline Handle object_handle(hid_t id) { return {id, H5Oclose}; }

hid_t native_type(DType dtype);

// The element layout of a file datatype: a numeric dtype plus trailing dimensions from array
// types, or a string/compound marker. std::nullopt dtype: a numeric type we cannot hold.
struct ElementType {
  std::optional<DType> dtype;
  Shape trailing;
  bool string = false;
  bool compound = false;
};

ElementType describe_type(hid_t type);
// Whether a numeric type's bit fields lie inside its size. libhdf5 1.10 trusts them when it
// converts (H5T__bit_find reads past its buffer for an offset + precision beyond the size, a
// fuzzed file's crash); later releases refuse such a type when opening it. Non-numeric: true.
bool numeric_bits_fit(hid_t type);

// The memory type HDF5 converts into: the native `dtype`, wrapped in an array type when the
// file's elements are arrays (so an int[3] tag reads into three int64 per row).
Handle memory_type(DType dtype, const Shape& trailing_from_array_type);

Shape space_shape(hid_t space);
std::uint64_t element_count(const Shape& shape);

Handle link_creation_plist();

// The kind of the object `name` leads to from `location` (a file or an open group), read from
// its header without opening it; missing for a dangling link or any failure.
ObjectKind object_kind(hid_t location, const char* name);

// HDF5's own descriptor of the file (the sec2 driver's), where an address HDF5 gives
// (H5Dget_offset, H5Dget_chunk_info) is the byte offset in the file: no user block. -1 for
// other drivers, a user block, or any failure. Raw reads and block reservations go through
// it, so a file renamed over the path meanwhile is never touched by mistake.
int sec2_descriptor(hid_t file_id);

struct OpenDataset {
  Handle dataset, type, space;
  ElementType element;
  Shape space_shape;
};

// ---- chunks read and written on every core (hdf5_chunks.cpp) ----

// A chunk we inflate ourselves is at most this large (HDF5 allows up to 4 GiB; our writer
// uses ~1 MiB); larger ones go through H5Dread.
inline constexpr std::uint64_t kMaxOwnChunkBytes = std::uint64_t{1} << 28;

// A chunked dataset whose chunks we read ourselves: deflated ones (inflated on every core) or
// unfiltered ones (VTK's vtkHDFWriter chunks every dataset to make it extendable, uncompressed).
struct StoredChunks {
  bool deflated = true;              // false: every chunk is stored as its raw bytes
  int fd = -1;                       // unfiltered: HDF5's descriptor of the file, for pread (-1: H5Dread_chunk)
  std::vector<std::uint64_t> dims;   // the dataspace's extents
  std::vector<std::uint64_t> chunk;  // the chunk's extents (same rank)
  std::size_t element_bytes = 0;     // one dataspace element in the file (an array type's whole array)
  std::size_t base_bytes = 0;        // one number of the file dtype
  std::vector<unsigned char> fill;   // one number's fill value; empty when all zero
  std::uint64_t chunk_elements() const {
    std::uint64_t count = 1;
    for (std::uint64_t extent : chunk) count *= extent;
    return count;
  }
  bool whole_rows() const {
    for (std::size_t i = 1; i < dims.size(); ++i)
      if (chunk[i] != dims[i]) return false;
    return true;
  }
};

// The chunked layout of `dataset` when its chunks are deflated or unfiltered, or nullopt when
// HDF5 must read it.
std::optional<StoredChunks> stored_chunks_layout(bool reading, hid_t file_id, hid_t dataset, hid_t file_type,
                                                 DType file_dtype, const Shape& space_extent, const Shape& trailing);

// Rows [first, first + count) of a chunked dataset (StoredChunks) into `destination` (`count`
// rows of `target`, already allocated): the chunks those rows touch are read raw and inflated
// if deflated, on all cores, each into scratch and copied (converted) into its box of the
// destination — or, for a chunk of whole rows in the file's dtype, straight into place.
void read_chunked_rows(const File& file, const std::string& path, hid_t dataset, const StoredChunks& layout,
                       DType file_dtype, DType target, std::uint64_t first, std::uint64_t count, void* destination,
                       std::uint64_t file_size);

// Writes `rows` rows of `row_bytes` each as deflate chunks of `chunk_rows` rows, compressed on
// all cores (a batch at a time, to bound memory) and stored in order with H5Dwrite_chunk. The
// last chunk is padded with zeros to full size, as HDF5 stores edge chunks. Every chunk is
// compressed on its own, so the bytes do not depend on the thread count.
void write_deflate_rows(const File& file, const std::string& path, hid_t dataset, const void* data,
                        std::uint64_t rows, std::size_t row_bytes, std::uint64_t chunk_rows, int rank, int level);

#endif  // MESHIOPLUSPLUS_HAVE_HDF5

}  // namespace meshioplusplus::io::hdf5::detail

#ifdef MESHIOPLUSPLUS_HAVE_HDF5
// Opens `path` (absolute) as an OpenDataset named `result`, or fails naming it: for File's
// members, since it calls fail_dataset_open() and fail() and reads id_. H5Dopen2 is tried
// first; only when it fails is the path looked at (fail_dataset_open: "no such dataset" or
// "cannot open the dataset"), so a dataset that opens costs no lookups of its own.
#define MESHIOPLUSPLUS_OPEN_DATASET(result, path)                                               \
  OpenDataset result;                                                                          \
  do {                                                                                         \
    result.dataset = dataset_handle(H5Dopen2(id_, path.c_str(), H5P_DEFAULT));                 \
    if (!result.dataset.valid()) fail_dataset_open(path);                                      \
    result.type = type_handle(H5Dget_type(result.dataset.get()));                              \
    result.space = space_handle(H5Dget_space(result.dataset.get()));                           \
    if (!result.type.valid() || !result.space.valid()) fail(path, "cannot read the dataset's type or extent"); \
    result.element = describe_type(result.type.get());                                         \
    result.space_shape = space_shape(result.space.get());                                      \
  } while (false)
#endif
