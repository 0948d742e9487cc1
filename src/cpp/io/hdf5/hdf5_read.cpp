// io::hdf5::File's dataset reads: whole datasets, row ranges, into caller memory, strings,
// stored chunks and virtual-dataset sources. Each read checks the declared size against the
// file first, then takes the fastest route the layout allows (raw contiguous bytes with pread,
// chunks decoded on every core by hdf5_chunks.cpp, else H5Dread). Split from the handle
// (hdf5_file.cpp) so that no file passes the project's 1,000-line limit.
#include "io/hdf5/hdf5_internal.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "io/source/parallel.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_HDF5

namespace meshioplusplus::io::hdf5 {

using namespace detail;

namespace {

// Generous ratio for what a compressed chunk may expand to (deflate tops out near 1032:1).
constexpr std::uint64_t kMaxExpansion = 1100;
constexpr std::uint64_t kUnstoredSlack = std::uint64_t{64} << 20;

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

// `bytes` bytes at `run` into `data`, with pread on every core (HDF5's own reads through the
// same descriptor are unaffected). Returns what went wrong, or an empty string.
std::string read_raw(const RawRun& run, void* data, std::uint64_t bytes) {
  const int error = io::pread_in_parallel(run.fd, run.offset, data, bytes, kDirectBytesMin);
  if (error == -1) return "the file ends inside the dataset's bytes (truncated file?)";
  if (error != 0) return "raw read failed: " + std::generic_category().message(error);
  return {};
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

// ---- compound datasets: one member at a time ----
//
// HDF5 converts a record type to a memory compound holding only the members named in it
// (matched by name), so one member is read without staging whole records.

std::vector<std::string> File::member_names(std::string_view dataset_path) const {
  const std::string path = absolute_object_path(dataset_path);
  MESHIOPLUSPLUS_OPEN_DATASET(open, path);
  if (!open.element.compound) fail(path, "expected a dataset of records (a compound type)");
  const int members = H5Tget_nmembers(open.type.get());
  if (members < 0) fail(path, "cannot list the record's members");
  std::vector<std::string> names;
  for (int m = 0; m < members; ++m) {
    char* name = H5Tget_member_name(open.type.get(), static_cast<unsigned>(m));
    if (name == nullptr) fail(path, "cannot read a member name");
    names.emplace_back(name);
    H5free_memory(name);
  }
  return names;
}

NDArray File::read_member(std::string_view dataset_path, std::string_view member, DType dtype, std::int64_t first,
                          std::int64_t count) const {
  const std::string path = absolute_object_path(dataset_path);
  MESHIOPLUSPLUS_OPEN_DATASET(open, path);
  if (!open.element.compound) fail(path, "expected a dataset of records (a compound type)");
  const Shape& extent = open.space_shape;
  if (extent.size() != 1) fail(path, "expected a 1-D dataset of records, found the shape " + shape_text(extent));
  const std::string name(member);
  const int index = H5Tget_member_index(open.type.get(), name.c_str());
  if (index < 0) fail(path, "the records have no member '" + name + "'");
  Handle member_type = type_handle(H5Tget_member_type(open.type.get(), static_cast<unsigned>(index)));
  if (!member_type.valid()) fail(path, "cannot read the type of member '" + name + "'");
  const ElementType element = describe_type(member_type.get());
  if (element.compound || element.string || !element.dtype)
    fail(path, "member '" + name + "' is not an integer or float (or an array of them)");
  if (count < 0) count = extent[0] - first;
  if (first < 0 || count < 0 || first > extent[0] || count > extent[0] - first)
    fail(path, "rows [" + std::to_string(first) + ", " + std::to_string(first + count) + ") outside the " +
                   std::to_string(extent[0]) + " rows");
  if (auto problem = storage_problem(open.dataset.get(), open.type.get(), extent, {}, file_size_)) fail(path, *problem);
  Shape shape{count};
  shape.insert(shape.end(), element.trailing.begin(), element.trailing.end());
  NDArray array = NDArray::allocate(dtype, shape);
  if (array.size() == 0) return array;
  Handle value_type = memory_type(dtype, element.trailing);
  const std::size_t row_bytes = H5Tget_size(value_type.get());
  Handle record_type = type_handle(H5Tcreate(H5T_COMPOUND, row_bytes));
  if (!value_type.valid() || !record_type.valid() ||
      H5Tinsert(record_type.get(), name.c_str(), 0, value_type.get()) < 0)
    fail(path, "cannot build the memory type of member '" + name + "'");
  const hsize_t start = static_cast<hsize_t>(first), rows = static_cast<hsize_t>(count);
  if (H5Sselect_hyperslab(open.space.get(), H5S_SELECT_SET, &start, nullptr, &rows, nullptr) < 0)
    fail(path, "cannot select the row range");
  Handle memory_space = space_handle(H5Screate_simple(1, &rows, nullptr));
  if (H5Dread(open.dataset.get(), record_type.get(), memory_space.get(), open.space.get(), H5P_DEFAULT,
              array.data()) < 0)
    fail(path, "cannot read member '" + name + "'");
  return array;
}

}  // namespace meshioplusplus::io::hdf5

#endif  // MESHIOPLUSPLUS_HAVE_HDF5
