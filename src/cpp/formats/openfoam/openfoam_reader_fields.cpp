// The fields of one time directory (openfoam_reader.cpp's header comment says which):
// internalField of vol*Field files → cell data, of point*Field files → point data, and a
// moving mesh's <time>/polyMesh/points.
#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>

#include "formats/openfoam/openfoam_internal.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::openfoam::detail {
namespace fs = std::filesystem;

namespace {

struct FieldClass {
  bool point = false;  // point*Field (else vol*Field)
  int width = 0;       // 0: not a field this reader reads
};

FieldClass classify(std::string_view name) {
  FieldClass result;
  std::string_view type;
  if (name.rfind("vol", 0) == 0) {
    type = name.substr(3);
  } else if (name.rfind("point", 0) == 0) {
    type = name.substr(5);
    result.point = true;
  } else {
    return result;
  }
  if (type.size() <= 5 || type.substr(type.size() - 5) != "Field") return result;
  type = type.substr(0, type.size() - 5);
  static constexpr std::pair<std::string_view, int> kTypes[] = {
      {"Scalar", 1}, {"Vector", 3}, {"SymmTensor", 6}, {"Tensor", 9}, {"SphericalTensor", 1}};
  for (const auto& [type_name, width] : kTypes)
    if (type == type_name) result.width = width;
  return result;
}

// The internalField of a field file as `rows` values of `width` components; nullopt when the
// file is not a field this reader reads (another class, a $macro value).
std::optional<NDArray> internal_field(const FoamFile& file, int width, std::int64_t rows, std::string_view where) {
  const std::optional<DictEntry> found = find_dictionary_entry(file, file.body(), "internalField");
  if (!found) file.fail(file.body(), "a field file (class " + file.header().class_name + ") without internalField");
  const DictEntry* entry = &*found;
  if (entry->is_dict) file.fail(entry->value, "internalField is a dictionary");
  Cursor cursor(file, entry->value);
  if (cursor.peek() == '$') return std::nullopt;  // a macro of the case's set-up files: not evaluated
  const std::string_view kind = cursor.word("internalField");
  const Shape shape = width == 1 ? Shape{rows} : Shape{rows, width};
  if (kind == "uniform") {
    if (cursor.peek() == '$') return std::nullopt;
    std::vector<double> value(static_cast<std::size_t>(width));
    if (width == 1) {
      value[0] = cursor.scalar("internalField");
    } else {
      cursor.expect('(', "internalField");
      for (double& component : value) component = cursor.scalar("internalField");
      cursor.expect(')', "internalField");
    }
    NDArray values = NDArray::allocate(DType::float64, shape);
    double* out = values.data_as<double>();
    for (std::int64_t r = 0; r < rows; ++r) std::copy(value.begin(), value.end(), out + r * width);
    return values;
  }
  if (kind != "nonuniform") file.fail(entry->value, "internalField is neither uniform nor nonuniform but '" + std::string(kind) + "'");
  if (cursor.peek() != '(' && !cursor.at_number()) {
    const std::string_view type = cursor.word("internalField");
    if (type.rfind("List<", 0) != 0 || type.back() != '>')
      file.fail(entry->value, "internalField: expected List<type>, found '" + std::string(type) + "'");
    const int components = components_of(type.substr(5, type.size() - 6));
    if (components != width)
      file.fail(entry->value, "internalField is a " + std::string(type) + " but the class " + file.header().class_name +
                                  " has " + std::to_string(width) + " components");
  }
  NDArray values = read_list(cursor, ElementKind::scalar, width, "internalField");
  if (values.rows() != rows)
    file.fail(entry->value, "internalField has " + std::to_string(values.rows()) + " values for the " + std::to_string(rows) +
                                " " + std::string(where));
  return values;
}

// The files of a time directory, by name (regular files only; "U.gz" as "U").
std::vector<std::pair<std::string, std::string>> field_files(const fs::path& dir) {
  std::vector<std::pair<std::string, std::string>> files;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    std::error_code status_error;
    if (!it->is_regular_file(status_error)) continue;
    std::string name = it->path().filename().string();
    if (name.empty() || name.front() == '.' || name.back() == '~') continue;
    if (name.size() > 3 && name.substr(name.size() - 3) == ".gz") name.resize(name.size() - 3);
    if (name.size() > 5 && name.substr(name.size() - 5) == ".orig") continue;
    files.emplace_back(name, (dir / name).string());
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.first == b.first; }), files.end());
  return files;
}

NDArray nan_array(std::int64_t rows, int width) {
  NDArray values = NDArray::allocate(DType::float64, width == 1 ? Shape{rows} : Shape{rows, width});
  std::fill_n(values.data_as<double>(), values.size(), std::numeric_limits<double>::quiet_NaN());
  return values;
}

// Rows of a part's array into the whole mesh's at `map` (identity when empty).
void scatter(const NDArray& part, const NDArray& map, NDArray& whole) {
  const std::int64_t width = part.row_width();
  const double* in = part.data_as<double>();
  double* out = whole.data_as<double>();
  if (map.empty_handle()) {
    std::copy(in, in + part.size(), out);
    return;
  }
  const std::int64_t* to = map.data_as<std::int64_t>();
  for (std::int64_t r = 0; r < part.rows(); ++r) std::copy(in + r * width, in + (r + 1) * width, out + to[r] * width);
}

}  // namespace

TimeFields read_time(const CaseMesh& mesh, const std::string& time, const std::vector<std::string>* only) {
  TimeFields result;
  const std::int64_t num_cells = mesh.cells.num_cells;
  const std::int64_t num_points = mesh.mesh.points.rows();
  std::map<std::string, NDArray> cell_fields;  // whole-mesh arrays in file cell order
  std::vector<std::string> cell_order, point_order;
  std::map<std::string, NDArray> point_fields;
  for (const CaseMesh::Part& part : mesh.parts) {
    if (part.dir.empty()) continue;
    fs::path dir = fs::path(part.dir) / time;
    if (!mesh.region.empty()) dir /= mesh.region;
    std::error_code error;
    if (!fs::is_directory(dir, error)) continue;
    for (const auto& [name, path] : field_files(dir)) {
      if (only != nullptr && std::find(only->begin(), only->end(), name) == only->end()) continue;
      FoamFile file(path, mesh.note);
      const FieldClass field = classify(file.header().class_name);
      if (field.width == 0) continue;
      const std::int64_t rows = field.point ? part.num_points : part.num_cells;
      std::optional<NDArray> values = internal_field(file, field.width, rows, field.point ? "points" : "cells");
      if (!values) continue;
      auto& fields = field.point ? point_fields : cell_fields;
      auto& order = field.point ? point_order : cell_order;
      auto found = fields.find(name);
      if (found == fields.end()) {
        if (mesh.parts.size() == 1) {
          found = fields.emplace(name, std::move(*values)).first;
          order.push_back(name);
          continue;
        }
        found = fields.emplace(name, nan_array(field.point ? num_points : num_cells, field.width)).first;
        order.push_back(name);
      }
      if (found->second.row_width() != values->row_width())
        file.fail(file.body(), "field " + name + " has " + std::to_string(values->row_width()) + " components here and " +
                                   std::to_string(found->second.row_width()) + " in another processor");
      scatter(*values, field.point ? part.point_map : part.cell_map, found->second);
    }
  }
  for (const std::string& name : point_order) result.point_data.append_new(name, std::move(point_fields[name]));
  for (const std::string& name : cell_order)
    result.cell_data.append_new(name, io::cell_values_by_block(mesh.cells, cell_fields[name]));
  return result;
}

std::optional<NDArray> moved_points(const CaseMesh& mesh, const std::string& time) {
  std::optional<NDArray> points;
  for (const CaseMesh::Part& part : mesh.parts) {
    if (part.dir.empty()) continue;
    fs::path dir = fs::path(part.dir) / time;
    if (!mesh.region.empty()) dir /= mesh.region;
    dir /= "polyMesh";
    if (!FoamFile::locate((dir / "points").string())) continue;
    NDArray part_points = read_points(dir.string(), mesh.note);
    if (part_points.rows() != part.num_points)
      throw ReadError(FoamFile::locate((dir / "points").string()).value_or(""), std::string(kFormat),
                      "a moving mesh's points file has " + std::to_string(part_points.rows()) + " points, the mesh " +
                          std::to_string(part.num_points) + mesh.note);
    if (mesh.parts.size() == 1) return part_points;
    if (!points) points = mesh.mesh.points.copy();
    scatter(part_points, part.point_map, *points);
  }
  return points;
}

std::optional<NDArray> points_at(const CaseMesh& mesh, const std::vector<TimeDir>& times, std::size_t step) {
  for (std::size_t k = std::min(step + 1, times.size()); k-- > 0;)
    if (std::optional<NDArray> points = moved_points(mesh, times[k].name)) return points;
  return std::nullopt;
}

}  // namespace meshioplusplus::openfoam::detail
