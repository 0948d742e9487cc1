// io::hdf5::File, the file handle: open, create, commit and close, errors, the structure
// queries (kind, children, dataset_info, expect_shape), the definitions of the helpers
// hdf5_internal.hpp shares, and the build without HDF5 (every entry point names the missing
// library). The rest of File is split by concern to stay under 1,000 lines a file: dataset
// reads (hdf5_read.cpp), chunks (hdf5_chunks.cpp), writes (hdf5_write.cpp), attributes
// (hdf5_attributes.cpp).
#include "io/hdf5/hdf5_internal.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

#include "io/output/atomic_file.hpp"
#include "meshioplusplus/errors.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_HDF5
#include <sys/stat.h>
#endif

namespace meshioplusplus::io::hdf5 {

using namespace detail;

namespace detail {

std::string absolute_object_path(std::string_view object_path) {
  if (object_path.empty()) return "/";
  if (object_path.front() == '/') return std::string(object_path);
  std::string path;  // built by appending: GCC 12 warns (-Wrestrict) on "/" + std::string
  path.reserve(object_path.size() + 1);
  path += '/';
  path += object_path;
  return path;
}

}  // namespace detail

#ifdef MESHIOPLUSPLUS_HAVE_HDF5

static_assert(sizeof(hid_t) == sizeof(std::int64_t), "hid_t is stored as int64 in the header");

namespace {

herr_t keep_innermost_message(unsigned depth, const H5E_error2_t* entry, void* data) {
  auto* message = static_cast<std::string*>(data);
  if (depth == 0 && entry->desc != nullptr) *message = entry->desc;
  return 0;
}

// HDF5's innermost error description on this thread (then clears the stack).
std::string hdf5_error_detail() {
  std::string message;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost_message, &message);
  H5Eclear2(H5E_DEFAULT);
  return message;
}

std::optional<DType> integer_dtype(std::size_t size, bool is_signed) {
  switch (size) {
    case 1: return is_signed ? DType::int8 : DType::uint8;
    case 2: return is_signed ? DType::int16 : DType::uint16;
    case 4: return is_signed ? DType::int32 : DType::uint32;
    case 8: return is_signed ? DType::int64 : DType::uint64;
    default: return std::nullopt;
  }
}

herr_t collect_link_name(hid_t, const char* name, const H5L_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}

herr_t collect_member(hid_t group, const char* name, const H5L_info_t*, void* data) {
  static_cast<std::vector<Member>*>(data)->push_back({name, object_kind(group, name)});
  return 0;
}

}  // namespace

namespace detail {

void silence_error_printing() {
  thread_local bool silenced = false;
  if (!silenced) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    silenced = true;
  }
}

hid_t native_type(DType dtype) {
  switch (dtype) {
    case DType::int8: return H5T_NATIVE_INT8;
    case DType::int16: return H5T_NATIVE_INT16;
    case DType::int32: return H5T_NATIVE_INT32;
    case DType::int64: return H5T_NATIVE_INT64;
    case DType::uint8: return H5T_NATIVE_UINT8;
    case DType::uint16: return H5T_NATIVE_UINT16;
    case DType::uint32: return H5T_NATIVE_UINT32;
    case DType::uint64: return H5T_NATIVE_UINT64;
    case DType::float32: return H5T_NATIVE_FLOAT;
    case DType::float64: break;
  }
  return H5T_NATIVE_DOUBLE;
}

bool numeric_bits_fit(hid_t type) {
  const H5T_class_t type_class = H5Tget_class(type);
  if (type_class != H5T_INTEGER && type_class != H5T_BITFIELD && type_class != H5T_FLOAT) return true;
  const std::size_t bits = 8 * H5Tget_size(type);
  const size_t precision = H5Tget_precision(type);
  const int offset = H5Tget_offset(type);
  if (bits == 0 || bits > 128 || precision == 0 || offset < 0 || static_cast<std::size_t>(offset) + precision > bits) {
    H5Eclear2(H5E_DEFAULT);
    return false;
  }
  if (type_class != H5T_FLOAT) return true;
  size_t sign = 0, exponent_at = 0, exponent_bits = 0, mantissa_at = 0, mantissa_bits = 0;
  if (H5Tget_fields(type, &sign, &exponent_at, &exponent_bits, &mantissa_at, &mantissa_bits) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return false;
  }
  return sign < bits && exponent_bits > 0 && exponent_at + exponent_bits <= bits && mantissa_at + mantissa_bits <= bits;
}

ElementType describe_type(hid_t type) {
  ElementType element;
  if (!numeric_bits_fit(type)) return element;  // no dtype: the read refuses the dataset by name
  switch (H5Tget_class(type)) {
    case H5T_INTEGER:
      element.dtype = integer_dtype(H5Tget_size(type), H5Tget_sign(type) == H5T_SGN_2);
      break;
    case H5T_BITFIELD:
      element.dtype = integer_dtype(H5Tget_size(type), false);
      break;
    case H5T_FLOAT: {
      const std::size_t size = H5Tget_size(type);
      if (size == 4) element.dtype = DType::float32;
      if (size == 8) element.dtype = DType::float64;
      break;
    }
    case H5T_ENUM: {
      Handle base = type_handle(H5Tget_super(type));
      if (base.valid()) element = describe_type(base.get());
      break;
    }
    case H5T_ARRAY: {
      const int ndims = H5Tget_array_ndims(type);
      Handle base = type_handle(H5Tget_super(type));
      if (ndims > 0 && ndims <= 32 && base.valid()) {
        std::vector<hsize_t> dims(static_cast<std::size_t>(ndims));
        H5Tget_array_dims2(type, dims.data());
        element = describe_type(base.get());
        Shape trailing(dims.begin(), dims.end());
        trailing.insert(trailing.end(), element.trailing.begin(), element.trailing.end());
        element.trailing = std::move(trailing);
      }
      break;
    }
    case H5T_STRING:
      element.string = true;
      break;
    case H5T_COMPOUND:
      element.compound = true;
      break;
    default:
      break;
  }
  return element;
}

Handle memory_type(DType dtype, const Shape& trailing_from_array_type) {
  if (trailing_from_array_type.empty()) return type_handle(H5Tcopy(native_type(dtype)));
  std::vector<hsize_t> dims(trailing_from_array_type.begin(), trailing_from_array_type.end());
  return type_handle(H5Tarray_create2(native_type(dtype), static_cast<unsigned>(dims.size()), dims.data()));
}

Shape space_shape(hid_t space) {
  const H5S_class_t space_class = H5Sget_simple_extent_type(space);
  if (space_class == H5S_SCALAR) return {1};
  if (space_class == H5S_NULL) return {0};
  const int ndims = H5Sget_simple_extent_ndims(space);
  if (ndims < 0) return {};
  std::vector<hsize_t> dims(static_cast<std::size_t>(ndims));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  return Shape(dims.begin(), dims.end());
}

std::uint64_t element_count(const Shape& shape) {
  std::uint64_t count = 1;
  for (std::int64_t extent : shape) {
    const auto value = static_cast<std::uint64_t>(extent);
    if (value != 0 && count > UINT64_MAX / value) return UINT64_MAX;
    count *= value;
  }
  return count;
}

Handle link_creation_plist() {
  Handle plist = plist_handle(H5Pcreate(H5P_LINK_CREATE));
  H5Pset_create_intermediate_group(plist.get(), 1);
  return plist;
}

ObjectKind object_kind(hid_t location, const char* name) {
  // The type from the object header alone (H5O_INFO_BASIC): opening the object instead
  // (H5Oopen) would, for a dataset, build its whole in-memory state (layout, property
  // lists) only to close it again.
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t info{};
  const herr_t status = H5Oget_info_by_name3(location, name, &info, H5O_INFO_BASIC, H5P_DEFAULT);
#else
  H5O_info_t info{};
  const herr_t status = H5Oget_info_by_name2(location, name, &info, H5O_INFO_BASIC, H5P_DEFAULT);
#endif
  if (status < 0) {  // a dangling soft or external link
    H5Eclear2(H5E_DEFAULT);
    return ObjectKind::missing;
  }
  switch (info.type) {
    case H5O_TYPE_GROUP: return ObjectKind::group;
    case H5O_TYPE_DATASET: return ObjectKind::dataset;
    case H5O_TYPE_NAMED_DATATYPE: return ObjectKind::named_datatype;
    default: return ObjectKind::other;
  }
}

int sec2_descriptor(hid_t file_id) {
  Handle file_plist = plist_handle(H5Fget_create_plist(file_id));
  Handle access_plist = plist_handle(H5Fget_access_plist(file_id));
  hsize_t userblock = 1;
  void* handle = nullptr;
  const bool usable = file_plist.valid() && access_plist.valid() && H5Pget_driver(access_plist.get()) == H5FD_SEC2 &&
                      H5Pget_userblock(file_plist.get(), &userblock) >= 0 && userblock == 0 &&
                      H5Fget_vfd_handle(file_id, H5P_DEFAULT, &handle) >= 0 && handle != nullptr;
  H5Eclear2(H5E_DEFAULT);
  return usable ? *static_cast<int*>(handle) : -1;
}

}  // namespace detail

bool available() noexcept { return true; }

void File::fail(std::string_view object_path, const std::string& message) const {
  std::string text = object_path.empty() ? message : "HDF5 object '" + absolute_object_path(object_path) + "': " + message;
  const std::string detail = hdf5_error_detail();
  if (!detail.empty()) text += " (HDF5: " + detail + ")";
  if (mode_ == Mode::write) throw WriteError(path_, format_, text);
  throw ReadError(path_, format_, text);
}

namespace {
// What a file whose signature lost its carriage return (\x89 H D F \r \n \x1a \n → \x89 H D F
// \n \x1a \n) went through: a text-mode copy (git's eol/text attributes on a binary file, an
// FTP ASCII transfer). Said, since the bytes alone suggest "not HDF5" where the file was.
std::string line_ending_hint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  in.read(head, sizeof head);
  if (in.gcount() >= 7 && std::string_view(head, 7) == std::string_view("\x89HDF\n\x1a\n", 7))
    return "; its first bytes are the HDF5 signature without its carriage return (\\x89HDF\\n\\x1a\\n): the file went "
           "through a line-ending conversion (a text-mode copy, git's eol attribute), which damages every CR LF "
           "in it; fetch a binary copy";
  return {};
}
}  // namespace

// A handle not yet opened, for `path` in `mode`; for an existing file (read, append), the
// checks an open makes first.
File File::unopened(const std::string& path, std::string_view format, Mode mode, const char* missing) {
  silence_error_printing();
  File file;
  file.path_ = path;
  file.format_ = std::string(format);
  file.mode_ = mode;
  if (missing != nullptr) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) file.fail({}, missing);
    if (mode != Mode::read) file.fail_unless_hdf5();
  }
  return file;
}

void File::fail_unless_hdf5() const {
  if (H5Fis_hdf5(path_.c_str()) <= 0)
    fail({}, std::string("not an HDF5 file (no HDF5 signature)") + line_ending_hint(path_));
}

void File::fail_dataset_open(const std::string& path) const {
  // kind() clears HDF5's error stack (every API call does on entry): H5Dopen2's is kept aside.
  const hid_t open_errors = H5Eget_current_stack();
  const bool dataset = kind(path) == ObjectKind::dataset;
  if (open_errors >= 0) {
    if (dataset) H5Eset_current_stack(open_errors);  // (closes open_errors)
    else H5Eclose_stack(open_errors);
  }
  if (!dataset) fail(path, "no such dataset");
  fail(path, "cannot open the dataset");
}

File File::open(const std::string& path, std::string_view format) {
  File file = unopened(path, format, Mode::read, "no such HDF5 file");
  file.id_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file.id_ < 0) {
    // Why, asked only now: the signature check opens the file a second time. It clears
    // HDF5's error stack on entry, so H5Fopen's stack is kept aside for the message.
    const hid_t open_errors = H5Eget_current_stack();
    const bool signature = H5Fis_hdf5(path.c_str()) > 0;
    if (open_errors >= 0) {
      if (signature) H5Eset_current_stack(open_errors);  // (closes open_errors)
      else H5Eclose_stack(open_errors);
    }
    if (!signature) file.fail_unless_hdf5();
    file.fail({}, "cannot open the HDF5 file (truncated or damaged)");
  }
  // The size of the file HDF5 opened, through its own descriptor: a writer may have put a new
  // file under the path since the checks above (a size taken by name then belonged to the
  // other file, and chunks of this one looked out of bounds).
  void* handle = nullptr;
  struct stat opened {};
  hsize_t size = 0;
  if (H5Fget_vfd_handle(file.id_, H5P_DEFAULT, &handle) >= 0 && handle != nullptr &&
      ::fstat(*static_cast<int*>(handle), &opened) == 0)
    file.file_size_ = static_cast<std::uint64_t>(opened.st_size);
  else if (H5Fget_filesize(file.id_, &size) >= 0)
    file.file_size_ = size;
  else
    file.fail({}, "cannot read the file size");
  H5Eclear2(H5E_DEFAULT);
  return file;
}

File File::create(const std::string& path, std::string_view format) {
  File file = unopened(path, format, Mode::write, nullptr);
  // A unique temporary beside the target (two writers of one path must not share it; a long
  // name must not overflow NAME_MAX), moved over the path by commit(). HDF5 creates it new
  // (H5F_ACC_EXCL), not over a reserved empty file (see create_temporary_beside).
  file.temp_path_ = create_temporary_beside(path, format, [&file](const std::string& candidate) {
    file.id_ = H5Fcreate(candidate.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (file.id_ >= 0) return true;
    std::error_code error;
    if (std::filesystem::exists(candidate, error)) return false;  // taken meanwhile: not ours to remove
    file.fail({}, "cannot create the HDF5 file");
  });
  return file;
}

File File::append(const std::string& path, std::string_view format) {
  File file = unopened(path, format, Mode::write, "no such HDF5 file to append to");
  file.temp_path_ = copy_to_temporary_beside(path, format);
  file.id_ = H5Fopen(file.temp_path_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (file.id_ < 0) file.fail({}, "cannot open the HDF5 file to append to it (truncated or damaged)");
  H5Eclear2(H5E_DEFAULT);
  return file;
}

File::File(File&& other) noexcept
    : path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      format_(std::move(other.format_)),
      mode_(other.mode_),
      id_(std::exchange(other.id_, -1)),
      file_size_(other.file_size_) {
  other.temp_path_.clear();
}

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    close();
    path_ = std::move(other.path_);
    temp_path_ = std::move(other.temp_path_);
    other.temp_path_.clear();
    format_ = std::move(other.format_);
    mode_ = other.mode_;
    id_ = std::exchange(other.id_, -1);
    file_size_ = other.file_size_;
  }
  return *this;
}

File::~File() { close(); }

void File::close() noexcept {
  if (id_ >= 0) H5Fclose(static_cast<hid_t>(id_));
  id_ = -1;
  if (!temp_path_.empty()) {  // a write that was never committed
    std::remove(temp_path_.c_str());
    temp_path_.clear();
  }
}

void File::commit() {
  if (mode_ != Mode::write || id_ < 0) fail({}, "commit() on a file not open for writing");
  if (H5Fflush(id_, H5F_SCOPE_GLOBAL) < 0) fail({}, "cannot flush the HDF5 file");
  const hid_t id = std::exchange(id_, -1);
  if (H5Fclose(id) < 0) fail({}, "cannot close the HDF5 file");
  replace_with_temporary(temp_path_, path_, format_);
  temp_path_.clear();
}

ObjectKind File::kind(std::string_view object_path) const {
  const std::string path = absolute_object_path(object_path);
  if (path == "/") return ObjectKind::group;
  // H5Lexists says no for a missing last name and fails for a missing (or dangling) parent:
  // both are "missing", so one call on the whole path settles existence.
  const htri_t present = H5Lexists(id_, path.c_str(), H5P_DEFAULT);
  if (present <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return ObjectKind::missing;
  }
  return object_kind(id_, path.c_str());
}

std::vector<std::string> File::children(std::string_view group_path) const {
  const std::string path = absolute_object_path(group_path);
  if (kind(path) != ObjectKind::group) fail(path, "expected a group");
  std::vector<std::string> names;
  if (H5Literate_by_name(id_, path.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_link_name, &names,
                         H5P_DEFAULT) < 0)
    fail(path, "cannot list the group's members");
  return names;
}

std::vector<Member> File::members(std::string_view group_path) const {
  const std::string path = absolute_object_path(group_path);
  if (kind(path) != ObjectKind::group) fail(path, "expected a group");
  std::vector<Member> members;
  if (H5Literate_by_name(id_, path.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_member, &members,
                         H5P_DEFAULT) < 0)
    fail(path, "cannot list the group's members");
  return members;
}

DatasetInfo File::dataset_info(std::string_view dataset_path) const {
  const std::string path = absolute_object_path(dataset_path);
  MESHIOPLUSPLUS_OPEN_DATASET(open, path);
  DatasetInfo info;
  info.compound = open.element.compound;
  info.string = open.element.string;
  if (!info.compound && !info.string) {
    if (!open.element.dtype) fail(path, "unsupported element type (not an 8-64 bit integer or 32/64 bit float)");
    info.dtype = *open.element.dtype;
  }
  info.shape = open.space_shape;
  info.shape.insert(info.shape.end(), open.element.trailing.begin(), open.element.trailing.end());
  return info;
}

void File::expect_shape(std::string_view dataset_path, const Shape& shape, const Shape& expected) const {
  bool matches = shape.size() == expected.size();
  for (std::size_t i = 0; matches && i < shape.size(); ++i)
    matches = expected[i] < 0 || expected[i] == shape[i];
  if (!matches) {
    std::string wanted = "(";
    for (std::size_t i = 0; i < expected.size(); ++i)
      wanted += (i ? ", " : "") + (expected[i] < 0 ? std::string("any") : std::to_string(expected[i]));
    wanted += expected.size() == 1 ? ",)" : ")";
    throw ReadError(path_, format_,
                    "HDF5 object '" + absolute_object_path(dataset_path) + "': shape " + shape_text(shape) +
                        ", expected " + wanted);
  }
}

#else  // no HDF5 in this build: every entry point names the missing library.

bool available() noexcept { return false; }

void File::fail(std::string_view object_path, const std::string& message) const {
  const std::string text =
      object_path.empty() ? message : "HDF5 object '" + absolute_object_path(object_path) + "': " + message;
  if (mode_ == Mode::write) throw WriteError(path_, format_, text);
  throw ReadError(path_, format_, text);
}

File File::open(const std::string& path, std::string_view format) {
  throw ReadError(path, std::string(format), std::string(kMissingLibrary));
}
File File::create(const std::string& path, std::string_view format) {
  throw WriteError(path, std::string(format), std::string(kMissingLibrary));
}
File File::append(const std::string& path, std::string_view format) {
  throw WriteError(path, std::string(format), std::string(kMissingLibrary));
}
File::File(File&& other) noexcept = default;
File& File::operator=(File&& other) noexcept = default;
File::~File() = default;
void File::close() noexcept {}
void File::commit() { fail({}, std::string(kMissingLibrary)); }
void File::set_attribute(std::string_view path, std::string_view, const std::vector<std::int64_t>&) {
  fail(path, std::string(kMissingLibrary));
}
void File::set_int32_attribute(std::string_view path, std::string_view, std::int32_t) { fail(path, std::string(kMissingLibrary)); }
void File::set_fixed_string_attribute(std::string_view path, std::string_view, std::string_view) {
  fail(path, std::string(kMissingLibrary));
}
ObjectKind File::kind(std::string_view) const { return ObjectKind::missing; }
std::vector<std::string> File::children(std::string_view path) const { fail(path, std::string(kMissingLibrary)); }
std::vector<Member> File::members(std::string_view path) const { fail(path, std::string(kMissingLibrary)); }
DatasetInfo File::dataset_info(std::string_view path) const { fail(path, std::string(kMissingLibrary)); }
void File::expect_shape(std::string_view path, const Shape&, const Shape&) const { fail(path, std::string(kMissingLibrary)); }
NDArray File::read(std::string_view path) const { fail(path, std::string(kMissingLibrary)); }
NDArray File::read(std::string_view path, DType) const { fail(path, std::string(kMissingLibrary)); }
NDArray File::read_rows(std::string_view path, std::int64_t, std::int64_t, std::optional<DType>) const {
  fail(path, std::string(kMissingLibrary));
}
void File::read_into(std::string_view path, NDArray&) const { fail(path, std::string(kMissingLibrary)); }
std::vector<std::string> File::read_strings(std::string_view path) const { fail(path, std::string(kMissingLibrary)); }
std::vector<std::string> File::member_names(std::string_view path) const { fail(path, std::string(kMissingLibrary)); }
NDArray File::read_member(std::string_view path, std::string_view, DType, std::int64_t, std::int64_t) const {
  fail(path, std::string(kMissingLibrary));
}
bool File::has_attribute(std::string_view, std::string_view) const { return false; }
std::optional<std::string> File::string_attribute(std::string_view, std::string_view) const { return std::nullopt; }
std::size_t File::string_attribute_width(std::string_view, std::string_view) const { return 0; }
std::optional<std::int64_t> File::integer_attribute(std::string_view, std::string_view) const { return std::nullopt; }
std::optional<double> File::float_attribute(std::string_view, std::string_view) const { return std::nullopt; }
std::vector<std::string> File::attribute_names(std::string_view) const { return {}; }
void File::create_group(std::string_view path) { fail(path, std::string(kMissingLibrary)); }
void File::write(std::string_view path, const NDArray&, const DatasetWriteOptions&) { fail(path, std::string(kMissingLibrary)); }
void File::write_strings(std::string_view path, const std::vector<std::string>&, int, StringStorage) {
  fail(path, std::string(kMissingLibrary));
}
void File::write_stacked(std::string_view path, const std::vector<NDArray>&, const DatasetWriteOptions&) {
  fail(path, std::string(kMissingLibrary));
}
void File::write_generated(std::string_view path, DType, std::int64_t, const RowFiller&, const DatasetWriteOptions&) {
  fail(path, std::string(kMissingLibrary));
}
void File::write_virtual(std::string_view path, DType, const Shape&, const std::vector<VirtualSource>&) {
  fail(path, std::string(kMissingLibrary));
}
std::vector<VirtualSource> File::virtual_sources(std::string_view path) const { fail(path, std::string(kMissingLibrary)); }
std::vector<std::uint8_t> File::stored_chunk(std::string_view path, const std::vector<std::int64_t>&,
                                             std::uint32_t*) const {
  fail(path, std::string(kMissingLibrary));
}
void File::set_attribute(std::string_view path, std::string_view, std::string_view) { fail(path, std::string(kMissingLibrary)); }
void File::set_attribute(std::string_view path, std::string_view, std::int64_t) { fail(path, std::string(kMissingLibrary)); }
void File::set_attribute(std::string_view path, std::string_view, std::uint64_t) { fail(path, std::string(kMissingLibrary)); }
void File::set_attribute(std::string_view path, std::string_view, double) { fail(path, std::string(kMissingLibrary)); }
void File::commit_datatype(std::string_view path, DType, int) { fail(path, std::string(kMissingLibrary)); }
void File::commit_enum_datatype(std::string_view path, const std::vector<std::pair<std::string, int>>&) {
  fail(path, std::string(kMissingLibrary));
}
void File::set_enum_attribute(std::string_view path, std::string_view, std::string_view, int) {
  fail(path, std::string(kMissingLibrary));
}

#endif

}  // namespace meshioplusplus::io::hdf5
