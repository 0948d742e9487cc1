// Netgen reader and writer: files as Netgen and meshio write them (2-D and 3-D, split
// edge records, names, identifications), every element type round-tripped (also gzip),
// malformed input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "formats/netgen/netgen.hpp"
#include "io/codecs/zlib_codec.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::vector<std::int64_t> values(const NDArray& array) {
  const auto v = array.values<std::int64_t>();
  return {v.begin(), v.end()};
}

std::vector<std::int64_t> row(const CellBlock& block, std::int64_t cell) {
  const std::int64_t n = block.connectivity.row_width();
  const std::int64_t* data = block.connectivity.data_as<std::int64_t>() + cell * n;
  return {data, data + n};
}

// A 3-D file as Netgen's Mesh::Save writes it.
const char* const kNetgen3d =
    "mesh3d\n"
    "dimension\n"
    "3\n"
    "geomtype\n"
    "11\n"
    "\n"
    "# surfnr    bcnr   domin  domout      np      p1      p2      p3\n"
    "surfaceelements\n"
    "2\n"
    "       1       1       1       0       3       1       3       2\n"
    "       2       2       1       0       3       1       2       4\n"
    "\n"
    "#  matnr      np      p1      p2      p3      p4\n"
    "volumeelements\n"
    "2\n"
    "       1       4       1       2       3       4\n"
    "       2       5       1       2       3       4       5\n"
    "\n"
    "# surfid  0   p1   p2   trignum1    trignum2   domin/surfnr1    domout/surfnr2   ednr1   dist1   ednr2   dist2\n"
    "edgesegmentsgi2\n"
    "1\n"
    "       1       0       1       2      -1      -1       1       0       1       0.0       1       1.0\n"
    "\n"
    "#          X             Y             Z\n"
    "points\n"
    "5\n"
    "  0.000000000000000  0.000000000000000  0.000000000000000\n"
    "  1.000000000000000  0.000000000000000  0.000000000000000\n"
    "  0.000000000000000  1.000000000000000  0.000000000000000\n"
    "  0.000000000000000  0.000000000000000  1.000000000000000\n"
    "  1.000000000000000  1.000000000000000  1.000000000000000\n"
    "\n"
    "materials\n"
    "2\n"
    "1 steel\n"
    "2 \n"
    "\n"
    "bcnames\n"
    "2\n"
    "1 wall\n"
    "2 wall\n"
    "\n"
    "face_colours\n"
    "1\n"
    "1 0.0 1.0 0.0\n"
    "\n"
    "identifications\n"
    "1\n"
    "1 2 1\n"
    "identificationtypes\n"
    "1\n"
    "2\n"
    "\n"
    "endmesh\n"
    "\n"
    "geometry\n"
    "anything after endmesh is not read\n";

// A 2-D file with the old split edge records ("surf1 surf2 p1 p2" header).
const char* const kNetgen2d =
    "mesh3d\n"
    "dimension\n"
    "2\n"
    "geomtype\n"
    "0\n"
    "surfaceelements\n"
    "1\n"
    "1 1 0 0 4 1 2 3 4\n"
    "surf1 surf2 p1 p2\n"
    "edgesegmentsgi2\n"
    "2\n"
    "1 0 1 2 -1 -1 0 0 1 0 1 0\n"
    "  0 0 0 0\n"
    "2 0 2 3 -1 -1 0 0 1 0 1 0\n"
    "  0 0 0 0\n"
    "points\n"
    "4\n"
    "0 0 0\n"
    "1 0 0\n"
    "1 1 0\n"
    "0 1 0\n"
    "materials\n"
    "1\n"
    "1 plate\n"
    "bcnames\n"
    "2\n"
    "1 bottom\n"
    "2 right\n"
    "endmesh\n";

}  // namespace

TEST(NetgenRead, VolumeMeshAsNetgenWritesIt) {
  const Mesh mesh = netgen::read(write_scratch("n3.vol", kNetgen3d));
  EXPECT_EQ(mesh.points.shape(), (Shape{5, 3}));
  EXPECT_EQ(block_summary(mesh), "triangle:2;tetra:1;pyramid:1;line:1");
  EXPECT_EQ(row(mesh.cells[0], 0), (std::vector<std::int64_t>{0, 2, 1}));
  EXPECT_EQ(row(mesh.cells[1], 0), (std::vector<std::int64_t>{0, 2, 1, 3}));      // meshio's tetra order
  EXPECT_EQ(row(mesh.cells[2], 0), (std::vector<std::int64_t>{0, 3, 2, 1, 4}));   // and pyramid order
  const auto* index = mesh.cell_data.find("netgen:index");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(values((*index)[0]), (std::vector<std::int64_t>{1, 2}));  // bcnr
  EXPECT_EQ(values((*index)[2]), (std::vector<std::int64_t>{2}));     // matnr
  EXPECT_EQ(values(*mesh.field_data.find("steel")), (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(values(*mesh.field_data.find("wall")), (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(values(*mesh.field_data.find("netgen:identifications")), (std::vector<std::int64_t>{1, 2, 1}));
  EXPECT_EQ(mesh.field_data.find("netgen:identificationtypes")->shape(), (Shape{1, 1}));
  ASSERT_NE(find_region(mesh, "steel"), nullptr);
  EXPECT_EQ(values(find_region(mesh, "steel")->entries), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(find_region(mesh, "steel")->dim, 3);
  // Two boundary numbers share the name "wall": one region, no single tag.
  EXPECT_EQ(values(find_region(mesh, "wall")->entries), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(find_region(mesh, "wall")->tag, -1);
}

TEST(NetgenRead, PlanarMeshWithSplitEdgeRecords) {
  const Mesh mesh = netgen::read(write_scratch("n2.vol", kNetgen2d));
  EXPECT_EQ(mesh.points.shape(), (Shape{4, 2}));
  EXPECT_EQ(block_summary(mesh), "quad:1;line:2");
  EXPECT_EQ(row(mesh.cells[1], 1), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(values(find_region(mesh, "right")->entries), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(find_region(mesh, "plate")->dim, 2);
  EXPECT_EQ(find_region(mesh, "plate")->tag, 1);
}

TEST(NetgenRoundTrip, EveryElementTypeWithIndicesNamesAndGzip) {
  const std::vector<std::string> types = {"vertex",  "line",    "triangle",  "triangle6", "quad",       "quad8",
                                          "tetra",   "tetra10", "pyramid",   "pyramid13", "wedge",      "wedge15",
                                          "hexahedron", "hexahedron20"};
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {21, 3});
  double* xyz = mesh.points.data_as<double>();
  for (int i = 0; i < 63; ++i) xyz[i] = (i % 5 == 0 ? 1.0 / 7 : 0.3 * i) * (i % 2 ? -1 : 1) + (i == 4 ? 5e-324 : 0);
  std::vector<NDArray> index;
  for (const std::string& type : types) {
    const int n = cell_type(type).num_nodes;
    std::vector<std::int64_t> nodes;
    for (int c = 0; c < 2; ++c)
      for (int k = 0; k < n; ++k) nodes.push_back((k * 3 + c * 5 + n) % 21);
    mesh.cells.push_back({type, int64_matrix(2, n, nodes), {}, {}});
    index.push_back(int64_vector({1, 2}));
  }
  mesh.cell_data.set("netgen:index", index);
  NDArray steel = int64_vector({2, 3});
  mesh.field_data.set("steel", steel);
  for (const std::string name : {"round.vol", "round.vol.gz"}) {
    const std::string path = scratch(name).string();
    netgen::write(path, mesh, {});
    EXPECT_EQ(io::is_gzip(read_file(path)), name.ends_with(".gz"));
    const Mesh back = netgen::read(path);
    EXPECT_TRUE(same_bits(back.points, mesh.points)) << name;
    // The writer groups by dimension (surface, volume, edge, point sections): compare by type.
    ASSERT_EQ(back.cells.size(), mesh.cells.size());
    for (const CellBlock& block : mesh.cells) {
      const auto found = std::find_if(back.cells.begin(), back.cells.end(), [&](const CellBlock& b) { return b.type == block.type; });
      ASSERT_NE(found, back.cells.end()) << block.type;
      EXPECT_TRUE(same_bits(found->connectivity, block.connectivity)) << block.type;
      EXPECT_EQ(values((*back.cell_data.find("netgen:index"))[found - back.cells.begin()]), (std::vector<std::int64_t>{1, 2}));
    }
    EXPECT_EQ(values(*back.field_data.find("steel")), (std::vector<std::int64_t>{2, 3}));
    // Unnamed surface indices get meshio's default names.
    EXPECT_NE(back.field_data.find("cd1_2"), nullptr);
    ASSERT_NE(find_region(back, "steel"), nullptr);
    EXPECT_EQ(find_region(back, "steel")->entries.size(), 8u);  // the second cell of each volume block
  }
}

TEST(NetgenWrite, TwoDimensionalPointsNamesFromRegionsAndRefusals) {
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {3, 2});
  std::fill_n(mesh.points.data_as<double>(), 6, 0.25);
  mesh.cells.push_back({"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  mesh.cell_data.set("gmsh:physical", {int64_vector({4})});
  mesh.regions.push_back(cell_region("my plate", 2, 4, {0}));
  const std::string path = scratch("flat.vol").string();
  netgen::write(path, mesh, {});
  const std::string text = read_file(path);
  EXPECT_NE(text.find("dimension\n2\n"), std::string::npos);
  EXPECT_NE(text.find("surfaceelements\n1\n1 4 0 0 3 1 2 3\n"), std::string::npos);
  EXPECT_NE(text.find("materials\n4\n1 \n2 \n3 \n4 my_plate\n"), std::string::npos);
  const Mesh back = netgen::read(path);
  EXPECT_EQ(back.points.shape(), (Shape{3, 2}));
  EXPECT_EQ(values(find_region(back, "my_plate")->entries), (std::vector<std::int64_t>{0}));
  mesh.cells.push_back({"line3", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  mesh.cell_data = {};
  EXPECT_THROW(netgen::write(path, mesh, {}), std::invalid_argument);
}

TEST(NetgenBadInput, NotNetgen) {
  const ReadError error = expect_read_error([] { netgen::read(write_scratch("x.vol", "\n# c\nmesh2d\n")); });
  EXPECT_NE(error.reason().find("mesh3d"), std::string::npos);
  EXPECT_EQ(error.line(), 3u);
}

TEST(NetgenBadInput, UnknownSectionBadNumberAndNodeOutOfRange) {
  ReadError error = expect_read_error([] { netgen::read(write_scratch("a.vol", "mesh3d\ndimension\n3\nsurprise\n")); });
  EXPECT_NE(error.reason().find("unknown Netgen section 'surprise'"), std::string::npos);
  EXPECT_EQ(error.byte_offset(), 19u);
  EXPECT_EQ(error.line(), 4u);
  error = expect_read_error([] { netgen::read(write_scratch("b.vol", "mesh3d\npoints\n1\n0 0 zero\n")); });
  EXPECT_NE(error.reason().find("invalid number 'zero'"), std::string::npos);
  EXPECT_EQ(error.line(), 4u);
  error = expect_read_error(
      [] { netgen::read(write_scratch("c.vol", "mesh3d\nvolumeelements\n1\n1 4 1 2 3 9\npoints\n1\n0 0 0\n")); });
  EXPECT_NE(error.reason().find("node 2 is outside the points [1, 1]"), std::string::npos);
  EXPECT_EQ(error.line(), 4u);
}

TEST(NetgenBadInput, WrongCountsAndElementSizes) {
  ReadError error = expect_read_error([] { netgen::read(write_scratch("a.vol", "mesh3d\npoints\n3\n0 0 0\n")); });
  EXPECT_NE(error.reason().find("more than the rest of the file can hold"), std::string::npos);
  error = expect_read_error([] { netgen::read(write_scratch("b.vol", "mesh3d\npoints\n2\n0 0 0\n1 1 1\n0 0 0\n")); });
  EXPECT_NE(error.reason().find("unknown Netgen section '0 0 0'"), std::string::npos);
  error = expect_read_error([] { netgen::read(write_scratch("c.vol", "mesh3d\nsurfaceelements\n1\n1 1 0 0 7 1 2 3 4 5 6 7\n")); });
  EXPECT_NE(error.reason().find("7 nodes"), std::string::npos);
  error = expect_read_error([] { netgen::read(write_scratch("d.vol", "mesh3d\nvolumeelements\n2\n1 4 1 2 3 4\n")); });
  EXPECT_NE(error.reason().find("unexpected end of file"), std::string::npos);
  error = expect_read_error([] { netgen::read(write_scratch("e.vol", "mesh3d\npoints\n1\n0 0 0 0\n")); });
  EXPECT_NE(error.reason().find("unexpected value after the point record"), std::string::npos);
}

TEST(NetgenBadInput, GzipThatIsNotAGzipStream) {
  const ReadError error = expect_read_error([] { netgen::read(write_scratch("x.vol.gz", std::string("\x1f\x8b\x08\x00garbage", 11))); });
  EXPECT_NE(error.reason().find("gzip"), std::string::npos);
}

// ---- hostile input and output (issue 18; tests/data/fuzz-regressions/netgen/) ----

#include "io/output/atomic_file.hpp"
#include "meshioplusplus/limits.hpp"
#include "meshioplusplus/registry.hpp"

namespace {

// A gzip file of `header` followed by `padding` blank bytes: a few KiB that inflate to MiBs.
std::string write_gzip_bomb(const std::string& name, const std::string& header, std::size_t padding) {
  const std::string path = scratch(name).string();
  io::AtomicFile file(path, "test");
  {
    io::GzipWriter gzip(file, 9);
    gzip.write(header);
    const std::string blanks(1 << 16, ' ');
    for (std::size_t written = 0; written < padding; written += blanks.size()) gzip.write(blanks);
    gzip.finish();
  }
  file.commit();
  return path;
}

}  // namespace

// .vol.gz was inflated whole before anything was checked: a 1 MB bomb took 1 GB, a 5 MB one
// ended in std::bad_alloc without a file name. Inflating stops at the read limit.
TEST(NetgenHostile, GzipBombStopsAtTheReadLimit) {
  if (!io::zlib_available()) GTEST_SKIP() << "this build has no zlib";
  const std::string path = write_gzip_bomb("bomb.vol.gz", "mesh3d\n", std::size_t{8} << 20);
  EXPECT_LT(read_file(path).size(), std::size_t{64} << 10);
  const std::uint64_t saved = max_array_bytes();
  set_max_array_bytes(std::uint64_t{1} << 20);
  const ReadError error = expect_read_error([&] { netgen::read(path); });
  set_max_array_bytes(saved);
  EXPECT_EQ(error.path(), path);
  EXPECT_NE(error.reason().find("inflates to more than the read limit of 1048576 bytes"), std::string::npos)
      << error.what();
}

// One triangle with boundary index 10^7 wrote one bcnames line per index up to it (89 MB);
// 2^31 gave 24.6 GB. Generated default names for such sparse indices are left out.
TEST(NetgenHostile, SparseHugeIndicesWriteACompactFile) {
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {3, 3});
  std::fill_n(mesh.points.data_as<double>(), 9, 0.5);
  mesh.cells.push_back({"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  for (const std::int64_t index : {std::int64_t{10000000}, std::int64_t{1} << 31}) {
    mesh.cell_data.set("netgen:index", {int64_vector({index})});
    const std::string path = scratch("sparse.vol").string();
    netgen::write(path, mesh, {});
    const std::string text = read_file(path);
    EXPECT_LT(text.size(), 4096u);
    EXPECT_EQ(text.find("bcnames"), std::string::npos);
    const Mesh back = netgen::read(path);
    EXPECT_EQ(values((*back.cell_data.find("netgen:index"))[0]), (std::vector<std::int64_t>{index}));
  }
  // A real name at such an index cannot be written densely: a WriteError, not 24 GB.
  mesh.field_data.set("wall", int64_vector({std::int64_t{1} << 31, 2}));
  const std::string path = scratch("named.vol").string();
  try {
    meshioplusplus::write(path, mesh, "netgen");
    ADD_FAILURE() << "no WriteError";
  } catch (const WriteError& error) {
    EXPECT_NE(std::string(error.what()).find("dense table"), std::string::npos) << error.what();
  }
  // Compact indices keep the dense table Netgen and meshio write.
  mesh.field_data = {};
  mesh.cell_data.set("netgen:index", {int64_vector({3})});
  const std::string dense = scratch("dense.vol").string();
  netgen::write(dense, mesh, {});
  EXPECT_NE(read_file(dense).find("bcnames\n3\n1 \n2 \n3 cd1_3\n"), std::string::npos) << read_file(dense);
}
