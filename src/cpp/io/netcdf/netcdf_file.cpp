#include "io/netcdf/netcdf_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "io/output/atomic_file.hpp"
#include "meshioplusplus/errors.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_NETCDF
#include <netcdf.h>
#endif

namespace meshioplusplus::io {

namespace {

constexpr std::string_view kMissingLibrary = "built without netCDF (install libnetcdf-dev and rebuild)";

std::string quoted(std::string_view variable) {
  return variable.empty() ? std::string() : "variable '" + std::string(variable) + "': ";
}

}  // namespace

#ifdef MESHIOPLUSPLUS_HAVE_NETCDF

bool netcdf_available() noexcept { return true; }

namespace {

// netCDF keeps global state without locks; every handle holds this for its lifetime.
std::shared_ptr<void> lock_netcdf() {
  static std::recursive_mutex mutex;
  mutex.lock();
  return std::shared_ptr<void>(&mutex, [](void* m) { static_cast<std::recursive_mutex*>(m)->unlock(); });
}

// Hyperslab of the whole variable when start/count are empty.
struct Slab {
  std::vector<std::size_t> start, count;
  std::size_t elements = 1;
};

Slab make_slab(const NetcdfVariable& variable, std::span<const std::size_t> start,
               std::span<const std::size_t> count) {
  Slab slab;
  if (start.empty()) {
    slab.start.assign(variable.shape.size(), 0);
    slab.count = variable.shape;
  } else {
    slab.start.assign(start.begin(), start.end());
    slab.count.assign(count.begin(), count.end());
  }
  for (std::size_t c : slab.count) slab.elements *= c;
  return slab;
}

int get_vara(int ncid, int varid, const Slab& slab, DType dtype, void* out) {
  const std::size_t* start = slab.start.data();
  const std::size_t* count = slab.count.data();
  switch (dtype) {
    case DType::int8: return nc_get_vara_schar(ncid, varid, start, count, static_cast<signed char*>(out));
    case DType::uint8: return nc_get_vara_uchar(ncid, varid, start, count, static_cast<unsigned char*>(out));
    case DType::int16: return nc_get_vara_short(ncid, varid, start, count, static_cast<short*>(out));
    case DType::uint16: return nc_get_vara_ushort(ncid, varid, start, count, static_cast<unsigned short*>(out));
    case DType::int32: return nc_get_vara_int(ncid, varid, start, count, static_cast<int*>(out));
    case DType::uint32: return nc_get_vara_uint(ncid, varid, start, count, static_cast<unsigned int*>(out));
    case DType::int64: return nc_get_vara_longlong(ncid, varid, start, count, static_cast<long long*>(out));
    case DType::uint64:
      return nc_get_vara_ulonglong(ncid, varid, start, count, static_cast<unsigned long long*>(out));
    case DType::float32: return nc_get_vara_float(ncid, varid, start, count, static_cast<float*>(out));
    case DType::float64: break;
  }
  return nc_get_vara_double(ncid, varid, start, count, static_cast<double*>(out));
}

int put_vara(int ncid, int varid, const Slab& slab, DType dtype, const void* in) {
  const std::size_t* start = slab.start.data();
  const std::size_t* count = slab.count.data();
  switch (dtype) {
    case DType::int8: return nc_put_vara_schar(ncid, varid, start, count, static_cast<const signed char*>(in));
    case DType::uint8: return nc_put_vara_uchar(ncid, varid, start, count, static_cast<const unsigned char*>(in));
    case DType::int16: return nc_put_vara_short(ncid, varid, start, count, static_cast<const short*>(in));
    case DType::uint16:
      return nc_put_vara_ushort(ncid, varid, start, count, static_cast<const unsigned short*>(in));
    case DType::int32: return nc_put_vara_int(ncid, varid, start, count, static_cast<const int*>(in));
    case DType::uint32: return nc_put_vara_uint(ncid, varid, start, count, static_cast<const unsigned int*>(in));
    case DType::int64: return nc_put_vara_longlong(ncid, varid, start, count, static_cast<const long long*>(in));
    case DType::uint64:
      return nc_put_vara_ulonglong(ncid, varid, start, count, static_cast<const unsigned long long*>(in));
    case DType::float32: return nc_put_vara_float(ncid, varid, start, count, static_cast<const float*>(in));
    case DType::float64: break;
  }
  return nc_put_vara_double(ncid, varid, start, count, static_cast<const double*>(in));
}

nc_type nc_type_of(DType dtype) {
  switch (dtype) {
    case DType::int8: return NC_BYTE;
    case DType::uint8: return NC_UBYTE;
    case DType::int16: return NC_SHORT;
    case DType::uint16: return NC_USHORT;
    case DType::int32: return NC_INT;
    case DType::uint32: return NC_UINT;
    case DType::int64: return NC_INT64;
    case DType::uint64: return NC_UINT64;
    case DType::float32: return NC_FLOAT;
    case DType::float64: break;
  }
  return NC_DOUBLE;
}

}  // namespace

NetcdfReader::NetcdfReader(const std::string& path, std::string_view format) : path_(path), format_(format) {
  lock_ = lock_netcdf();
  // The library opens the file by name. To know the size of the very file it opened (a writer
  // may put a new file under the path at any moment), we open it first, take its size, and
  // hand the library our descriptor's name in /proc; without /proc, the path and a size
  // taken by name.
  const int own_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  std::string open_name = path;
  struct stat info {};
  if (own_fd >= 0 && ::fstat(own_fd, &info) == 0 && S_ISREG(info.st_mode) && ::access("/proc/self/fd", X_OK) == 0)
    open_name = "/proc/self/fd/" + std::to_string(own_fd);
  else if (::stat(path.c_str(), &info) != 0)
    info.st_size = 0;
  file_size_ = static_cast<std::size_t>(info.st_size);
  const int status = nc_open(open_name.c_str(), NC_NOWRITE, &ncid_);
  if (own_fd >= 0) ::close(own_fd);  // the library holds its own descriptor of the same file
  if (status != NC_NOERR) {
    ncid_ = -1;
    const std::string reason = status == NC_ENOTNC ? "not a netCDF file (classic, 64-bit offset, CDF5 or netCDF-4)"
                                                   : std::string(nc_strerror(status));
    throw ReadError(path_, format_, "cannot open: " + reason);
  }
  int file_kind = 0;
  check(nc_inq_format(ncid_, &file_kind), "");
  compressed_ = file_kind == NC_FORMAT_NETCDF4 || file_kind == NC_FORMAT_NETCDF4_CLASSIC;
  int count = 0;
  check(nc_inq_nvars(ncid_, &count), "");
  variables_.reserve(static_cast<std::size_t>(count));
  for (int id = 0; id < count; ++id) {
    char name[NC_MAX_NAME + 1] = {};
    nc_type type = 0;
    int ndims = 0;
    check(nc_inq_var(ncid_, id, name, &type, &ndims, nullptr, nullptr), "");
    std::vector<int> dimids(static_cast<std::size_t>(ndims));
    check(nc_inq_vardimid(ncid_, id, dimids.data()), name);
    NetcdfVariable variable{id, name, type, {}, {}};
    for (int dimid : dimids) {
      char dimname[NC_MAX_NAME + 1] = {};
      std::size_t length = 0;
      check(nc_inq_dim(ncid_, dimid, dimname, &length), name);
      variable.shape.push_back(length);
      variable.dimension_names.emplace_back(dimname);
    }
    variables_.push_back(std::move(variable));
  }
}

NetcdfReader::~NetcdfReader() {
  if (ncid_ >= 0) nc_close(ncid_);
}

std::string NetcdfReader::kind() const {
  int kind = 0;
  check(nc_inq_format(ncid_, &kind), "");
  switch (kind) {
    case NC_FORMAT_CLASSIC: return "classic";
    case NC_FORMAT_64BIT_OFFSET: return "64-bit offset";
    case NC_FORMAT_CDF5: return "CDF5";
    case NC_FORMAT_NETCDF4: return "netCDF-4";
    case NC_FORMAT_NETCDF4_CLASSIC: return "netCDF-4 classic";
    default: return "unknown";
  }
}

std::optional<std::size_t> NetcdfReader::dimension(std::string_view name) const {
  int dimid = 0;
  if (nc_inq_dimid(ncid_, std::string(name).c_str(), &dimid) != NC_NOERR) return std::nullopt;
  std::size_t length = 0;
  check(nc_inq_dimlen(ncid_, dimid, &length), "");
  return length;
}

const NetcdfVariable* NetcdfReader::find(std::string_view name) const noexcept {
  for (const NetcdfVariable& variable : variables_)
    if (variable.name == name) return &variable;
  return nullptr;
}

const NetcdfVariable& NetcdfReader::require(std::string_view name) const {
  const NetcdfVariable* variable = find(name);
  if (variable == nullptr) fail(name, "missing");
  return *variable;
}

std::optional<std::string> NetcdfReader::text_attribute(const NetcdfVariable* variable,
                                                        std::string_view attribute) const {
  const int varid = variable ? variable->id : NC_GLOBAL;
  const std::string name(attribute);
  nc_type type = 0;
  std::size_t length = 0;
  if (nc_inq_att(ncid_, varid, name.c_str(), &type, &length) != NC_NOERR) return std::nullopt;
  if (type == NC_CHAR) {
    std::string text(length, '\0');
    check(nc_get_att_text(ncid_, varid, name.c_str(), text.data()), variable ? variable->name : "");
    if (const auto nul = text.find('\0'); nul != std::string::npos) text.resize(nul);
    return text;
  }
  if (type == NC_STRING && length == 1) {
    char* value = nullptr;
    check(nc_get_att_string(ncid_, varid, name.c_str(), &value), variable ? variable->name : "");
    std::string text = value ? value : "";
    nc_free_string(1, &value);
    return text;
  }
  return std::nullopt;
}

std::optional<double> NetcdfReader::number_attribute(const NetcdfVariable* variable, std::string_view attribute) const {
  const int varid = variable ? variable->id : NC_GLOBAL;
  const std::string name(attribute);
  nc_type type = 0;
  std::size_t length = 0;
  if (nc_inq_att(ncid_, varid, name.c_str(), &type, &length) != NC_NOERR || length == 0 || type == NC_CHAR ||
      type == NC_STRING)
    return std::nullopt;
  std::vector<double> values(length);
  check(nc_get_att_double(ncid_, varid, name.c_str(), values.data()), variable ? variable->name : "");
  return values[0];
}

NDArray NetcdfReader::read(const NetcdfVariable& variable, DType dtype, Shape shape,
                           std::span<const std::size_t> start, std::span<const std::size_t> count) const {
  const Slab slab = make_slab(variable, start, count);
  std::size_t elements = 1;
  for (std::int64_t extent : shape) elements *= static_cast<std::size_t>(extent);
  if (elements != slab.elements) fail(variable.name, "unexpected size");
  check_stored_size(variable, elements);
  NDArray array = NDArray::allocate(dtype, std::move(shape));
  if (elements > 0) check(get_vara(ncid_, variable.id, slab, dtype, array.data()), variable.name);
  return array;
}

void NetcdfReader::read_into(const NetcdfVariable& variable, DType dtype, void* out,
                             std::span<const std::size_t> start, std::span<const std::size_t> count) const {
  const Slab slab = make_slab(variable, start, count);
  check_stored_size(variable, slab.elements);
  if (slab.elements > 0) check(get_vara(ncid_, variable.id, slab, dtype, out), variable.name);
}

std::vector<std::string> NetcdfReader::read_strings(const NetcdfVariable& variable) const {
  if (variable.type != NC_CHAR) fail(variable.name, "expected a char (text) variable");
  if (variable.shape.empty()) return {};
  const std::size_t width = variable.shape.back();
  std::size_t rows = 1;
  for (std::size_t axis = 0; axis + 1 < variable.shape.size(); ++axis) rows *= variable.shape[axis];
  std::string text(rows * width, '\0');
  if (!text.empty()) {
    const Slab slab = make_slab(variable, {}, {});
    check(nc_get_vara_text(ncid_, variable.id, slab.start.data(), slab.count.data(), text.data()), variable.name);
  }
  std::vector<std::string> strings;
  strings.reserve(rows);
  for (std::size_t row = 0; row < rows; ++row) {
    std::string_view entry(text.data() + row * width, width);
    if (const auto nul = entry.find('\0'); nul != std::string_view::npos) entry = entry.substr(0, nul);
    while (!entry.empty() && entry.back() == ' ') entry.remove_suffix(1);
    strings.emplace_back(entry);
  }
  return strings;
}

void NetcdfReader::check_stored_size(const NetcdfVariable& variable, std::size_t elements) const {
  // Classic kinds store values uncompressed, so a variable cannot hold more bytes than the
  // file; netCDF-4 may compress (deflate rarely beats 1:1000). A forged header is refused
  // before any allocation.
  std::size_t type_size = 1;
  nc_inq_type(ncid_, variable.type, nullptr, &type_size);
  const long double bytes = static_cast<long double>(elements) * static_cast<long double>(type_size);
  const long double limit = compressed_ ? 1024.0L * file_size_ + (1 << 20) : static_cast<long double>(file_size_);
  if (bytes > limit)
    fail(variable.name, "declares " + std::to_string(static_cast<unsigned long long>(bytes)) +
                            " bytes but the file has " + std::to_string(file_size_));
}

void NetcdfReader::check(int status, std::string_view variable) const {
  if (status != NC_NOERR) fail(variable, nc_strerror(status));
}

void NetcdfReader::fail(std::string_view variable, const std::string& message) const {
  throw ReadError(path_, format_, quoted(variable) + message);
}

// ---- writing ----

NetcdfWriter::NetcdfWriter(const std::string& path, std::string_view format, Kind kind)
    : path_(path), format_(format), kind_(kind) {
  lock_ = lock_netcdf();
  // netCDF creates the temporary new (NC_NOCLOBBER), not over a reserved empty file (see
  // create_temporary_beside).
  int mode = NC_NOCLOBBER;
  switch (kind) {
    case Kind::classic: break;
    case Kind::offset64: mode |= NC_64BIT_OFFSET; break;
    case Kind::cdf5: mode |= NC_64BIT_DATA; break;
    case Kind::netcdf4: mode |= NC_NETCDF4; break;
  }
  temp_path_ = create_temporary_beside(path, format, [&](const std::string& candidate) {
    const int status = nc_create(candidate.c_str(), mode, &ncid_);
    if (status == NC_NOERR) return true;
    ncid_ = -1;
    if (status == NC_EEXIST) return false;  // taken meanwhile: not ours to remove
    throw WriteError(path_, format_, std::string("cannot create: ") + nc_strerror(status));
  });
  // Fill values would double the bytes written; every variable is written in full.
  int old_mode = 0;
  nc_set_fill(ncid_, NC_NOFILL, &old_mode);
}

NetcdfWriter::~NetcdfWriter() {
  if (ncid_ >= 0) nc_close(ncid_);
  if (!committed_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
}

bool NetcdfWriter::stores(DType dtype) const noexcept {
  if (kind_ == Kind::netcdf4 || kind_ == Kind::cdf5) return true;
  switch (dtype) {
    case DType::int8:
    case DType::int16:
    case DType::int32:
    case DType::float32:
    case DType::float64: return true;
    default: return false;
  }
}

int NetcdfWriter::define_dimension(std::string_view name, std::size_t length) {
  int dimid = 0;
  check(nc_def_dim(ncid_, std::string(name).c_str(), length == 0 ? NC_UNLIMITED : length, &dimid), name);
  return dimid;
}

int NetcdfWriter::dimension_id(std::string_view name) const {
  int dimid = 0;
  check(nc_inq_dimid(ncid_, std::string(name).c_str(), &dimid), name);
  return dimid;
}

int NetcdfWriter::define_variable(std::string_view name, DType dtype, std::span<const int> dimensions) {
  if (!stores(dtype)) fail(name, "this netCDF kind cannot store " + std::string(dtype_name(dtype)));
  int varid = 0;
  check(nc_def_var(ncid_, std::string(name).c_str(), nc_type_of(dtype), static_cast<int>(dimensions.size()),
                   dimensions.data(), &varid),
        name);
  std::uint64_t bytes = dtype_size(dtype);
  for (const int dimension : dimensions) {
    std::size_t length = 0;
    if (nc_inq_dimlen(ncid_, dimension, &length) != NC_NOERR) length = 0;
    bytes *= length;  // a record variable (unlimited, length 0 now) counts nothing
  }
  defined_bytes_ += bytes;
  return varid;
}

int NetcdfWriter::define_text_variable(std::string_view name, std::span<const int> dimensions) {
  int varid = 0;
  check(nc_def_var(ncid_, std::string(name).c_str(), NC_CHAR, static_cast<int>(dimensions.size()), dimensions.data(),
                   &varid),
        name);
  return varid;
}

void NetcdfWriter::put_text_attribute(int variable, std::string_view name, std::string_view value) {
  check(nc_put_att_text(ncid_, variable < 0 ? NC_GLOBAL : variable, std::string(name).c_str(), value.size(),
                        value.data()),
        variable_name(variable));
}

void NetcdfWriter::put_attribute(int variable, std::string_view name, DType dtype, double value) {
  check(nc_put_att_double(ncid_, variable < 0 ? NC_GLOBAL : variable, std::string(name).c_str(), nc_type_of(dtype), 1,
                          &value),
        variable_name(variable));
}

void NetcdfWriter::end_definitions() {
  check(nc_enddef(ncid_), "");
  // The header or HDF5's metadata come on top of the variables' bytes: a MiB more.
  if (defined_bytes_ >= kReserveFromBytes) {
    reserve_blocks_of(temp_path_, defined_bytes_ + (std::uint64_t{1} << 20));
    reserved_ = true;
  }
}

void NetcdfWriter::write(int variable, DType dtype, const void* data, std::span<const std::size_t> start,
                         std::span<const std::size_t> count) {
  Slab slab;
  if (start.empty()) {
    int ndims = 0;
    check(nc_inq_varndims(ncid_, variable, &ndims), variable_name(variable));
    std::vector<int> dimids(static_cast<std::size_t>(ndims));
    check(nc_inq_vardimid(ncid_, variable, dimids.data()), variable_name(variable));
    for (int dimid : dimids) {
      std::size_t length = 0;
      check(nc_inq_dimlen(ncid_, dimid, &length), variable_name(variable));
      slab.start.push_back(0);
      slab.count.push_back(length);
      slab.elements *= length;
    }
  } else {
    slab.start.assign(start.begin(), start.end());
    slab.count.assign(count.begin(), count.end());
    for (std::size_t c : slab.count) slab.elements *= c;
  }
  if (slab.elements > 0) check(put_vara(ncid_, variable, slab, dtype, data), variable_name(variable));
}

void NetcdfWriter::write_strings(int variable, std::span<const std::string> rows) {
  int ndims = 0;
  check(nc_inq_varndims(ncid_, variable, &ndims), variable_name(variable));
  std::vector<int> dimids(static_cast<std::size_t>(ndims));
  check(nc_inq_vardimid(ncid_, variable, dimids.data()), variable_name(variable));
  if (dimids.empty()) fail(variable_name(variable), "text variable without a length dimension");
  std::size_t width = 0;
  check(nc_inq_dimlen(ncid_, dimids.back(), &width), variable_name(variable));
  std::string text(rows.size() * width, '\0');
  for (std::size_t row = 0; row < rows.size(); ++row)
    rows[row].copy(text.data() + row * width, std::min(rows[row].size(), width));
  std::vector<std::size_t> start(dimids.size(), 0), count(dimids.size(), 1);
  count.back() = width;
  // The leading dimensions together hold rows.size() rows; split them in C order.
  std::size_t remaining = rows.size();
  for (std::size_t axis = dimids.size() - 1; axis-- > 0;) {
    std::size_t length = 0;
    check(nc_inq_dimlen(ncid_, dimids[axis], &length), variable_name(variable));
    count[axis] = axis == 0 ? remaining : length;
    if (axis != 0) remaining = length ? remaining / length : 0;
  }
  if (!text.empty()) check(nc_put_vara_text(ncid_, variable, start.data(), count.data(), text.data()), variable_name(variable));
}

void NetcdfWriter::commit() {
  const int status = nc_close(ncid_);
  ncid_ = -1;
  check(status, "");
  if (reserved_) trim_blocks_past_end(temp_path_);
  replace_with_temporary(temp_path_, path_, format_);
  committed_ = true;
}

std::string NetcdfWriter::variable_name(int variable) const {
  if (variable < 0 || ncid_ < 0) return "";
  char name[NC_MAX_NAME + 1] = {};
  if (nc_inq_varname(ncid_, variable, name) != NC_NOERR) return "";
  return name;
}

void NetcdfWriter::check(int status, std::string_view variable) const {
  if (status != NC_NOERR) fail(variable, nc_strerror(status));
}

void NetcdfWriter::fail(std::string_view variable, const std::string& message) const {
  throw WriteError(path_, format_, quoted(variable) + message);
}

#else  // no netCDF in this build: every entry point says so

bool netcdf_available() noexcept { return false; }

NetcdfReader::NetcdfReader(const std::string& path, std::string_view format) : path_(path), format_(format) {
  throw ReadError(path_, format_, std::string(kMissingLibrary));
}
NetcdfReader::~NetcdfReader() = default;
std::string NetcdfReader::kind() const { return {}; }
std::optional<std::size_t> NetcdfReader::dimension(std::string_view) const { return std::nullopt; }
const NetcdfVariable* NetcdfReader::find(std::string_view) const noexcept { return nullptr; }
const NetcdfVariable& NetcdfReader::require(std::string_view name) const { fail(name, "missing"); }
std::optional<std::string> NetcdfReader::text_attribute(const NetcdfVariable*, std::string_view) const { return {}; }
std::optional<double> NetcdfReader::number_attribute(const NetcdfVariable*, std::string_view) const { return {}; }
NDArray NetcdfReader::read(const NetcdfVariable& variable, DType, Shape, std::span<const std::size_t>,
                           std::span<const std::size_t>) const {
  fail(variable.name, std::string(kMissingLibrary));
}
void NetcdfReader::read_into(const NetcdfVariable& variable, DType, void*, std::span<const std::size_t>,
                             std::span<const std::size_t>) const {
  fail(variable.name, std::string(kMissingLibrary));
}
std::vector<std::string> NetcdfReader::read_strings(const NetcdfVariable& variable) const {
  fail(variable.name, std::string(kMissingLibrary));
}
void NetcdfReader::check(int, std::string_view) const {}
void NetcdfReader::check_stored_size(const NetcdfVariable&, std::size_t) const {}
void NetcdfReader::fail(std::string_view variable, const std::string& message) const {
  throw ReadError(path_, format_, quoted(variable) + message);
}

NetcdfWriter::NetcdfWriter(const std::string& path, std::string_view format, Kind kind)
    : path_(path), format_(format), kind_(kind) {
  throw WriteError(path_, format_, std::string(kMissingLibrary));
}
NetcdfWriter::~NetcdfWriter() = default;
bool NetcdfWriter::stores(DType) const noexcept { return false; }
int NetcdfWriter::define_dimension(std::string_view, std::size_t) { return -1; }
int NetcdfWriter::dimension_id(std::string_view) const { return -1; }
int NetcdfWriter::define_variable(std::string_view, DType, std::span<const int>) { return -1; }
int NetcdfWriter::define_text_variable(std::string_view, std::span<const int>) { return -1; }
void NetcdfWriter::put_text_attribute(int, std::string_view, std::string_view) {}
void NetcdfWriter::put_attribute(int, std::string_view, DType, double) {}
void NetcdfWriter::end_definitions() {}
void NetcdfWriter::write(int, DType, const void*, std::span<const std::size_t>, std::span<const std::size_t>) {}
void NetcdfWriter::write_strings(int, std::span<const std::string>) {}
void NetcdfWriter::commit() {}
std::string NetcdfWriter::variable_name(int) const { return {}; }
void NetcdfWriter::check(int, std::string_view) const {}
void NetcdfWriter::fail(std::string_view variable, const std::string& message) const {
  throw WriteError(path_, format_, quoted(variable) + message);
}

#endif

}  // namespace meshioplusplus::io
