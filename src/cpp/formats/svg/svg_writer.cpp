// SVG writer.
//
// The document is the one meshio's ElementTree writer produces, so tools that post-process
// meshio's SVGs (svgo …) see the same structure:
//   <svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="x y w h"><style>path {fill:
//   …; stroke: …; stroke-width: …; stroke-linejoin:bevel}</style><path d="M x yL x yZ" />…</svg>
// Paths, not polygons: svgo rewrites polygons as paths without carrying their style along.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/svg/svg.hpp"
#include "io/output/atomic_file.hpp"
#include "io/cells/face_blocks.hpp"
#include "io/text/xml_scanner.hpp"

namespace meshioplusplus::svg {
namespace {

constexpr std::string_view kFormat = "svg";

double point_value(const NDArray& points, std::int64_t row, std::int64_t column) {
  return visit_dtype(points.dtype(), [&](auto zero) {
    return static_cast<double>(static_cast<const decltype(zero)*>(points.data())[row * points.row_width() + column]);
  });
}

// image_width: a positive number, or "none"/"" for the mesh's own size.
std::optional<double> image_width(const WriteOptions& options) {
  const std::string_view text = options.get("image_width", "100");
  if (text.empty() || text == "none" || text == "None") return std::nullopt;
  double value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc{} || result.ptr != text.data() + text.size() || !(value > 0) || !std::isfinite(value))
    throw std::invalid_argument("image_width must be a positive number or None, got '" + std::string(text) + "'");
  return value;
}

bool is_drawn(std::string_view type) { return type == "line" || type == "triangle" || type == "quad" || type == "polygon"; }

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  if (mesh.points.ndim() != 2 || mesh.points.dim(1) < 2 || mesh.points.dim(1) > 3)
    throw std::invalid_argument("SVG needs 2-D points (or 3-D points with z = 0)");
  const std::int64_t n = mesh.num_points();
  if (mesh.points.dim(1) == 3)
    for (std::int64_t i = 0; i < n; ++i)
      if (!(std::abs(point_value(mesh.points, i, 2)) <= 1e-14))
        throw std::invalid_argument("SVG can only draw flat 2-D meshes: point " + std::to_string(i) + " has z != 0");
  for (const CellBlock& block : mesh.cells)
    if (!is_drawn(block.type) && block.type != "vertex")
      throw std::invalid_argument("SVG draws lines, triangles, quads and polygons, not '" + block.type + "'");
  const std::optional<double> target_width = image_width(options);

  double min_x = 0, max_x = 0, min_y = 0, max_y = 0;
  if (n > 0) {
    min_x = max_x = point_value(mesh.points, 0, 0);
    min_y = max_y = point_value(mesh.points, 0, 1);
    for (std::int64_t i = 1; i < n; ++i) {
      const double x = point_value(mesh.points, i, 0), y = point_value(mesh.points, i, 1);
      min_x = std::min(min_x, x), max_x = std::max(max_x, x);
      min_y = std::min(min_y, y), max_y = std::max(max_y, y);
    }
  }
  double width = max_x - min_x, height = max_y - min_y;
  const double flip = max_y + min_y;  // y' = flip - y keeps the drawing inside the same box
  double scale = 1.0;
  if (target_width && width != 0) {
    scale = *target_width / width;
    min_x *= scale, min_y *= scale, width *= scale, height *= scale;
  }
  const auto x_of = [&](std::int64_t p) { return point_value(mesh.points, p, 0) * scale; };
  const auto y_of = [&](std::int64_t p) { return (flip - point_value(mesh.points, p, 1)) * scale; };

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  out.set_float_format(io::parse_float_format(options.get("float_fmt", "")));  // meshio's float_fmt, when given
  out.text("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" viewBox=\"");
  out.number(min_x);
  out.put(' ');
  out.number(min_y);
  out.put(' ');
  out.number(width);
  out.put(' ');
  out.number(height);
  out.text("\"><style>path {fill: ");
  out.text(io::escape_xml_attribute(options.get("fill", "#c8c5bd")));
  out.text("; stroke: ");
  out.text(io::escape_xml_attribute(options.get("stroke", "#000080")));
  out.text("; stroke-width: ");
  if (const std::string* stroke_width = options.find("stroke_width"); stroke_width != nullptr && !stroke_width->empty() &&
                                                                       *stroke_width != "none")
    out.text(io::escape_xml_attribute(*stroke_width));
  else
    out.number(width / 100);
  out.text("; stroke-linejoin:bevel}</style>");

  for (const CellBlock& block : mesh.cells) {
    if (!is_drawn(block.type)) continue;
    const bool closed = block.type != "line";
    for (std::int64_t cell = 0; cell < block.num_cells(); ++cell) {
      const auto corners = io::cell_nodes(block, cell);
      out.text("<path d=\"");
      for (std::size_t k = 0; k < corners.size(); ++k) {
        const std::int64_t p = corners[k];
        if (p < 0 || p >= n) throw std::invalid_argument("a " + block.type + " refers to a point outside the mesh");
        out.text(k == 0 ? "M " : "L ");
        out.number(x_of(p));
        out.put(' ');
        out.number(y_of(p));
      }
      if (closed) out.put('Z');
      out.text("\" />");
    }
  }
  out.text("</svg>\n");
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::svg
