// Floor 2: crash-safe output. Bytes go to a temporary file beside the target, which
// replaces the target only on commit(); a failed or abandoned write leaves any existing
// file untouched. Where the filesystem has O_TMPFILE the temporary file has no name until
// commit(), so a killed writer leaves nothing behind; elsewhere it is named
// "<name>.tmp-XXXXXX", the name shortened (with a hash) to fit NAME_MAX. docs/reliability.md.
#pragma once

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "io/output/float_format.hpp"
#include "meshioplusplus/ndarray.hpp"

namespace meshioplusplus::io {

class AtomicFile {
 public:
  // Throws WriteError naming `path` when the temporary file cannot be created.
  AtomicFile(const std::string& path, std::string_view format);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }
  // Flushes, closes and renames over the target. Throws WriteError on failure.
  void commit();
  [[noreturn]] void fail(const std::string& message) const;
  const std::string& path() const noexcept { return path_; }

 private:
  void create_named_temporary();
  void link_temporary_name();

  std::string path_, directory_, temp_path_, format_;
  int fd_ = -1;
  std::uint64_t written_ = 0;  // bytes written so far: where the next write lands
  bool unnamed_ = false;  // O_TMPFILE: no name until commit()
  bool committed_ = false;
};

// For writers whose library creates the file itself (HDF5, netCDF, CGNS): the same rules as
// AtomicFile, in two steps. reserve_temporary_beside creates an empty "<name>.tmp-XXXXXX"
// beside `path` (unique, shortened to fit NAME_MAX, an ordinary new file's permissions) and
// returns its path, or throws WriteError(path, format). replace_with_temporary moves the
// finished file over `path` as AtomicFile::commit does (an exchange with an existing regular
// file, then the old one deleted; a rename otherwise), or throws WriteError.
std::string reserve_temporary_beside(const std::string& path, std::string_view format);

// For libraries that can create a file only if its name is free (HDF5's H5F_ACC_EXCL,
// netCDF's NC_NOCLOBBER): finds a name as reserve_temporary_beside does, frees it, and calls
// create_new(name), which creates the file there and returns true, returns false if the name
// was taken meanwhile (another name is then drawn), or throws. Returns the name. Better than
// letting the library truncate the reserved empty file: on ext4 a file truncated when opened
// is written back inside its close() (auto_da_alloc), about 1.3 ms per 44 MB on the writer's
// clock, where a new file's pages are written back later by the kernel.
std::string create_temporary_beside(const std::string& path, std::string_view format,
                                    const std::function<bool(const std::string&)>& create_new);
void replace_with_temporary(const std::string& temporary, const std::string& path, std::string_view format);
// For appending through a library (HDF5, netCDF): a temporary beside `path` as
// reserve_temporary_beside makes, holding a copy of the file's bytes, for the library to edit
// and replace_with_temporary to put in place. Throws WriteError (path, format) when the copy fails.
std::string copy_to_temporary_beside(const std::string& path, std::string_view format);

// Allocates the file's blocks for [offset, offset + bytes) ahead of a buffered write of that
// range, without changing the file's size (Linux fallocate, FALLOC_FL_KEEP_SIZE). On ext4 a
// buffered write into blocks not yet allocated reserves them page by page (delayed
// allocation); with the range allocated in one call, a 54 MB write into a new file took
// 8.9 ms instead of 12.9 ms, and 65 instead of 70 ms with its fsync (docs/benchmarks.md,
// fifteenth session). Only ranges of kReserveFromBytes and more: for 64 KiB writes the call
// costs what it saves. Best effort: a filesystem without fallocate, or one without the
// space, is left to the write itself, which reports its own error. Only ranges the caller
// writes next may be reserved, or blocks past the end stay allocated.
inline constexpr std::uint64_t kReserveFromBytes = std::uint64_t{1} << 20;
void reserve_file_range(int fd, std::uint64_t offset, std::uint64_t bytes) noexcept;

// The same for a file a library writes through its own descriptor (netCDF), whose layout we
// only know roughly: reserve_blocks_of(path, bytes) allocates [0, bytes) of the file at
// `path` (at least what the library will write, estimated), and trim_blocks_past_end(path),
// once the library has closed the file, frees what the estimate allocated past its end
// (truncating a file to its own size drops blocks allocated beyond it). Both best effort.
void reserve_blocks_of(const std::string& path, std::uint64_t bytes) noexcept;
void trim_blocks_past_end(const std::string& path) noexcept;

// Buffered text/binary output into an AtomicFile with locale-independent numbers:
// floats are written in the shortest form that parses back to the same bits, or as a
// caller's meshio float_fmt asks (set_float_format; io/output/float_format.hpp).
class OutputBuffer {
 public:
  explicit OutputBuffer(AtomicFile& file) : file_(file) { buffer_.reserve(kCapacity + kPendingBytes + 512); }
  OutputBuffer(const OutputBuffer&) = delete;  // a copy would write its own bytes out of order
  OutputBuffer& operator=(const OutputBuffer&) = delete;
  ~OutputBuffer() = default;

  void put(char c) {
    drain_pending();
    buffer_.push_back(c);
    maybe_flush();
  }
  void text(std::string_view s) {
    drain_pending();
    buffer_.append(s);
    maybe_flush();
  }
  // Binary writers hand over one value at a time: those small pieces gather in a plain array
  // (an inlined fixed-size memcpy is one store) and reach the string a block at a time.
  void bytes(const void* data, std::size_t size) {
    if (size == 0) return;  // data may be null then, which memcpy does not allow
    if (size <= kPendingBytes - pending_size_) [[likely]] {
      std::memcpy(pending_ + pending_size_, data, size);
      pending_size_ += size;
      return;
    }
    large_bytes(data, size);
  }
  // Floats from now on as `format` (meshio's float_fmt); the default is the shortest exact form.
  void set_float_format(const FloatFormat& format) { float_format_ = format; }
  template <class T> void number(T value) {
    drain_pending();
    if constexpr (std::is_floating_point_v<T>) {
      if (!float_format_.shortest) [[unlikely]] {
        append_float(buffer_, static_cast<double>(value), float_format_);
        maybe_flush();
        return;
      }
    }
    char scratch[40];
    std::to_chars_result result;
    if constexpr (std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t>) {
      result = std::to_chars(scratch, scratch + sizeof scratch, static_cast<int>(value));
    } else {
      result = std::to_chars(scratch, scratch + sizeof scratch, value);
    }
    buffer_.append(scratch, static_cast<std::size_t>(result.ptr - scratch));
    maybe_flush();
  }
  void flush() {
    drain_pending();
    if (!buffer_.empty()) file_.write(buffer_.data(), buffer_.size());
    buffer_.clear();
  }
  // Direct access for encoders that append large blocks (base64 …).
  std::string& raw() {
    drain_pending();
    return buffer_;
  }
  void maybe_flush() {
    if (buffer_.size() >= kCapacity) flush();
  }

 private:
  static constexpr std::size_t kCapacity = 1 << 20;
  static constexpr std::size_t kPendingBytes = 1 << 14;

  // A value that no longer fits the pending array, or a block: through the string or straight out.
  [[gnu::noinline]] void large_bytes(const void* data, std::size_t size) {
    drain_pending();
    if (size > kCapacity) {
      flush();
      file_.write(data, size);
      return;
    }
    buffer_.append(static_cast<const char*>(data), size);
    maybe_flush();
  }
  void drain_pending() {
    if (pending_size_ == 0) return;
    buffer_.append(pending_, pending_size_);
    pending_size_ = 0;
    maybe_flush();
  }

  AtomicFile& file_;
  std::string buffer_;
  char pending_[kPendingBytes];
  std::size_t pending_size_ = 0;
  FloatFormat float_format_;
};

// Whether put_row writes NaN values or leaves them out (NaN as padding of short rows).
enum class NanValues { write, skip };

// Row `row` of `array` in its own dtype, each value preceded by a blank.
inline void put_row(OutputBuffer& out, const NDArray& array, std::int64_t row,
                    NanValues nan_values = NanValues::write) {
  visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const std::int64_t width = array.row_width();
    const T* values = static_cast<const T*>(array.data()) + row * width;
    for (std::int64_t i = 0; i < width; ++i) {
      if constexpr (std::is_floating_point_v<T>)
        if (nan_values == NanValues::skip && std::isnan(values[i])) continue;
      out.put(' ');
      out.number(values[i]);
    }
  });
}

}  // namespace meshioplusplus::io
