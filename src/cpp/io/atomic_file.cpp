#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::io {

AtomicFile::AtomicFile(const std::string& path, std::string_view format)
    : path_(path), format_(format) {
  std::string pattern = path + ".tmp-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0) fail(std::string("cannot create a temporary file beside it: ") + std::strerror(errno));
  temp_path_ = name.data();
  // mkstemp creates 0600; give the result the permissions an ordinary new file gets.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
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
