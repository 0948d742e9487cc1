// XYZ-family writer: one point a line, values separated by a space, in the layout of the
// file's extension (the reader's, xyz_reader.cpp):
//  .xyz     x y z [r g b] [nx ny nz], with a "//X Y Z R G B Nx Ny Nz" line first when there
//           is more than x y z (CloudCompare reads it; numpy.loadtxt skips it with
//           comments="//"), so 0-1 colours and normals are never confused;
//  .asc     CloudCompare ASCII: the "//" names line always, x y z [r g b] [nx ny nz]
//           [intensity];
//  .xyzn    x y z nx ny nz;   .xyzrgb  x y z r g b (normals/colours required);
//  .pts     the point count, then x y z [intensity] [r g b] (Leica PTS).
// Normals come from point data nx/ny/nz (or normal_x/normal_y/normal_z, or "normals"
// (n, 3)), colours from red/green/blue (or "rgb"/"colors" (n, 3), not PCD's packed float
// "rgb"), intensity from "intensity". Other point data, cells and field data have no column
// here and are not written. Floats in their shortest exact form (rows formatted on all cores,
// the same bytes as one thread), or as float_fmt says.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/xyz/xyz.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/float_format.hpp"
#include "io/output/parallel_rows.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::xyz {
namespace {

constexpr std::string_view kFormat = "xyz";

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw WriteError(path, std::string(kFormat), message);
}

// A column of the output: column `column` of a row-major (n, width) array.
struct Source {
  std::string label;  // in the "//" names line
  const NDArray* array;
  std::int64_t column = 0;
};

// Three columns for normals or colours from separate (n,) arrays or one (n, 3) array.
std::optional<std::vector<Source>> triple(const Mesh& mesh, const std::vector<std::vector<std::string>>& separate,
                                          const std::vector<std::string>& combined, const std::vector<std::string>& labels) {
  const std::int64_t n = mesh.num_points();
  for (const std::vector<std::string>& names : separate) {
    std::vector<Source> sources;
    for (std::size_t c = 0; c < 3; ++c) {
      const NDArray* array = mesh.point_data.find(names[c]);
      if (array == nullptr || array->rows() != n || array->row_width() != 1) break;
      sources.push_back(Source{labels[c], array, 0});
    }
    if (sources.size() == 3) return sources;
  }
  for (const std::string& name : combined) {
    const NDArray* array = mesh.point_data.find(name);
    if (array == nullptr || array->rows() != n || array->ndim() != 2 || array->row_width() != 3) continue;
    return std::vector<Source>{{labels[0], array, 0}, {labels[1], array, 1}, {labels[2], array, 2}};
  }
  return std::nullopt;
}

std::string extension_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return ".xyz";
  std::string extension = path.substr(dot);
  for (char& c : extension) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return extension;
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const std::string extension = extension_of(path);
  const io::FloatFormat float_format = [&] {
    try {
      return io::parse_float_format(options.get("float_fmt", ""));
    } catch (const std::invalid_argument& error) {
      fail(path, error.what());
    }
  }();
  const NDArray points = mesh.points.astype(DType::float64);
  if (points.ndim() != 2 || points.row_width() < 1 || points.row_width() > 3) fail(path, "points must be (n, 1..3)");
  const std::int64_t n = mesh.num_points();
  const std::int64_t dim = points.row_width();

  const std::optional<std::vector<Source>> normals =
      triple(mesh, {{"nx", "ny", "nz"}, {"normal_x", "normal_y", "normal_z"}}, {"normals", "Normals"}, {"Nx", "Ny", "Nz"});
  const std::optional<std::vector<Source>> colours =
      triple(mesh, {{"red", "green", "blue"}, {"r", "g", "b"}}, {"rgb", "colors", "RGB"}, {"R", "G", "B"});
  const NDArray* intensity = mesh.point_data.find("intensity");
  if (intensity != nullptr && (intensity->rows() != n || intensity->row_width() != 1)) intensity = nullptr;

  std::vector<Source> extra;
  const auto add = [&](const std::optional<std::vector<Source>>& sources) {
    if (sources) extra.insert(extra.end(), sources->begin(), sources->end());
  };
  bool names_line = false, count_line = false;
  if (extension == ".xyzn") {
    if (!normals) fail(path, ".xyzn holds normals: the mesh needs point data nx, ny, nz (or normals (n, 3))");
    add(normals);
  } else if (extension == ".xyzrgb") {
    if (!colours) fail(path, ".xyzrgb holds colours: the mesh needs point data red, green, blue (or rgb (n, 3))");
    add(colours);
  } else if (extension == ".pts") {
    count_line = true;
    if (intensity) extra.push_back(Source{"Intensity", intensity, 0});
    add(colours);
  } else {
    add(colours);
    add(normals);
    if (extension == ".asc" && intensity) extra.push_back(Source{"Intensity", intensity, 0});
    names_line = extension == ".asc" || !extra.empty();
  }

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  out.set_float_format(float_format);
  if (count_line) out.number(n), out.put('\n');
  if (names_line) {
    out.text("//X Y Z");
    for (const Source& source : extra) out.put(' '), out.text(source.label);
    out.put('\n');
  }
  const double* xyz = points.data_as<double>();
  const auto write_row = [&](auto& put, auto& separator, std::int64_t i) {
    for (std::int64_t c = 0; c < 3; ++c) {
      if (c > 0) separator();
      put(c < dim ? xyz[i * dim + c] : 0.0);
    }
    for (const Source& source : extra) {
      separator();
      const std::int64_t width = source.array->row_width();
      visit_dtype(source.array->dtype(), [&](auto zero) {
        using T = decltype(zero);
        const T value = source.array->data_as<T>()[i * width + source.column];
        if constexpr (sizeof(T) == 1) put(static_cast<int>(value));
        else put(value);
      });
    }
  };
  if (float_format.shortest) {
    // The usual case: rows formatted on all cores (io::write_rows_in_parallel), the file byte
    // for byte what one thread writes. float_fmt's forms go through OutputBuffer below.
    const std::size_t longest = (3 + extra.size()) * (io::kMaxNumberChars + 1) + 1;
    io::write_rows_in_parallel(out, file, n, longest, [&](char* p, std::int64_t i) {
      auto put = [&p](auto value) { p = io::put_number(p, value); };
      auto separator = [&p] { *p++ = ' '; };
      write_row(put, separator, i);
      *p++ = '\n';
      return p;
    });
  } else {
    auto put = [&out](auto value) { out.number(value); };
    auto separator = [&out] { out.put(' '); };
    for (std::int64_t i = 0; i < n; ++i) {
      write_row(put, separator, i);
      out.put('\n');
    }
  }
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::xyz
