// Floor 2: a whole file as read-only bytes, memory-mapped so parsers never copy it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace meshioplusplus::io {

class MappedFile {
 public:
  // Throws ReadError naming `path` (and `format`) when the file cannot be opened or mapped.
  MappedFile(const std::string& path, std::string_view format);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view bytes() const noexcept { return {data_, size_}; }
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
};

}  // namespace meshioplusplus::io
