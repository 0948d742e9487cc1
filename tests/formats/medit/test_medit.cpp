// Medit (.mesh / .meshb): the corpus against meshio's expectations, round trips of every
// cell type through ASCII and binary (versions 1-4, both byte orders), the sections the
// reader steps over, and the errors it raises on broken files.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
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
  const std::string path = dir.file("refs.mesh");
  write_file(path,
             "MeshVersionFormatted 1\nDimension 3\nVertices\n4\n0 0 0 0\n1 0 0 0\n0 1 0 0\n0 0 1 0\n"
             "Triangles\n2\n1 2 3 5\n1 2 4 0\nTetrahedra\n1\n1 2 3 4 5\n");
  const Mesh mesh = medit::read(path);
  EXPECT_EQ(mesh.points.dtype(), DType::float32);
  ASSERT_EQ(mesh.regions.size(), 2u);
  EXPECT_EQ(mesh.regions[0].name, "medit:ref 5, dim 2");
  EXPECT_EQ(mesh.regions[0].entries.rows(), 1);
  EXPECT_EQ(mesh.regions[1].name, "medit:ref 5, dim 3");
  EXPECT_EQ(mesh.regions[1].entries.data_as<std::int64_t>()[0], 2);
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
