// io::hdf5::File's dataset writes: groups, whole arrays (contiguous, or deflate chunks through
// hdf5_chunks.cpp), stacked pieces and generated rows written a block at a time, virtual
// datasets and string datasets. Split from the reads and the handle so that no file passes
// the project's 1,000-line limit.
#include "io/hdf5/hdf5_internal.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "io/codecs/zlib_codec.hpp"
#include "io/output/atomic_file.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_HDF5

namespace meshioplusplus::io::hdf5 {

using namespace detail;

namespace {

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

}  // namespace

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

void File::write_strings(std::string_view dataset_path, const std::vector<std::string>& values, int gzip_level,
                         StringStorage storage) {
  const std::string path = absolute_object_path(dataset_path);
  const bool variable = storage == StringStorage::variable_length;
  std::size_t width = 1;
  for (const std::string& value : values) width = std::max(width, value.size());
  std::vector<char> buffer(variable ? 0 : values.size() * width, '\0');
  std::vector<const char*> pointers;  // variable length: HDF5 takes one C string per element
  if (variable)
    for (const std::string& value : values) pointers.push_back(value.c_str());
  else
    for (std::size_t i = 0; i < values.size(); ++i) std::copy(values[i].begin(), values[i].end(), buffer.begin() + i * width);
  Handle type = type_handle(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), variable ? H5T_VARIABLE : width);
  H5Tset_strpad(type.get(), variable ? H5T_STR_NULLTERM : H5T_STR_NULLPAD);
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
  const void* data = variable ? static_cast<const void*>(pointers.data()) : static_cast<const void*>(buffer.data());
  if (count > 0 && H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    fail(path, "cannot write the strings");
}

}  // namespace meshioplusplus::io::hdf5

#endif  // MESHIOPLUSPLUS_HAVE_HDF5
