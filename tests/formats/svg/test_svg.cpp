// SVG writer: meshio's document structure (parsed back with the XML scanner), viewBox and
// y flip, options and their escaping, polygons, refusals.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/svg/svg.hpp"
#include "io/text/xml_scanner.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

Mesh square(int dim) {
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {4, dim});
  const double xy[4][2] = {{0, 0}, {2, 0}, {2, 1}, {0, 1}};
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < dim; ++k) mesh.points.data_as<double>()[i * dim + k] = k < 2 ? xy[i][k] : 0.0;
  mesh.cells.push_back({"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  mesh.cells.push_back({"line", int64_matrix(1, 2, {0, 3}), {}, {}});
  return mesh;
}

struct Parsed {
  std::vector<io::XmlTag> tags;
  std::string style;
  std::string text;
};

Parsed parse(const std::string& path) {
  Parsed parsed;
  parsed.text = read_file(path);
  io::XmlScanner scanner(parsed.text, 0, path, "svg");
  while (std::optional<io::XmlTag> tag = scanner.next_tag()) {
    if (tag->name == "style" && !tag->closing) {
      const std::size_t end = parsed.text.find("</style>", tag->end);
      parsed.style = io::decode_xml_entities(std::string_view(parsed.text).substr(tag->end, end - tag->end));
    }
    parsed.tags.push_back(*tag);
  }
  return parsed;
}

std::string attribute(const io::XmlTag& tag, std::string_view name) {
  const std::string_view* value = tag.attribute(name);
  return value ? io::decode_xml_entities(*value) : std::string("<absent>");
}

}  // namespace

TEST(SvgWrite, MeshioStructureViewBoxAndFlippedScaledPaths) {
  const std::string path = scratch("square.svg").string();
  svg::write(path, square(2), {});
  const Parsed parsed = parse(path);
  ASSERT_EQ(parsed.tags.size(), 6u);  // svg, style, /style, path, path, /svg
  EXPECT_EQ(parsed.tags[0].name, "svg");
  EXPECT_EQ(attribute(parsed.tags[0], "xmlns"), "http://www.w3.org/2000/svg");
  EXPECT_EQ(attribute(parsed.tags[0], "version"), "1.1");
  // Width 2 scaled to image_width 100: factor 50.
  EXPECT_EQ(attribute(parsed.tags[0], "viewBox"), "0 0 100 50");
  EXPECT_EQ(parsed.style, "path {fill: #c8c5bd; stroke: #000080; stroke-width: 1; stroke-linejoin:bevel}");
  EXPECT_EQ(parsed.tags[3].name, "path");
  EXPECT_TRUE(parsed.tags[3].self_closing);
  // y' = (max_y + min_y - y) * 50
  EXPECT_EQ(attribute(parsed.tags[3], "d"), "M 0 50L 100 50L 100 0Z");
  EXPECT_EQ(attribute(parsed.tags[4], "d"), "M 0 50L 0 0");
  EXPECT_TRUE(parsed.tags[5].closing);
}

TEST(SvgWrite, OptionsAreEscapedAndImageWidthNoneKeepsCoordinates) {
  WriteOptions options;
  options.set("image_width", "none");
  options.set("fill", "url(#a&b)");
  options.set("stroke", "<red>");
  options.set("stroke_width", "0.5");
  options.set("float_fmt", ".3f");  // meshio's option (its SVG default): honoured
  const std::string path = scratch("options.svg").string();
  svg::write(path, square(3), options);
  const Parsed parsed = parse(path);
  EXPECT_EQ(attribute(parsed.tags[0], "viewBox"), "0.000 0.000 2.000 1.000");
  EXPECT_EQ(parsed.style, "path {fill: url(#a&b); stroke: <red>; stroke-width: 0.5; stroke-linejoin:bevel}");
  EXPECT_NE(parsed.text.find("fill: url(#a&amp;b); stroke: &lt;red&gt;"), std::string::npos);
  EXPECT_EQ(attribute(parsed.tags[3], "d"), "M 0.000 1.000L 2.000 1.000L 2.000 0.000Z");
}

TEST(SvgWrite, PolygonsAndQuadsCloseVerticesAreSkipped) {
  Mesh mesh = square(2);
  mesh.cells.clear();
  mesh.cells.push_back({"quad", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  mesh.cells.push_back({"polygon", int64_vector({0, 1, 2, 3, 0}), int64_vector({0, 5}), {}});
  mesh.cells.push_back({"vertex", int64_matrix(1, 1, {0}), {}, {}});
  WriteOptions options;
  options.set("image_width", "4");
  const std::string path = scratch("poly.svg").string();
  svg::write(path, mesh, options);
  const Parsed parsed = parse(path);
  ASSERT_EQ(parsed.tags.size(), 6u);
  EXPECT_EQ(attribute(parsed.tags[3], "d"), "M 0 2L 4 2L 4 0L 0 0Z");
  EXPECT_EQ(attribute(parsed.tags[4], "d"), "M 0 2L 4 2L 4 0L 0 0L 0 2Z");
}

TEST(SvgWrite, RefusesNonFlatMeshesVolumeCellsAndBadImageWidth) {
  Mesh mesh = square(3);
  mesh.points.data_as<double>()[5] = 1e-3;
  const std::string path = scratch("bad.svg").string();
  EXPECT_THROW(svg::write(path, mesh, {}), std::invalid_argument);
  mesh = square(2);
  mesh.cells.push_back({"tetra", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  EXPECT_THROW(svg::write(path, mesh, {}), std::invalid_argument);
  WriteOptions options;
  options.set("image_width", "wide");
  EXPECT_THROW(svg::write(path, square(2), options), std::invalid_argument);
}
