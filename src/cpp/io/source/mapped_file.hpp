// Floor 2: a whole file as read-only bytes. Small files are read into memory; large ones are
// memory-mapped so parsers never copy them. Rules (docs/reliability.md, "File-level faults"):
// - Only regular files are read. The file is opened without blocking, so a FIFO with no writer,
//   a socket or a device is refused with a ReadError instead of hanging; a directory is refused
//   as "is a directory".
// - Files below small_file_limit() (1 MiB) are read with pread into a private buffer: another
//   process truncating or rewriting the file can no longer change the bytes being parsed.
// - Larger files are mapped. If another process truncates a mapped file, touching the lost pages
//   raises SIGBUS; a process-wide handler recognises addresses inside a live mapping, puts zero
//   pages there so the parser can finish, and marks the mapping. The read then ends in a
//   ReadError "file changed size while being read" (see guarded_read). SIGBUS anywhere else goes
//   to whatever handler was installed before (or the default action).
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::io {

class MappedFile {
 public:
  // Throws ReadError naming `path` (and `format`) when the file cannot be opened, is not a
  // regular file, or cannot be read or mapped.
  MappedFile(const std::string& path, std::string_view format);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view bytes() const noexcept { return {data_, size_}; }
  const std::string& path() const noexcept { return path_; }
  // Whether the bytes come from a mapping (false: a private copy).
  bool is_mapped() const noexcept { return mapped_; }
  // True once the file shrank under the mapping: the lost pages now read as zero bytes.
  bool changed_while_read() const noexcept;
  // Copies bytes [offset, offset + size) of the file into `destination`. A mapped file's bytes
  // are read with pread (on every core when large) and its pages in that range are never
  // touched: for an array stored as is, mapping its pages (a fault per 16 pages, then their
  // unmapping) cost a third as much as copying them. False when the file ended first (it
  // shrank while being read); a read error is a ReadError.
  bool copy_out(std::size_t offset, void* destination, std::size_t size) const;
  // Lets a mapped file's resident pages go (madvise MADV_DONTNEED; the bytes stay valid and
  // are read from the file again if touched), for a reader that has parsed what it needs and
  // goes on building from it: the file's pages then do not add to its peak memory. A copied
  // (small) file keeps its bytes.
  void release_pages() const noexcept;

  // Files smaller than this are copied into memory instead of mapped (default 1 MiB).
  static std::size_t small_file_limit() noexcept;
  // For tests: change the limit (0 maps every non-empty file); returns the previous value.
  static std::size_t set_small_file_limit(std::size_t bytes) noexcept;
  // For tests: called with the path right after a file is mapped (nullptr: none).
  using AfterMapHook = void (*)(const std::string& path);
  static void set_after_map_hook(AfterMapHook hook) noexcept;

 private:
  std::string path_;
  std::string format_;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  std::unique_ptr<char[]> copy_;  // small files
  int guard_slot_ = -1;           // index in the SIGBUS guard table, -1 when not guarded
  int fd_ = -1;                   // mapped files: kept open for copy_out
  bool mapped_ = false;
};

namespace detail {
// Set on the reading thread when a MappedFile whose file shrank while mapped is destroyed.
struct ChangedWhileRead {
  std::string path, format;
  bool happened = false;
};
ChangedWhileRead& changed_while_read_on_this_thread() noexcept;
[[noreturn]] void throw_changed_while_read(const ChangedWhileRead& record);
}  // namespace detail

// Runs `read()` (a format reader) and reports a file that shrank under one of its mappings as
// ReadError "file changed size while being read" instead of the result or error that the zero
// pages produced.
template <class Read>
auto guarded_read(Read&& read) -> decltype(read()) {
  detail::ChangedWhileRead& record = detail::changed_while_read_on_this_thread();
  const detail::ChangedWhileRead outer = std::exchange(record, {});  // a nested read keeps the outer one's
  std::optional<decltype(read())> result;
  std::exception_ptr failure;
  try {
    result.emplace(read());
  } catch (...) {
    failure = std::current_exception();
  }
  const detail::ChangedWhileRead mine = std::exchange(record, outer);
  if (mine.happened) detail::throw_changed_while_read(mine);
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

}  // namespace meshioplusplus::io
