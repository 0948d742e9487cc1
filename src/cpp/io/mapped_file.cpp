#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::io {

MappedFile::MappedFile(const std::string& path, std::string_view format) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw ReadError(path, std::string(format), std::string("cannot open: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw ReadError(path, std::string(format), "not a regular file");
  }
  size_ = static_cast<std::size_t>(info.st_size);
  if (size_ == 0) {
    ::close(fd);
    data_ = "";
    return;
  }
  void* address = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_errno = errno;
  ::close(fd);
  if (address == MAP_FAILED)
    throw ReadError(path, std::string(format), std::string("cannot map: ") + std::strerror(map_errno));
  ::madvise(address, size_, MADV_SEQUENTIAL);
  data_ = static_cast<const char*>(address);
  mapped_ = true;
}

MappedFile::~MappedFile() {
  if (mapped_) ::munmap(const_cast<char*>(data_), size_);
}

}  // namespace meshioplusplus::io
