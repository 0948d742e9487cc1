#include "io/output/atomic_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <system_error>
#include <thread>
#include <vector>

#include "core/deferred_check.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::io {
namespace {

constexpr std::string_view kTempMarker = ".tmp-";
constexpr std::size_t kRandomLetters = 6;  // as mkstemp's XXXXXX

// "<name>.tmp-" with <name> shortened so that the full temporary name (plus six random letters)
// fits NAME_MAX: a legal 250-character target name must stay writable. A shortened name keeps
// its start and gets a hash of the whole, so two long names differing at the end do not share
// a prefix.
std::string temporary_prefix(std::string_view name) {
  const std::size_t budget = NAME_MAX - kTempMarker.size() - kRandomLetters;
  if (name.size() <= budget) return std::string(name) + std::string(kTempMarker);
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : name) hash = (hash ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  std::string kept(name.substr(0, budget - 17));
  // Do not cut a UTF-8 sequence in half: drop continuation bytes at the cut.
  while (!kept.empty() && (static_cast<unsigned char>(kept.back()) & 0xC0) == 0x80) kept.pop_back();
  if (!kept.empty() && static_cast<unsigned char>(kept.back()) >= 0xC0) kept.pop_back();
  return kept + "-" + hex + std::string(kTempMarker);
}

// "<folder>/<name>.tmp-" for `path` (see temporary_prefix).
std::string temporary_prefix_beside(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + temporary_prefix(name);
}

// A new, empty, uniquely named file "<prefix>XXXXXX" with an ordinary new file's permissions
// (mkstemp creates 0600); its descriptor, or -1 with errno set.
int create_unique_file(const std::string& prefix, std::string& created) {
  std::string pattern = prefix + "XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  const int fd = ::mkostemp(buffer.data(), O_CLOEXEC);
  if (fd < 0) return -1;
  created = buffer.data();
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  return fd;
}

// Deletes the previous file, now under the name `replaced`. Deleting a large file frees its
// blocks and page cache inside the call that drops its last reference (35 ms for a 44 MB file
// just written, on ext4: most of a fast write's time), work nobody needs to wait for. So a
// large file is opened, its name removed at once, and the descriptor closed on a detached
// thread, which does the freeing. If the process ends first, the kernel closes the descriptor
// and frees the file: nothing is left behind under any name.
void remove_replaced_file(const std::string& replaced) {
  constexpr off_t kLargeFile = off_t{4} << 20;
  struct stat info {};
  int fd = -1;
  if (::lstat(replaced.c_str(), &info) == 0 && S_ISREG(info.st_mode) && info.st_size >= kLargeFile)
    fd = ::open(replaced.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  ::unlink(replaced.c_str());  // failing to remove it loses nothing
  if (fd < 0) return;
  try {
    std::thread([fd] { ::close(fd); }).detach();
  } catch (const std::system_error&) {
    ::close(fd);  // no thread to be had: free it here
  }
}

// Moves the finished file at `temporary` over `path`; an error text, empty on success.
std::string move_into_place(const std::string& temporary, const std::string& path) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
  // Over an existing file, swap the two names and then delete the old file under the
  // temporary name: as atomic as rename for anyone opening the path, but ext4 treats a
  // rename over an existing file as "replace via rename" and starts writing the new file
  // back inside the call (auto_da_alloc), which doubled the time of a large binary write.
  // Only a regular file is swapped (a directory or link in the way gets rename's own answer).
  struct stat target {};
  if (::lstat(path.c_str(), &target) == 0 && S_ISREG(target.st_mode) &&
      ::renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    remove_replaced_file(temporary);  // the previous file
    return {};
  }
  // No file to swap with, or a filesystem without exchange: a plain rename.
#endif
  if (std::rename(temporary.c_str(), path.c_str()) != 0) return std::string("cannot replace the target: ") + std::strerror(errno);
  return {};
}

// The O_TMPFILE file is given its name through /proc (linkat with AT_EMPTY_PATH needs a
// capability ordinary users lack); without /proc the named fallback is used from the start.
bool proc_fd_links_available() {
  static const bool available = ::access("/proc/self/fd", X_OK) == 0;
  return available;
}

std::string random_letters() {
  static constexpr char kLetters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 generator{std::random_device{}()};
  std::string letters(kRandomLetters, 'x');
  for (char& c : letters) c = kLetters[generator() % (sizeof kLetters - 1)];
  return letters;
}

}  // namespace

AtomicFile::AtomicFile(const std::string& path, std::string_view format) : path_(path), format_(format) {
  const std::size_t slash = path.rfind('/');
  directory_ = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
#ifdef O_TMPFILE
  if (proc_fd_links_available()) {
    // Permissions as for an ordinary new file (0666 less the umask), applied by open itself.
    fd_ = ::open(directory_.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd_ >= 0) {
      unnamed_ = true;
      return;
    }
    // EOPNOTSUPP/EISDIR/EINVAL: a filesystem or kernel without O_TMPFILE. Any other error
    // (read-only folder, missing folder) comes back from the named fallback with its own errno.
  }
#endif
  create_named_temporary();
}

void AtomicFile::create_named_temporary() {
  fd_ = create_unique_file(temporary_prefix_beside(path_), temp_path_);
  if (fd_ < 0) fail(std::string("cannot create a temporary file beside it: ") + std::strerror(errno));
}

// Gives the unnamed O_TMPFILE file a temporary name beside the target (for rename/exchange).
void AtomicFile::link_temporary_name() {
  const std::string prefix = temporary_prefix_beside(path_);
  const std::string source = "/proc/self/fd/" + std::to_string(fd_);
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string candidate = prefix + random_letters();
    if (::linkat(AT_FDCWD, source.c_str(), AT_FDCWD, candidate.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      temp_path_ = std::move(candidate);
      return;
    }
    if (errno != EEXIST) fail(std::string("cannot name the temporary file: ") + std::strerror(errno));
  }
  fail("cannot name the temporary file: every name tried exists");
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);  // an unnamed O_TMPFILE file disappears with its descriptor
  if (!committed_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void AtomicFile::write(const void* data, std::size_t size) {
  const char* bytes = static_cast<const char*>(data);
  reserve_file_range(fd_, written_, size);
  written_ += size;
  while (size > 0) {
    const ssize_t written = ::write(fd_, bytes, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      fail(std::string("write failed: ") + std::strerror(errno));
    }
    bytes += written;
    size -= static_cast<std::size_t>(written);
  }
}

void AtomicFile::commit() {
  finish_deferred_check();  // a file is published only once its mesh has passed every check
  if (unnamed_) {
    // No file under the target name yet: linking the finished file there is atomic and never
    // replaces anything (EEXIST when something appeared meanwhile: go through a rename).
    struct stat existing {};
    if (::lstat(path_.c_str(), &existing) != 0 && errno == ENOENT) {
      const std::string source = "/proc/self/fd/" + std::to_string(fd_);
      if (::linkat(AT_FDCWD, source.c_str(), AT_FDCWD, path_.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        committed_ = true;
        ::close(fd_);  // the data are in place; a late close error cannot undo the link
        fd_ = -1;
        return;
      }
      if (errno != EEXIST) fail(std::string("cannot link the new file into place: ") + std::strerror(errno));
    }
    // Something is in the way: name the file beside it, then swap or rename as below. Only
    // this short window leaves a "<name>.tmp-XXXXXX" file if the process is killed.
    link_temporary_name();
  }
  if (::close(fd_) != 0) {
    fd_ = -1;
    fail(std::string("close failed: ") + std::strerror(errno));
  }
  fd_ = -1;
  if (const std::string error = move_into_place(temp_path_, path_); !error.empty()) fail(error);
  committed_ = true;
}

void AtomicFile::fail(const std::string& message) const { throw WriteError(path_, format_, message); }

std::string reserve_temporary_beside(const std::string& path, std::string_view format) {
  std::string temporary;
  const int fd = create_unique_file(temporary_prefix_beside(path), temporary);
  if (fd < 0)
    throw WriteError(path, std::string(format), std::string("cannot create a temporary file beside it: ") + std::strerror(errno));
  ::close(fd);
  return temporary;
}

std::string create_temporary_beside(const std::string& path, std::string_view format,
                                    const std::function<bool(const std::string&)>& create_new) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string temporary = reserve_temporary_beside(path, format);  // a unique name, or errno's reason
    ::unlink(temporary.c_str());
    if (create_new(temporary)) return temporary;
  }
  throw WriteError(path, std::string(format), "cannot create a temporary file beside it: every name drawn was taken");
}

std::string copy_to_temporary_beside(const std::string& path, std::string_view format) {
  std::string temporary = reserve_temporary_beside(path, format);
  std::error_code error;
  std::filesystem::copy_file(path, temporary, std::filesystem::copy_options::overwrite_existing, error);
  if (error) {
    ::unlink(temporary.c_str());
    throw WriteError(path, std::string(format), "cannot copy the file to append to it: " + error.message());
  }
  return temporary;
}

void replace_with_temporary(const std::string& temporary, const std::string& path, std::string_view format) {
  finish_deferred_check();  // a file is published only once its mesh has passed every check
  if (const std::string error = move_into_place(temporary, path); !error.empty())
    throw WriteError(path, std::string(format), error);
}

void reserve_file_range(int fd, std::uint64_t offset, std::uint64_t bytes) noexcept {
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
  if (fd < 0 || bytes < kReserveFromBytes) return;
  constexpr auto kMaxOffset = static_cast<std::uint64_t>(std::numeric_limits<off_t>::max());
  if (offset > kMaxOffset || bytes > kMaxOffset - offset) return;
  ::fallocate(fd, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset), static_cast<off_t>(bytes));  // errors: see header
#else
  (void)fd, (void)offset, (void)bytes;
#endif
}

void reserve_blocks_of(const std::string& path, std::uint64_t bytes) noexcept {
  if (bytes < kReserveFromBytes) return;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return;
  reserve_file_range(fd, 0, bytes);
  ::close(fd);
}

void trim_blocks_past_end(const std::string& path) noexcept {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return;
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) static_cast<void>(::ftruncate(fd, info.st_size));
  ::close(fd);
}

}  // namespace meshioplusplus::io
