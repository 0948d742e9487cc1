// io::hdf5::File's attributes, read and written (strings fixed or variable, numbers, enums), and
// the named datatypes the enum and H5M tag attributes refer to. Split from the datasets so
// that no file passes the project's 1,000-line limit.
#include "io/hdf5/hdf5_internal.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#ifdef MESHIOPLUSPLUS_HAVE_HDF5

namespace meshioplusplus::io::hdf5 {

using namespace detail;

namespace {

herr_t collect_attribute_name(hid_t, const char* name, const H5A_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}

template <class T>
std::optional<T> numeric_attribute(const File& file, hid_t file_id, std::string_view object_path, std::string_view name,
                                   hid_t memory) {
  if (!file.has_attribute(object_path, name)) return std::nullopt;
  const std::string path = absolute_object_path(object_path);
  Handle attribute = attribute_handle(H5Aopen_by_name(file_id, path.c_str(), std::string(name).c_str(), H5P_DEFAULT, H5P_DEFAULT));
  Handle type = type_handle(H5Aget_type(attribute.get()));
  Handle space = space_handle(H5Aget_space(attribute.get()));
  if (!attribute.valid() || !type.valid() || !space.valid()) file.fail(path, "cannot open attribute '" + std::string(name) + "'");
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_INTEGER && type_class != H5T_FLOAT && type_class != H5T_ENUM) return std::nullopt;
  if (!numeric_bits_fit(type.get()))
    file.fail(path, "attribute '" + std::string(name) + "' has a corrupt number type (bit fields past its size)");
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count < 1 || count > (1 << 24)) return std::nullopt;
  std::vector<T> values(static_cast<std::size_t>(count));
  Handle memtype = type_handle(H5Tcopy(memory));
  if (type_class == H5T_ENUM) {  // enums convert only to enums: read the raw base integers
    memtype = type_handle(H5Tcopy(type.get()));
    if (H5Tget_size(type.get()) != sizeof(std::int32_t) || !std::is_integral_v<T>) return std::nullopt;
    std::vector<std::int32_t> raw(static_cast<std::size_t>(count));
    if (H5Aread(attribute.get(), memtype.get(), raw.data()) < 0) file.fail(path, "cannot read attribute '" + std::string(name) + "'");
    return static_cast<T>(raw[0]);
  }
  if (H5Aread(attribute.get(), memtype.get(), values.data()) < 0)
    file.fail(path, "cannot read attribute '" + std::string(name) + "'");
  return values[0];
}

void write_scalar_attribute(const File& file, hid_t file_id, std::string_view object_path, std::string_view name,
                            hid_t type, const void* value) {
  const std::string path = absolute_object_path(object_path);
  const std::string attribute_name(name);
  if (H5Aexists_by_name(file_id, path.c_str(), attribute_name.c_str(), H5P_DEFAULT) > 0)
    H5Adelete_by_name(file_id, path.c_str(), attribute_name.c_str(), H5P_DEFAULT);
  H5Eclear2(H5E_DEFAULT);
  Handle space = space_handle(H5Screate(H5S_SCALAR));
  Handle attribute = attribute_handle(
      H5Acreate_by_name(file_id, path.c_str(), attribute_name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!attribute.valid()) file.fail(path, "cannot create attribute '" + attribute_name + "'");
  if (H5Awrite(attribute.get(), type, value) < 0) file.fail(path, "cannot write attribute '" + attribute_name + "'");
}

}  // namespace

bool File::has_attribute(std::string_view object_path, std::string_view name) const {
  const std::string path = absolute_object_path(object_path);
  // H5Aexists_by_name fails (rather than saying no) for a missing object: false all the same.
  const htri_t present = H5Aexists_by_name(id_, path.c_str(), std::string(name).c_str(), H5P_DEFAULT);
  if (present < 0) H5Eclear2(H5E_DEFAULT);
  return present > 0;
}

std::optional<std::string> File::string_attribute(std::string_view object_path, std::string_view name) const {
  if (!has_attribute(object_path, name)) return std::nullopt;
  const std::string path = absolute_object_path(object_path);
  Handle attribute = attribute_handle(H5Aopen_by_name(id_, path.c_str(), std::string(name).c_str(), H5P_DEFAULT, H5P_DEFAULT));
  Handle type = type_handle(H5Aget_type(attribute.get()));
  if (!attribute.valid() || !type.valid()) fail(path, "cannot open attribute '" + std::string(name) + "'");
  if (H5Tget_class(type.get()) != H5T_STRING) return std::nullopt;
  Handle memtype = type_handle(H5Tcopy(H5T_C_S1));
  if (H5Tis_variable_str(type.get()) > 0) {
    H5Tset_size(memtype.get(), H5T_VARIABLE);
    H5Tset_cset(memtype.get(), H5Tget_cset(type.get()));
    Handle space = space_handle(H5Aget_space(attribute.get()));
    const hssize_t count = H5Sget_simple_extent_npoints(space.get());
    if (count < 1 || count > (1 << 20)) return std::nullopt;
    std::vector<char*> pointers(static_cast<std::size_t>(count), nullptr);
    if (H5Aread(attribute.get(), memtype.get(), pointers.data()) < 0)
      fail(path, "cannot read attribute '" + std::string(name) + "'");
    std::string value = pointers[0] ? pointers[0] : "";
    H5Dvlen_reclaim(memtype.get(), space.get(), H5P_DEFAULT, pointers.data());
    return value;
  }
  const std::size_t width = H5Tget_size(type.get());
  Handle space = space_handle(H5Aget_space(attribute.get()));
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count < 1 || width == 0 || static_cast<std::uint64_t>(count) * width > (std::uint64_t{1} << 26))
    return std::string();
  H5Tset_size(memtype.get(), width);
  // Null-padded, not terminated: a NULLTERM memory type drops the last character of a string
  // that fills its width (h5py's np.bytes_ attributes, MED's profile names).
  H5Tset_strpad(memtype.get(), H5T_STR_NULLPAD);
  std::vector<char> buffer(static_cast<std::size_t>(count) * width);
  if (H5Aread(attribute.get(), memtype.get(), buffer.data()) < 0)
    fail(path, "cannot read attribute '" + std::string(name) + "'");
  std::string_view text(buffer.data(), width);
  return std::string(text.substr(0, text.find('\0')));
}

std::size_t File::string_attribute_width(std::string_view object_path, std::string_view name) const {
  if (!has_attribute(object_path, name)) return 0;
  const std::string path = absolute_object_path(object_path);
  Handle attribute = attribute_handle(H5Aopen_by_name(id_, path.c_str(), std::string(name).c_str(), H5P_DEFAULT, H5P_DEFAULT));
  if (!attribute.valid()) return 0;
  Handle type = type_handle(H5Aget_type(attribute.get()));
  if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) > 0) return 0;
  return H5Tget_size(type.get());
}

std::optional<std::int64_t> File::integer_attribute(std::string_view object_path, std::string_view name) const {
  return numeric_attribute<std::int64_t>(*this, id_, object_path, name, H5T_NATIVE_INT64);
}

std::optional<double> File::float_attribute(std::string_view object_path, std::string_view name) const {
  return numeric_attribute<double>(*this, id_, object_path, name, H5T_NATIVE_DOUBLE);
}

std::vector<std::string> File::attribute_names(std::string_view object_path) const {
  const std::string path = absolute_object_path(object_path);
  if (!exists(path)) fail(path, "no such object");
  std::vector<std::string> names;
  hsize_t index = 0;
  if (H5Aiterate_by_name(id_, path.c_str(), H5_INDEX_NAME, H5_ITER_INC, &index, collect_attribute_name, &names,
                         H5P_DEFAULT) < 0)
    fail(path, "cannot list the attributes");
  return names;
}

void File::set_attribute(std::string_view object_path, std::string_view name, std::string_view value) {
  Handle type = type_handle(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  const std::string text(value);
  const char* pointer = text.c_str();
  write_scalar_attribute(*this, id_, object_path, name, type.get(), &pointer);
}

void File::set_attribute(std::string_view object_path, std::string_view name, std::int64_t value) {
  write_scalar_attribute(*this, id_, object_path, name, H5T_NATIVE_INT64, &value);
}

void File::set_attribute(std::string_view object_path, std::string_view name, std::uint64_t value) {
  write_scalar_attribute(*this, id_, object_path, name, H5T_NATIVE_UINT64, &value);
}

void File::set_attribute(std::string_view object_path, std::string_view name, double value) {
  write_scalar_attribute(*this, id_, object_path, name, H5T_NATIVE_DOUBLE, &value);
}

void File::set_attribute(std::string_view object_path, std::string_view name, const std::vector<std::int64_t>& values) {
  const std::string path = absolute_object_path(object_path);
  const std::string attribute_name(name);
  if (H5Aexists_by_name(id_, path.c_str(), attribute_name.c_str(), H5P_DEFAULT) > 0)
    H5Adelete_by_name(id_, path.c_str(), attribute_name.c_str(), H5P_DEFAULT);
  H5Eclear2(H5E_DEFAULT);
  const hsize_t count = values.size();
  Handle space = space_handle(H5Screate_simple(1, &count, nullptr));
  Handle attribute = attribute_handle(H5Acreate_by_name(id_, path.c_str(), attribute_name.c_str(), H5T_NATIVE_INT64,
                                                        space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!attribute.valid()) fail(path, "cannot create attribute '" + attribute_name + "'");
  if (count > 0 && H5Awrite(attribute.get(), H5T_NATIVE_INT64, values.data()) < 0)
    fail(path, "cannot write attribute '" + attribute_name + "'");
}

void File::set_int32_attribute(std::string_view object_path, std::string_view name, std::int32_t value) {
  write_scalar_attribute(*this, id_, object_path, name, H5T_NATIVE_INT32, &value);
}

void File::set_fixed_string_attribute(std::string_view object_path, std::string_view name, std::string_view value) {
  Handle type = type_handle(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1));  // HDF5 has no zero-length strings
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  std::string text(value);
  text.resize(std::max<std::size_t>(value.size(), 1), '\0');
  write_scalar_attribute(*this, id_, object_path, name, type.get(), text.data());
}

void File::commit_datatype(std::string_view type_path, DType dtype, int components) {
  const std::string path = absolute_object_path(type_path);
  Handle type;
  if (components > 1) {
    const hsize_t dims = static_cast<hsize_t>(components);
    type = type_handle(H5Tarray_create2(native_type(dtype), 1, &dims));
  } else {
    type = type_handle(H5Tcopy(native_type(dtype)));
  }
  Handle lcpl = link_creation_plist();
  if (H5Tcommit2(id_, path.c_str(), type.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT) < 0)
    fail(path, "cannot store the named datatype");
}

void File::commit_enum_datatype(std::string_view type_path, const std::vector<std::pair<std::string, int>>& members) {
  const std::string path = absolute_object_path(type_path);
  Handle type = type_handle(H5Tenum_create(H5T_NATIVE_INT32));
  for (const auto& [member, value] : members) {
    const std::int32_t number = value;
    if (H5Tenum_insert(type.get(), member.c_str(), &number) < 0) fail(path, "cannot build the enum type");
  }
  Handle lcpl = link_creation_plist();
  if (H5Tcommit2(id_, path.c_str(), type.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT) < 0)
    fail(path, "cannot store the named datatype");
}

void File::set_enum_attribute(std::string_view object_path, std::string_view name, std::string_view enum_type_path,
                              int value) {
  const std::string type_path = absolute_object_path(enum_type_path);
  Handle type = type_handle(H5Topen2(id_, type_path.c_str(), H5P_DEFAULT));
  if (!type.valid()) fail(type_path, "no such named datatype");
  const std::int32_t number = value;
  write_scalar_attribute(*this, id_, object_path, name, type.get(), &number);
}

}  // namespace meshioplusplus::io::hdf5

#endif  // MESHIOPLUSPLUS_HAVE_HDF5
