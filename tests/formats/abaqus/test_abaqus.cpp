// Abaqus (.inp): the corpus against meshio's expectations, round trips of every cell type
// the writer names with points and sets, the structure the reader resolves (parts,
// instances, includes, set references) and the errors it raises on broken files.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/abaqus/abaqus.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;

using namespace meshioplusplus::testing_support;

namespace {

std::string region_names(const Mesh& mesh, RegionKind kind) {
  std::string text;
  for (const Region& region : mesh.regions) {
    if (region.kind != kind) continue;
    if (!text.empty()) text += ',';
    text += region.name;
  }
  return text;
}

const Region& region_named(const Mesh& mesh, const std::string& name, RegionKind kind) {
  for (const Region& region : mesh.regions)
    if (region.name == name && region.kind == kind) return region;
  throw std::runtime_error("no region " + name);
}

std::vector<std::int64_t> entries_of(const Region& region) {
  const auto values = region.entries.values<std::int64_t>();
  return {values.begin(), values.end()};
}

NDArray int64_array(std::vector<std::int64_t> values, std::int64_t columns = 0) {
  const auto count = static_cast<std::int64_t>(values.size());
  NDArray array = columns == 0 ? NDArray::allocate(DType::int64, {count})
                               : NDArray::allocate(DType::int64, {count / columns, columns});
  std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
  return array;
}

// Every type the writer names, awkward coordinates, and one region of each kind.
Mesh every_cell_type(int dimension) {
  const std::vector<std::string> types{"line",  "line3",   "triangle", "triangle6", "quad",
                                       "quad8", "quad9",   "tetra",    "tetra10",   "pyramid",
                                       "wedge", "wedge15", "hexahedron", "hexahedron20"};
  Mesh mesh;
  const std::int64_t num_points = 60;
  mesh.points = NDArray::allocate(DType::float64, {num_points, dimension});
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> value(-1e5, 1e5);
  for (double& x : mesh.points.values<double>()) x = value(random) / 7.0;
  mesh.points.data_as<double>()[0] = 1e-300;
  mesh.points.data_as<double>()[1] = -0.0;
  std::int64_t next_node = 0;
  for (const std::string& type : types) {
    const int nodes = cell_type(type).num_nodes;
    NDArray connectivity = NDArray::allocate(DType::int64, {2, nodes});
    for (std::int64_t& node : connectivity.values<std::int64_t>()) node = (next_node++ * 13) % num_points;
    mesh.cells.push_back(CellBlock{type, connectivity, {}, {}});
  }
  mesh.regions.push_back(Region{"fixed nodes", RegionKind::Point, -1, -1, int64_array({0, 5, 59})});
  std::vector<std::int64_t> many;
  for (std::int64_t i = 0; i < 20; ++i) many.push_back(i + 3);
  mesh.regions.push_back(Region{"Body", RegionKind::Cell, -1, -1, int64_array(many)});
  mesh.regions.push_back(Region{"Load", RegionKind::Side, -1, -1, int64_array({14, 0, 14, 2, 16, 2}, 2)});
  return mesh;
}

void expect_same_mesh(const Mesh& expected, const Mesh& actual) {
  ASSERT_EQ(expected.points.shape(), actual.points.shape());
  EXPECT_EQ(std::memcmp(expected.points.data(), actual.points.data(), expected.points.nbytes()), 0);
  ASSERT_EQ(block_summary(expected), block_summary(actual));
  for (std::size_t b = 0; b < expected.cells.size(); ++b)
    EXPECT_EQ(std::memcmp(expected.cells[b].connectivity.data(), actual.cells[b].connectivity.data(),
                          expected.cells[b].connectivity.nbytes()),
              0)
        << expected.cells[b].type;
  ASSERT_EQ(expected.regions.size(), actual.regions.size());
  for (std::size_t r = 0; r < expected.regions.size(); ++r) {
    EXPECT_EQ(expected.regions[r].name, actual.regions[r].name);
    EXPECT_EQ(expected.regions[r].kind, actual.regions[r].kind);
    EXPECT_EQ(entries_of(expected.regions[r]), entries_of(actual.regions[r])) << expected.regions[r].name;
  }
}

}  // namespace

TEST(AbaqusCorpus, PartAssemblyInstanceWithSets) {
  if (!fs::is_directory(kCorpusDir / "abaqus")) GTEST_SKIP() << "corpus not found at " << kCorpusDir;
  const Mesh mesh = abaqus::read((kCorpusDir / "abaqus" / "UUea.inp").string());
  EXPECT_EQ(mesh.num_points(), 66);
  EXPECT_EQ(mesh.points.dim(1), 2);
  EXPECT_EQ(block_summary(mesh), "quad:50");
  EXPECT_NEAR(point_sum(mesh), 4950, 4950e-6);
  EXPECT_EQ(region_names(mesh, RegionKind::Point),
            "_PickedSet2,_PickedSet7,_PickedSet8,_PickedSet14,_PickedSet15,_PickedSet16,_PickedSet17");
  EXPECT_EQ(region_names(mesh, RegionKind::Cell),
            "_PickedSet2,_PickedSet7,_PickedSet8,_PickedSet14,_PickedSet15,_PickedSet16,_PickedSet17,"
            "__PickedSurf12_S3,__PickedSurf13_S2,__PickedSurf18_S3");
  EXPECT_EQ(region_names(mesh, RegionKind::Side), "_PickedSurf12,_PickedSurf13,_PickedSurf18");
  // Sizes and members as meshio reads them.
  const std::vector<std::int64_t> every_sixth{0, 6, 12, 18, 24, 30, 36, 42, 48, 54, 60};
  EXPECT_EQ(entries_of(region_named(mesh, "_PickedSet7", RegionKind::Point)), every_sixth);
  EXPECT_EQ(region_named(mesh, "_PickedSet2", RegionKind::Point).entries.rows(), 66);
  EXPECT_EQ(region_named(mesh, "_PickedSet7", RegionKind::Cell).entries.rows(), 10);
  EXPECT_EQ(entries_of(region_named(mesh, "_PickedSet14", RegionKind::Cell)),
            (std::vector<std::int64_t>{45, 46, 47, 48, 49}));
  EXPECT_EQ(region_named(mesh, "__PickedSurf13_S2", RegionKind::Cell).entries.rows(), 10);
  const Region& surface = region_named(mesh, "_PickedSurf13", RegionKind::Side);
  ASSERT_EQ(surface.entries.shape(), (Shape{10, 2}));
  EXPECT_EQ(surface.entries.data_as<std::int64_t>()[0], 4);
  EXPECT_EQ(surface.entries.data_as<std::int64_t>()[1], 1);  // S2 of a quad: its second edge
  EXPECT_NO_THROW(validate(mesh));
}

TEST(AbaqusCorpus, LargerFile) {
  if (!fs::is_directory(kCorpusDir / "abaqus")) GTEST_SKIP() << "corpus not found at " << kCorpusDir;
  const Mesh mesh = abaqus::read((kCorpusDir / "abaqus" / "abaqus_mesh_ex.inp").string());
  EXPECT_EQ(mesh.num_points(), 3691);
  EXPECT_EQ(mesh.points.dim(1), 2);
  EXPECT_EQ(block_summary(mesh), "quad:3492");
  EXPECT_NEAR(point_sum(mesh), -68501.91461, 68501.91461e-6);
  EXPECT_TRUE(mesh.regions.empty());
  EXPECT_NO_THROW(validate(mesh));
}

TEST(AbaqusRoundTrip, EveryCellTypeWithSetsBitExact) {
  ScratchDir dir;
  for (const int dimension : {3, 2}) {
    SCOPED_TRACE(std::to_string(dimension) + "-D points");
    const Mesh mesh = every_cell_type(dimension);
    const std::string path = dir.file("all.inp");
    abaqus::write(path, mesh, {});
    const std::string text = read_file(path);
    EXPECT_NE(text.find(dimension == 3 ? "TYPE=S4\n" : "TYPE=CPS4\n"), std::string::npos);
    EXPECT_NE(text.find("*NSET, NSET=\"fixed nodes\""), std::string::npos);
    EXPECT_NE(text.find("*SURFACE, TYPE=ELEMENT, NAME=Load"), std::string::npos);
    const Mesh back = abaqus::read(path);
    // The surface's per-face element sets come back too.
    Mesh expected = mesh;
    // Cells 14 and 16 are tetrahedra: facets 0 and 2 are Abaqus faces S2 and S4.
    EXPECT_NE(text.find("Load_S2, S2\nLoad_S4, S4\n"), std::string::npos);
    expected.regions.insert(expected.regions.begin() + 2,
                            Region{"Load_S2", RegionKind::Cell, -1, -1, int64_array({14})});
    expected.regions.insert(expected.regions.begin() + 3,
                            Region{"Load_S4", RegionKind::Cell, -1, -1, int64_array({14, 16})});
    expect_same_mesh(expected, back);
  }
}

TEST(AbaqusRoundTrip, MeshioCellNames) {
  ScratchDir dir;
  const Mesh mesh = every_cell_type(3);
  WriteOptions options;
  options.set("translate_cell_names", "false");
  abaqus::write(dir.file("names.inp"), mesh, options);
  EXPECT_NE(read_file(dir.file("names.inp")).find("TYPE=hexahedron20"), std::string::npos);
  const Mesh back = abaqus::read(dir.file("names.inp"));
  EXPECT_EQ(block_summary(back), block_summary(mesh));
  EXPECT_EQ(std::memcmp(back.cells[1].connectivity.data(), mesh.cells[1].connectivity.data(),
                        mesh.cells[1].connectivity.nbytes()),
            0);
}

TEST(AbaqusWriter, RefusesTypesWithoutAnElement) {
  ScratchDir dir;
  Mesh mesh = every_cell_type(3);
  mesh.cells.push_back(CellBlock{"vertex", NDArray::zeros(DType::int64, {1, 1}), {}, {}});
  EXPECT_THROW(abaqus::write(dir.file("vertex.inp"), mesh, {}), std::invalid_argument);
  EXPECT_FALSE(fs::exists(dir.file("vertex.inp")));
}

TEST(AbaqusReader, ThreeNodeBeamsPutTheMiddleNodeLast) {
  ScratchDir dir;
  write_file(dir.file("beam.inp"),
             "*NODE\n1, 0, 0, 0\n2, 1, 0, 0\n3, 2, 0, 0\n*ELEMENT, TYPE=B32\n1, 1, 2, 3\n");
  const Mesh mesh = abaqus::read(dir.file("beam.inp"));
  ASSERT_EQ(block_summary(mesh), "line3:1");
  const std::int64_t* nodes = mesh.cells[0].connectivity.data_as<std::int64_t>();
  EXPECT_EQ(nodes[0], 0);
  EXPECT_EQ(nodes[1], 2);
  EXPECT_EQ(nodes[2], 1);
}

TEST(AbaqusReader, PartsInstancesIncludesAndSetReferences) {
  ScratchDir dir;
  write_file(dir.file("part_nodes.inp"), "1, 0., 0., 0.\n2, 1., 0., 0.\n3, 0., 1., 0.\n4, 0., 0., 1.\n");
  fs::create_directories(dir.file("sub"));
  write_file(dir.file("sub/elements.inp"),
             "** an included file, found beside its includer\n"
             "*element , type = c3d4 , elset = Solid\n"
             "1, 1, 2,\n   3, 4\n"
             "*Element, type=MASS, elset=Masses\n9, 1\n");
  write_file(dir.file("model.inp"),
             "*Heading\nA title line\n"
             "** comment\n"
             "*Part, name=Brick\n"
             "*Node, input=part_nodes.inp, nset=All\n"
             "*Include, input=sub/elements.inp\n"
             "*Nset, nset=Base\n 1, 2, 3\n"
             "*Elset, elset=Both\n Solid, Masses\n"
             "*End Part\n"
             "*Assembly, name=A\n"
             "*Instance, name=Left, part=Brick\n"
             "*End Instance\n"
             "*Instance, name=Right, part=BRICK\n"
             " 10., 0., 0.\n"
             " 10., 0., 0., 10., 0., 1., 90.\n"
             "*End Instance\n"
             "*Nset, nset=Tips, instance=Right\n 4\n"
             "*Nset, nset=Tips\n Left.4\n"
             "*Nset, nset=BothBases\n Left.Base, \"Right.Base\"\n"
             "*Elset, elset=Pick, instance=Left, generate\n 1, 1, 1\n"
             "*End Assembly\n"
             "*Step\n*Static\n*End Step\n");
  const Mesh mesh = abaqus::read(dir.file("model.inp"));
  ASSERT_EQ(mesh.num_points(), 8);
  EXPECT_EQ(block_summary(mesh), "tetra:1;tetra:1");
  const double* x = mesh.points.data_as<double>();
  // Right = Brick moved by 10 along x, then turned 90 degrees about the z axis through (10,0).
  EXPECT_NEAR(x[3 * 5 + 0], 10.0, 1e-12);  // node 2 (1,0,0) → (11,0,0) → (10,1,0)
  EXPECT_NEAR(x[3 * 5 + 1], 1.0, 1e-12);
  EXPECT_NEAR(x[3 * 6 + 0], 9.0, 1e-12);  // node 3 (0,1,0) → (10,1,0) → (9,0,0)
  EXPECT_NEAR(x[3 * 6 + 1], 0.0, 1e-12);
  EXPECT_EQ(mesh.cells[1].connectivity.data_as<std::int64_t>()[0], 4);

  EXPECT_EQ(region_names(mesh, RegionKind::Point), "All,Base,Tips,BothBases");
  EXPECT_EQ(region_names(mesh, RegionKind::Cell), "Solid,Masses,Both,Pick");
  EXPECT_EQ(entries_of(region_named(mesh, "All", RegionKind::Point)), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(entries_of(region_named(mesh, "Tips", RegionKind::Point)), (std::vector<std::int64_t>{3, 7}));
  EXPECT_EQ(entries_of(region_named(mesh, "BothBases", RegionKind::Point)),
            (std::vector<std::int64_t>{0, 1, 2, 4, 5, 6}));
  EXPECT_EQ(entries_of(region_named(mesh, "Both", RegionKind::Cell)), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(region_named(mesh, "Masses", RegionKind::Cell).entries.rows(), 0);  // MASS elements are not read
  EXPECT_EQ(entries_of(region_named(mesh, "Pick", RegionKind::Cell)), (std::vector<std::int64_t>{0}));
  EXPECT_NO_THROW(validate(mesh));
}

TEST(AbaqusReader, SurfaceFacesBecomeLocalFacets) {
  ScratchDir dir;
  write_file(dir.file("faces.inp"),
             "*NODE\n1,0,0,0\n2,1,0,0\n3,1,1,0\n4,0,1,0\n5,0,0,1\n6,1,0,1\n7,1,1,1\n8,0,1,1\n"
             "*ELEMENT, TYPE=C3D8, ELSET=Hex\n1, 1, 2, 3, 4, 5, 6, 7, 8\n"
             "*ELEMENT, TYPE=C3D4\n2, 1, 2, 4, 5\n"
             "*ELEMENT, TYPE=T3D2\n3, 1, 2\n"
             "*SURFACE, NAME=Faces\nHex, S1\nHex, S3\n2, S1\n3, S1\nHex, SPOS\n"
             "*SURFACE, NAME=Bad\n2, S5\n");
  const ReadError error = expect_read_error([&] { abaqus::read(dir.file("faces.inp")); });
  EXPECT_EQ(error.line(), 23u);
  std::string text = read_file(dir.file("faces.inp"));
  write_file(dir.file("faces.inp"), text.substr(0, text.find("*SURFACE, NAME=Bad")));
  const Mesh mesh = abaqus::read(dir.file("faces.inp"));
  // Hexahedron S1 (the bottom) is side 4, S3 side 0; the tetrahedron's S1 is side 3.
  EXPECT_EQ(entries_of(region_named(mesh, "Faces", RegionKind::Side)), (std::vector<std::int64_t>{0, 0, 0, 4, 1, 3}));
}

TEST(AbaqusReader, PartsWithoutAssemblyStandForThemselves) {
  ScratchDir dir;
  write_file(dir.file("parts.inp"),
             "*PART, NAME=P1\n*NODE\n1, 0, 0\n2, 1, 0\n3, 0, 1\n*ELEMENT, TYPE=CPS3\n1, 1, 2, 3\n*END PART\n"
             "*PART, NAME=P2\n*NODE\n1, 5, 0\n2, 6, 0\n3, 5, 1\n*ELEMENT, TYPE=CPS3\n1, 3, 2, 1\n*END PART\n");
  const Mesh mesh = abaqus::read(dir.file("parts.inp"));
  EXPECT_EQ(mesh.num_points(), 6);
  EXPECT_EQ(mesh.points.dim(1), 2);
  EXPECT_EQ(block_summary(mesh), "triangle:1;triangle:1");
  EXPECT_EQ(mesh.cells[1].connectivity.data_as<std::int64_t>()[0], 5);
}

// ---------------------------------------------------------------------------------------

TEST(AbaqusErrors, MissingNode) {
  ScratchDir dir;
  const std::string path = dir.file("missing.inp");
  write_file(path, "*NODE\n1, 0, 0\n2, 1, 0\n3, 0, 1\n*ELEMENT, TYPE=CPS3\n1, 1, 2, 3\n2, 1, 7, 3\n");
  const ReadError error = expect_read_error([&] { abaqus::read(path); });
  EXPECT_EQ(error.path(), path);
  EXPECT_EQ(error.format(), "abaqus");
  EXPECT_EQ(error.line(), 7u);
  EXPECT_TRUE(error.byte_offset().has_value());
  EXPECT_NE(error.reason().find("node 7"), std::string::npos) << error.reason();
}

TEST(AbaqusErrors, TruncatedElement) {
  ScratchDir dir;
  const std::string path = dir.file("cut.inp");
  write_file(path, "*NODE\n1, 0, 0\n2, 1, 0\n3, 0, 1\n*ELEMENT, TYPE=CPS3\n1, 1, 2, 3\n2, 1,");
  const ReadError error = expect_read_error([&] { abaqus::read(path); });
  EXPECT_EQ(error.line(), 7u);
  EXPECT_NE(error.reason().find("lists 1 nodes"), std::string::npos) << error.reason();
  write_file(path, "*NODE\n1, 0, 0\n2, 1, 0\n3, 0, 1\n*ELEMENT, TYPE=CPS3\n1, 1, 2, 3, 3\n");
  EXPECT_EQ(expect_read_error([&] { abaqus::read(path); }).line(), 6u);
}

TEST(AbaqusErrors, BadNumbers) {
  ScratchDir dir;
  const std::string path = dir.file("numbers.inp");
  write_file(path, "*NODE\n1, 0, 0\n2, 1.5e, 0\n");
  ReadError error = expect_read_error([&] { abaqus::read(path); });
  EXPECT_EQ(error.line(), 3u);
  EXPECT_NE(error.reason().find("1.5e"), std::string::npos);
  write_file(path, "*NODE\nx1, 0, 0\n");
  EXPECT_EQ(expect_read_error([&] { abaqus::read(path); }).line(), 2u);
  write_file(path, "*NODE\n1, 0, 0\n*ELEMENT, TYPE=T2D2\n1, 1, 1.0\n");
  EXPECT_EQ(expect_read_error([&] { abaqus::read(path); }).line(), 4u);
}

TEST(AbaqusErrors, Structure) {
  ScratchDir dir;
  const std::string path = dir.file("structure.inp");
  write_file(path, "1, 0, 0\n");
  EXPECT_EQ(expect_read_error([&] { abaqus::read(path); }).line(), 1u);
  write_file(path, "*NODE\n1, 0, 0\n*ELEMENT\n1, 1\n");
  EXPECT_NE(expect_read_error([&] { abaqus::read(path); }).reason().find("TYPE"), std::string::npos);
  write_file(path, "*NODE\n1, 0, 0\n1, 1, 0\n");
  EXPECT_NE(expect_read_error([&] { abaqus::read(path); }).reason().find("twice"), std::string::npos);
  write_file(path, "*PART, name=P\n*NODE\n1, 0, 0\n");
  EXPECT_NE(expect_read_error([&] { abaqus::read(path); }).reason().find("END PART"), std::string::npos);
  write_file(path, "*ASSEMBLY\n*INSTANCE, name=I, part=Nope\n*END INSTANCE\n");
  EXPECT_EQ(expect_read_error([&] { abaqus::read(path); }).line(), 2u);
  write_file(path, "*NODE\n1, 0, 0\n*NSET, NSET=A\n Nope\n");
  EXPECT_EQ(expect_read_error([&] { abaqus::read(path); }).line(), 4u);
  write_file(path, "*NODE\n1, 0, 0\n*NSET, NSET=A, GENERATE\n 1, 5, 1\n");
  EXPECT_NE(expect_read_error([&] { abaqus::read(path); }).reason().find("node 2"), std::string::npos);
  write_file(path, "*NODE\n1, 0, 0\n*NSET, NSET=A, GENERATE\n 1, 5, 0\n");
  EXPECT_EQ(expect_read_error([&] { abaqus::read(path); }).line(), 4u);
  write_file(path, "*INCLUDE, INPUT=structure.inp\n");
  EXPECT_NE(expect_read_error([&] { abaqus::read(path); }).reason().find("loop"), std::string::npos);
  write_file(path, "** the include is named here\n*INCLUDE, INPUT=nowhere.inp\n");
  const ReadError missing = expect_read_error([&] { abaqus::read(path); });
  EXPECT_EQ(missing.path(), path);
  EXPECT_EQ(missing.line(), 2u);
  EXPECT_NE(missing.reason().find("nowhere.inp"), std::string::npos);
  EXPECT_THROW(abaqus::read(dir.file("absent.inp")), ReadError);
}

// ---- hostile input (issue 18; the same bytes are in tests/data/fuzz-regressions/abaqus/) ----

// A part that instances itself recursed parse -> begin_instance -> read_part_body until the
// stack overflowed (SIGSEGV). Loops among parts, instances and includes are ReadErrors.
TEST(AbaqusHostile, PartInstancingItselfIsALoop) {
  const ScratchDir dir;
  const std::string path = dir.write("loop.inp", "*Part, name=P\n*Instance, name=I, part=P\n*End Part\n");
  const ReadError error = expect_read_error([&] { abaqus::read(path); });
  EXPECT_EQ(error.path(), path);
  EXPECT_EQ(error.line(), std::optional<std::uint64_t>(2));
  EXPECT_NE(error.reason().find("loop"), std::string::npos) << error.what();
  EXPECT_NE(error.reason().find("P -> P"), std::string::npos) << error.what();
}

TEST(AbaqusHostile, PartsInstancingEachOtherAreALoop) {
  const ScratchDir dir;
  const std::string path = dir.write("loop2.inp",
                                     "*Part, name=A\n*Instance, name=IB, part=B\n*End Instance\n*End Part\n"
                                     "*Part, name=B\n*Instance, name=IA, part=A\n*End Instance\n*End Part\n");
  const ReadError error = expect_read_error([&] { abaqus::read(path); });
  EXPECT_NE(error.reason().find("loop"), std::string::npos) << error.what();
}

TEST(AbaqusHostile, FileIncludingItselfIsALoop) {
  const ScratchDir dir;
  const std::string path = dir.write("self.inp", "*Node\n1, 0, 0, 0\n*Include, input=self.inp\n");
  const ReadError error = expect_read_error([&] { abaqus::read(path); });
  EXPECT_EQ(error.path(), path);
  EXPECT_EQ(error.line(), std::optional<std::uint64_t>(3));
  EXPECT_NE(error.reason().find("loop"), std::string::npos) << error.what();
}

TEST(AbaqusHostile, FilesIncludingEachOtherAreALoop) {
  const ScratchDir dir;
  const std::string a = dir.write("a.inp", "*Node\n1, 0, 0, 0\n*Include, input=b.inp\n");
  const std::string b = dir.write("b.inp", "*Node\n2, 1, 0, 0\n*Include, input=a.inp\n");
  const ReadError error = expect_read_error([&] { abaqus::read(a); });
  EXPECT_EQ(error.path(), b);  // where the include closing the loop stands
  EXPECT_NE(error.reason().find("loop"), std::string::npos) << error.what();
}

// A chain of distinct files is no loop, but nesting is bounded all the same.
TEST(AbaqusHostile, DeepIncludeChainsEndInAReadError) {
  const ScratchDir dir;
  constexpr int kFiles = 40;
  for (int i = 0; i < kFiles; ++i)
    dir.write("chain" + std::to_string(i) + ".inp",
              "*Node\n" + std::to_string(i + 1) + ", 0, 0, 0\n" +
                  (i + 1 < kFiles ? "*Include, input=chain" + std::to_string(i + 1) + ".inp\n" : std::string()));
  const ReadError error = expect_read_error([&] { abaqus::read(dir.file("chain0.inp")); });
  EXPECT_NE(error.reason().find("nest deeper"), std::string::npos) << error.what();
  // A short chain reads.
  dir.write("short0.inp", "*Node\n1, 0, 0, 0\n*Include, input=short1.inp\n");
  dir.write("short1.inp", "*Node\n2, 1, 0, 0\n");
  EXPECT_EQ(abaqus::read(dir.file("short0.inp")).num_points(), 2);
}

// A part instanced twice is no loop.
TEST(AbaqusHostile, PartInstancedTwiceIsNoLoop) {
  const ScratchDir dir;
  const std::string path = dir.write("twice.inp",
                                     "*Part, name=P\n*Node\n1, 0, 0, 0\n*End Part\n*Assembly, name=A\n"
                                     "*Instance, name=I1, part=P\n*End Instance\n*Instance, name=I2, part=P\n1, 0, 0\n"
                                     "*End Instance\n*End Assembly\n");
  EXPECT_EQ(abaqus::read(path).num_points(), 2);
}

TEST(AbaqusHostile, EmptyFileIsAReadError) {
  const ScratchDir dir;
  const std::string path = dir.write("empty.inp", "");
  const ReadError error = expect_read_error([&] { abaqus::read(path); });
  EXPECT_NE(error.reason().find("empty"), std::string::npos) << error.what();
}
