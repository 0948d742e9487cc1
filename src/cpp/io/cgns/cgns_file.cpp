#include "io/cgns/cgns_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "io/output/atomic_file.hpp"
#include "meshioplusplus/errors.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_CGNS
#include <cgnslib.h>
#endif

namespace meshioplusplus::io {

namespace {

constexpr std::string_view kMissingLibrary = "built without CGNS (install libcgns-dev and rebuild)";

std::string at(std::string_view node) { return node.empty() ? std::string() : std::string(node) + ": "; }

}  // namespace

CgnsFile::CgnsFile(CgnsFile&& other) noexcept
    : path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      format_(std::move(other.format_)),
      fn_(other.fn_),
      writing_(other.writing_),
      committed_(other.committed_),
      lock_(std::move(other.lock_)) {
  other.fn_ = -1;
  other.temp_path_.clear();
}

void CgnsFile::fail(std::string_view node, const std::string& message) const {
  if (writing_) throw WriteError(path_, format_, at(node) + message);
  throw ReadError(path_, format_, at(node) + message);
}

#ifdef MESHIOPLUSPLUS_HAVE_CGNS

bool cgns_available() noexcept { return true; }

namespace {

std::shared_ptr<void> lock_cgns() {
  static std::recursive_mutex mutex;
  mutex.lock();
  return std::shared_ptr<void>(&mutex, [](void* m) { static_cast<std::recursive_mutex*>(m)->unlock(); });
}

}  // namespace

std::string CgnsFile::last_error() {
  const char* message = cg_get_error();
  return message && *message ? message : "CGNS library error";
}

CgnsFile CgnsFile::open(const std::string& path, std::string_view format) {
  CgnsFile file;
  file.lock_ = lock_cgns();
  file.path_ = path;
  file.format_ = format;
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0)
    throw ReadError(path, std::string(format), std::string("cannot open: ") + std::strerror(errno));
  // cg_open on a file that is neither ADF nor HDF5 can take the library down a long way;
  // cg_is_cgns asks first.
  int file_type = 0;
  if (cg_is_cgns(path.c_str(), &file_type) != CG_OK)
    throw ReadError(path, std::string(format), "not a CGNS file (neither the ADF nor the HDF5 back end)");
  if (cg_open(path.c_str(), CG_MODE_READ, &file.fn_) != CG_OK) {
    file.fn_ = -1;
    throw ReadError(path, std::string(format), "cannot open: " + last_error());
  }
  return file;
}

CgnsFile CgnsFile::create(const std::string& path, std::string_view format, Backend backend) {
  CgnsFile file;
  file.lock_ = lock_cgns();
  file.path_ = path;
  file.format_ = format;
  file.writing_ = true;
  file.temp_path_ = reserve_temporary_beside(path, format);
  ::unlink(file.temp_path_.c_str());  // the library creates the file itself
  file.check(cg_set_file_type(backend == Backend::hdf5 ? CG_FILE_HDF5 : CG_FILE_ADF), "");
  if (cg_open(file.temp_path_.c_str(), CG_MODE_WRITE, &file.fn_) != CG_OK) {
    file.fn_ = -1;
    file.fail("", "cannot create: " + last_error());
  }
  return file;
}

CgnsFile::~CgnsFile() {
  if (fn_ >= 0) cg_close(fn_);
  if (writing_ && !committed_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void CgnsFile::commit() {
  const int status = cg_close(fn_);
  fn_ = -1;
  check(status, "");
  replace_with_temporary(temp_path_, path_, format_);
  committed_ = true;
}

#else

bool cgns_available() noexcept { return false; }
std::string CgnsFile::last_error() { return std::string(kMissingLibrary); }
CgnsFile CgnsFile::open(const std::string& path, std::string_view format) {
  throw ReadError(path, std::string(format), std::string(kMissingLibrary));
}
CgnsFile CgnsFile::create(const std::string& path, std::string_view format, Backend) {
  throw WriteError(path, std::string(format), std::string(kMissingLibrary));
}
CgnsFile::~CgnsFile() = default;
void CgnsFile::commit() {}

#endif

}  // namespace meshioplusplus::io
