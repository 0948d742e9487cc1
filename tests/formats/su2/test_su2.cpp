// SU2 reader and writer: files as SU2 and meshio write them (2-D with index columns and
// string tags, 3-D with blanks around '=', several zones), round trips of every element
// type with markers from regions and from "su2:tag", and malformed input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "formats/su2/su2.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

NDArray doubles(Shape shape, const std::vector<double>& values) {
  NDArray array = NDArray::allocate(DType::float64, std::move(shape));
  std::memcpy(array.data(), values.data(), values.size() * sizeof(double));
  return array;
}

const Region* region_named(const Mesh& mesh, const std::string& name) {
  for (const Region& region : mesh.regions)
    if (region.name == name) return &region;
  return nullptr;
}

// As SU2 itself writes a 2-D mesh: element and point index columns, string marker tags.
const char* const kSquare2d =
    "%\n"
    "% Problem dimension\n"
    "%\n"
    "NDIME= 2\n"
    "%\n"
    "% Inner element connectivity\n"
    "%\n"
    "NELEM= 3\n"
    "5 0 1 4 0\n"
    "9 1 2 5 4 1\n"
    "5 2 3 5 2\n"
    "%\n"
    "% Node coordinates\n"
    "%\n"
    "NPOIN= 6 6\n"
    "0.0 0.0 0\n"
    "1.0 0.0 1\n"
    "2.0 0.0 2\n"
    "3.0 0.5 3\n"
    "0.0 1.0 4\n"
    "2.0 1.0 5\n"
    "%\n"
    "% Boundary elements\n"
    "%\n"
    "NMARK= 2\n"
    "MARKER_TAG= lower\n"
    "MARKER_ELEMS= 3\n"
    "3 0 1\n"
    "3 1 2\n"
    "3 2 3\n"
    "MARKER_TAG= upper\n"
    "MARKER_ELEMS= 1\n"
    "3 4 5\n";

// As meshio writes a 3-D mesh, but with blanks around '=' and numeric tags.
const char* const kBlock3d =
    "NDIME = 3\n"
    "NPOIN = 7\n"
    "0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n0.5 0.5 2\n"
    "NELEM = 2\n"
    "14 4 5 2 3 6\n"
    "10 0 1 3 4\n"
    "NMARK = 2\n"
    "MARKER_TAG = 7\n"
    "MARKER_ELEMS = 2\n"
    "9 0 1 2 3\n"
    "5 0 1 4\n"
    "MARKER_TAG = 3\n"
    "MARKER_ELEMS = 1\n"
    "5 4 5 6\n";

}  // namespace

TEST(Su2Read, TwoDimensionalWithIndexColumnsAndStringTags) {
  const Mesh mesh = su2::read(write_scratch("square.su2", kSquare2d));
  EXPECT_EQ(mesh.points.shape(), (Shape{6, 2}));
  EXPECT_EQ(mesh.points.data_as<double>()[7], 0.5);
  EXPECT_EQ(block_summary(mesh), "triangle:2;quad:1;line:4");
  EXPECT_EQ(int_values(mesh.cells[0].connectivity), (std::vector<std::int64_t>{0, 1, 4, 2, 3, 5}));
  const auto* tags = mesh.cell_data.find("su2:tag");
  ASSERT_NE(tags, nullptr);
  EXPECT_EQ((*tags)[0].dtype(), DType::int32);
  EXPECT_EQ(int_values((*tags)[1]), (std::vector<std::int64_t>{0}));
  // meshio numbers string tags 1, 2, … in order.
  EXPECT_EQ(int_values((*tags)[2]), (std::vector<std::int64_t>{1, 1, 1, 2}));
  const Region* lower = region_named(mesh, "lower");
  ASSERT_NE(lower, nullptr);
  EXPECT_EQ(lower->kind, RegionKind::Cell);
  EXPECT_EQ(lower->dim, 1);
  EXPECT_EQ(lower->tag, 1);
  EXPECT_EQ(int_values(lower->entries), (std::vector<std::int64_t>{3, 4, 5}));
  EXPECT_EQ(int_values(region_named(mesh, "upper")->entries), (std::vector<std::int64_t>{6}));
}

TEST(Su2Read, ThreeDimensionalBlanksAroundEqualsAndNumericTags) {
  const Mesh mesh = su2::read(write_scratch("block.su2", kBlock3d));
  // Volume blocks in ascending VTK id, marker blocks in order of first appearance.
  EXPECT_EQ(block_summary(mesh), "tetra:1;pyramid:1;triangle:2;quad:1");
  const auto& tags = *mesh.cell_data.find("su2:tag");
  EXPECT_EQ(int_values(tags[2]), (std::vector<std::int64_t>{7, 3}));
  EXPECT_EQ(int_values(tags[3]), (std::vector<std::int64_t>{7}));
  const Region* seven = region_named(mesh, "7");
  ASSERT_NE(seven, nullptr);
  EXPECT_EQ(seven->dim, 2);
  EXPECT_EQ(seven->tag, 7);
  EXPECT_EQ(int_values(seven->entries), (std::vector<std::int64_t>{4, 2}));
  EXPECT_EQ(int_values(region_named(mesh, "3")->entries), (std::vector<std::int64_t>{3}));
}

TEST(Su2Read, WedgesComeInOurNodeOrder) {
  const char* text =
      "NDIME= 3\nNELEM= 1\n13 0 1 2 3 4 5\nNPOIN= 6\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 0 1\n0 1 1\nNMARK= 0\n";
  const Mesh mesh = su2::read(write_scratch("wedge.su2", text));
  EXPECT_EQ(int_values(mesh.cells.at(0).connectivity), (std::vector<std::int64_t>{0, 2, 1, 3, 5, 4}));
  const std::string path = scratch("wedge_back.su2").string();
  su2::write(path, mesh, {});
  EXPECT_NE(read_file(path).find("13 0 1 2 3 4 5\n"), std::string::npos);
}

TEST(Su2Read, ZonesAreMerged) {
  const char* text =
      "NZONE= 2\n"
      "IZONE= 1\nNDIME= 2\nNELEM= 1\n5 0 1 2\nNPOIN= 3\n0 0\n1 0\n0 1\nNMARK= 1\nMARKER_TAG= wall\nMARKER_ELEMS= 1\n3 0 1\n"
      "IZONE= 2\nNDIME= 2\nNELEM= 1\n5 0 1 2\nNPOIN= 3\n5 0\n6 0\n5 1\nNMARK= 1\nMARKER_TAG= wall\nMARKER_ELEMS= 1\n3 1 2\n";
  const Mesh mesh = su2::read(write_scratch("zones.su2", text));
  EXPECT_EQ(mesh.num_points(), 6);
  EXPECT_EQ(block_summary(mesh), "triangle:2;line:2");
  EXPECT_EQ(int_values(mesh.cells[0].connectivity), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(int_values(mesh.cells[1].connectivity), (std::vector<std::int64_t>{0, 1, 4, 5}));
  ASSERT_EQ(mesh.regions.size(), 1u);
  EXPECT_EQ(int_values(mesh.regions[0].entries), (std::vector<std::int64_t>{2, 3}));
}

TEST(Su2Read, UnknownKeywordSectionsAreSkipped) {
  std::string text = kSquare2d;
  text += "FFD_NBOX= 1\nFFD_NLEVEL= 1\nFFD_TAG= 0\nFFD_CORNER_POINTS= 4\n0 0\n1 0\n1 1\n0 1\n";
  EXPECT_EQ(su2::read(write_scratch("ffd.su2", text)).num_points(), 6);
}

TEST(Su2RoundTrip, EveryThreeDimensionalTypeWithRegions) {
  Mesh mesh;
  std::vector<double> coords;
  for (int i = 0; i < 12; ++i) coords.insert(coords.end(), {0.1 * i, 1.0 / (i + 3), 1e-300 * i - 7.25});
  mesh.points = doubles({12, 3}, coords);
  mesh.cells.push_back({"tetra", int64_matrix(2, 4, {0, 1, 2, 3, 4, 5, 6, 7}), {}, {}});
  mesh.cells.push_back({"hexahedron", int64_matrix(1, 8, {0, 1, 2, 3, 4, 5, 6, 7}), {}, {}});
  mesh.cells.push_back({"wedge", int64_matrix(1, 6, {6, 7, 8, 9, 10, 11}), {}, {}});
  mesh.cells.push_back({"pyramid", int64_matrix(1, 5, {1, 3, 5, 7, 9}), {}, {}});
  mesh.cells.push_back({"triangle", int64_matrix(3, 3, {0, 1, 2, 3, 4, 5, 6, 7, 8}), {}, {}});
  mesh.cells.push_back({"quad", int64_matrix(2, 4, {0, 1, 2, 3, 8, 9, 10, 11}), {}, {}});
  mesh.regions.push_back(cell_region("inlet", 2, 1, {5, 7}));
  mesh.regions.push_back(cell_region("far field", 2, 2, {6, 8, 9}));
  const std::string path = scratch("all.su2").string();
  su2::write(path, mesh, {});
  const Mesh back = su2::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  EXPECT_EQ(block_summary(back), "tetra:2;hexahedron:1;wedge:1;pyramid:1;triangle:3;quad:2");
  for (std::size_t b = 0; b < 4; ++b) EXPECT_TRUE(same_bits(back.cells[b].connectivity, mesh.cells[b].connectivity)) << b;
  // Markers list their cells in region order: inlet (tri 0, tri 2), far_field (tri 1, quads).
  EXPECT_EQ(int_values(back.cells[4].connectivity), (std::vector<std::int64_t>{0, 1, 2, 6, 7, 8, 3, 4, 5}));
  const Region* inlet = region_named(back, "inlet");
  const Region* far = region_named(back, "far_field");
  ASSERT_NE(inlet, nullptr);
  ASSERT_NE(far, nullptr);
  EXPECT_EQ(int_values(inlet->entries), (std::vector<std::int64_t>{5, 6}));
  EXPECT_EQ(int_values(far->entries), (std::vector<std::int64_t>{7, 8, 9}));
  EXPECT_EQ(int_values((*back.cell_data.find("su2:tag"))[4]), (std::vector<std::int64_t>{1, 1, 2}));
}

TEST(Su2RoundTrip, TwoDimensionalFromTags) {
  Mesh mesh;
  mesh.points = doubles({5, 2}, {0, 0, 1, 0, 1, 1, 0, 1, 0.5, 0.5});
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 4, 1, 2, 4}), {}, {}});
  mesh.cells.push_back({"quad", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  mesh.cells.push_back({"line", int64_matrix(3, 2, {0, 1, 1, 2, 2, 3}), {}, {}});
  std::vector<NDArray> tags{NDArray::zeros(DType::int32, {2}), NDArray::zeros(DType::int32, {1}),
                            NDArray::from_values<std::int32_t>({4, 9, 4})};
  mesh.cell_data.set("su2:tag", std::move(tags));
  const std::string path = scratch("flat.su2").string();
  su2::write(path, mesh, {});
  const Mesh back = su2::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  EXPECT_EQ(block_summary(back), "triangle:2;quad:1;line:3");
  EXPECT_EQ(int_values(back.cells[2].connectivity), (std::vector<std::int64_t>{0, 1, 2, 3, 1, 2}));
  EXPECT_EQ(int_values((*back.cell_data.find("su2:tag"))[2]), (std::vector<std::int64_t>{4, 4, 9}));
  EXPECT_NE(region_named(back, "9"), nullptr);
}

TEST(Su2Write, CellsSu2CannotHoldAreRefused) {
  Mesh mesh;
  mesh.points = doubles({4, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  mesh.cells.push_back({"tetra", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  mesh.cells.push_back({"vertex", int64_matrix(1, 1, {0}), {}, {}});
  EXPECT_THROW(su2::write(scratch("v.su2").string(), mesh, {}), std::invalid_argument);
  mesh.cells[1] = {"line", int64_matrix(1, 2, {0, 1}), {}, {}};
  EXPECT_THROW(su2::write(scratch("l.su2").string(), mesh, {}), std::invalid_argument);
}

// ---- malformed input ---------------------------------------------------------------------

TEST(Su2Errors, BadNumberNamesItsLine) {
  std::string text = kSquare2d;
  text.replace(text.find("3.0 0.5"), 3, "3.x");
  const std::string path = write_scratch("bad.su2", text);
  const ReadError error = expect_read_error([&] { su2::read(path); });
  EXPECT_EQ(error.path(), path);
  EXPECT_EQ(error.format(), "su2");
  EXPECT_EQ(error.line(), 19u);
  EXPECT_NE(error.reason().find("invalid number"), std::string::npos) << error.what();
}

TEST(Su2Errors, IndexOutOfRangeNamesItsOffset) {
  std::string text = kSquare2d;
  const std::size_t at = text.find("3 4 5\n") + 4;
  text[at] = '6';
  const ReadError error = expect_read_error([&] { su2::read(write_scratch("range.su2", text)); });
  EXPECT_EQ(error.byte_offset(), at);
  EXPECT_EQ(error.line(), 33u);
  EXPECT_NE(error.reason().find("refers to point 6"), std::string::npos) << error.what();
}

TEST(Su2Errors, WrongCounts) {
  std::string fewer = kSquare2d;
  fewer.replace(fewer.find("NELEM= 3"), 8, "NELEM= 4");
  const ReadError too_many = expect_read_error([&] { su2::read(write_scratch("elems.su2", fewer)); });
  EXPECT_EQ(too_many.line(), 15u);
  EXPECT_NE(too_many.reason().find("found only 3"), std::string::npos) << too_many.what();

  std::string more = kSquare2d;
  more.replace(more.find("NELEM= 3"), 8, "NELEM= 2");
  EXPECT_EQ(expect_read_error([&] { su2::read(write_scratch("extra.su2", more)); }).line(), 11u);

  std::string marks = kSquare2d;
  marks.replace(marks.find("NMARK= 2"), 8, "NMARK= 3");
  EXPECT_NE(expect_read_error([&] { su2::read(write_scratch("nmark.su2", marks)); }).reason().find("NMARK announces 3"),
            std::string::npos);

  std::string truncated = kSquare2d;
  truncated.resize(truncated.find("2.0 1.0 5"));
  const ReadError end = expect_read_error([&] { su2::read(write_scratch("cut.su2", truncated)); });
  EXPECT_NE(end.reason().find("unexpected end of file"), std::string::npos) << end.what();
}

TEST(Su2Errors, WrongShapesAndForeignFiles) {
  const auto error_line = [](const std::string& name, const std::string& text) {
    return expect_read_error([&] { su2::read(write_scratch(name, text)); }).line();
  };
  EXPECT_EQ(error_line("type.su2", "NDIME= 2\nNELEM= 1\n42 0 1 2\n"), 3u);             // unknown type
  EXPECT_EQ(error_line("nodes.su2", "NDIME= 2\nNELEM= 1\n5 0 1\n"), 3u);               // too few nodes
  EXPECT_EQ(error_line("dim.su2", "NDIME= 4\n"), 1u);                                   // bad NDIME
  EXPECT_EQ(error_line("huge.su2", "NDIME= 2\nNPOIN= 99999999999\n0 0\n"), 3u);        // count vs file size
  expect_read_error([] { su2::read(write_scratch("ply.su2", "ply\nformat ascii 1.0\n")); });
  expect_read_error([] { su2::read(write_scratch("empty.su2", "")); });
  expect_read_error([] { su2::read(write_scratch("nopoints.su2", "NDIME= 2\nNELEM= 0\n")); });
}

// ---- hostile input (issue 18; tests/data/fuzz-regressions/su2/) ----

// Two NMARK lines of INT64_MAX overflowed their sum (UBSan); a marker count the rest of the
// file cannot hold is refused where it stands.
TEST(Su2Hostile, HugeMarkerCountIsAReadError) {
  const std::string path = write_scratch(
      "nmark.su2", "NDIME= 2\nNMARK= 9223372036854775807\nNMARK= 9223372036854775807\nNELEM= 0\nNPOIN= 0\n");
  const ReadError error = expect_read_error([&] { su2::read(path); });
  EXPECT_EQ(error.line(), std::optional<std::uint64_t>(2));
  EXPECT_NE(error.reason().find("markers"), std::string::npos) << error.what();
}

// ---- large sections: the parallel paths (io::kParallelLinesMinBytes) ----

namespace {

// A file whose sections pass 4 MiB: `zones` zones, each a NELEM of `elements` elements of the
// VTK type `vtk_id` (`nodes` nodes, an index column after them) — ended by one hexahedron
// where `mixed_tail` — its points, and a marker of as many triangles. Indices follow an LCG.
std::string large_su2(int zones, int vtk_id, int nodes, std::int64_t elements, bool mixed_tail) {
  const std::int64_t points = 50000;
  std::uint64_t state = 12345;
  const auto next_index = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return std::to_string((state >> 33) % static_cast<std::uint64_t>(points));
  };
  std::string text = "NZONE= " + std::to_string(zones) + "\n";
  for (int z = 1; z <= zones; ++z) {
    text += "IZONE= " + std::to_string(z) + "\nNDIME= 3\nNELEM= " + std::to_string(elements + (mixed_tail ? 1 : 0)) + "\n";
    for (std::int64_t e = 0; e < elements; ++e) {
      text += std::to_string(vtk_id);
      for (int k = 0; k < nodes; ++k) text += " " + next_index();
      text += " " + std::to_string(e) + "\n";
    }
    if (mixed_tail) text += "12 0 1 2 3 4 5 6 7\n";
    text += "NPOIN= " + std::to_string(points) + "\n";
    for (std::int64_t p = 0; p < points; ++p)
      text += std::to_string(p % 97) + ".25 " + std::to_string(p % 13) + " " + std::to_string(z) + "\n";
    text += "NMARK= 1\nMARKER_TAG= wall\nMARKER_ELEMS= " + std::to_string(elements) + "\n";
    for (std::int64_t e = 0; e < elements; ++e) text += "5 " + next_index() + " " + next_index() + " " + next_index() + "\n";
  }
  return text;
}

// The file read at one thread (the sequential walk) and at two (the parallel paths).
std::pair<Mesh, Mesh> read_at_one_and_two_threads(const std::string& path) {
  Mesh one = read_at_threads(1, [&] { return su2::read(path); });
  Mesh two = read_at_threads(2, [&] { return su2::read(path); });
  EXPECT_NE(one.cell_data.find("su2:tag"), nullptr);
  return {std::move(one), std::move(two)};
}

}  // namespace

// One-type sections are parsed in one pass and adopted (zone 1) or copied shifted (zone 2,
// and the marker blocks): the same bits as the sequential walk.
TEST(Su2Parallel, OneTypeSectionsOfTwoZonesReadTheSameBitsAtOneAndTwoThreads) {
  const std::string path = write_scratch("large_zones.su2", large_su2(2, 10, 4, 150000, false));
  const auto [one, two] = read_at_one_and_two_threads(path);
  EXPECT_EQ(block_summary(one), "tetra:300000;triangle:300000");
  EXPECT_EQ(one.num_points(), 100000);
  // Zone 2's indices are shifted past zone 1's 50,000 points.
  const std::vector<std::int64_t> tets = int_values(one.cells[0].connectivity);
  EXPECT_LT(*std::max_element(tets.begin(), tets.begin() + 150000 * 4), 50000);
  EXPECT_GE(*std::min_element(tets.begin() + 150000 * 4, tets.end()), 50000);
  EXPECT_LT(*std::max_element(tets.begin() + 150000 * 4, tets.end()), 100000);
  ASSERT_EQ(one.regions.size(), 1u);
  EXPECT_EQ(one.regions[0].entries.size(), 300000u);
  EXPECT_EQ(int_values(one.regions[0].entries)[0], 300000);
  expect_same_bits(one, two);
}

// Wedges are reordered as they are parsed; a section of tetrahedra ended by a hexahedron
// takes the two-pass path.
TEST(Su2Parallel, WedgesAndMixedSectionsReadTheSameBitsAtOneAndTwoThreads) {
  {
    const std::string path = write_scratch("large_wedges.su2", large_su2(1, 13, 6, 120000, false));
    const auto [one, two] = read_at_one_and_two_threads(path);
    EXPECT_EQ(block_summary(one), "wedge:120000;triangle:120000");
    expect_same_bits(one, two);
  }
  {
    const std::string path = write_scratch("large_mixed.su2", large_su2(1, 10, 4, 150000, true));
    const auto [one, two] = read_at_one_and_two_threads(path);
    EXPECT_EQ(block_summary(one), "tetra:150000;hexahedron:1;triangle:150000");
    expect_same_bits(one, two);
  }
}

// An index past NPOIN in a one-type section parsed on all cores: the sequential walk's error.
TEST(Su2Parallel, IndexOutOfRangeInALargeSectionNamesItsLineAtOneAndTwoThreads) {
  std::string text = large_su2(1, 10, 4, 150000, false);
  const std::size_t line_start = text.find("\n10 ", text.size() / 4) + 1;
  const std::size_t at = text.find(' ', line_start) + 1;
  text.insert(at, "9");  // the first node index gains a digit: 9xxxxx >= 50000 points
  const std::string path = write_scratch("large_range.su2", text);
  set_thread_count(1);
  const ReadError sequential = expect_read_error([&] { su2::read(path); });
  set_thread_count(2);
  const ReadError parallel = expect_read_error([&] { su2::read(path); });
  set_thread_count(0);
  EXPECT_EQ(sequential.byte_offset(), std::optional<std::uint64_t>(at));
  EXPECT_EQ(parallel.byte_offset(), sequential.byte_offset());
  EXPECT_EQ(parallel.line(), sequential.line());
  EXPECT_EQ(std::string(parallel.what()), std::string(sequential.what()));
  EXPECT_NE(parallel.reason().find("outside [0, 50000)"), std::string::npos) << parallel.what();
}
