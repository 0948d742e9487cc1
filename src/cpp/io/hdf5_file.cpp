#include "io/hdf5_file.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <system_error>
#include <utility>

#include "core/parallel_ranges.hpp"
#include "io/atomic_file.hpp"
#include "io/parallel.hpp"
#include "io/zlib_codec.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_HDF5
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#endif

namespace meshioplusplus::io::hdf5 {

namespace {

std::string absolute_object_path(std::string_view object_path) {
  if (object_path.empty()) return "/";
  if (object_path.front() == '/') return std::string(object_path);
  std::string path;  // built by appending: GCC 12 warns (-Wrestrict) on "/" + std::string
  path.reserve(object_path.size() + 1);
  path += '/';
  path += object_path;
  return path;
}

}  // namespace

#ifdef MESHIOPLUSPLUS_HAVE_HDF5

static_assert(sizeof(hid_t) == sizeof(std::int64_t), "hid_t is stored as int64 in the header");

namespace {

// HDF5 keeps its error stack per thread (the Debian build is thread-safe), so automatic
// printing is switched off once in every thread that touches a file.
void silence_error_printing() {
  thread_local bool silenced = false;
  if (!silenced) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    silenced = true;
  }
}

herr_t keep_innermost_message(unsigned depth, const H5E_error2_t* entry, void* data) {
  auto* message = static_cast<std::string*>(data);
  if (depth == 0 && entry->desc != nullptr) *message = entry->desc;
  return 0;
}

// HDF5's innermost error description on this thread (then clears the stack).
std::string hdf5_error_detail() {
  std::string message;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost_message, &message);
  H5Eclear2(H5E_DEFAULT);
  return message;
}

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

Handle dataset_handle(hid_t id) { return {id, H5Dclose}; }
Handle space_handle(hid_t id) { return {id, H5Sclose}; }
Handle type_handle(hid_t id) { return {id, H5Tclose}; }
Handle attribute_handle(hid_t id) { return {id, H5Aclose}; }
Handle plist_handle(hid_t id) { return {id, H5Pclose}; }
Handle object_handle(hid_t id) { return {id, H5Oclose}; }

hid_t native_type(DType dtype) {
  switch (dtype) {
    case DType::int8: return H5T_NATIVE_INT8;
    case DType::int16: return H5T_NATIVE_INT16;
    case DType::int32: return H5T_NATIVE_INT32;
    case DType::int64: return H5T_NATIVE_INT64;
    case DType::uint8: return H5T_NATIVE_UINT8;
    case DType::uint16: return H5T_NATIVE_UINT16;
    case DType::uint32: return H5T_NATIVE_UINT32;
    case DType::uint64: return H5T_NATIVE_UINT64;
    case DType::float32: return H5T_NATIVE_FLOAT;
    case DType::float64: break;
  }
  return H5T_NATIVE_DOUBLE;
}

std::optional<DType> integer_dtype(std::size_t size, bool is_signed) {
  switch (size) {
    case 1: return is_signed ? DType::int8 : DType::uint8;
    case 2: return is_signed ? DType::int16 : DType::uint16;
    case 4: return is_signed ? DType::int32 : DType::uint32;
    case 8: return is_signed ? DType::int64 : DType::uint64;
    default: return std::nullopt;
  }
}

// The element layout of a file datatype: a numeric dtype plus trailing dimensions from array
// types, or a string/compound marker. std::nullopt dtype: a numeric type we cannot hold.
struct ElementType {
  std::optional<DType> dtype;
  Shape trailing;
  bool string = false;
  bool compound = false;
};

ElementType describe_type(hid_t type) {
  ElementType element;
  switch (H5Tget_class(type)) {
    case H5T_INTEGER:
      element.dtype = integer_dtype(H5Tget_size(type), H5Tget_sign(type) == H5T_SGN_2);
      break;
    case H5T_BITFIELD:
      element.dtype = integer_dtype(H5Tget_size(type), false);
      break;
    case H5T_FLOAT: {
      const std::size_t size = H5Tget_size(type);
      if (size == 4) element.dtype = DType::float32;
      if (size == 8) element.dtype = DType::float64;
      break;
    }
    case H5T_ENUM: {
      Handle base = type_handle(H5Tget_super(type));
      if (base.valid()) element = describe_type(base.get());
      break;
    }
    case H5T_ARRAY: {
      const int ndims = H5Tget_array_ndims(type);
      Handle base = type_handle(H5Tget_super(type));
      if (ndims > 0 && ndims <= 32 && base.valid()) {
        std::vector<hsize_t> dims(static_cast<std::size_t>(ndims));
        H5Tget_array_dims2(type, dims.data());
        element = describe_type(base.get());
        Shape trailing(dims.begin(), dims.end());
        trailing.insert(trailing.end(), element.trailing.begin(), element.trailing.end());
        element.trailing = std::move(trailing);
      }
      break;
    }
    case H5T_STRING:
      element.string = true;
      break;
    case H5T_COMPOUND:
      element.compound = true;
      break;
    default:
      break;
  }
  return element;
}

// The memory type HDF5 converts into: the native `dtype`, wrapped in an array type when the
// file's elements are arrays (so an int[3] tag reads into three int64 per row).
Handle memory_type(DType dtype, const Shape& trailing_from_array_type) {
  if (trailing_from_array_type.empty()) return type_handle(H5Tcopy(native_type(dtype)));
  std::vector<hsize_t> dims(trailing_from_array_type.begin(), trailing_from_array_type.end());
  return type_handle(H5Tarray_create2(native_type(dtype), static_cast<unsigned>(dims.size()), dims.data()));
}

Shape space_shape(hid_t space) {
  const H5S_class_t space_class = H5Sget_simple_extent_type(space);
  if (space_class == H5S_SCALAR) return {1};
  if (space_class == H5S_NULL) return {0};
  const int ndims = H5Sget_simple_extent_ndims(space);
  if (ndims < 0) return {};
  std::vector<hsize_t> dims(static_cast<std::size_t>(ndims));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  return Shape(dims.begin(), dims.end());
}

std::uint64_t element_count(const Shape& shape) {
  std::uint64_t count = 1;
  for (std::int64_t extent : shape) {
    const auto value = static_cast<std::uint64_t>(extent);
    if (value != 0 && count > UINT64_MAX / value) return UINT64_MAX;
    count *= value;
  }
  return count;
}

// Generous ratio for what a compressed chunk may expand to (deflate tops out near 1032:1).
constexpr std::uint64_t kMaxExpansion = 1100;
constexpr std::uint64_t kUnstoredSlack = std::uint64_t{64} << 20;

herr_t collect_link_name(hid_t, const char* name, const H5L_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}

herr_t collect_attribute_name(hid_t, const char* name, const H5A_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}

Handle link_creation_plist() {
  Handle plist = plist_handle(H5Pcreate(H5P_LINK_CREATE));
  H5Pset_create_intermediate_group(plist.get(), 1);
  return plist;
}

}  // namespace

bool available() noexcept { return true; }

void File::fail(std::string_view object_path, const std::string& message) const {
  std::string text = object_path.empty() ? message : "HDF5 object '" + absolute_object_path(object_path) + "': " + message;
  const std::string detail = hdf5_error_detail();
  if (!detail.empty()) text += " (HDF5: " + detail + ")";
  if (mode_ == Mode::write) throw WriteError(path_, format_, text);
  throw ReadError(path_, format_, text);
}

File File::open(const std::string& path, std::string_view format) {
  silence_error_printing();
  File file;
  file.path_ = path;
  file.format_ = std::string(format);
  file.mode_ = Mode::read;
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) file.fail({}, "no such HDF5 file");
  if (H5Fis_hdf5(path.c_str()) <= 0) file.fail({}, "not an HDF5 file (no HDF5 signature)");
  file.id_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file.id_ < 0) file.fail({}, "cannot open the HDF5 file (truncated or damaged)");
  // The size of the file HDF5 opened, through its own descriptor: a writer may have put a new
  // file under the path since the checks above (a size taken by name then belonged to the
  // other file, and chunks of this one looked out of bounds).
  void* handle = nullptr;
  struct stat opened {};
  hsize_t size = 0;
  if (H5Fget_vfd_handle(file.id_, H5P_DEFAULT, &handle) >= 0 && handle != nullptr &&
      ::fstat(*static_cast<int*>(handle), &opened) == 0)
    file.file_size_ = static_cast<std::uint64_t>(opened.st_size);
  else if (H5Fget_filesize(file.id_, &size) >= 0)
    file.file_size_ = size;
  else
    file.fail({}, "cannot read the file size");
  H5Eclear2(H5E_DEFAULT);
  return file;
}

File File::create(const std::string& path, std::string_view format) {
  silence_error_printing();
  File file;
  file.path_ = path;
  file.format_ = std::string(format);
  file.mode_ = Mode::write;
  // A unique temporary beside the target (two writers of one path must not share it; a long
  // name must not overflow NAME_MAX), moved over the path by commit(). HDF5 creates it new
  // (H5F_ACC_EXCL), not over a reserved empty file (see create_temporary_beside).
  file.temp_path_ = create_temporary_beside(path, format, [&file](const std::string& candidate) {
    file.id_ = H5Fcreate(candidate.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (file.id_ >= 0) return true;
    std::error_code error;
    if (std::filesystem::exists(candidate, error)) return false;  // taken meanwhile: not ours to remove
    file.fail({}, "cannot create the HDF5 file");
  });
  return file;
}

File::File(File&& other) noexcept
    : path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      format_(std::move(other.format_)),
      mode_(other.mode_),
      id_(std::exchange(other.id_, -1)),
      file_size_(other.file_size_) {
  other.temp_path_.clear();
}

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    close();
    path_ = std::move(other.path_);
    temp_path_ = std::move(other.temp_path_);
    other.temp_path_.clear();
    format_ = std::move(other.format_);
    mode_ = other.mode_;
    id_ = std::exchange(other.id_, -1);
    file_size_ = other.file_size_;
  }
  return *this;
}

File::~File() { close(); }

void File::close() noexcept {
  if (id_ >= 0) H5Fclose(static_cast<hid_t>(id_));
  id_ = -1;
  if (!temp_path_.empty()) {  // a write that was never committed
    std::remove(temp_path_.c_str());
    temp_path_.clear();
  }
}

void File::commit() {
  if (mode_ != Mode::write || id_ < 0) fail({}, "commit() on a file not open for writing");
  if (H5Fflush(id_, H5F_SCOPE_GLOBAL) < 0) fail({}, "cannot flush the HDF5 file");
  const hid_t id = std::exchange(id_, -1);
  if (H5Fclose(id) < 0) fail({}, "cannot close the HDF5 file");
  replace_with_temporary(temp_path_, path_, format_);
  temp_path_.clear();
}

ObjectKind File::kind(std::string_view object_path) const {
  const std::string path = absolute_object_path(object_path);
  if (path == "/") return ObjectKind::group;
  // H5Lexists fails (rather than saying no) when a parent is missing: walk down the path.
  std::size_t slash = 0;
  while (slash != std::string::npos) {
    const std::size_t next = path.find('/', slash + 1);
    const std::string prefix = path.substr(0, next);
    if (prefix.size() > 1 && prefix.back() != '/') {
      const htri_t present = H5Lexists(id_, prefix.c_str(), H5P_DEFAULT);
      if (present <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return ObjectKind::missing;
      }
    }
    slash = next;
  }
  Handle object = object_handle(H5Oopen(id_, path.c_str(), H5P_DEFAULT));
  if (!object.valid()) {  // a dangling soft or external link
    H5Eclear2(H5E_DEFAULT);
    return ObjectKind::missing;
  }
  switch (H5Iget_type(object.get())) {
    case H5I_GROUP: return ObjectKind::group;
    case H5I_DATASET: return ObjectKind::dataset;
    case H5I_DATATYPE: return ObjectKind::named_datatype;
    default: return ObjectKind::other;
  }
}

std::vector<std::string> File::children(std::string_view group_path) const {
  const std::string path = absolute_object_path(group_path);
  if (kind(path) != ObjectKind::group) fail(path, "expected a group");
  std::vector<std::string> names;
  if (H5Literate_by_name(id_, path.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_link_name, &names,
                         H5P_DEFAULT) < 0)
    fail(path, "cannot list the group's members");
  return names;
}

namespace {

struct OpenDataset {
  Handle dataset, type, space;
  ElementType element;
  Shape space_shape;
};

}  // namespace

#define MESHIOPLUSPLUS_OPEN_DATASET(result, path)                                               \
  OpenDataset result;                                                                          \
  do {                                                                                         \
    if (kind(path) != ObjectKind::dataset) fail(path, "no such dataset");                      \
    result.dataset = dataset_handle(H5Dopen2(id_, path.c_str(), H5P_DEFAULT));                 \
    if (!result.dataset.valid()) fail(path, "cannot open the dataset");                        \
    result.type = type_handle(H5Dget_type(result.dataset.get()));                              \
    result.space = space_handle(H5Dget_space(result.dataset.get()));                           \
    if (!result.type.valid() || !result.space.valid()) fail(path, "cannot read the dataset's type or extent"); \
    result.element = describe_type(result.type.get());                                         \
    result.space_shape = space_shape(result.space.get());                                      \
  } while (false)

DatasetInfo File::dataset_info(std::string_view dataset_path) const {
  const std::string path = absolute_object_path(dataset_path);
  MESHIOPLUSPLUS_OPEN_DATASET(open, path);
  DatasetInfo info;
  info.compound = open.element.compound;
  info.string = open.element.string;
  if (!info.compound && !info.string) {
    if (!open.element.dtype) fail(path, "unsupported element type (not an 8-64 bit integer or 32/64 bit float)");
    info.dtype = *open.element.dtype;
  }
  info.shape = open.space_shape;
  info.shape.insert(info.shape.end(), open.element.trailing.begin(), open.element.trailing.end());
  return info;
}

void File::expect_shape(std::string_view dataset_path, const Shape& shape, const Shape& expected) const {
  bool matches = shape.size() == expected.size();
  for (std::size_t i = 0; matches && i < shape.size(); ++i)
    matches = expected[i] < 0 || expected[i] == shape[i];
  if (!matches) {
    std::string wanted = "(";
    for (std::size_t i = 0; i < expected.size(); ++i)
      wanted += (i ? ", " : "") + (expected[i] < 0 ? std::string("any") : std::to_string(expected[i]));
    wanted += expected.size() == 1 ? ",)" : ")";
    throw ReadError(path_, format_,
                    "HDF5 object '" + absolute_object_path(dataset_path) + "': shape " + shape_text(shape) +
                        ", expected " + wanted);
  }
}

namespace {

// Whether the bytes the dataset declares can be in the file: a truncated file or a forged
// extent must not turn into a read past the end or an allocation of the declared size.
std::optional<std::string> storage_problem(hid_t dataset, hid_t file_type, const Shape& shape,
                                           const Shape& trailing, std::uint64_t file_size) {
  Shape full = shape;
  full.insert(full.end(), trailing.begin(), trailing.end());
  const std::uint64_t count = element_count(full);
  std::size_t base_size = H5Tget_size(file_type);
  for (std::int64_t extent : trailing)
    if (extent > 0) base_size /= static_cast<std::size_t>(extent);
  if (count == UINT64_MAX || (base_size != 0 && count > UINT64_MAX / base_size))
    return "declares an impossible number of elements";
  const std::uint64_t declared = count * base_size;
  if (declared == 0) return std::nullopt;
  const std::uint64_t stored = H5Dget_storage_size(dataset);
  Handle plist = plist_handle(H5Dget_create_plist(dataset));
  const H5D_layout_t layout = plist.valid() ? H5Pget_layout(plist.get()) : H5D_CONTIGUOUS;
  const int filters = plist.valid() ? H5Pget_nfilters(plist.get()) : 0;
  if (stored > file_size)
    return "stores " + std::to_string(stored) + " bytes but the file has only " + std::to_string(file_size) +
           " (truncated file?)";
  if (layout == H5D_CONTIGUOUS) {
    const haddr_t offset = H5Dget_offset(dataset);
    if (offset != HADDR_UNDEF && (offset > file_size || declared > file_size - offset))
      return "its " + std::to_string(declared) + " bytes at offset " + std::to_string(offset) +
             " run past the end of the file (" + std::to_string(file_size) + " bytes; truncated file?)";
    if (offset == HADDR_UNDEF && declared > kUnstoredSlack)
      return "declares " + std::to_string(declared) + " bytes but stores none";
  } else if (layout == H5D_CHUNKED) {
    const std::uint64_t ratio = filters > 0 ? kMaxExpansion : 1;
    if (declared / ratio > stored + kUnstoredSlack)
      return "declares " + std::to_string(declared) + " bytes but stores only " + std::to_string(stored);
  }
  return std::nullopt;
}

// ---- compressed datasets: deflate chunks compressed and inflated on every core ----
//
// HDF5's deflate filter runs zlib on one thread inside H5Dwrite/H5Dread. For the layout our
// writer gives compressed datasets (and h5py's chunks of whole rows): chunks of whole rows,
// the deflate filter alone, elements in native byte order — we compress the chunks ourselves
// on all cores (libdeflate when built with it) and store them with H5Dwrite_chunk, and read
// them back with H5Dread_chunk, inflating each straight into the destination array. The file
// is exactly what the deflate filter writes: any HDF5 reader inflates the chunks as usual.
// Unfiltered chunks (VTK's vtkHDFWriter chunks every dataset, uncompressed, to make it
// extendable) are read the same way, with pread at each chunk's address on every core where
// H5Dread copied them through its chunk cache on one thread. Every other layout (shuffle,
// fletcher32, szip, big-endian data) stays on H5Dwrite/H5Dread.

// A chunk we inflate ourselves is at most this large (HDF5 allows up to 4 GiB; our writer
// uses ~1 MiB); larger ones go through H5Dread.
constexpr std::uint64_t kMaxOwnChunkBytes = std::uint64_t{1} << 28;

// Without HDF5's thread-safe build, its calls from our worker threads take this lock.
std::mutex& hdf5_call_lock() {
  static std::mutex lock;
  return lock;
}

bool hdf5_threadsafe() {
  static const bool threadsafe = [] {
    hbool_t value = 0;
    return H5is_library_threadsafe(&value) >= 0 && value;
  }();
  return threadsafe;
}

template <class Call> auto locked_hdf5_call(Call&& call) {
  if (hdf5_threadsafe()) return call();
  std::lock_guard<std::mutex> guard(hdf5_call_lock());
  return call();
}

// A chunked dataset whose chunks we read ourselves: deflated ones (inflated on every core) or
// unfiltered ones (VTK's vtkHDFWriter chunks every dataset to make it extendable, uncompressed).
// HDF5's own descriptor of the file (the sec2 driver's), where an address HDF5 gives
// (H5Dget_offset, H5Dget_chunk_info) is the byte offset in the file: no user block. -1 for
// other drivers, a user block, or any failure. Raw reads and block reservations go through
// it, so a file renamed over the path meanwhile is never touched by mistake.
int sec2_descriptor(hid_t file_id) {
  Handle file_plist = plist_handle(H5Fget_create_plist(file_id));
  Handle access_plist = plist_handle(H5Fget_access_plist(file_id));
  hsize_t userblock = 1;
  void* handle = nullptr;
  const bool usable = file_plist.valid() && access_plist.valid() && H5Pget_driver(access_plist.get()) == H5FD_SEC2 &&
                      H5Pget_userblock(file_plist.get(), &userblock) >= 0 && userblock == 0 &&
                      H5Fget_vfd_handle(file_id, H5P_DEFAULT, &handle) >= 0 && handle != nullptr;
  H5Eclear2(H5E_DEFAULT);
  return usable ? *static_cast<int*>(handle) : -1;
}

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
                                                 DType file_dtype, const Shape& space_extent, const Shape& trailing) {
  if (space_extent.empty() || space_extent.size() > 32) return std::nullopt;
  for (std::int64_t extent : space_extent)
    if (extent <= 0) return std::nullopt;
  for (std::int64_t extent : trailing)
    if (extent <= 0) return std::nullopt;
  Handle plist = plist_handle(H5Dget_create_plist(dataset));
  const int filters = plist.valid() ? H5Pget_nfilters(plist.get()) : -1;
  if (!plist.valid() || H5Pget_layout(plist.get()) != H5D_CHUNKED || filters < 0 || filters > 1) {
    H5Eclear2(H5E_DEFAULT);
    return std::nullopt;
  }
  StoredChunks layout;
  layout.deflated = filters == 1;
  if (layout.deflated) {
    unsigned flags = 0, config = 0, values[8] = {};
    std::size_t value_count = 8;
    char name[64] = {};
    if (!zlib_fast_available() ||
        H5Pget_filter2(plist.get(), 0, &flags, &value_count, values, sizeof name, name, &config) != H5Z_FILTER_DEFLATE) {
      H5Eclear2(H5E_DEFAULT);
      return std::nullopt;
    }
  } else if (reading) {
    // Raw chunks are read with pread at the addresses HDF5 gives, as raw_run reads contiguous
    // datasets (same conditions: sec2_descriptor); else H5Dread_chunk.
    layout.fd = sec2_descriptor(file_id);
  }
  const int rank = static_cast<int>(space_extent.size());
  std::vector<hsize_t> chunk(space_extent.size(), 0);
  if (H5Pget_chunk(plist.get(), rank, chunk.data()) != rank) {
    H5Eclear2(H5E_DEFAULT);
    return std::nullopt;
  }
  Handle native = memory_type(file_dtype, trailing);
  if (!native.valid() || H5Tequal(file_type, native.get()) <= 0) {  // byte order or layout differ: HDF5 converts
    H5Eclear2(H5E_DEFAULT);
    return std::nullopt;
  }
  layout.element_bytes = H5Tget_size(file_type);
  layout.base_bytes = dtype_size(file_dtype);
  if (layout.element_bytes == 0 || layout.element_bytes % layout.base_bytes != 0) return std::nullopt;
  std::uint64_t chunk_bytes = layout.element_bytes;
  for (std::size_t i = 0; i < chunk.size(); ++i) {
    if (chunk[i] == 0 || chunk[i] > kMaxOwnChunkBytes) return std::nullopt;
    chunk_bytes *= chunk[i];
    if (chunk_bytes > kMaxOwnChunkBytes) return std::nullopt;
    layout.dims.push_back(static_cast<std::uint64_t>(space_extent[i]));
    layout.chunk.push_back(chunk[i]);
  }
  H5D_fill_value_t fill_status = H5D_FILL_VALUE_DEFAULT;
  if (H5Pfill_value_defined(plist.get(), &fill_status) >= 0 && fill_status == H5D_FILL_VALUE_USER_DEFINED) {
    std::vector<unsigned char> value(layout.element_bytes, 0);
    if (H5Pget_fill_value(plist.get(), native.get(), value.data()) < 0) {
      H5Eclear2(H5E_DEFAULT);
      return std::nullopt;
    }
    if (std::any_of(value.begin(), value.end(), [](unsigned char byte) { return byte != 0; }))
      layout.fill = std::move(value);
  }
  H5Eclear2(H5E_DEFAULT);
  return layout;
}

// Whether static_cast from `from` to `to` gives exactly what HDF5's conversion gives for every
// value (widening only); other conversions stay with HDF5 (it clamps, we would not).
bool exact_conversion(DType from, DType to) {
  if (from == to) return true;
  const std::size_t from_size = dtype_size(from), to_size = dtype_size(to);
  if (dtype_is_float(from)) return from == DType::float32 && to == DType::float64;
  if (dtype_is_float(to)) return from_size <= (to == DType::float64 ? 4u : 2u);
  if (dtype_is_signed_int(from)) return dtype_is_signed_int(to) && to_size >= from_size;
  return dtype_is_unsigned_int(to) ? to_size >= from_size : to_size > from_size;
}

void convert_elements(const void* source, DType from, void* target, DType to, std::size_t count) {
  visit_dtype(from, [&](auto from_tag) {
    using From = decltype(from_tag);
    visit_dtype(to, [&](auto to_tag) {
      using To = decltype(to_tag);
      const From* in = static_cast<const From*>(source);
      To* out = static_cast<To*>(target);
      for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<To>(in[i]);
    });
  });
}

// ---- uncompressed contiguous datasets: read on every core ----
//
// A contiguous dataset without filters or external storage keeps its elements as one run of
// bytes at the address H5Dget_offset gives (HDF5's documented way to reach them). When those
// bytes are exactly the array we want (the same dtype, native byte order) and the run is large,
// we read them with pread on every core straight into the array: H5Dread makes the same single
// copy on one thread, and at these sizes the kernel's page-cache copy and the page faults of a
// fresh array are the whole cost. Small datasets, other layouts, conversions and files with a
// user block stay with HDF5. Writes stay with H5Dwrite: buffered writes to one file serialise on
// its inode lock (ext4), and pwrite from two threads measured slower than HDF5's one call.
constexpr std::uint64_t kDirectBytesMin = std::uint64_t{4} << 20;

// Where `dataset`'s elements lie when they can be read as raw bytes into an array of `wanted`
// with `bytes` bytes: HDF5's own descriptor of the file (the sec2 driver's, so that a file
// renamed over the path meanwhile cannot be read by mistake) and the offset.
struct RawRun {
  int fd = -1;
  std::uint64_t offset = 0;
};

std::optional<RawRun> raw_run(bool reading, hid_t file_id, hid_t dataset, hid_t file_type, DType file_dtype,
                              const Shape& trailing, DType wanted, std::uint64_t bytes) {
  // A file being written may still hold some of its bytes in HDF5's buffers.
  if (!reading || file_dtype != wanted || bytes < kDirectBytesMin) return std::nullopt;
  std::optional<RawRun> result;
  Handle plist = plist_handle(H5Dget_create_plist(dataset));
  Handle native = memory_type(file_dtype, trailing);
  if (plist.valid() && native.valid() && H5Pget_layout(plist.get()) == H5D_CONTIGUOUS &&
      H5Pget_nfilters(plist.get()) == 0 && H5Pget_external_count(plist.get()) == 0 &&
      H5Tequal(file_type, native.get()) > 0) {
    const int fd = sec2_descriptor(file_id);
    const haddr_t offset = H5Dget_offset(dataset);
    if (fd >= 0 && offset != HADDR_UNDEF) result = RawRun{fd, static_cast<std::uint64_t>(offset)};
  }
  H5Eclear2(H5E_DEFAULT);
  return result;
}

// Before H5Dwrite fills a large contiguous dataset: its blocks allocated in one call
// (reserve_file_range; the dataset was created with early allocation, so its address is
// known). Only through sec2_descriptor.
void reserve_dataset_blocks(hid_t file_id, hid_t dataset, std::uint64_t bytes) {
  if (bytes < kReserveFromBytes) return;
  const int fd = sec2_descriptor(file_id);
  const haddr_t offset = H5Dget_offset(dataset);
  if (fd >= 0 && offset != HADDR_UNDEF) reserve_file_range(fd, static_cast<std::uint64_t>(offset), bytes);
  H5Eclear2(H5E_DEFAULT);
}

// A contiguous dataset that is written whole right after its creation: storage allocated at
// creation (so reserve_dataset_blocks knows where it lies) and never filled first.
void allocate_for_one_write(hid_t dcpl) {
  H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
}

// A contiguous dataset that write_stacked or write_generated fills a block of rows at a time
// right after creating it: allocated early, never filled first, its blocks reserved in one
// call. An invalid `dataset` when HDF5 refuses to create it.
struct RowsWrittenOnce {
  Handle file_type, space, dataset;
  std::vector<hsize_t> dims;

  RowsWrittenOnce(hid_t file_id, const std::string& path, DType dtype, std::vector<hsize_t> extent,
                  std::uint64_t bytes)
      : file_type(type_handle(H5Tcopy(native_type(dtype)))),
        space(space_handle(H5Screate_simple(static_cast<int>(extent.size()), extent.data(), nullptr))),
        dims(std::move(extent)) {
    Handle dcpl = plist_handle(H5Pcreate(H5P_DATASET_CREATE));
    allocate_for_one_write(dcpl.get());
    Handle lcpl = link_creation_plist();
    dataset = dataset_handle(
        H5Dcreate2(file_id, path.c_str(), file_type.get(), space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT));
    if (dataset.valid()) reserve_dataset_blocks(file_id, dataset.get(), bytes);
  }

  // Rows [first, first + count) of the full width from `data`; false when HDF5 refuses.
  bool write_rows(hsize_t first, hsize_t count, const void* data) const {
    std::vector<hsize_t> start(dims.size(), 0), extent = dims;
    start[0] = first;
    extent[0] = count;
    Handle memory_space = space_handle(H5Screate_simple(static_cast<int>(extent.size()), extent.data(), nullptr));
    return H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, extent.data(), nullptr) >= 0 &&
           H5Dwrite(dataset.get(), file_type.get(), memory_space.get(), space.get(), H5P_DEFAULT, data) >= 0;
  }
};

// `bytes` bytes at `run` into `data`, with pread on every core (HDF5's own reads through the
// same descriptor are unaffected). Returns what went wrong, or an empty string.
std::string read_raw(const RawRun& run, void* data, std::uint64_t bytes) {
  const int error = io::pread_in_parallel(run.fd, run.offset, data, bytes, kDirectBytesMin);
  if (error == -1) return "the file ends inside the dataset's bytes (truncated file?)";
  if (error != 0) return "raw read failed: " + std::generic_category().message(error);
  return {};
}

// `rows` runs of `run_bytes` from `source` (rows `source_pitch` bytes apart) to `destination`
// (`destination_pitch` apart). The run is often one number (h5py cuts (N, 4) cells into
// one-column chunks): a copy of a size known to the compiler is a single move, where a memcpy
// call per number cost a fifth of a compressed read.
template <std::size_t Bytes>
void copy_fixed_rows(unsigned char* destination, std::size_t destination_pitch, const unsigned char* source,
                     std::size_t source_pitch, std::size_t rows) {
  for (std::size_t r = 0; r < rows; ++r)
    std::memcpy(destination + r * destination_pitch, source + r * source_pitch, Bytes);
}

void copy_strided_rows(unsigned char* destination, std::size_t destination_pitch, const unsigned char* source,
                       std::size_t source_pitch, std::size_t run_bytes, std::size_t rows) {
  switch (run_bytes) {
    case 1: return copy_fixed_rows<1>(destination, destination_pitch, source, source_pitch, rows);
    case 2: return copy_fixed_rows<2>(destination, destination_pitch, source, source_pitch, rows);
    case 4: return copy_fixed_rows<4>(destination, destination_pitch, source, source_pitch, rows);
    case 8: return copy_fixed_rows<8>(destination, destination_pitch, source, source_pitch, rows);
    case 12: return copy_fixed_rows<12>(destination, destination_pitch, source, source_pitch, rows);
    case 16: return copy_fixed_rows<16>(destination, destination_pitch, source, source_pitch, rows);
    case 24: return copy_fixed_rows<24>(destination, destination_pitch, source, source_pitch, rows);
    case 32: return copy_fixed_rows<32>(destination, destination_pitch, source, source_pitch, rows);
    default:
      for (std::size_t r = 0; r < rows; ++r)
        std::memcpy(destination + r * destination_pitch, source + r * source_pitch, run_bytes);
  }
}

// Rows [first, first + count) of a chunked dataset (StoredChunks) into `destination` (`count`
// rows of `target`, already allocated): the chunks those rows touch are read raw and inflated
// if deflated, on all cores, each into scratch and copied (converted) into its box of the
// destination — or, for a chunk of whole rows in the file's dtype, straight into place.
void read_chunked_rows(const File& file, const std::string& path, hid_t dataset, const StoredChunks& layout,
                       DType file_dtype, DType target, std::uint64_t first, std::uint64_t count, void* destination,
                       std::uint64_t file_size) {
  if (count == 0) return;
  const std::size_t rank = layout.dims.size();
  // The chunk grid: rows of chunks [first_chunk, end_chunk) along axis 0, every chunk of the others.
  std::vector<std::uint64_t> grid(rank);
  for (std::size_t k = 0; k < rank; ++k) grid[k] = (layout.dims[k] + layout.chunk[k] - 1) / layout.chunk[k];
  const std::uint64_t first_chunk = first / layout.chunk[0];
  const std::uint64_t end_chunk = (first + count - 1) / layout.chunk[0] + 1;
  std::uint64_t per_chunk_row = 1;
  for (std::size_t k = 1; k < rank; ++k) per_chunk_row *= grid[k];
  const std::uint64_t chunks = (end_chunk - first_chunk) * per_chunk_row;
  // Every chunk costs an HDF5 lookup, and chunks never written cost the file nothing: a tiny
  // file could declare millions of 8-byte chunks (fuzz finding: a 64 KiB HMF file kept the
  // reader busy for minutes). A file that stores its chunks holds at least a byte per chunk.
  if (file_size != 0 && chunks > file_size + (std::uint64_t{1} << 16))  // (0: a file being written)
    file.fail(path, "is cut into " + std::to_string(chunks) + " chunks, more than a file of " +
                        std::to_string(file_size) + " bytes can hold");
  const std::size_t chunk_bytes = static_cast<std::size_t>(layout.chunk_elements() * layout.element_bytes);
  const std::size_t numbers_per_element = layout.element_bytes / layout.base_bytes;
  const std::size_t target_element_bytes = numbers_per_element * dtype_size(target);
  // Destination strides in elements: row-major over the dataspace, `count` rows.
  std::vector<std::uint64_t> stride(rank, 1);
  for (std::size_t k = rank - 1; k > 0; --k) stride[k - 1] = stride[k] * layout.dims[k];
  std::vector<std::uint64_t> chunk_stride(rank, 1);
  for (std::size_t k = rank - 1; k > 0; --k) chunk_stride[k - 1] = chunk_stride[k] * layout.chunk[k];
  const bool whole_rows = layout.whole_rows();
  auto* out = static_cast<unsigned char*>(destination);
  // Chunks are handed out a row of chunks at a time (their inflate costs differ tenfold: fill
  // values, coordinates, connectivity). A row of chunks goes to one thread because its chunks
  // fill the same cache lines of the destination (h5py cuts (N, 4) cells into one-column
  // chunks: two threads writing neighbouring columns doubled the copy's cost). A thread for
  // fewer than four chunks (h5py's are ~64 KiB, ours ~1 MiB) is not worth starting.
  const auto chunk_rows = static_cast<std::size_t>(end_chunk - first_chunk);
  parallel_claims(chunk_rows, std::max<std::size_t>(1, 4 / per_chunk_row), [&](auto&& claim) {
    silence_error_printing();
    std::vector<unsigned char> compressed, scratch;
    std::vector<hsize_t> offset(rank, 0);
    std::vector<std::uint64_t> extent(rank), index(rank);
    // Sets offset/extent to chunk `linear` (counted from first_chunk's row of chunks).
    auto locate = [&](std::uint64_t linear) {
      for (std::size_t k = rank; k-- > 1;) {
        offset[k] = static_cast<hsize_t>((linear % grid[k]) * layout.chunk[k]);
        linear /= grid[k];
      }
      offset[0] = static_cast<hsize_t>((first_chunk + linear) * layout.chunk[0]);
      for (std::size_t k = 0; k < rank; ++k) extent[k] = std::min<std::uint64_t>(layout.chunk[k], layout.dims[k] - offset[k]);
    };
    auto where = [&] {
      std::string text = "the chunk at (";
      for (std::size_t k = 0; k < rank; ++k) text += (k ? ", " : "") + std::to_string(offset[k]);
      return text + ")";
    };
    // The located chunk's chunk_bytes, inflated (or its fill value) into `inflated`.
    auto load = [&](unsigned char* inflated) {
      // Where the chunk lies (HADDR_UNDEF, size 0: never written). H5Dget_chunk_storage_size
      // fails on unallocated chunks in HDF5 1.10; this one says so.
      unsigned info_mask = 0;
      haddr_t address = HADDR_UNDEF;
      hsize_t stored = 0;
      if (locked_hdf5_call([&] {
            return H5Dget_chunk_info_by_coord(dataset, offset.data(), &info_mask, &address, &stored);
          }) < 0)
        file.fail(path, "cannot find " + where());
      if (address == HADDR_UNDEF) stored = 0;
      if (stored == 0) {  // never written: the fill value
        if (layout.fill.empty()) {
          std::memset(inflated, 0, chunk_bytes);
        } else {
          for (std::size_t at = 0; at + layout.element_bytes <= chunk_bytes; at += layout.element_bytes)
            std::memcpy(inflated + at, layout.fill.data(), layout.element_bytes);
        }
        return;
      }
      if (stored > file_size || address > file_size - stored)
        file.fail(path, where() + " claims " + std::to_string(stored) + " bytes at offset " + std::to_string(address) +
                            " but the file has only " + std::to_string(file_size));
      if (!layout.deflated) {  // the chunk's own bytes, full size (edge chunks too)
        if (stored != chunk_bytes)
          file.fail(path, where() + " is stored with " + std::to_string(stored) + " bytes, expected " +
                              std::to_string(chunk_bytes));
        if (layout.fd < 0) {
          std::uint32_t mask = 0;
          if (locked_hdf5_call([&] { return H5Dread_chunk(dataset, H5P_DEFAULT, offset.data(), &mask, inflated); }) < 0)
            file.fail(path, "cannot read " + where());
          return;
        }
        std::size_t done = 0;
        while (done < chunk_bytes) {
          const ssize_t moved = ::pread(layout.fd, inflated + done, chunk_bytes - done, static_cast<off_t>(address + done));
          if (moved < 0 && errno == EINTR) continue;
          if (moved <= 0)
            file.fail(path, "cannot read " + where() +
                                (moved < 0 ? ": " + std::generic_category().message(errno) : ": the file ends inside it"));
          done += static_cast<std::size_t>(moved);
        }
        return;
      }
      compressed.resize(static_cast<std::size_t>(stored));
      std::uint32_t mask = 0;
      if (locked_hdf5_call([&] { return H5Dread_chunk(dataset, H5P_DEFAULT, offset.data(), &mask, compressed.data()); }) < 0)
        file.fail(path, "cannot read " + where());
      if (mask & 1u) {  // stored without the filter (HDF5 skips deflate when it cannot shrink a chunk)
        if (stored != chunk_bytes)
          file.fail(path, where() + " is stored unfiltered with " + std::to_string(stored) + " bytes, expected " +
                              std::to_string(chunk_bytes));
        std::memcpy(inflated, compressed.data(), chunk_bytes);
      } else if (!zlib_decompress_fast(compressed.data(), compressed.size(), inflated, chunk_bytes)) {
        file.fail(path, where() + ": corrupt deflate stream, or it does not inflate to the chunk's " +
                            std::to_string(chunk_bytes) + " bytes");
      }
    };
    for (std::size_t chunk_row = claim(); chunk_row < chunk_rows; chunk_row = claim()) {
      for (std::uint64_t linear = chunk_row * per_chunk_row; linear < (chunk_row + 1) * per_chunk_row; ++linear) {
        locate(linear);
        const std::uint64_t lo = std::max<std::uint64_t>(first, offset[0]);
        const std::uint64_t hi = std::min<std::uint64_t>(first + count, offset[0] + extent[0]);
        // Straight into place: all the chunk's rows wanted, whole rows, not an edge chunk (edge
        // chunks are stored full size, larger than the rows they hold), the file's dtype.
        const bool direct = whole_rows && target == file_dtype && lo == offset[0] && hi == offset[0] + layout.chunk[0];
        unsigned char* inflated = nullptr;
        if (direct) {
          inflated = out + (lo - first) * stride[0] * target_element_bytes;
        } else {
          scratch.resize(chunk_bytes);
          inflated = scratch.data();
        }
        load(inflated);
        if (direct) continue;
        // Copy the box rows [lo, hi) x extent[1..] in runs along the last axis.
        const std::size_t run = static_cast<std::size_t>(rank == 1 ? hi - lo : extent[rank - 1]);
        std::fill(index.begin(), index.end(), 0);
        index[0] = lo - offset[0];
        const std::uint64_t box_rows = hi - offset[0];
        if (rank == 2 && target == file_dtype) {  // one short run per row
          copy_strided_rows(out + ((offset[0] + index[0] - first) * stride[0] + offset[1]) * target_element_bytes,
                            stride[0] * target_element_bytes, inflated + index[0] * chunk_stride[0] * layout.element_bytes,
                            chunk_stride[0] * layout.element_bytes, run * layout.element_bytes,
                            static_cast<std::size_t>(box_rows - index[0]));
          continue;
        }
        while (true) {
          std::uint64_t from = 0, to = (offset[0] + index[0] - first) * stride[0];
          for (std::size_t k = 0; k < rank; ++k) from += index[k] * chunk_stride[k];
          for (std::size_t k = 1; k < rank; ++k) to += (offset[k] + index[k]) * stride[k];
          const unsigned char* source = inflated + from * layout.element_bytes;
          unsigned char* into = out + to * target_element_bytes;
          if (target == file_dtype)
            std::memcpy(into, source, run * layout.element_bytes);
          else
            convert_elements(source, file_dtype, into, target, run * numbers_per_element);
          if (rank == 1) break;
          // Next run: the odometer over axes rank-2 … 0 of the box.
          std::size_t k = rank - 1;
          while (k-- > 0) {
            if (++index[k] < (k == 0 ? box_rows : extent[k])) break;
            if (k == 0) break;
            index[k] = 0;
          }
          if (index[0] >= box_rows) break;
        }
      }
    }
  });
}

// Writes `rows` rows of `row_bytes` each as deflate chunks of `chunk_rows` rows, compressed on
// all cores (a batch at a time, to bound memory) and stored in order with H5Dwrite_chunk. The
// last chunk is padded with zeros to full size, as HDF5 stores edge chunks. Every chunk is
// compressed on its own, so the bytes do not depend on the thread count.
void write_deflate_rows(const File& file, const std::string& path, hid_t dataset, const void* data,
                        std::uint64_t rows, std::size_t row_bytes, std::uint64_t chunk_rows, int rank, int level) {
  const std::uint64_t chunks = (rows + chunk_rows - 1) / chunk_rows;
  const std::size_t chunk_bytes = static_cast<std::size_t>(chunk_rows * row_bytes);
  const auto* bytes = static_cast<const unsigned char*>(data);
  // Chunks are compressed as the threads claim them and stored in order by whichever thread
  // finishes the next one due, while the others go on compressing (storing a batch after
  // compressing it left a core idle at every batch). A compressed chunk is freed once stored.
  std::vector<std::vector<std::uint8_t>> compressed(static_cast<std::size_t>(chunks));
  std::vector<bool> ready(static_cast<std::size_t>(chunks), false);
  std::mutex store_mutex;
  std::uint64_t next_to_store = 0;
  bool store_failed = false;
  parallel_claims(static_cast<std::size_t>(chunks), 2, [&](auto&& claim) {
    silence_error_printing();
    std::vector<unsigned char> padded;
    std::vector<hsize_t> offset(static_cast<std::size_t>(rank), 0);
    for (std::size_t chunk = claim(); chunk < chunks; chunk = claim()) {
      const std::uint64_t first_row = chunk * chunk_rows;
      const std::uint64_t chunk_rows_here = std::min(chunk_rows, rows - first_row);
      const unsigned char* source = bytes + first_row * row_bytes;
      if (chunk_rows_here < chunk_rows) {
        padded.assign(chunk_bytes, 0);
        std::memcpy(padded.data(), source, static_cast<std::size_t>(chunk_rows_here * row_bytes));
        source = padded.data();
      }
      std::vector<std::uint8_t> deflated;
      zlib_compress_fast(source, chunk_bytes, level, deflated);
      const std::lock_guard<std::mutex> lock(store_mutex);
      compressed[chunk] = std::move(deflated);
      ready[chunk] = true;
      while (!store_failed && next_to_store < chunks && ready[next_to_store]) {
        auto& stored = compressed[static_cast<std::size_t>(next_to_store)];
        offset[0] = static_cast<hsize_t>(next_to_store * chunk_rows);
        if (H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, offset.data(), stored.size(), stored.data()) < 0) {
          store_failed = true;
          file.fail(path, "cannot write the chunk at row " + std::to_string(offset[0]));
        }
        std::vector<std::uint8_t>().swap(stored);
        ++next_to_store;
      }
    }
  });
}

}  // namespace

NDArray File::read(std::string_view dataset_path) const {
  const std::string path = absolute_object_path(dataset_path);
  const DatasetInfo info = dataset_info(path);
  if (info.compound || info.string) fail(path, "expected numbers, found a dataset of records or strings");
  return read(path, info.dtype);
}

NDArray File::read(std::string_view dataset_path, DType dtype) const {
  const std::string path = absolute_object_path(dataset_path);
  MESHIOPLUSPLUS_OPEN_DATASET(open, path);
  if (open.element.compound || open.element.string || !open.element.dtype)
    fail(path, "expected numbers, found an element type that is not an integer or float");
  if (auto problem = storage_problem(open.dataset.get(), open.type.get(), open.space_shape, open.element.trailing,
                                     file_size_))
    fail(path, *problem);
  Shape shape = open.space_shape;
  shape.insert(shape.end(), open.element.trailing.begin(), open.element.trailing.end());
  NDArray array = NDArray::allocate(dtype, shape);
  if (array.size() == 0) return array;
  if (auto run = raw_run(mode_ == Mode::read, id_, open.dataset.get(), open.type.get(), *open.element.dtype,
                         open.element.trailing, dtype, array.nbytes())) {
    const std::string problem = read_raw(*run, array.data(), array.nbytes());
    if (!problem.empty()) fail(path, problem);
    return array;
  }
  if (exact_conversion(*open.element.dtype, dtype)) {
    if (auto layout = stored_chunks_layout(mode_ == Mode::read, id_, open.dataset.get(), open.type.get(),
                                           *open.element.dtype, open.space_shape, open.element.trailing)) {
      read_chunked_rows(*this, path, open.dataset.get(), *layout, *open.element.dtype, dtype, 0, layout->dims[0], array.data(),
                   file_size_);
      return array;
    }
  }
  Handle memtype = memory_type(dtype, open.element.trailing);
  if (H5Dread(open.dataset.get(), memtype.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, array.data()) < 0)
    fail(path, "cannot read the dataset");
  return array;
}

NDArray File::read_rows(std::string_view dataset_path, std::int64_t first, std::int64_t count,
                        std::optional<DType> dtype) const {
  const std::string path = absolute_object_path(dataset_path);
  MESHIOPLUSPLUS_OPEN_DATASET(open, path);
  if (open.element.compound || open.element.string || !open.element.dtype)
    fail(path, "expected numbers, found an element type that is not an integer or float");
  const Shape& extent = open.space_shape;
  if (extent.empty() || H5Sget_simple_extent_type(open.space.get()) != H5S_SIMPLE)
    fail(path, "a row range needs a dataset with at least one dimension");
  if (first < 0 || count < 0 || first > extent[0] || count > extent[0] - first)
    fail(path, "rows [" + std::to_string(first) + ", " + std::to_string(first + count) + ") outside the " +
                   std::to_string(extent[0]) + " rows");
  if (auto problem = storage_problem(open.dataset.get(), open.type.get(), extent, open.element.trailing, file_size_))
    fail(path, *problem);
  Shape shape = extent;
  shape[0] = count;
  Shape full = shape;
  full.insert(full.end(), open.element.trailing.begin(), open.element.trailing.end());
  const DType target = dtype.value_or(*open.element.dtype);
  NDArray array = NDArray::allocate(target, full);
  if (array.size() == 0) return array;
  if (auto run = raw_run(mode_ == Mode::read, id_, open.dataset.get(), open.type.get(), *open.element.dtype,
                         open.element.trailing, target, array.nbytes())) {
    run->offset += static_cast<std::uint64_t>(first) * (array.nbytes() / static_cast<std::uint64_t>(count));
    const std::string problem = read_raw(*run, array.data(), array.nbytes());
    if (!problem.empty()) fail(path, problem);
    return array;
  }
  if (exact_conversion(*open.element.dtype, target)) {
    if (auto layout = stored_chunks_layout(mode_ == Mode::read, id_, open.dataset.get(), open.type.get(),
                                           *open.element.dtype, extent, open.element.trailing)) {
      read_chunked_rows(*this, path, open.dataset.get(), *layout, *open.element.dtype, target,
                   static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(count), array.data(), file_size_);
      return array;
    }
  }
  std::vector<hsize_t> start(extent.size(), 0), counts(shape.begin(), shape.end());
  start[0] = static_cast<hsize_t>(first);
  if (H5Sselect_hyperslab(open.space.get(), H5S_SELECT_SET, start.data(), nullptr, counts.data(), nullptr) < 0)
    fail(path, "cannot select the row range");
  Handle memory_space = space_handle(H5Screate_simple(static_cast<int>(counts.size()), counts.data(), nullptr));
  Handle memtype = memory_type(target, open.element.trailing);
  if (H5Dread(open.dataset.get(), memtype.get(), memory_space.get(), open.space.get(), H5P_DEFAULT, array.data()) < 0)
    fail(path, "cannot read the row range");
  return array;
}

void File::read_into(std::string_view dataset_path, NDArray& out) const {
  const std::string path = absolute_object_path(dataset_path);
  MESHIOPLUSPLUS_OPEN_DATASET(open, path);
  if (open.element.compound || open.element.string || !open.element.dtype)
    fail(path, "expected numbers, found an element type that is not an integer or float");
  Shape shape = open.space_shape;
  shape.insert(shape.end(), open.element.trailing.begin(), open.element.trailing.end());
  if (element_count(shape) != out.size())
    fail(path, "holds " + shape_text(shape) + " elements, the destination " + shape_text(out.shape()));
  if (auto problem = storage_problem(open.dataset.get(), open.type.get(), open.space_shape, open.element.trailing,
                                     file_size_))
    fail(path, *problem);
  if (out.size() == 0) return;
  if (auto run = raw_run(mode_ == Mode::read, id_, open.dataset.get(), open.type.get(), *open.element.dtype,
                         open.element.trailing, out.dtype(), out.nbytes())) {
    const std::string problem = read_raw(*run, out.data(), out.nbytes());
    if (!problem.empty()) fail(path, problem);
    return;
  }
  if (exact_conversion(*open.element.dtype, out.dtype())) {
    if (auto layout = stored_chunks_layout(mode_ == Mode::read, id_, open.dataset.get(), open.type.get(),
                                           *open.element.dtype, open.space_shape, open.element.trailing)) {
      read_chunked_rows(*this, path, open.dataset.get(), *layout, *open.element.dtype, out.dtype(), 0, layout->dims[0],
                   out.data(), file_size_);
      return;
    }
  }
  Handle memtype = memory_type(out.dtype(), open.element.trailing);
  if (H5Dread(open.dataset.get(), memtype.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    fail(path, "cannot read the dataset");
}

std::vector<std::string> File::read_strings(std::string_view dataset_path) const {
  const std::string path = absolute_object_path(dataset_path);
  MESHIOPLUSPLUS_OPEN_DATASET(open, path);
  if (!open.element.string) fail(path, "expected a dataset of strings");
  const std::uint64_t count = element_count(open.space_shape);
  const bool variable = H5Tis_variable_str(open.type.get()) > 0;
  const std::size_t width = variable ? sizeof(char*) : H5Tget_size(open.type.get());
  if (count > file_size_ + 1 || (width != 0 && count * width > (file_size_ + 1) * 64))
    fail(path, "declares more strings than the file can hold");
  std::vector<std::string> values;
  values.reserve(count);
  Handle memtype = type_handle(H5Tcopy(H5T_C_S1));
  if (variable) {
    H5Tset_size(memtype.get(), H5T_VARIABLE);
    std::vector<char*> pointers(count, nullptr);
    if (count > 0 && H5Dread(open.dataset.get(), memtype.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()) < 0)
      fail(path, "cannot read the strings");
    for (char* text : pointers) values.emplace_back(text ? text : "");
    if (count > 0) H5Dvlen_reclaim(memtype.get(), open.space.get(), H5P_DEFAULT, pointers.data());
  } else {
    H5Tset_size(memtype.get(), width);
    H5Tset_strpad(memtype.get(), H5T_STR_NULLPAD);  // NULLTERM would give up the last byte
    std::vector<char> buffer(count * width);
    if (count > 0 && H5Dread(open.dataset.get(), memtype.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) < 0)
      fail(path, "cannot read the strings");
    for (std::uint64_t i = 0; i < count; ++i) {
      std::string_view text(buffer.data() + i * width, width);
      values.emplace_back(text.substr(0, text.find('\0')));
    }
  }
  return values;
}

bool File::has_attribute(std::string_view object_path, std::string_view name) const {
  const std::string path = absolute_object_path(object_path);
  if (!exists(path)) return false;
  const htri_t present = H5Aexists_by_name(id_, path.c_str(), std::string(name).c_str(), H5P_DEFAULT);
  if (present < 0) H5Eclear2(H5E_DEFAULT);
  return present > 0;
}

std::optional<std::string> File::string_attribute(std::string_view object_path, std::string_view name) const {
  if (!has_attribute(object_path, name)) return std::nullopt;
  const std::string path = absolute_object_path(object_path);
  Handle attribute = attribute_handle(H5Aopen_by_name(id_, path.c_str(), std::string(name).c_str(), H5P_DEFAULT, H5P_DEFAULT));
  Handle type = type_handle(H5Aget_type(attribute.get()));
  if (!attribute.valid() || !type.valid()) fail(path, "cannot open attribute '" + std::string(name) + "'");
  if (H5Tget_class(type.get()) != H5T_STRING) return std::nullopt;
  Handle memtype = type_handle(H5Tcopy(H5T_C_S1));
  if (H5Tis_variable_str(type.get()) > 0) {
    H5Tset_size(memtype.get(), H5T_VARIABLE);
    H5Tset_cset(memtype.get(), H5Tget_cset(type.get()));
    Handle space = space_handle(H5Aget_space(attribute.get()));
    const hssize_t count = H5Sget_simple_extent_npoints(space.get());
    if (count < 1 || count > (1 << 20)) return std::nullopt;
    std::vector<char*> pointers(static_cast<std::size_t>(count), nullptr);
    if (H5Aread(attribute.get(), memtype.get(), pointers.data()) < 0)
      fail(path, "cannot read attribute '" + std::string(name) + "'");
    std::string value = pointers[0] ? pointers[0] : "";
    H5Dvlen_reclaim(memtype.get(), space.get(), H5P_DEFAULT, pointers.data());
    return value;
  }
  const std::size_t width = H5Tget_size(type.get());
  Handle space = space_handle(H5Aget_space(attribute.get()));
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count < 1 || width == 0 || static_cast<std::uint64_t>(count) * width > (std::uint64_t{1} << 26))
    return std::string();
  H5Tset_size(memtype.get(), width);
  // Null-padded, not terminated: a NULLTERM memory type drops the last character of a string
  // that fills its width (h5py's np.bytes_ attributes, MED's profile names).
  H5Tset_strpad(memtype.get(), H5T_STR_NULLPAD);
  std::vector<char> buffer(static_cast<std::size_t>(count) * width);
  if (H5Aread(attribute.get(), memtype.get(), buffer.data()) < 0)
    fail(path, "cannot read attribute '" + std::string(name) + "'");
  std::string_view text(buffer.data(), width);
  return std::string(text.substr(0, text.find('\0')));
}

std::size_t File::string_attribute_width(std::string_view object_path, std::string_view name) const {
  if (!has_attribute(object_path, name)) return 0;
  const std::string path = absolute_object_path(object_path);
  Handle attribute = attribute_handle(H5Aopen_by_name(id_, path.c_str(), std::string(name).c_str(), H5P_DEFAULT, H5P_DEFAULT));
  if (!attribute.valid()) return 0;
  Handle type = type_handle(H5Aget_type(attribute.get()));
  if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) > 0) return 0;
  return H5Tget_size(type.get());
}

namespace {

template <class T>
std::optional<T> numeric_attribute(const File& file, hid_t file_id, std::string_view object_path, std::string_view name,
                                   hid_t memory) {
  if (!file.has_attribute(object_path, name)) return std::nullopt;
  const std::string path = absolute_object_path(object_path);
  Handle attribute = attribute_handle(H5Aopen_by_name(file_id, path.c_str(), std::string(name).c_str(), H5P_DEFAULT, H5P_DEFAULT));
  Handle type = type_handle(H5Aget_type(attribute.get()));
  Handle space = space_handle(H5Aget_space(attribute.get()));
  if (!attribute.valid() || !type.valid() || !space.valid()) file.fail(path, "cannot open attribute '" + std::string(name) + "'");
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_INTEGER && type_class != H5T_FLOAT && type_class != H5T_ENUM) return std::nullopt;
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count < 1 || count > (1 << 24)) return std::nullopt;
  std::vector<T> values(static_cast<std::size_t>(count));
  Handle memtype = type_handle(H5Tcopy(memory));
  if (type_class == H5T_ENUM) {  // enums convert only to enums: read the raw base integers
    memtype = type_handle(H5Tcopy(type.get()));
    if (H5Tget_size(type.get()) != sizeof(std::int32_t) || !std::is_integral_v<T>) return std::nullopt;
    std::vector<std::int32_t> raw(static_cast<std::size_t>(count));
    if (H5Aread(attribute.get(), memtype.get(), raw.data()) < 0) file.fail(path, "cannot read attribute '" + std::string(name) + "'");
    return static_cast<T>(raw[0]);
  }
  if (H5Aread(attribute.get(), memtype.get(), values.data()) < 0)
    file.fail(path, "cannot read attribute '" + std::string(name) + "'");
  return values[0];
}

}  // namespace

std::optional<std::int64_t> File::integer_attribute(std::string_view object_path, std::string_view name) const {
  return numeric_attribute<std::int64_t>(*this, id_, object_path, name, H5T_NATIVE_INT64);
}

std::optional<double> File::float_attribute(std::string_view object_path, std::string_view name) const {
  return numeric_attribute<double>(*this, id_, object_path, name, H5T_NATIVE_DOUBLE);
}

std::vector<std::string> File::attribute_names(std::string_view object_path) const {
  const std::string path = absolute_object_path(object_path);
  if (!exists(path)) fail(path, "no such object");
  std::vector<std::string> names;
  hsize_t index = 0;
  if (H5Aiterate_by_name(id_, path.c_str(), H5_INDEX_NAME, H5_ITER_INC, &index, collect_attribute_name, &names,
                         H5P_DEFAULT) < 0)
    fail(path, "cannot list the attributes");
  return names;
}

void File::create_group(std::string_view group_path) {
  const std::string path = absolute_object_path(group_path);
  if (kind(path) == ObjectKind::group) return;
  Handle lcpl = link_creation_plist();
  Handle group(H5Gcreate2(id_, path.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  if (!group.valid()) fail(path, "cannot create the group");
}

void File::write(std::string_view dataset_path, const NDArray& array, const DatasetWriteOptions& options) {
  const std::string path = absolute_object_path(dataset_path);
  const Shape& shape = array.shape();
  Shape space_extent = shape;
  Handle file_type;
  if (options.as_array_type && shape.size() > 1) {
    space_extent = {shape[0]};
    std::vector<hsize_t> trailing(shape.begin() + 1, shape.end());
    file_type = type_handle(H5Tarray_create2(native_type(array.dtype()), static_cast<unsigned>(trailing.size()),
                                             trailing.data()));
  } else {
    file_type = type_handle(H5Tcopy(native_type(array.dtype())));
  }
  std::vector<hsize_t> dims(space_extent.begin(), space_extent.end());
  Handle space = space_handle(dims.empty() ? H5Screate(H5S_SCALAR)
                                           : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  Handle dcpl = plist_handle(H5Pcreate(H5P_DATASET_CREATE));
  const bool compress = options.gzip_level >= 0 && !dims.empty() &&
                        std::all_of(dims.begin(), dims.end(), [](hsize_t d) { return d > 0; });
  std::vector<hsize_t> chunk = dims;
  std::size_t row_bytes = 0;
  const int level = std::min(options.gzip_level, 9);
  if (compress) {
    // Chunks of whole rows, about 256 KiB each: deflate's window is 32 KiB, so larger chunks
    // compress no better, and a 4 MiB point array still makes 16 chunks to share among the
    // cores (1 MiB chunks left one core idle for a chunk's time at the end of every dataset).
    row_bytes = std::max<std::size_t>(1, H5Tget_size(file_type.get()) *
                                             static_cast<std::size_t>(element_count(Shape(space_extent.begin() + 1, space_extent.end()))));
    chunk[0] = std::clamp<hsize_t>((std::size_t{1} << 18) / row_bytes, 1, dims[0]);
    H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data());
    H5Pset_deflate(dcpl.get(), static_cast<unsigned>(level));
  } else if (array.nbytes() >= kReserveFromBytes) {
    allocate_for_one_write(dcpl.get());
  }
  Handle lcpl = link_creation_plist();
  Handle dataset = dataset_handle(H5Dcreate2(id_, path.c_str(), file_type.get(), space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT));
  if (!dataset.valid()) fail(path, "cannot create the dataset");
  if (array.size() == 0) return;
  if (!compress) reserve_dataset_blocks(id_, dataset.get(), array.nbytes());
  // The same deflate chunks HDF5's filter would write, compressed on every core.
  if (compress && zlib_fast_available() && static_cast<std::uint64_t>(chunk[0]) * row_bytes <= kMaxOwnChunkBytes) {
    write_deflate_rows(*this, path, dataset.get(), array.data(), dims[0], row_bytes, chunk[0],
                       static_cast<int>(dims.size()), level);
    return;
  }
  if (H5Dwrite(dataset.get(), file_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, array.data()) < 0)
    fail(path, "cannot write the dataset");
}

void File::write_stacked(std::string_view dataset_path, const std::vector<NDArray>& pieces,
                         const DatasetWriteOptions& options) {
  const std::string path = absolute_object_path(dataset_path);
  if (pieces.empty()) fail(path, "nothing to write");
  const NDArray& first = pieces.front();
  std::int64_t rows = 0;
  for (const NDArray& piece : pieces) {
    if (piece.dtype() != first.dtype() || piece.row_width() != first.row_width())
      fail(path, "the pieces differ in dtype or row width");
    rows += piece.ndim() == 0 ? 1 : piece.rows();
  }
  Shape shape = first.ndim() == 0 ? Shape{1} : first.shape();
  shape[0] = rows;
  if (pieces.size() == 1 && first.ndim() > 0) return write(path, first, options);
  if (options.gzip_level >= 0 || options.as_array_type) {
    NDArray staged = NDArray::allocate_scratch(first.dtype(), shape);
    std::size_t offset = 0;
    for (const NDArray& piece : pieces) {
      if (piece.nbytes()) std::memcpy(static_cast<char*>(staged.data()) + offset, piece.data(), piece.nbytes());
      offset += piece.nbytes();
    }
    return write(path, staged, options);
  }
  std::uint64_t total_bytes = 0;
  for (const NDArray& piece : pieces) total_bytes += piece.nbytes();
  const RowsWrittenOnce target(id_, path, first.dtype(), std::vector<hsize_t>(shape.begin(), shape.end()), total_bytes);
  if (!target.dataset.valid()) fail(path, "cannot create the dataset");
  hsize_t row = 0;
  for (const NDArray& piece : pieces) {
    const auto count = static_cast<hsize_t>(piece.ndim() == 0 ? 1 : piece.rows());
    if (count > 0 && !target.write_rows(row, count, piece.data()))
      fail(path, "cannot write rows " + std::to_string(row) + ".." + std::to_string(row + count));
    row += count;
  }
}

void File::write_generated(std::string_view dataset_path, DType dtype, std::int64_t rows, const RowFiller& fill,
                           const DatasetWriteOptions& options) {
  const std::string path = absolute_object_path(dataset_path);
  const std::size_t item = dtype_size(dtype);
  const std::uint64_t total_bytes = static_cast<std::uint64_t>(rows) * item;
  if (options.gzip_level >= 0 || total_bytes < kReserveFromBytes) {
    NDArray whole = NDArray::allocate_scratch(dtype, {rows});
    if (rows > 0) fill(0, rows, whole.data());
    return write(path, whole, options);
  }
  const RowsWrittenOnce target(id_, path, dtype, {static_cast<hsize_t>(rows)}, total_bytes);
  if (!target.dataset.valid()) fail(path, "cannot create the dataset");
  const std::int64_t block_rows = static_cast<std::int64_t>(std::max<std::size_t>(kGeneratedBlockBytes / item, 1));
  const std::unique_ptr<unsigned char[]> block(new unsigned char[static_cast<std::size_t>(block_rows) * item]);
  for (std::int64_t first = 0; first < rows; first += block_rows) {
    const std::int64_t count = std::min(block_rows, rows - first);
    fill(first, count, block.get());
    if (!target.write_rows(static_cast<hsize_t>(first), static_cast<hsize_t>(count), block.get()))
      fail(path, "cannot write rows " + std::to_string(first) + ".." + std::to_string(first + count));
  }
}

void File::write_virtual(std::string_view dataset_path, DType dtype, const Shape& row_shape,
                         const std::vector<VirtualSource>& sources) {
  const std::string path = absolute_object_path(dataset_path);
  std::int64_t total = 0;
  for (const VirtualSource& source : sources) {
    if (source.rows < 0) fail(path, "a virtual source with a negative row count");
    total += source.rows;
  }
  std::vector<hsize_t> dims{static_cast<hsize_t>(total)};
  for (std::int64_t extent : row_shape) dims.push_back(static_cast<hsize_t>(extent));
  Handle space = space_handle(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  Handle dcpl = plist_handle(H5Pcreate(H5P_DATASET_CREATE));
  std::int64_t row = 0;
  for (const VirtualSource& source : sources) {
    if (source.rows == 0) continue;
    std::vector<hsize_t> start(dims.size(), 0), count = dims;
    start[0] = static_cast<hsize_t>(row);
    count[0] = static_cast<hsize_t>(source.rows);
    Handle virtual_space = space_handle(H5Scopy(space.get()));
    H5Sselect_hyperslab(virtual_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
    Handle source_space = space_handle(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr));
    if (H5Pset_virtual(dcpl.get(), virtual_space.get(), source.file.c_str(), source.dataset.c_str(),
                       source_space.get()) < 0)
      fail(path, "cannot map rows of " + source.file + ":" + source.dataset);
    row += source.rows;
  }
  Handle file_type = type_handle(H5Tcopy(native_type(dtype)));
  Handle lcpl = link_creation_plist();
  Handle dataset = dataset_handle(H5Dcreate2(id_, path.c_str(), file_type.get(), space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT));
  if (!dataset.valid()) fail(path, "cannot create the virtual dataset");
}

std::vector<std::uint8_t> File::stored_chunk(std::string_view dataset_path, const std::vector<std::int64_t>& offset,
                                             std::uint32_t* filter_mask) const {
  const std::string path = absolute_object_path(dataset_path);
  MESHIOPLUSPLUS_OPEN_DATASET(open, path);
  if (offset.size() != open.space_shape.size()) fail(path, "the chunk offset's rank differs from the dataset's");
  std::vector<hsize_t> start(offset.begin(), offset.end());
  unsigned info_mask = 0;
  haddr_t address = HADDR_UNDEF;
  hsize_t stored = 0;
  if (H5Dget_chunk_info_by_coord(open.dataset.get(), start.data(), &info_mask, &address, &stored) < 0)
    fail(path, "no such chunk");
  if (address == HADDR_UNDEF) stored = 0;
  if (stored > file_size_ && mode_ == Mode::read) fail(path, "the chunk claims more bytes than the file has");
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(stored));
  std::uint32_t mask = 0;
  if (stored > 0 && H5Dread_chunk(open.dataset.get(), H5P_DEFAULT, start.data(), &mask, bytes.data()) < 0)
    fail(path, "cannot read the chunk");
  if (filter_mask != nullptr) *filter_mask = mask;
  return bytes;
}

std::vector<VirtualSource> File::virtual_sources(std::string_view dataset_path) const {
  const std::string path = absolute_object_path(dataset_path);
  Handle dataset = dataset_handle(H5Dopen2(id_, path.c_str(), H5P_DEFAULT));
  if (!dataset.valid()) fail(path, "no such dataset");
  Handle plist = plist_handle(H5Dget_create_plist(dataset.get()));
  std::vector<VirtualSource> result;
  if (!plist.valid() || H5Pget_layout(plist.get()) != H5D_VIRTUAL) return result;
  std::size_t count = 0;
  if (H5Pget_virtual_count(plist.get(), &count) < 0) fail(path, "cannot list the virtual dataset's sources");
  for (std::size_t i = 0; i < count; ++i) {
    VirtualSource source;
    const ssize_t file_length = H5Pget_virtual_filename(plist.get(), i, nullptr, 0);
    const ssize_t name_length = H5Pget_virtual_dsetname(plist.get(), i, nullptr, 0);
    if (file_length < 0 || name_length < 0) fail(path, "cannot read virtual source " + std::to_string(i));
    source.file.resize(static_cast<std::size_t>(file_length) + 1);
    source.dataset.resize(static_cast<std::size_t>(name_length) + 1);
    H5Pget_virtual_filename(plist.get(), i, source.file.data(), source.file.size());
    H5Pget_virtual_dsetname(plist.get(), i, source.dataset.data(), source.dataset.size());
    source.file.resize(static_cast<std::size_t>(file_length));
    source.dataset.resize(static_cast<std::size_t>(name_length));
    Handle selection = space_handle(H5Pget_virtual_vspace(plist.get(), i));
    if (selection.valid()) {
      hsize_t low[H5S_MAX_RANK] = {}, high[H5S_MAX_RANK] = {};
      if (H5Sget_select_bounds(selection.get(), low, high) >= 0) {
        source.first_row = static_cast<std::int64_t>(low[0]);
        source.rows = static_cast<std::int64_t>(high[0] - low[0] + 1);
      }
    }
    result.push_back(std::move(source));
  }
  return result;
}

void File::write_strings(std::string_view dataset_path, const std::vector<std::string>& values, int gzip_level) {
  const std::string path = absolute_object_path(dataset_path);
  std::size_t width = 1;
  for (const std::string& value : values) width = std::max(width, value.size());
  std::vector<char> buffer(values.size() * width, '\0');
  for (std::size_t i = 0; i < values.size(); ++i) std::copy(values[i].begin(), values[i].end(), buffer.begin() + i * width);
  Handle type = type_handle(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), width);
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  const hsize_t count = values.size();
  Handle space = space_handle(H5Screate_simple(1, &count, nullptr));
  Handle dcpl = plist_handle(H5Pcreate(H5P_DATASET_CREATE));
  if (gzip_level >= 0 && count > 0) {
    H5Pset_chunk(dcpl.get(), 1, &count);
    H5Pset_deflate(dcpl.get(), static_cast<unsigned>(std::min(gzip_level, 9)));
  }
  Handle lcpl = link_creation_plist();
  Handle dataset = dataset_handle(H5Dcreate2(id_, path.c_str(), type.get(), space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT));
  if (!dataset.valid()) fail(path, "cannot create the dataset");
  if (count > 0 && H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) < 0)
    fail(path, "cannot write the strings");
}

namespace {

void write_scalar_attribute(const File& file, hid_t file_id, std::string_view object_path, std::string_view name,
                            hid_t type, const void* value) {
  const std::string path = absolute_object_path(object_path);
  const std::string attribute_name(name);
  if (H5Aexists_by_name(file_id, path.c_str(), attribute_name.c_str(), H5P_DEFAULT) > 0)
    H5Adelete_by_name(file_id, path.c_str(), attribute_name.c_str(), H5P_DEFAULT);
  H5Eclear2(H5E_DEFAULT);
  Handle space = space_handle(H5Screate(H5S_SCALAR));
  Handle attribute = attribute_handle(
      H5Acreate_by_name(file_id, path.c_str(), attribute_name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!attribute.valid()) file.fail(path, "cannot create attribute '" + attribute_name + "'");
  if (H5Awrite(attribute.get(), type, value) < 0) file.fail(path, "cannot write attribute '" + attribute_name + "'");
}

}  // namespace

void File::set_attribute(std::string_view object_path, std::string_view name, std::string_view value) {
  Handle type = type_handle(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  const std::string text(value);
  const char* pointer = text.c_str();
  write_scalar_attribute(*this, id_, object_path, name, type.get(), &pointer);
}

void File::set_attribute(std::string_view object_path, std::string_view name, std::int64_t value) {
  write_scalar_attribute(*this, id_, object_path, name, H5T_NATIVE_INT64, &value);
}

void File::set_attribute(std::string_view object_path, std::string_view name, std::uint64_t value) {
  write_scalar_attribute(*this, id_, object_path, name, H5T_NATIVE_UINT64, &value);
}

void File::set_attribute(std::string_view object_path, std::string_view name, double value) {
  write_scalar_attribute(*this, id_, object_path, name, H5T_NATIVE_DOUBLE, &value);
}

void File::set_attribute(std::string_view object_path, std::string_view name, const std::vector<std::int64_t>& values) {
  const std::string path = absolute_object_path(object_path);
  const std::string attribute_name(name);
  if (H5Aexists_by_name(id_, path.c_str(), attribute_name.c_str(), H5P_DEFAULT) > 0)
    H5Adelete_by_name(id_, path.c_str(), attribute_name.c_str(), H5P_DEFAULT);
  H5Eclear2(H5E_DEFAULT);
  const hsize_t count = values.size();
  Handle space = space_handle(H5Screate_simple(1, &count, nullptr));
  Handle attribute = attribute_handle(H5Acreate_by_name(id_, path.c_str(), attribute_name.c_str(), H5T_NATIVE_INT64,
                                                        space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!attribute.valid()) fail(path, "cannot create attribute '" + attribute_name + "'");
  if (count > 0 && H5Awrite(attribute.get(), H5T_NATIVE_INT64, values.data()) < 0)
    fail(path, "cannot write attribute '" + attribute_name + "'");
}

void File::set_int32_attribute(std::string_view object_path, std::string_view name, std::int32_t value) {
  write_scalar_attribute(*this, id_, object_path, name, H5T_NATIVE_INT32, &value);
}

void File::set_fixed_string_attribute(std::string_view object_path, std::string_view name, std::string_view value) {
  Handle type = type_handle(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1));  // HDF5 has no zero-length strings
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  std::string text(value);
  text.resize(std::max<std::size_t>(value.size(), 1), '\0');
  write_scalar_attribute(*this, id_, object_path, name, type.get(), text.data());
}

void File::commit_datatype(std::string_view type_path, DType dtype, int components) {
  const std::string path = absolute_object_path(type_path);
  Handle type;
  if (components > 1) {
    const hsize_t dims = static_cast<hsize_t>(components);
    type = type_handle(H5Tarray_create2(native_type(dtype), 1, &dims));
  } else {
    type = type_handle(H5Tcopy(native_type(dtype)));
  }
  Handle lcpl = link_creation_plist();
  if (H5Tcommit2(id_, path.c_str(), type.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT) < 0)
    fail(path, "cannot store the named datatype");
}

void File::commit_enum_datatype(std::string_view type_path, const std::vector<std::pair<std::string, int>>& members) {
  const std::string path = absolute_object_path(type_path);
  Handle type = type_handle(H5Tenum_create(H5T_NATIVE_INT32));
  for (const auto& [member, value] : members) {
    const std::int32_t number = value;
    if (H5Tenum_insert(type.get(), member.c_str(), &number) < 0) fail(path, "cannot build the enum type");
  }
  Handle lcpl = link_creation_plist();
  if (H5Tcommit2(id_, path.c_str(), type.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT) < 0)
    fail(path, "cannot store the named datatype");
}

void File::set_enum_attribute(std::string_view object_path, std::string_view name, std::string_view enum_type_path,
                              int value) {
  const std::string type_path = absolute_object_path(enum_type_path);
  Handle type = type_handle(H5Topen2(id_, type_path.c_str(), H5P_DEFAULT));
  if (!type.valid()) fail(type_path, "no such named datatype");
  const std::int32_t number = value;
  write_scalar_attribute(*this, id_, object_path, name, type.get(), &number);
}

#undef MESHIOPLUSPLUS_OPEN_DATASET

#else  // no HDF5 in this build: every entry point names the missing library.

bool available() noexcept { return false; }

void File::fail(std::string_view object_path, const std::string& message) const {
  const std::string text =
      object_path.empty() ? message : "HDF5 object '" + absolute_object_path(object_path) + "': " + message;
  if (mode_ == Mode::write) throw WriteError(path_, format_, text);
  throw ReadError(path_, format_, text);
}

File File::open(const std::string& path, std::string_view format) {
  throw ReadError(path, std::string(format), std::string(kMissingLibrary));
}
File File::create(const std::string& path, std::string_view format) {
  throw WriteError(path, std::string(format), std::string(kMissingLibrary));
}
File::File(File&& other) noexcept = default;
File& File::operator=(File&& other) noexcept = default;
File::~File() = default;
void File::close() noexcept {}
void File::commit() { fail({}, std::string(kMissingLibrary)); }
void File::set_attribute(std::string_view path, std::string_view, const std::vector<std::int64_t>&) {
  fail(path, std::string(kMissingLibrary));
}
void File::set_int32_attribute(std::string_view path, std::string_view, std::int32_t) { fail(path, std::string(kMissingLibrary)); }
void File::set_fixed_string_attribute(std::string_view path, std::string_view, std::string_view) {
  fail(path, std::string(kMissingLibrary));
}
ObjectKind File::kind(std::string_view) const { return ObjectKind::missing; }
std::vector<std::string> File::children(std::string_view path) const { fail(path, std::string(kMissingLibrary)); }
DatasetInfo File::dataset_info(std::string_view path) const { fail(path, std::string(kMissingLibrary)); }
void File::expect_shape(std::string_view path, const Shape&, const Shape&) const { fail(path, std::string(kMissingLibrary)); }
NDArray File::read(std::string_view path) const { fail(path, std::string(kMissingLibrary)); }
NDArray File::read(std::string_view path, DType) const { fail(path, std::string(kMissingLibrary)); }
NDArray File::read_rows(std::string_view path, std::int64_t, std::int64_t, std::optional<DType>) const {
  fail(path, std::string(kMissingLibrary));
}
void File::read_into(std::string_view path, NDArray&) const { fail(path, std::string(kMissingLibrary)); }
std::vector<std::string> File::read_strings(std::string_view path) const { fail(path, std::string(kMissingLibrary)); }
bool File::has_attribute(std::string_view, std::string_view) const { return false; }
std::optional<std::string> File::string_attribute(std::string_view, std::string_view) const { return std::nullopt; }
std::size_t File::string_attribute_width(std::string_view, std::string_view) const { return 0; }
std::optional<std::int64_t> File::integer_attribute(std::string_view, std::string_view) const { return std::nullopt; }
std::optional<double> File::float_attribute(std::string_view, std::string_view) const { return std::nullopt; }
std::vector<std::string> File::attribute_names(std::string_view) const { return {}; }
void File::create_group(std::string_view path) { fail(path, std::string(kMissingLibrary)); }
void File::write(std::string_view path, const NDArray&, const DatasetWriteOptions&) { fail(path, std::string(kMissingLibrary)); }
void File::write_strings(std::string_view path, const std::vector<std::string>&, int) { fail(path, std::string(kMissingLibrary)); }
void File::write_stacked(std::string_view path, const std::vector<NDArray>&, const DatasetWriteOptions&) {
  fail(path, std::string(kMissingLibrary));
}
void File::write_generated(std::string_view path, DType, std::int64_t, const RowFiller&, const DatasetWriteOptions&) {
  fail(path, std::string(kMissingLibrary));
}
void File::write_virtual(std::string_view path, DType, const Shape&, const std::vector<VirtualSource>&) {
  fail(path, std::string(kMissingLibrary));
}
std::vector<VirtualSource> File::virtual_sources(std::string_view path) const { fail(path, std::string(kMissingLibrary)); }
std::vector<std::uint8_t> File::stored_chunk(std::string_view path, const std::vector<std::int64_t>&,
                                             std::uint32_t*) const {
  fail(path, std::string(kMissingLibrary));
}
void File::set_attribute(std::string_view path, std::string_view, std::string_view) { fail(path, std::string(kMissingLibrary)); }
void File::set_attribute(std::string_view path, std::string_view, std::int64_t) { fail(path, std::string(kMissingLibrary)); }
void File::set_attribute(std::string_view path, std::string_view, std::uint64_t) { fail(path, std::string(kMissingLibrary)); }
void File::set_attribute(std::string_view path, std::string_view, double) { fail(path, std::string(kMissingLibrary)); }
void File::commit_datatype(std::string_view path, DType, int) { fail(path, std::string(kMissingLibrary)); }
void File::commit_enum_datatype(std::string_view path, const std::vector<std::pair<std::string, int>>&) {
  fail(path, std::string(kMissingLibrary));
}
void File::set_enum_attribute(std::string_view path, std::string_view, std::string_view, int) {
  fail(path, std::string(kMissingLibrary));
}

#endif

}  // namespace meshioplusplus::io::hdf5
