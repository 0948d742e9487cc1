// FLAC3D reader and writer: ASCII and binary round trips of every zone and face type with
// groups, hand-written files as FLAC3D and meshio write them, node orderings, and
// malformed input.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "formats/flac3d/flac3d.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// A unit cube's corners plus an apex and a prism top, every zone positively oriented.
Mesh sample_mesh() {
  Mesh mesh;
  const std::vector<double> xyz = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1,
                                   0.5, 0.5, 2.0, 0.1, 1e-300, -0.0, 1.0 / 3.0, 2.0 / 3.0, 5e300};
  mesh.points = NDArray::allocate(DType::float64, {11, 3});
  std::memcpy(mesh.points.data(), xyz.data(), xyz.size() * sizeof(double));
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 2, 4, 5, 6}), {}, {}});
  mesh.cells.push_back({"quad", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  mesh.cells.push_back({"tetra", int64_matrix(1, 4, {0, 1, 3, 4}), {}, {}});
  mesh.cells.push_back({"pyramid", int64_matrix(1, 5, {4, 5, 6, 7, 8}), {}, {}});
  mesh.cells.push_back({"wedge", int64_matrix(1, 6, {0, 1, 3, 4, 5, 7}), {}, {}});
  mesh.cells.push_back({"hexahedron", int64_matrix(2, 8, {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7}), {}, {}});
  mesh.regions.push_back(cell_region("zone:soil:Default", 3, -1, {3, 4, 7}));
  mesh.regions.push_back(cell_region("face:top:1", 2, -1, {0, 2}));
  mesh.regions.push_back(cell_region("both", 3, -1, {1, 5, 6}));
  return mesh;
}

std::vector<std::int64_t> entries(const Region* region) {
  if (region == nullptr) return {};
  auto values = region->entries.values<std::int64_t>();
  return {values.begin(), values.end()};
}

void expect_round_trip(bool binary) {
  const Mesh mesh = sample_mesh();
  const std::string path = scratch(binary ? "round.bin.f3grid" : "round.f3grid").string();
  WriteOptions options;
  options.set("binary", binary ? "true" : "false");
  flac3d::write(path, mesh, options);
  const Mesh back = flac3d::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  ASSERT_EQ(back.cells.size(), mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    EXPECT_EQ(back.cells[b].type, mesh.cells[b].type);
    if (mesh.cells[b].type == "wedge") continue;
    EXPECT_TRUE(same_bits(back.cells[b].connectivity, mesh.cells[b].connectivity)) << mesh.cells[b].type;
  }
  // meshio's FLAC3D wedge numbering makes a VTK-positive wedge left-handed, so it is written
  // mirrored — and read back mirrored, exactly as meshio does.
  const std::int64_t* wedge = back.cells[4].connectivity.data_as<std::int64_t>();
  EXPECT_EQ(std::vector<std::int64_t>(wedge, wedge + 6), (std::vector<std::int64_t>{0, 3, 1, 4, 7, 5}));
  // Faces first, zones next: the same block-major numbering as written.
  EXPECT_EQ(entries(find_region(back, "zone:soil:Default")), (std::vector<std::int64_t>{3, 4, 7}));
  EXPECT_EQ(entries(find_region(back, "face:top:1")), (std::vector<std::int64_t>{0, 2}));
  const std::string slot = binary ? "Default" : "1";
  EXPECT_EQ(entries(find_region(back, "face:both:" + slot)), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(entries(find_region(back, "zone:both:" + slot)), (std::vector<std::int64_t>{5, 6}));
  const auto* ids = back.cell_data.find("cell_ids");
  ASSERT_NE(ids, nullptr);
  // Faces 1..3; zones 1..5 stored shifted by the 3 faces, as meshio does.
  EXPECT_EQ((*ids)[0].data_as<std::int64_t>()[1], 2);
  EXPECT_EQ((*ids)[2].data_as<std::int64_t>()[0], 4);
  EXPECT_EQ((*ids)[5].data_as<std::int64_t>()[1], 8);
}

}  // namespace

TEST(Flac3dRoundTrip, AsciiEveryTypeWithGroups) { expect_round_trip(false); }
TEST(Flac3dRoundTrip, BinaryEveryTypeWithGroups) { expect_round_trip(true); }

TEST(Flac3dRead, FlacStyleAsciiWithCommentsSlotsAndDegenerateBrick) {
  const std::string text =
      "* FLAC3D grid produced by FLAC3D\n"
      "* GRIDPOINTS\n"
      "G\t10\t0.0 0.0 0.0\n"
      "G 11 1.0 0.0 0.0\n"
      "G 12 0.0 1.0 0.0\n"
      "G 13 1.0 1.0 0.0\n"
      "G 14 0.0 0.0 1.0\n"
      "G 15 1.0 0.0 1.0\n"
      "G 16 0.0 1.0 1.0\n"
      "\n"
      "* ZONES\n"
      "Z B7 7 10 11 12 14 13 15 16\n"
      "Z T4 3 10 11 12 14\n"
      "* FACES\n"
      "F T3 1 10 11 12\n"
      "* GROUPS\n"
      "ZGROUP 'Rock mass' SLOT \"Default\"\n"
      " 3 7\n"
      "ZGROUP \"tets\"\n"
      "3\n"
      "FGROUP \"base\" SLOT 1\n"
      "1\n";
  const Mesh mesh = flac3d::read(write_scratch("flac.f3grid", text));
  ASSERT_EQ(mesh.num_points(), 7);
  EXPECT_EQ(block_summary(mesh), "triangle:1;hexahedron:1;tetra:1");
  // B7 repeats its last corner; corners go from FLAC3D's order to meshio's.
  const std::int64_t* hex = mesh.cells[1].connectivity.data_as<std::int64_t>();
  EXPECT_EQ(std::vector<std::int64_t>(hex, hex + 8), (std::vector<std::int64_t>{0, 1, 3, 2, 4, 6, 6, 5}));
  EXPECT_EQ(entries(find_region(mesh, "zone:Rock mass:Default")), (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(entries(find_region(mesh, "zone:tets:Default")), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(entries(find_region(mesh, "face:base:1")), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(find_region(mesh, "face:base:1")->dim, 2);
}

TEST(Flac3dRead, MeshioStyleAsciiHeaderAndTabs) {
  const std::string text =
      "* FLAC3D grid produced by meshio v5.3.5\n"
      "* Thu Jan  1 00:00:00 2024\n"
      "* GRIDPOINTS\n"
      "G\t       1\t0.0000000000000000e+00\t0.0000000000000000e+00\t0.0000000000000000e+00\n"
      "G\t       2\t1.0000000000000000e+00\t0.0000000000000000e+00\t0.0000000000000000e+00\n"
      "G\t       3\t0.0000000000000000e+00\t1.0000000000000000e+00\t0.0000000000000000e+00\n"
      "G\t       4\t0.0000000000000000e+00\t0.0000000000000000e+00\t1.0000000000000000e+00\n"
      "* ZONES\n"
      "Z T4 1 1 2 3 4\n"
      "* ZONE GROUPS\n"
      "ZGROUP \"a\" SLOT 1\n"
      " 1\n"
      "* FACES\n";
  const Mesh mesh = flac3d::read(write_scratch("meshio.f3grid", text));
  EXPECT_EQ(block_summary(mesh), "tetra:1");
  EXPECT_EQ(mesh.points.data_as<double>()[11], 1.0);
  EXPECT_EQ(entries(find_region(mesh, "zone:a:1")), (std::vector<std::int64_t>{0}));
}

TEST(Flac3dWrite, MirroredZonesAreRenumberedRightHanded) {
  Mesh mesh = sample_mesh();
  mesh.cells.erase(mesh.cells.begin(), mesh.cells.begin() + 2);
  mesh.regions.clear();
  // A left-handed tetra comes back with two corners swapped (the same cell, right-handed).
  mesh.cells[0].connectivity = int64_matrix(1, 4, {0, 3, 1, 4});
  const std::string path = scratch("mirror.f3grid").string();
  flac3d::write(path, mesh, {});
  const Mesh back = flac3d::read(path);
  const std::int64_t* tet = back.cells[0].connectivity.data_as<std::int64_t>();
  EXPECT_EQ(std::vector<std::int64_t>(tet, tet + 4), (std::vector<std::int64_t>{0, 1, 3, 4}));
}

TEST(Flac3dWrite, RefusesCellsItCannotHold) {
  Mesh mesh = sample_mesh();
  mesh.cells.push_back({"line", int64_matrix(1, 2, {0, 1}), {}, {}});
  EXPECT_THROW(flac3d::write(scratch("line.f3grid").string(), mesh, {}), std::invalid_argument);
}

TEST(Flac3dWrite, SecondOrderCellsAreWrittenByTheirCorners) {
  Mesh mesh;
  mesh.points = NDArray::zeros(DType::float64, {10, 3});
  double* p = mesh.points.data_as<double>();
  p[3] = 1;
  p[7] = 1;
  p[11] = 1;
  mesh.cells.push_back({"tetra10", int64_matrix(1, 10, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), {}, {}});
  const std::string path = scratch("tet10.f3grid").string();
  flac3d::write(path, mesh, {});
  EXPECT_EQ(block_summary(flac3d::read(path)), "tetra:1");
}

// ---- malformed input ----

TEST(Flac3dBadInput, BadNumberNamesLine) {
  const ReadError error = expect_read_error([] {
    flac3d::read(write_scratch("bad.f3grid", "* x\nG 1 0 0 0\nG 2 0 zero 0\n"));
  });
  EXPECT_NE(std::string(error.what()).find("invalid number 'zero'"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 3u);
  EXPECT_EQ(error.byte_offset(), 20u);
}

TEST(Flac3dBadInput, UnknownGridPoint) {
  const ReadError error = expect_read_error([] {
    flac3d::read(write_scratch("bad.f3grid", "G 1 0 0 0\nG 2 1 0 0\nG 3 0 1 0\nG 4 0 0 1\nZ T4 1 1 2 3 9\n"));
  });
  EXPECT_NE(std::string(error.what()).find("grid point 9"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 5u);
}

TEST(Flac3dBadInput, WrongCornerCount) {
  const ReadError error = expect_read_error([] {
    flac3d::read(write_scratch("bad.f3grid", "G 1 0 0 0\nZ B8 1 1 1 1 1\n"));
  });
  EXPECT_NE(std::string(error.what()).find("expected 8"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 2u);
}

TEST(Flac3dBadInput, UnknownGroupMember) {
  const ReadError error = expect_read_error([] {
    flac3d::read(write_scratch("bad.f3grid", "G 1 0 0 0\nG 2 1 0 0\nG 3 0 1 0\nF T3 1 1 2 3\nFGROUP 'a' SLOT 1\n1 5\n"));
  });
  EXPECT_NE(std::string(error.what()).find("face 5"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 6u);
}

TEST(Flac3dBadInput, DuplicateIdAndUnknownRecord) {
  const ReadError twice = expect_read_error([] { flac3d::read(write_scratch("dup.f3grid", "G 1 0 0 0\nG 1 0 0 0\n")); });
  EXPECT_NE(std::string(twice.what()).find("appears twice"), std::string::npos);
  EXPECT_EQ(twice.line(), 2u);
  const ReadError unknown = expect_read_error([] { flac3d::read(write_scratch("unk.f3grid", "G 1 0 0 0\nX 1 2\n")); });
  EXPECT_NE(std::string(unknown.what()).find("unknown record 'X'"), std::string::npos);
  const ReadError coords = expect_read_error([] { flac3d::read(write_scratch("short.f3grid", "G 1 0 0\n")); });
  EXPECT_NE(std::string(coords.what()).find("three coordinates"), std::string::npos) << coords.what();
}

TEST(Flac3dBadInput, BinaryTruncatedAndHugeCounts) {
  const Mesh mesh = sample_mesh();
  const std::string path = scratch("full.f3grid").string();
  WriteOptions options;
  options.set("binary", "true");
  flac3d::write(path, mesh, options);
  const std::string bytes = read_file(path);
  for (std::size_t cut : {std::size_t{4}, std::size_t{30}, bytes.size() / 2, bytes.size() - 1}) {
    const ReadError error = expect_read_error([&] { flac3d::read(write_scratch("cut.f3grid", bytes.substr(0, cut))); });
    const std::string what = error.what();
    EXPECT_TRUE(what.find("unexpected end of file") != std::string::npos ||
                what.find("more than the rest of the file") != std::string::npos)
        << cut << ": " << what;
    ASSERT_TRUE(error.byte_offset().has_value());
    EXPECT_LE(*error.byte_offset(), cut);
  }
  std::string huge = bytes;
  const std::uint32_t count = 0x7fffffff;
  std::memcpy(huge.data() + 8, &count, 4);
  const ReadError error = expect_read_error([&] { flac3d::read(write_scratch("huge.f3grid", huge)); });
  EXPECT_NE(std::string(error.what()).find("more than the rest of the file"), std::string::npos) << error.what();
  EXPECT_EQ(error.byte_offset(), 8u);
  std::string bad_corner = bytes;
  // First zone's point id -> 999 (after header 8, count 4, 11 points of 28, zone count 4, id 4, k 4).
  const std::size_t at = 8 + 4 + 11 * 28 + 4 + 8;
  const std::uint32_t missing = 999;
  std::memcpy(bad_corner.data() + at, &missing, 4);
  const ReadError corner = expect_read_error([&] { flac3d::read(write_scratch("corner.f3grid", bad_corner)); });
  EXPECT_NE(std::string(corner.what()).find("grid point 999"), std::string::npos) << corner.what();
  EXPECT_EQ(corner.byte_offset(), at);
}

// ---- hostile input (issue 18; tests/data/fuzz-regressions/flac3d/) ----

// Zones are numbered after the faces in "cell_ids": `id + faces` overflowed for an id near
// INT64_MAX (UBSan). Such an id is refused where it stands.
TEST(Flac3dHostile, ZoneIdThatOverflowsAfterTheFacesIsAReadError) {
  const std::string path = write_scratch(
      "big_id.f3grid", "G 1 0 0 0\nG 2 1 0 0\nG 3 0 1 0\nG 4 0 0 1\nF T3 1 1 2 3\nZ T4 9223372036854775807 1 2 3 4\n");
  const ReadError error = expect_read_error([&] { flac3d::read(path); });
  EXPECT_EQ(error.line(), std::optional<std::uint64_t>(6));
  EXPECT_NE(error.reason().find("too large"), std::string::npos) << error.what();
}

// Grid point ids at the int64 limits went through the id map's `first + i` (overflow).
TEST(Flac3dHostile, GridPointIdsAtTheInt64LimitsRead) {
  const std::string path = write_scratch("limits.f3grid",
                                         "G 9223372036854775807 0 0 0\nG -9223372036854775808 1 0 0\nG 0 0 1 0\n"
                                         "F T3 1 9223372036854775807 -9223372036854775808 0\n");
  const Mesh mesh = flac3d::read(path);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2}));
}
