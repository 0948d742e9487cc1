// Medit (.mesh / .meshb): the corpus against meshio's expectations, round trips of every
// cell type through ASCII and binary (versions 1-4, both byte orders), the sections the
// reader steps over, and the errors it raises on broken files.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/medit/medit.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;

using namespace meshioplusplus::testing_support;

namespace {

std::int64_t int_at(const NDArray& array, std::int64_t i) {
  return array.dtype() == DType::int32 ? array.data_as<std::int32_t>()[i] : array.data_as<std::int64_t>()[i];
}

bool same_bytes(const NDArray& a, const NDArray& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

// A mesh with one block of every type Medit stores, awkward coordinates and refs.
Mesh every_cell_type(DType real, int dimension) {
  const std::vector<std::string> types{"line",  "triangle", "quad",  "tetra",     "wedge",
                                       "hexahedron", "pyramid", "line3", "triangle6", "tetra10"};
  Mesh mesh;
  const std::int64_t num_points = 40;
  mesh.points = NDArray::allocate(real, {num_points, dimension});
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> value(-1e3, 1e3);
  for (std::int64_t i = 0; i < num_points * dimension; ++i) {
    const double x = value(random) / 3.0;
    if (real == DType::float32) {
      mesh.points.data_as<float>()[i] = static_cast<float>(x);
    } else {
      mesh.points.data_as<double>()[i] = x;
    }
  }
  NDArray point_refs = NDArray::allocate(DType::int32, {num_points});
  for (std::int64_t i = 0; i < num_points; ++i) point_refs.data_as<std::int32_t>()[i] = static_cast<std::int32_t>(i % 3);
  mesh.point_data.set("medit:ref", point_refs);
  std::vector<NDArray> cell_refs;
  std::int64_t next_node = 0;
  for (std::size_t b = 0; b < types.size(); ++b) {
    const int nodes = cell_type(types[b]).num_nodes;
    const std::int64_t count = 2 + static_cast<std::int64_t>(b % 2);
    NDArray connectivity = NDArray::allocate(DType::int64, {count, nodes});
    for (std::size_t i = 0; i < connectivity.size(); ++i)
      connectivity.data_as<std::int64_t>()[i] = (next_node++ * 7) % num_points;
    mesh.cells.push_back(CellBlock{types[b], connectivity, {}, {}});
    NDArray refs = NDArray::allocate(DType::int32, {count});
    for (std::int64_t i = 0; i < count; ++i) refs.data_as<std::int32_t>()[i] = static_cast<std::int32_t>((b + i) % 4);
    cell_refs.push_back(refs);
  }
  mesh.cell_data.set("medit:ref", cell_refs);
  return mesh;
}

void expect_same_mesh(const Mesh& expected, const Mesh& actual) {
  ASSERT_EQ(expected.points.shape(), actual.points.shape());
  if (expected.points.dtype() == actual.points.dtype()) {
    EXPECT_TRUE(same_bytes(expected.points, actual.points));
  } else {  // float32 written into a float64 file: widened exactly
    ASSERT_EQ(expected.points.dtype(), DType::float32);
    const auto narrow = expected.points.values<float>();
    const auto wide = actual.points.values<double>();
    for (std::size_t i = 0; i < narrow.size(); ++i) ASSERT_EQ(static_cast<double>(narrow[i]), wide[i]);
  }
  ASSERT_EQ(expected.cells.size(), actual.cells.size());
  const auto& expected_refs = *expected.cell_data.find("medit:ref");
  const auto& actual_refs = *actual.cell_data.find("medit:ref");
  for (std::size_t b = 0; b < expected.cells.size(); ++b) {
    EXPECT_EQ(expected.cells[b].type, actual.cells[b].type);
    EXPECT_TRUE(same_bytes(expected.cells[b].connectivity, actual.cells[b].connectivity)) << expected.cells[b].type;
    for (std::int64_t i = 0; i < expected_refs[b].rows(); ++i)
      EXPECT_EQ(int_at(expected_refs[b], i), int_at(actual_refs[b], i));
  }
  const NDArray& expected_point_refs = *expected.point_data.find("medit:ref");
  const NDArray& actual_point_refs = *actual.point_data.find("medit:ref");
  for (std::int64_t i = 0; i < expected.num_points(); ++i)
    EXPECT_EQ(int_at(expected_point_refs, i), int_at(actual_point_refs, i));
}

// `text` as the file `path`, read.
Mesh read_text(const std::string& path, std::string_view text) {
  write_file(path, text);
  return medit::read(path);
}

WriteOptions with_version(const std::string& version, bool big_endian = false) {
  WriteOptions options;
  options.set("version", version);
  options.set("big_endian", big_endian ? "true" : "false");
  return options;
}

std::int32_t word_at(const std::string& bytes, std::size_t offset, bool big_endian) {
  std::uint32_t value;
  std::memcpy(&value, bytes.data() + offset, 4);
  if (big_endian == (std::endian::native == std::endian::little)) value = __builtin_bswap32(value);
  return static_cast<std::int32_t>(value);
}

}  // namespace

// ---------------------------------------------------------------------------------------

struct CorpusCase {
  const char* file;
  std::int64_t points;
  std::int64_t dim;
  const char* blocks;
  double sum;
};

TEST(MeditCorpus, MatchesMeshio) {
  if (!fs::is_directory(kCorpusDir / "medit")) GTEST_SKIP() << "corpus not found at " << kCorpusDir;
  const CorpusCase cases[] = {
      {"cylinder.mesh", 354, 3, "tetra:1348", 17.87745962},
      {"square_triquad.mesh", 470, 2, "triangle:458;quad:200", 463.1799394},
      {"cube_medium_hexa.mesh", 1331, 3, "hexahedron:1000", -1.421085472e-14},
  };
  for (const CorpusCase& c : cases) {
    SCOPED_TRACE(c.file);
    const Mesh mesh = medit::read((kCorpusDir / "medit" / c.file).string());
    EXPECT_EQ(mesh.num_points(), c.points);
    EXPECT_EQ(mesh.points.dim(1), c.dim);
    EXPECT_EQ(mesh.points.dtype(), DType::float64);
    EXPECT_EQ(block_summary(mesh), c.blocks);
    EXPECT_NEAR(point_sum(mesh), c.sum, 1e-6 * std::max(1.0, std::abs(c.sum)));
    EXPECT_TRUE(mesh.point_data.contains("medit:ref"));
    ASSERT_TRUE(mesh.cell_data.contains("medit:ref"));
    EXPECT_EQ(mesh.cell_data.find("medit:ref")->size(), mesh.cells.size());
    EXPECT_NO_THROW(validate(mesh));
  }
}

TEST(MeditCorpus, RefsBecomeRegions) {
  if (!fs::is_directory(kCorpusDir / "medit")) GTEST_SKIP() << "corpus not found at " << kCorpusDir;
  const Mesh cylinder = medit::read((kCorpusDir / "medit" / "cylinder.mesh").string());
  ASSERT_EQ(cylinder.regions.size(), 1u);
  EXPECT_EQ(cylinder.regions[0].name, "medit:ref 6");
  EXPECT_EQ(cylinder.regions[0].kind, RegionKind::Cell);
  EXPECT_EQ(cylinder.regions[0].dim, 3);
  EXPECT_EQ(cylinder.regions[0].tag, 6);
  EXPECT_EQ(cylinder.regions[0].entries.rows(), 1348);

  const Mesh square = medit::read((kCorpusDir / "medit" / "square_triquad.mesh").string());
  ASSERT_EQ(square.regions.size(), 2u);
  EXPECT_EQ(square.regions[0].name, "medit:ref 1");  // the quads
  EXPECT_EQ(square.regions[0].entries.rows(), 200);
  EXPECT_EQ(square.regions[0].entries.data_as<std::int64_t>()[0], 458);
  EXPECT_EQ(square.regions[1].name, "medit:ref 2");  // the triangles
  EXPECT_EQ(square.regions[1].entries.rows(), 458);

  // Ref 0 means "no reference": no region.
  const Mesh cube = medit::read((kCorpusDir / "medit" / "cube_medium_hexa.mesh").string());
  EXPECT_TRUE(cube.regions.empty());
}

TEST(MeditRoundTrip, AsciiEveryCellTypeBitExact) {
  ScratchDir dir;
  for (const int dimension : {2, 3}) {
    for (const DType real : {DType::float64, DType::float32}) {
      SCOPED_TRACE(std::to_string(dimension) + "-D " + std::string(dtype_name(real)));
      const Mesh mesh = every_cell_type(real, dimension);
      const std::string path = dir.file("all.mesh");
      medit::write(path, mesh, {});
      EXPECT_TRUE(read_file(path).starts_with(real == DType::float32 ? "MeshVersionFormatted 1"
                                                                       : "MeshVersionFormatted 2"));
      const Mesh back = medit::read(path);
      EXPECT_EQ(back.points.dtype(), real);
      expect_same_mesh(mesh, back);
      EXPECT_NO_THROW(validate(back));
    }
  }
}

TEST(MeditRoundTrip, BinaryEveryVersionAndByteOrder) {
  ScratchDir dir;
  for (const std::string version : {"1", "2", "3", "4"}) {
    for (const bool big_endian : {false, true}) {
      SCOPED_TRACE("version " + version + (big_endian ? " big" : " little") + "-endian");
      const DType real = version == "1" ? DType::float32 : DType::float64;
      const Mesh mesh = every_cell_type(real, 3);
      const std::string path = dir.file("all.meshb");
      medit::write(path, mesh, with_version(version, big_endian));
      const std::string bytes = read_file(path);
      EXPECT_EQ(word_at(bytes, 0, big_endian), 1);
      EXPECT_EQ(word_at(bytes, 4, big_endian), std::stoi(version));
      const Mesh back = medit::read(path);
      EXPECT_EQ(back.points.dtype(), real);
      EXPECT_EQ(back.cell_data.find("medit:ref")->front().dtype(), version == "4" ? DType::int64 : DType::int32);
      expect_same_mesh(mesh, back);
    }
  }
}

TEST(MeditRoundTrip, FloatPointsWidenExactlyIntoVersion2) {
  ScratchDir dir;
  const Mesh mesh = every_cell_type(DType::float32, 3);
  for (const char* name : {"wide.mesh", "wide.meshb"}) {
    medit::write(dir.file(name), mesh, with_version("2"));
    const Mesh back = medit::read(dir.file(name));
    EXPECT_EQ(back.points.dtype(), DType::float64);
    expect_same_mesh(mesh, back);
  }
}

TEST(MeditWriter, ChoosesTheVersion) {
  ScratchDir dir;
  const std::string path = dir.file("chosen.meshb");
  medit::write(path, every_cell_type(DType::float64, 3), {});
  EXPECT_EQ(word_at(read_file(path), 4, false), 2);
  medit::write(path, every_cell_type(DType::float32, 3), {});
  EXPECT_EQ(word_at(read_file(path), 4, false), 1);

  // A ref beyond 32 bits needs 64-bit integers: version 4, read back intact.
  Mesh big = every_cell_type(DType::float64, 3);
  NDArray refs = NDArray::allocate(DType::int64, {big.num_points()});
  for (std::int64_t i = 0; i < big.num_points(); ++i) refs.data_as<std::int64_t>()[i] = (std::int64_t{1} << 40) + i;
  big.point_data.set("medit:ref", refs);
  medit::write(path, big, {});
  EXPECT_EQ(word_at(read_file(path), 4, false), 4);
  const Mesh back = medit::read(path);
  EXPECT_EQ(back.point_data.find("medit:ref")->data_as<std::int64_t>()[3], (std::int64_t{1} << 40) + 3);
  EXPECT_THROW(medit::write(path, big, with_version("3")), std::invalid_argument);

  medit::write(dir.file("big.mesh"), big, {});
  EXPECT_TRUE(read_file(dir.file("big.mesh")).starts_with("MeshVersionFormatted 4"));
  EXPECT_EQ(medit::read(dir.file("big.mesh")).point_data.find("medit:ref")->data_as<std::int64_t>()[5],
            (std::int64_t{1} << 40) + 5);
}

TEST(MeditWriter, RefsFallBackToOtherIntegerDataThenZero) {
  ScratchDir dir;
  Mesh mesh = every_cell_type(DType::float64, 3);
  std::vector<NDArray> physical = *mesh.cell_data.find("medit:ref");
  mesh.cell_data = {};
  mesh.point_data = {};
  mesh.cell_data.set("gmsh:physical", physical);
  medit::write(dir.file("fallback.mesh"), mesh, {});
  const Mesh back = medit::read(dir.file("fallback.mesh"));
  EXPECT_EQ(int_at(back.cell_data.find("medit:ref")->at(1), 1), int_at(physical[1], 1));
  EXPECT_EQ(int_at(*back.point_data.find("medit:ref"), 1), 0);
}

TEST(MeditWriter, RefusesCellTypesMeditLacks) {
  ScratchDir dir;
  Mesh mesh = every_cell_type(DType::float64, 3);
  mesh.cells.push_back(CellBlock{"quad8", NDArray::zeros(DType::int64, {1, 8}), {}, {}});
  mesh.cell_data = {};
  EXPECT_THROW(medit::write(dir.file("quad8.mesh"), mesh, {}), std::invalid_argument);
  EXPECT_FALSE(fs::exists(dir.file("quad8.mesh")));
}

TEST(MeditReader, StepsOverSectionsItDoesNotUse) {
  ScratchDir dir;
  const std::string path = dir.file("extras.mesh");
  write_file(path,
             "# a comment\n"
             "MeshVersionFormatted 2\n"
             "Dimension\n3\n"
             "Vertices\n# count next\n4\n"
             "0 0 0 1\n1 0 0 1\n0 1 0 2\n0 0 1 2\n"
             "Corners\n2\n1\n2\n"
             "Normals\n1\n0.5 0.5 0.5\n"
             "NormalAtVertices\n1\n1 1\n"
             "Identifier\n\"my mesh\"\n"
             "Comments\n2\nVertices of the mesh\nTriangles too\n"
             "SomethingNew\n3 1 2 3 4.5\n"
             "tetrahedra\n1\n1 2 3 4 7\n"
             "Hexaedra\n0\n"
             "End\n"
             "trailing junk after End is ignored\n");
  const Mesh mesh = medit::read(path);
  EXPECT_EQ(mesh.num_points(), 4);
  EXPECT_EQ(block_summary(mesh), "tetra:1;hexahedron:0");
  ASSERT_EQ(mesh.regions.size(), 1u);
  EXPECT_EQ(mesh.regions[0].name, "medit:ref 7");
}

TEST(MeditReader, SameRefInTwoDimensionsGetsDimensionInTheName) {
  ScratchDir dir;
  const Mesh mesh = read_text(dir.file("refs.mesh"),
                              "MeshVersionFormatted 1\nDimension 3\nVertices\n4\n0 0 0 0\n1 0 0 0\n0 1 0 0\n0 0 1 0\n"
                              "Triangles\n2\n1 2 3 5\n1 2 4 0\nTetrahedra\n1\n1 2 3 4 5\n");
  EXPECT_EQ(mesh.points.dtype(), DType::float32);
  ASSERT_EQ(mesh.regions.size(), 2u);
  EXPECT_EQ(mesh.regions[0].name, "medit:ref 5, dim 2");
  EXPECT_EQ(mesh.regions[0].entries.rows(), 1);
  EXPECT_EQ(mesh.regions[1].name, "medit:ref 5, dim 3");
  EXPECT_EQ(mesh.regions[1].entries.data_as<std::int64_t>()[0], 2);
}

// meshio 5.3.5 writes "Dimension 1" for 1-D points and reads it back as points (n, 1); libMeshb
// refuses it. Ours reads it as meshio does (ASCII) and writes it as meshio does (ASCII only).
TEST(MeditReader, DimensionOneIsReadAsMeshioReadsIt) {
  ScratchDir dir;
  const std::string path = dir.file("line.mesh");
  const Mesh mesh = read_text(path,
                              "MeshVersionFormatted 2\nDimension 1\nVertices\n3\n0 1\n0.5 2\n1.25 1\n"
                              "Edges\n2\n1 2 5\n2 3 6\nEnd\n");
  EXPECT_EQ(mesh.points.shape(), (Shape{3, 1}));
  EXPECT_EQ(mesh.points.dtype(), DType::float64);
  EXPECT_EQ(mesh.points.data_as<double>()[1], 0.5);
  EXPECT_EQ(mesh.points.data_as<double>()[2], 1.25);
  EXPECT_EQ(block_summary(mesh), "line:2");
  EXPECT_EQ(int_at(*mesh.point_data.find("medit:ref"), 1), 2);
  EXPECT_EQ(int_at(mesh.cell_data.find("medit:ref")->at(0), 1), 6);
  // The count on the next line, as "Dimension\n3" is read, and the round trip.
  EXPECT_EQ(read_text(path, "MeshVersionFormatted 1\nDimension\n1\nVertices\n1\n7 0\nEnd\n").points.shape(), (Shape{1, 1}));
  Mesh line = every_cell_type(DType::float64, 1);
  line.cells.resize(1);  // the Edges
  line.cell_data.find("medit:ref")->resize(1);
  medit::write(dir.file("ours.mesh"), line, {});
  EXPECT_NE(read_file(dir.file("ours.mesh")).find("Dimension 1\n"), std::string::npos);
  expect_same_mesh(line, medit::read(dir.file("ours.mesh")));
  // Binary Medit stays 2-D or 3-D, both ways (libMeshb and meshio's binary reader refuse 1).
  EXPECT_THROW(medit::write(dir.file("ours.meshb"), line, {}), std::invalid_argument);
  medit::write(dir.file("flat.meshb"), every_cell_type(DType::float64, 2), with_version("2"));
  std::string bytes = read_file(dir.file("flat.meshb"));
  bytes[16] = 1;  // code word, version, Dimension keyword, position (4 bytes in version 2), then the dimension
  write_file(dir.file("flat.meshb"), bytes);
  EXPECT_NE(expect_read_error([&] { medit::read(dir.file("flat.meshb")); }).reason().find("dimension 1"), std::string::npos);
  write_file(path, "MeshVersionFormatted 2\nDimension 0\n");
  EXPECT_NE(expect_read_error([&] { medit::read(path); }).reason().find("not 1, 2 or 3"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// Broken files: a ReadError naming the file and where.

const char* const kGoodAscii =
    "MeshVersionFormatted 2\nDimension 2\nVertices\n3\n0 0 1\n1 0 1\n0 1 1\nTriangles\n1\n1 2 3 4\nEnd\n";

TEST(MeditErrors, AsciiTruncated) {
  ScratchDir dir;
  const std::string path = dir.file("cut.mesh");
  const std::string text = kGoodAscii;
  write_file(path, text.substr(0, text.find("Triangles") + 14));
  const ReadError error = expect_read_error([&] { medit::read(path); });
  EXPECT_EQ(error.path(), path);
  EXPECT_EQ(error.format(), "medit");
  EXPECT_TRUE(error.byte_offset().has_value());
  EXPECT_TRUE(error.line().has_value());
}

TEST(MeditErrors, AsciiCountTooLargeForTheFile) {
  ScratchDir dir;
  const std::string path = dir.file("count.mesh");
  write_file(path, "MeshVersionFormatted 2\nDimension 2\nVertices\n99999999999\n0 0 1\n");
  const ReadError error = expect_read_error([&] { medit::read(path); });
  EXPECT_EQ(error.line(), 4u);
  EXPECT_NE(error.reason().find("99999999999"), std::string::npos);
}

TEST(MeditErrors, AsciiBadNumber) {
  ScratchDir dir;
  const std::string path = dir.file("number.mesh");
  write_file(path, "MeshVersionFormatted 2\nDimension 2\nVertices\n2\n0 0 1\n1 0x5 1\n");
  const ReadError error = expect_read_error([&] { medit::read(path); });
  EXPECT_EQ(error.line(), 6u);
  EXPECT_NE(error.reason().find("0x5"), std::string::npos);
}

TEST(MeditErrors, AsciiVertexOutOfRange) {
  ScratchDir dir;
  const std::string path = dir.file("range.mesh");
  write_file(path, "MeshVersionFormatted 2\nDimension 2\nVertices\n3\n0 0 1\n1 0 1\n0 1 1\nTriangles\n1\n1 2 4 0\n");
  const ReadError error = expect_read_error([&] { medit::read(path); });
  EXPECT_EQ(error.line(), 8u);
  EXPECT_NE(error.reason().find("vertex 4"), std::string::npos);
  write_file(path, "MeshVersionFormatted 2\nDimension 2\nVertices\n3\n0 0 1\n1 0 1\n0 1 1\nTriangles\n1\n0 2 3 0\n");
  EXPECT_NE(expect_read_error([&] { medit::read(path); }).reason().find("vertex 0"), std::string::npos);
}

TEST(MeditErrors, AsciiStructure) {
  ScratchDir dir;
  const std::string path = dir.file("structure.mesh");
  write_file(path, "MeshVersionFormatted 2\nVertices\n1\n0 0 1\n");
  EXPECT_NE(expect_read_error([&] { medit::read(path); }).reason().find("Dimension"), std::string::npos);
  write_file(path, "MeshVersionFormatted 2\nDimension 4\n");
  EXPECT_EQ(expect_read_error([&] { medit::read(path); }).line(), 2u);
  write_file(path, "MeshVersionFormatted 2\nDimension 3\nEnd\n");
  EXPECT_NE(expect_read_error([&] { medit::read(path); }).reason().find("Vertices"), std::string::npos);
  write_file(path, "MeshVersionFormatted 2\nDimension 3\n12 Vertices\n");
  EXPECT_EQ(expect_read_error([&] { medit::read(path); }).line(), 3u);
  write_file(path, "");
  EXPECT_THROW(medit::read(path), ReadError);
  EXPECT_THROW(medit::read(dir.file("missing.mesh")), ReadError);
}

TEST(MeditErrors, BinaryTruncatedEverywhere) {
  ScratchDir dir;
  const std::string good = dir.file("good.meshb");
  medit::write(good, every_cell_type(DType::float64, 3), with_version("3"));
  const std::string bytes = read_file(good);
  const std::string cut = dir.file("cut.meshb");
  // Every prefix either reads (it ends at a section boundary) or raises ReadError.
  for (std::size_t size = 0; size < bytes.size(); size += 3) {
    write_file(cut, bytes.substr(0, size));
    try {
      medit::read(cut);
    } catch (const ReadError& error) {
      EXPECT_EQ(error.path(), cut);
      if (size >= 4) {
        EXPECT_TRUE(error.byte_offset().has_value()) << size;
      }
    }
  }
  write_file(cut, bytes.substr(0, bytes.size() - 20));
  const ReadError error = expect_read_error([&] { medit::read(cut); });
  EXPECT_NE(error.reason().find("fit"), std::string::npos) << error.what();
}

TEST(MeditErrors, BinaryCorruptHeaderAndPositions) {
  ScratchDir dir;
  const std::string path = dir.file("bad.meshb");
  medit::write(path, every_cell_type(DType::float64, 2), with_version("2"));
  std::string bytes = read_file(path);

  std::string bad_version = bytes;
  bad_version[4] = 9;
  write_file(path, bad_version);
  EXPECT_EQ(expect_read_error([&] { medit::read(path); }).byte_offset(), 4u);

  std::string bad_dimension = bytes;
  bad_dimension[16] = 7;  // code, version, keyword, position (4 bytes in version 2), dimension
  write_file(path, bad_dimension);
  EXPECT_EQ(expect_read_error([&] { medit::read(path); }).byte_offset(), 16u);

  // An unknown section whose next-keyword position points backwards must not loop.
  std::string looping = bytes.substr(0, 20);
  const std::int32_t unknown[] = {62, 4};
  looping.append(reinterpret_cast<const char*>(unknown), sizeof unknown);
  write_file(path, looping);
  EXPECT_EQ(expect_read_error([&] { medit::read(path); }).byte_offset(), 20u);

  // A count no file could hold is refused before anything is allocated.
  std::string huge = bytes.substr(0, 20);
  const std::int32_t vertices[] = {4, 0, std::numeric_limits<std::int32_t>::max()};
  huge.append(reinterpret_cast<const char*>(vertices), sizeof vertices);
  write_file(path, huge);
  EXPECT_EQ(expect_read_error([&] { medit::read(path); }).byte_offset(), 28u);
}

// ---- large files: the parallel parse of one-record-per-line sections ------------------------
// Sections of more than 4 MB parse on all cores when every record has a line of its own;
// other layouts (blank lines, wrapped records, several records per line) fall back to the
// sequential parse. Both must give the same bits, and errors must name the same place.

namespace {

// A Medit file with `points` vertices and `tets` tetrahedra, written one record per line,
// with the byte offset where each record's line starts.
struct LargeMedit {
  std::string text;
  std::vector<double> coordinates;
  std::vector<std::int64_t> point_refs;
  std::vector<std::int64_t> nodes;  // 1-based, as written
  std::vector<std::int64_t> cell_refs;
  std::vector<std::size_t> vertex_lines;
  std::vector<std::size_t> tet_lines;
};

LargeMedit large_medit(int version, std::int64_t points, std::int64_t tets) {
  LargeMedit file;
  std::mt19937_64 random(2024);
  std::uniform_real_distribution<double> value(-1e3, 1e3);
  std::uniform_int_distribution<std::int64_t> node(1, points);
  // Version 4 refs are 64-bit: use values an int32 cannot hold.
  const std::int64_t ref_base = version == 4 ? std::int64_t{5000000000} : 0;
  file.text = "MeshVersionFormatted " + std::to_string(version) + "\nDimension 3\n\nVertices\n" +
              std::to_string(points) + "\n";
  char buffer[160];
  for (std::int64_t i = 0; i < points; ++i) {
    const double x = value(random) / 3.0, y = value(random) * 1e-7, z = value(random);
    file.coordinates.insert(file.coordinates.end(), {x, y, z});
    file.point_refs.push_back(ref_base + i % 5);
    file.vertex_lines.push_back(file.text.size());
    const int n = std::snprintf(buffer, sizeof buffer, "%.17g %.17g %.17g %lld\n", x, y, z,
                                static_cast<long long>(file.point_refs.back()));
    file.text.append(buffer, static_cast<std::size_t>(n));
  }
  file.text += "\nTetrahedra\n" + std::to_string(tets) + "\n";
  for (std::int64_t i = 0; i < tets; ++i) {
    std::int64_t record[4];
    for (std::int64_t& id : record) file.nodes.push_back(id = node(random));
    file.cell_refs.push_back(ref_base + i % 7);
    file.tet_lines.push_back(file.text.size());
    const int n = std::snprintf(buffer, sizeof buffer, "%lld %lld %lld %lld %lld\n", static_cast<long long>(record[0]),
                                static_cast<long long>(record[1]), static_cast<long long>(record[2]),
                                static_cast<long long>(record[3]), static_cast<long long>(file.cell_refs.back()));
    file.text.append(buffer, static_cast<std::size_t>(n));
  }
  file.text += "End\n";
  return file;
}

constexpr std::int64_t kLargePoints = 90000;  // ~6 MB of vertices
constexpr std::int64_t kLargeTets = 250000;   // ~7 MB of tetrahedra

void expect_identical_mesh(const Mesh& expected, const Mesh& actual) {
  EXPECT_TRUE(same_bytes(expected.points, actual.points));
  EXPECT_TRUE(same_bytes(*expected.point_data.find("medit:ref"), *actual.point_data.find("medit:ref")));
  ASSERT_EQ(expected.cells.size(), actual.cells.size());
  for (std::size_t b = 0; b < expected.cells.size(); ++b) {
    EXPECT_EQ(expected.cells[b].type, actual.cells[b].type);
    EXPECT_TRUE(same_bytes(expected.cells[b].connectivity, actual.cells[b].connectivity));
    EXPECT_TRUE(same_bytes((*expected.cell_data.find("medit:ref"))[b], (*actual.cell_data.find("medit:ref"))[b]));
  }
  ASSERT_EQ(expected.regions.size(), actual.regions.size());
  for (std::size_t r = 0; r < expected.regions.size(); ++r) {
    EXPECT_EQ(expected.regions[r].name, actual.regions[r].name);
    EXPECT_TRUE(same_bytes(expected.regions[r].entries, actual.regions[r].entries));
  }
}

std::uint64_t line_at(const std::string& text, std::size_t offset) {
  return 1 + static_cast<std::uint64_t>(std::count(text.data(), text.data() + offset, '\n'));
}

}  // namespace

TEST(MeditLargeAscii, OneRecordPerLineReadsExactly) {
  ScratchDir dir;
  for (const int version : {2, 4}) {
    const LargeMedit file = large_medit(version, kLargePoints, kLargeTets);
    ASSERT_GT(file.tet_lines.front() - file.vertex_lines.front(), std::size_t{4} << 20);
    ASSERT_GT(file.text.size() - file.tet_lines.front(), std::size_t{4} << 20);
    const Mesh mesh = medit::read(write_file(dir.file("large.mesh"), file.text));
    ASSERT_EQ(mesh.points.dtype(), DType::float64);
    ASSERT_EQ(mesh.points.shape(), (Shape{kLargePoints, 3}));
    EXPECT_EQ(std::memcmp(mesh.points.data(), file.coordinates.data(), mesh.points.nbytes()), 0);
    const NDArray& point_refs = *mesh.point_data.find("medit:ref");
    EXPECT_EQ(point_refs.dtype(), version == 4 ? DType::int64 : DType::int32);
    for (std::int64_t i = 0; i < kLargePoints; ++i) ASSERT_EQ(int_at(point_refs, i), file.point_refs[i]) << i;
    ASSERT_EQ(mesh.cells.size(), 1u);
    ASSERT_EQ(mesh.cells[0].connectivity.shape(), (Shape{kLargeTets, 4}));
    const auto nodes = mesh.cells[0].connectivity.values<std::int64_t>();
    for (std::size_t i = 0; i < nodes.size(); ++i) ASSERT_EQ(nodes[i], file.nodes[i] - 1) << i;
    const NDArray& cell_refs = (*mesh.cell_data.find("medit:ref"))[0];
    for (std::int64_t i = 0; i < kLargeTets; ++i) ASSERT_EQ(int_at(cell_refs, i), file.cell_refs[i]) << i;

    // A blank line in each section sends both to the sequential parse: the same bits.
    std::string blank = file.text;
    blank.insert(file.tet_lines[kLargeTets - 3], "\n");
    blank.insert(file.vertex_lines[kLargePoints / 2], "   \n");
    expect_identical_mesh(mesh, medit::read(write_file(dir.file("blank.mesh"), blank)));
  }
}

TEST(MeditLargeAscii, OtherLayoutsFallBackToTheSequentialParse) {
  ScratchDir dir;
  const LargeMedit file = large_medit(2, kLargePoints, kLargeTets);
  const Mesh expected = medit::read(write_file(dir.file("large.mesh"), file.text));
  // Two records on one line, deep in each section.
  std::string joined = file.text;
  joined[file.tet_lines[200000] - 1] = ' ';
  joined[file.vertex_lines[70000] - 1] = ' ';
  expect_identical_mesh(expected, medit::read(write_file(dir.file("joined.mesh"), joined)));
  // A record wrapped over two lines, and CRLF line ends.
  std::string wrapped = file.text;
  wrapped[file.tet_lines[123456] + wrapped.substr(file.tet_lines[123456]).find(' ')] = '\n';
  wrapped[file.vertex_lines[45678] + wrapped.substr(file.vertex_lines[45678], 200).find(' ')] = '\n';
  expect_identical_mesh(expected, medit::read(write_file(dir.file("wrapped.mesh"), wrapped)));
  std::string crlf;
  for (const char c : file.text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  expect_identical_mesh(expected, medit::read(write_file(dir.file("crlf.mesh"), crlf)));
  // Fewer lines than records: the sequential parse reports the end of the data.
  std::string cut = file.text.substr(0, file.vertex_lines[kLargePoints - 10]);
  const ReadError truncated = expect_read_error([&] { medit::read(write_file(dir.file("cut.mesh"), cut)); });
  EXPECT_NE(truncated.reason().find("unexpected end"), std::string::npos) << truncated.what();
}

TEST(MeditLargeAscii, BadNumbersDeepInsideNameTheirOffsetAndLine) {
  ScratchDir dir;
  const LargeMedit file = large_medit(2, kLargePoints, kLargeTets);
  struct Case {
    std::size_t offset;
    std::string token;
  };
  const std::size_t second_value = file.text.find(' ', file.vertex_lines[80000]) + 1;
  const std::size_t ref = file.text.rfind(' ', file.tet_lines[222223]) + 1;
  const Case cases[] = {{second_value, "1.5x"}, {ref, "7q"}, {file.tet_lines[180000], "99999999999999999999"}};
  for (const Case& bad : cases) {
    for (const bool with_blank_line : {false, true}) {  // parallel, then sequential
      std::string text = file.text;
      text.replace(bad.offset, text.find_first_of(" \n", bad.offset) - bad.offset, bad.token);
      if (with_blank_line) text.insert(file.vertex_lines[10], "\n");
      const std::size_t offset = bad.offset + (with_blank_line ? 1 : 0);
      const std::string path = write_file(dir.file("bad.mesh"), text);
      const ReadError error = expect_read_error([&] { medit::read(path); });
      EXPECT_EQ(error.path(), path);
      EXPECT_EQ(error.byte_offset(), offset) << bad.token;
      EXPECT_EQ(error.line(), line_at(text, offset)) << bad.token;
      EXPECT_NE(error.reason().find(bad.token), std::string::npos) << error.what();
    }
  }
  // A vertex out of range: the error names the section's keyword line.
  std::string range = file.text;
  range.replace(file.tet_lines[240000], range.find(' ', file.tet_lines[240000]) - file.tet_lines[240000], "90001");
  const ReadError out_of_range = expect_read_error([&] { medit::read(write_file(dir.file("range.mesh"), range)); });
  const std::size_t keyword = range.find("Tetrahedra");
  EXPECT_EQ(out_of_range.byte_offset(), keyword);
  EXPECT_EQ(out_of_range.line(), line_at(range, keyword));
  EXPECT_NE(out_of_range.reason().find("element 240001 refers to vertex 90001"), std::string::npos)
      << out_of_range.what();
  // A bad number in both sections: the first one is reported.
  std::string both = file.text;
  both.replace(file.tet_lines[100], 1, "z");
  both.replace(file.vertex_lines[kLargePoints - 1], 1, "y");
  const ReadError error = expect_read_error([&] { medit::read(write_file(dir.file("both.mesh"), both)); });
  EXPECT_EQ(error.byte_offset(), file.vertex_lines[kLargePoints - 1]);
}

// ---- hostile input (issue 18; tests/data/fuzz-regressions/medit/) ----

// `value - 1` on a vertex index of INT64_MIN was signed overflow (UBSan) in both readers;
// the index now wraps to an out-of-range value and is refused as any other.
TEST(MeditHostile, Int64MinVertexIndexIsAReadError) {
  const std::string ascii = write_scratch(
      "min.mesh", "MeshVersionFormatted 2\nDimension 2\nVertices\n3\n0 0 0\n1 0 0\n0 1 0\nTriangles\n1\n1 2 -9223372036854775808 0\nEnd\n");
  const ReadError error = expect_read_error([&] { medit::read(ascii); });
  EXPECT_NE(error.reason().find("refers to vertex -9223372036854775808"), std::string::npos) << error.what();

  // The same in a version-4 .meshb (int64 indices).
  std::string binary;
  const auto put32 = [&](std::int32_t v) { binary.append(reinterpret_cast<const char*>(&v), 4); };
  const auto put64 = [&](std::int64_t v) { binary.append(reinterpret_cast<const char*>(&v), 8); };
  const auto put_real = [&](double v) { binary.append(reinterpret_cast<const char*>(&v), 8); };
  put32(1);
  put32(4);  // version
  // Dimension (keyword 3): next-position, value
  put32(3);
  put64(0);
  put32(2);
  put32(4);  // Vertices
  put64(0);
  put64(3);
  for (int i = 0; i < 3; ++i) {
    put_real(i == 1 ? 1 : 0);
    put_real(i == 2 ? 1 : 0);
    put64(0);
  }
  put32(6);  // Triangles
  put64(0);
  put64(1);
  put64(1);
  put64(2);
  put64(std::numeric_limits<std::int64_t>::min());
  put64(0);
  put32(54);  // End, with its next-keyword position
  put64(0);
  const std::string meshb = write_scratch("min.meshb", binary);
  const ReadError binary_error = expect_read_error([&] { medit::read(meshb); });
  EXPECT_NE(binary_error.reason().find("vertex -9223372036854775808"), std::string::npos) << binary_error.what();
}
