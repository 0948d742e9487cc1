// io::hdf5::File's own chunk path: the chunks of deflated or unfiltered chunked datasets read
// and inflated on every core into the destination, and deflate chunks compressed on every core
// and stored with H5Dwrite_chunk. Reads (hdf5_read.cpp) and writes (hdf5_write.cpp) both call
// it through hdf5_internal.hpp; a file of its own so that none passes the 1,000-line limit.
#include "io/hdf5/hdf5_internal.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <system_error>

#include "core/parallel_ranges.hpp"
#include "io/codecs/zlib_codec.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_HDF5
#include <unistd.h>

namespace meshioplusplus::io::hdf5 {

using namespace detail;

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

namespace {

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

}  // namespace

namespace detail {

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

}  // namespace detail

}  // namespace meshioplusplus::io::hdf5

#endif  // MESHIOPLUSPLUS_HAVE_HDF5
