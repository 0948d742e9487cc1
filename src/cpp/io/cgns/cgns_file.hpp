// Floor 2: the CGNS mid-level library (an optional build feature, MESHIOPLUSPLUS_HAVE_CGNS; the C
// library from libcgns-dev, which reads and writes both the ADF and the HDF5 back end).
//
// One RAII handle per open file. Failures throw ReadError (reading) or WriteError (writing)
// naming the file, the CGNS node path ("/Base/Zone 1/GridElements") and the library's message.
// The library keeps global state without locks, so a handle holds a process-wide lock for
// its lifetime. Without the library, opening or creating throws saying the build lacks CGNS.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace meshioplusplus::io {

bool cgns_available() noexcept;

class CgnsFile {
 public:
  enum class Backend { adf, hdf5 };

  // Opens for reading; ReadError when missing, not CGNS, or the build lacks the library.
  static CgnsFile open(const std::string& path, std::string_view format);
  // Creates a temporary file beside `path` (with `backend`); commit() puts it in place.
  static CgnsFile create(const std::string& path, std::string_view format, Backend backend);

  CgnsFile(CgnsFile&& other) noexcept;
  CgnsFile& operator=(CgnsFile&&) = delete;
  ~CgnsFile();

  int id() const noexcept { return fn_; }
  const std::string& path() const noexcept { return path_; }
  // Throws (ReadError or WriteError by mode) naming `node` when `status` is an error.
  void check(int status, std::string_view node) const {
    if (status != 0) fail(node, last_error());
  }
  [[noreturn]] void fail(std::string_view node, const std::string& message) const;
  void commit();

 private:
  CgnsFile() = default;
  static std::string last_error();
  std::string path_, temp_path_, format_;
  int fn_ = -1;
  bool writing_ = false, committed_ = false;
  std::shared_ptr<void> lock_;
};

}  // namespace meshioplusplus::io
