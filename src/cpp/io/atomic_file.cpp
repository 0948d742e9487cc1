#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

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
  const std::size_t slash = path_.rfind('/');
  const std::string name = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  const std::string prefix = (slash == std::string::npos ? std::string() : path_.substr(0, slash + 1)) +
                             temporary_prefix(name);
  std::string pattern = prefix + "XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  fd_ = ::mkostemp(buffer.data(), O_CLOEXEC);
  if (fd_ < 0) fail(std::string("cannot create a temporary file beside it: ") + std::strerror(errno));
  temp_path_ = buffer.data();
  // mkstemp creates 0600; give the result the permissions an ordinary new file gets.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
}

// Gives the unnamed O_TMPFILE file a temporary name beside the target (for rename/exchange).
void AtomicFile::link_temporary_name() {
  const std::size_t slash = path_.rfind('/');
  const std::string name = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  const std::string prefix = (slash == std::string::npos ? std::string() : path_.substr(0, slash + 1)) +
                             temporary_prefix(name);
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
#if defined(__linux__) && defined(RENAME_EXCHANGE)
  // Over an existing file, swap the two names and then delete the old file under the
  // temporary name: as atomic as rename for anyone opening the path, but ext4 treats a
  // rename over an existing file as "replace via rename" and starts writing the new file
  // back inside the call (auto_da_alloc), which doubled the time of a large binary write.
  // Only a regular file is swapped (a directory or link in the way gets rename's own answer).
  struct stat target {};
  if (::lstat(path_.c_str(), &target) == 0 && S_ISREG(target.st_mode) &&
      ::renameat2(AT_FDCWD, temp_path_.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE) == 0) {
    committed_ = true;
    ::unlink(temp_path_.c_str());  // the previous file; failing to remove it loses nothing
    return;
  }
  // No file to swap with, or a filesystem without exchange: a plain rename.
#endif
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0)
    fail(std::string("cannot replace the target: ") + std::strerror(errno));
  committed_ = true;
}

void AtomicFile::fail(const std::string& message) const { throw WriteError(path_, format_, message); }

}  // namespace meshioplusplus::io
