// Gmsh MSH: the corpus against meshio's expectations, round trips of every element type
// through 2.2/4.0/4.1 × ASCII/binary, hand-written files for the corners of the format, and
// ReadErrors with locations for broken input.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "formats/gmsh/gmsh.hpp"
#include "formats/gmsh/gmsh_element_types.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/side_regions.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;
namespace fs = std::filesystem;

using namespace meshioplusplus::testing_support;

namespace {

// ---- helpers ---------------------------------------------------------------------------

// Builds binary MSH content: text and host-order raw values.
struct Bytes {
  std::string data;
  Bytes& text(std::string_view t) {
    data.append(t);
    return *this;
  }
  template <class T> Bytes& raw(T value) {
    data.append(reinterpret_cast<const char*>(&value), sizeof value);
    return *this;
  }
};

template <class T> std::vector<T> values(const mpp::NDArray& array) {
  const auto span = array.values<T>();
  return {span.begin(), span.end()};
}

// An integer array of any dtype as int64 values (tags are int32 from 2.x, int64 from 4.x).
std::vector<std::int64_t> integers(const mpp::NDArray& array) {
  std::vector<std::int64_t> out;
  mpp::visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    for (const T value : array.values<T>()) out.push_back(static_cast<std::int64_t>(value));
  });
  return out;
}

// Per-block arrays joined in block order.
std::vector<std::int64_t> joined_integers(const std::vector<mpp::NDArray>& arrays) {
  std::vector<std::int64_t> out;
  for (const mpp::NDArray& array : arrays) {
    const std::vector<std::int64_t> part = integers(array);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

// The cells in block-major order, consecutive blocks of one type joined: what stays the same
// when only the cuts between blocks differ (2.x and 4.x files of one model).
std::vector<std::pair<std::string, std::vector<std::int64_t>>> cells_in_order(const mpp::Mesh& mesh) {
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> runs;
  for (const mpp::CellBlock& block : mesh.cells) {
    if (runs.empty() || runs.back().first != block.type) runs.emplace_back(block.type, std::vector<std::int64_t>{});
    const std::vector<std::int64_t> nodes = values<std::int64_t>(block.connectivity);
    runs.back().second.insert(runs.back().second.end(), nodes.begin(), nodes.end());
  }
  return runs;
}

std::vector<std::pair<std::string, std::int64_t>> block_list(const mpp::Mesh& mesh) {
  std::vector<std::pair<std::string, std::int64_t>> blocks;
  for (const mpp::CellBlock& block : mesh.cells) blocks.emplace_back(block.type, block.num_cells());
  return blocks;
}

const mpp::Region* find_region(const mpp::Mesh& mesh, const std::string& name) {
  for (const mpp::Region& region : mesh.regions)
    if (region.name == name) return &region;
  return nullptr;
}

std::map<std::string, std::int64_t> cells_per_type(const mpp::Mesh& mesh) {
  std::map<std::string, std::int64_t> counts;
  for (const mpp::CellBlock& block : mesh.cells) counts[block.type] += block.num_cells();
  return counts;
}

bool bit_equal(const mpp::NDArray& a, const mpp::NDArray& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

mpp::WriteOptions options(const std::string& version, bool binary) {
  mpp::WriteOptions o;
  o.set("fmt_version", version);
  o.set("binary", binary ? "true" : "false");
  return o;
}

const std::vector<std::tuple<std::string, bool>> kVariants{{"2.2", false}, {"2.2", true}, {"4.0", false},
                                                           {"4.0", true},  {"4.1", false}, {"4.1", true}};

std::string variant_name(const std::string& version, bool binary) {
  return version + (binary ? " binary" : " ascii");
}

// ---- corpus ----------------------------------------------------------------------------

struct Expected {
  std::int64_t num_points = 0;
  std::vector<std::pair<std::string, std::int64_t>> blocks;  // meshio's blocks, in order
  std::vector<std::string> field_names;
  double sum_points = 0;
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.emplace_back();
  return parts;
}

std::map<std::string, Expected> expected_meshio() {
  std::map<std::string, Expected> table;
  std::ifstream in(kCorpusDir / "EXPECTED_meshio.tsv");
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    const std::vector<std::string> f = split(line, '\t');
    if (f.size() < 11 || f[1] != "yes") continue;
    Expected e;
    e.num_points = std::stoll(f[2]);
    for (const std::string& block : split(f[4], ';')) {
      const std::size_t colon = block.find(':');
      if (colon != std::string::npos) e.blocks.emplace_back(block.substr(0, colon), std::stoll(block.substr(colon + 1)));
    }
    for (const std::string& name : split(f[7], ','))
      if (!name.empty()) e.field_names.push_back(name);
    e.sum_points = std::stod(f[10]);
    table[f[0]] = e;
  }
  return table;
}

// Group sizes as Gmsh's own API reports them (gmsh.model.getEntitiesForPhysicalGroup and
// the elements of those entities), collected once with the Python gmsh module.
const std::map<std::string, std::map<std::string, std::int64_t>> kGroupSizes{
    {"insulated-2.2.msh", {{"convection", 21}, {"wire", 45}, {"insulation", 66}}},
    {"insulated-4.1.msh", {{"convection", 21}, {"wire", 45}, {"insulation", 66}}},
    {"insulated-2.2-ascii.msh", {{"convection", 21}, {"wire", 57}, {"insulation", 66}}},
    {"insulated-2.2-binary.msh", {{"convection", 21}, {"wire", 57}, {"insulation", 66}}},
    {"insulated-4.1-ascii.msh", {{"convection", 21}, {"wire", 57}, {"insulation", 66}}},
    {"insulated-4.1-binary.msh", {{"convection", 21}, {"wire", 57}, {"insulation", 66}}},
    {"mixedtriquad.msh", {{"boundary", 22}, {"domain", 52}}},
    {"beams.msh", {{"fixed", 8}, {"all", 851}}},
};

std::vector<fs::path> corpus_files() {
  std::vector<fs::path> files;
  for (const char* folder : {"gmsh", "gmsh_generated"}) {
    if (!fs::is_directory(kCorpusDir / folder)) continue;
    for (const auto& entry : fs::directory_iterator(kCorpusDir / folder))
      if (entry.path().extension() == ".msh") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Every physical group's cells: the right count, valid indices of cells of the group's
// dimension, each carrying the group's tag in gmsh:physical.
void check_cell_region(const mpp::Mesh& mesh, const mpp::Region& region, std::int64_t expected_count) {
  SCOPED_TRACE(region.name);
  ASSERT_EQ(region.kind, mpp::RegionKind::Cell);
  EXPECT_EQ(region.entries.rows(), expected_count);
  const std::vector<std::int64_t> bases = values<std::int64_t>(mpp::block_bases(mesh.cells));
  const std::vector<mpp::NDArray>* physical = mesh.cell_data.find("gmsh:physical");
  ASSERT_NE(physical, nullptr);
  for (const std::int64_t cell : region.entries.values<std::int64_t>()) {
    const auto block = static_cast<std::size_t>(std::upper_bound(bases.begin(), bases.end(), cell) - bases.begin() - 1);
    ASSERT_LT(block, mesh.cells.size());
    EXPECT_EQ(mpp::cell_type(mesh.cells[block].type).dimension, region.dim);
    EXPECT_EQ(integers((*physical)[block])[static_cast<std::size_t>(cell - bases[block])], region.tag);
  }
}

TEST(GmshCorpus, EveryFileMatchesMeshioExpectations) {
  const std::vector<fs::path> files = corpus_files();
  if (files.empty()) GTEST_SKIP() << "corpus not found at " << kCorpusDir;
  const std::map<std::string, Expected> table = expected_meshio();
  for (const fs::path& file : files) {
    const std::string key = file.parent_path().filename().string() + "/" + file.filename().string();
    SCOPED_TRACE(key);
    ASSERT_TRUE(table.count(key)) << "no meshio expectation";
    const Expected& expected = table.at(key);
    const mpp::Mesh mesh = mpp::read(file.string());
    EXPECT_EQ(mesh.num_points(), expected.num_points);
    EXPECT_EQ(mesh.points.dim(1), 3);
    EXPECT_EQ(block_list(mesh), expected.blocks);  // meshio's cuts: per entity (4.x), per type run (2.x)
    double sum = 0;
    for (const double v : mesh.points.values<double>()) sum += v;
    EXPECT_NEAR(sum, expected.sum_points, 1e-8 * std::max(1.0, std::abs(expected.sum_points)));
    EXPECT_NO_THROW(mpp::validate(mesh));
    for (const auto& [name, arrays] : mesh.cell_data) EXPECT_EQ(arrays.size(), mesh.cells.size()) << name;
    EXPECT_TRUE(mesh.cell_data.contains("gmsh:geometrical"));
    for (const std::string& name : expected.field_names) {
      SCOPED_TRACE(name);
      ASSERT_TRUE(mesh.field_data.contains(name));
      const mpp::Region* region = find_region(mesh, name);
      ASSERT_NE(region, nullptr) << "physical group without a region";
      const mpp::NDArray& field = *mesh.field_data.find(name);
      EXPECT_EQ(field.dtype(), mpp::DType::int64);  // meshio's [tag, dim]
      const std::vector<std::int64_t> tag_dim = integers(field);
      EXPECT_EQ(region->tag, tag_dim[0]);
      EXPECT_EQ(region->dim, tag_dim[1]);
    }
    EXPECT_EQ(mesh.regions.size(), expected.field_names.size());
    if (const auto sizes = kGroupSizes.find(file.filename().string()); sizes != kGroupSizes.end())
      for (const auto& [name, count] : sizes->second) {
        const mpp::Region* region = find_region(mesh, name);
        ASSERT_NE(region, nullptr) << name;
        check_cell_region(mesh, *region, count);
      }
  }
}

TEST(GmshCorpus, FourEncodingsOfOneModelAgree) {
  const fs::path folder = kCorpusDir / "gmsh_generated";
  if (!fs::is_directory(folder)) GTEST_SKIP() << "corpus not found";
  const mpp::Mesh reference = mpp::read((folder / "insulated-4.1-binary.msh").string());
  for (const char* name : {"insulated-2.2-ascii.msh", "insulated-2.2-binary.msh", "insulated-4.1-ascii.msh"}) {
    SCOPED_TRACE(name);
    const mpp::Mesh mesh = mpp::read((folder / name).string());
    // 2.2 files come in one block per type run, 4.1 in one per entity: the cells agree.
    EXPECT_EQ(cells_in_order(mesh), cells_in_order(reference));
    // Binary files hold the same doubles; Gmsh's ASCII (%.16g) may be one digit short.
    if (std::string(name).find("binary") != std::string::npos) {
      EXPECT_TRUE(bit_equal(mesh.points, reference.points));
    } else {
      for (std::size_t i = 0; i < mesh.points.size(); ++i)
        EXPECT_NEAR(mesh.points.data_as<double>()[i], reference.points.data_as<double>()[i], 1e-15);
    }
    ASSERT_EQ(mesh.regions.size(), reference.regions.size());
    for (std::size_t r = 0; r < mesh.regions.size(); ++r)
      EXPECT_EQ(values<std::int64_t>(mesh.regions[r].entries), values<std::int64_t>(reference.regions[r].entries));
  }
}

TEST(GmshCorpus, SparseTagsAndSecondOrderTetraFromScikitFem) {
  const fs::path file = kCorpusDir / "gmsh" / "quadratic_sphere_tet.msh";
  if (!fs::exists(file)) GTEST_SKIP() << "corpus not found";
  const mpp::Mesh mesh = mpp::read(file.string());  // node tags run to 2456 for 1310 nodes
  EXPECT_EQ(mesh.num_points(), 1310);
  EXPECT_FALSE(mesh.cell_data.contains("gmsh:physical"));  // no entity has a physical tag
  EXPECT_TRUE(mesh.point_data.contains("gmsh:dim_tags"));
  EXPECT_EQ(mesh.point_data.find("gmsh:dim_tags")->shape(), (mpp::Shape{1310, 2}));
}

TEST(GmshCorpus, BoundaryGroupBecomesSideRegion) {
  const fs::path file = kCorpusDir / "gmsh" / "beams.msh";
  if (!fs::exists(file)) GTEST_SKIP() << "corpus not found";
  mpp::Mesh mesh = mpp::read(file.string());
  const mpp::SideRegionReport report = mpp::derive_side_regions(mesh);
  ASSERT_EQ(report.region_names, std::vector<std::string>{"fixed"});
  EXPECT_EQ(report.unmatched_counts, std::vector<std::int64_t>{0});
  const mpp::Region& side = mesh.regions.back();
  EXPECT_EQ(side.kind, mpp::RegionKind::Side);
  EXPECT_EQ(side.entries.rows(), 8);  // boundary triangles: one tetrahedron each
}

// ---- round trips -------------------------------------------------------------------------

// One block per Gmsh-storable type, two cells each, awkward coordinates, a region per block
// (a Point region for the vertex block), point and cell data.
mpp::Mesh every_type_mesh() {
  std::vector<const mpp::CellTypeInfo*> types;
  for (const mpp::CellTypeInfo& info : mpp::cell_types())
    if (mpp::gmsh::element_type_from_name(info.name) != nullptr) types.push_back(&info);
  std::int64_t num_points = 0;
  for (const mpp::CellTypeInfo* info : types) num_points += info->num_nodes + 1;
  mpp::Mesh mesh;
  mesh.points = mpp::NDArray::allocate(mpp::DType::float64, {num_points, 3});
  double* xyz = mesh.points.data_as<double>();
  for (std::int64_t i = 0; i < num_points; ++i) {
    xyz[3 * i] = 0.1 * static_cast<double>(i) + 1e-7 / 3;
    xyz[3 * i + 1] = -static_cast<double>(i) / 7.0;
    xyz[3 * i + 2] = std::ldexp(1.0 + 1.0 / 3.0, -static_cast<int>(i % 1000));  // down to subnormal range
  }
  std::int64_t next_point = 0;
  for (std::size_t b = 0; b < types.size(); ++b) {
    const std::int64_t k = types[b]->num_nodes;
    std::vector<std::int64_t> nodes;
    for (std::int64_t j = 0; j < k; ++j) nodes.push_back(next_point + j);          // cell 0
    for (std::int64_t j = 0; j < k; ++j) nodes.push_back(next_point + k - j);      // cell 1, reversed, shifted
    next_point += k + 1;
    mpp::CellBlock block;
    block.type = types[b]->name;
    block.connectivity = int64_matrix(2, k, nodes);
    mesh.cells.push_back(block);
  }
  const std::vector<std::int64_t> bases = values<std::int64_t>(mpp::block_bases(mesh.cells));
  for (std::size_t b = 0; b < types.size(); ++b) {
    mpp::Region region;
    region.name = "group of " + std::string(types[b]->name);
    region.dim = types[b]->dimension;
    region.tag = 10 + static_cast<std::int64_t>(b);
    if (types[b]->dimension == 0) {
      region.kind = mpp::RegionKind::Point;
      region.entries = int64_vector(values<std::int64_t>(mesh.cells[b].connectivity));
      std::sort(region.entries.data_as<std::int64_t>(), region.entries.data_as<std::int64_t>() + 2);
    } else {
      region.kind = mpp::RegionKind::Cell;
      region.entries = int64_vector({bases[b], bases[b] + 1});
    }
    mesh.regions.push_back(region);
  }
  mpp::NDArray temperature = mpp::NDArray::allocate(mpp::DType::float64, {num_points});
  mpp::NDArray velocity = mpp::NDArray::allocate(mpp::DType::float64, {num_points, 3});
  for (std::int64_t i = 0; i < num_points; ++i) {
    temperature.data_as<double>()[i] = std::sqrt(static_cast<double>(i) + 0.5);
    for (int a = 0; a < 3; ++a) velocity.data_as<double>()[3 * i + a] = -1e300 / (static_cast<double>(i) + a + 1);
  }
  mesh.point_data.set("temperature", temperature);
  mesh.point_data.set("velocity", velocity);
  std::vector<mpp::NDArray> pressure;
  for (std::size_t b = 0; b < types.size(); ++b) {
    mpp::NDArray p = mpp::NDArray::allocate(mpp::DType::float64, {2});
    p.data_as<double>()[0] = 1.0 / (3.0 + static_cast<double>(b));
    p.data_as<double>()[1] = -0.0;
    pressure.push_back(p);
  }
  mesh.cell_data.set("pressure", pressure);
  return mesh;
}

void expect_same_regions(std::vector<mpp::Region> expected, const std::vector<mpp::Region>& actual) {
  std::sort(expected.begin(), expected.end(), [](const mpp::Region& a, const mpp::Region& b) {
    return std::tie(a.dim, a.tag) < std::tie(b.dim, b.tag);
  });
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t r = 0; r < expected.size(); ++r) {
    SCOPED_TRACE(expected[r].name);
    EXPECT_EQ(actual[r].name, expected[r].name);
    EXPECT_EQ(actual[r].kind, expected[r].kind);
    EXPECT_EQ(actual[r].dim, expected[r].dim);
    EXPECT_EQ(actual[r].tag, expected[r].tag);
    EXPECT_EQ(values<std::int64_t>(actual[r].entries), values<std::int64_t>(expected[r].entries));
  }
}

TEST(GmshRoundTrip, EveryElementTypeThroughAllFourEncodings) {
  const mpp::Mesh mesh = every_type_mesh();
  ASSERT_GE(mesh.cells.size(), 60u);  // every meshio type Gmsh has an id for
  ScratchDir dir;
  for (const auto& [version, binary] : kVariants) {
    SCOPED_TRACE(variant_name(version, binary));
    const std::string path = dir.file("all.msh");
    mpp::write(path, mesh, "", options(version, binary));
    const mpp::Mesh back = mpp::read(path);
    EXPECT_TRUE(bit_equal(back.points, mesh.points)) << "points must be bit-exact";
    ASSERT_EQ(back.cells.size(), mesh.cells.size());
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
      EXPECT_EQ(back.cells[b].type, mesh.cells[b].type);
      EXPECT_TRUE(bit_equal(back.cells[b].connectivity, mesh.cells[b].connectivity)) << mesh.cells[b].type;
    }
    expect_same_regions(mesh.regions, back.regions);
    const std::vector<mpp::NDArray>& physical = *back.cell_data.find("gmsh:physical");
    for (std::size_t b = 0; b < mesh.cells.size(); ++b)
      EXPECT_EQ(integers(physical[b]), std::vector<std::int64_t>(2, 10 + static_cast<std::int64_t>(b)));
    for (const mpp::Region& region : mesh.regions) {
      ASSERT_TRUE(back.field_data.contains(region.name));
      EXPECT_EQ(integers(*back.field_data.find(region.name)), (std::vector<std::int64_t>{region.tag, region.dim}));
    }
    EXPECT_TRUE(bit_equal(*back.point_data.find("temperature"), *mesh.point_data.find("temperature")));
    EXPECT_TRUE(bit_equal(*back.point_data.find("velocity"), *mesh.point_data.find("velocity")));
    const std::vector<mpp::NDArray>& pressure = *back.cell_data.find("pressure");
    for (std::size_t b = 0; b < mesh.cells.size(); ++b)
      EXPECT_TRUE(bit_equal(pressure[b], (*mesh.cell_data.find("pressure"))[b]));
  }
}

TEST(GmshRoundTrip, ReadWriteReadKeepsGeometricalTagsAndNodeEntities) {
  const fs::path file = kCorpusDir / "gmsh_generated" / "insulated-4.1-binary.msh";
  if (!fs::exists(file)) GTEST_SKIP() << "corpus not found";
  const mpp::Mesh original = mpp::read(file.string());
  ScratchDir dir;
  for (const auto& [version, binary] : kVariants) {
    SCOPED_TRACE(variant_name(version, binary));
    mpp::write(dir.file("again.msh"), original, "gmsh", options(version, binary));
    const mpp::Mesh back = mpp::read(dir.file("again.msh"));
    EXPECT_TRUE(bit_equal(back.points, original.points));
    // 4.x keeps the five entity blocks; 2.2 has no entities and comes back per type run.
    if (version == "2.2") EXPECT_EQ(cells_in_order(back), cells_in_order(original));
    else EXPECT_EQ(block_list(back), block_list(original));
    for (const char* name : {"gmsh:physical", "gmsh:geometrical"})
      EXPECT_EQ(joined_integers(*back.cell_data.find(name)), joined_integers(*original.cell_data.find(name))) << name;
    if (version != "2.2")
      EXPECT_TRUE(bit_equal(*back.point_data.find("gmsh:dim_tags"), *original.point_data.find("gmsh:dim_tags")));
    expect_same_regions(original.regions, back.regions);
  }
}

mpp::Mesh two_triangles() {
  mpp::Mesh mesh;
  mesh.points = mpp::NDArray::allocate(mpp::DType::float64, {4, 3});
  const double xyz[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  std::copy(std::begin(xyz), std::end(xyz), mesh.points.data_as<double>());
  mpp::CellBlock triangles;
  triangles.type = "triangle";
  triangles.connectivity = int64_matrix(2, 3, {0, 1, 2, 0, 2, 3});
  mesh.cells.push_back(triangles);
  return mesh;
}

TEST(GmshRoundTrip, OverlappingGroupsNeedMsh41) {
  mpp::Mesh mesh = two_triangles();
  mesh.regions.push_back(cell_region("all", 2, 1, {0, 1}));
  mesh.regions.push_back(cell_region("first", 2, 2, {0}));
  ScratchDir dir;
  mpp::write(dir.file("a.msh"), mesh, "gmsh", options("4.1", true));
  expect_same_regions(mesh.regions, mpp::read(dir.file("a.msh")).regions);
  // 2.2 carries one physical tag per element: cell 0 keeps its first group only; the other
  // group survives by name ($PhysicalNames) but without elements.
  mpp::write(dir.file("b.msh"), mesh, "gmsh", options("2.2", false));
  const mpp::Mesh back = mpp::read(dir.file("b.msh"));
  ASSERT_EQ(back.regions.size(), 2u);
  EXPECT_EQ(back.regions[0].name, "all");
  EXPECT_EQ(values<std::int64_t>(back.regions[0].entries), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(back.regions[1].name, "first");
  EXPECT_EQ(back.regions[1].entries.rows(), 0);
}

// The writer walks region entries in stretches of consecutive cells of one block: unsorted,
// repeated and block-crossing entries must give the same groups as a cell-by-cell walk.
TEST(GmshRoundTrip, RegionEntriesInAnyOrderAcrossBlocks) {
  mpp::Mesh mesh = two_triangles();
  mpp::CellBlock more = mesh.cells[0];
  more.connectivity = int64_matrix(3, 3, {0, 1, 3, 1, 2, 3, 2, 0, 3});
  mesh.cells.push_back(more);  // cells 0-1 and 2-4: two blocks of one type
  mesh.regions.push_back(cell_region("crossing", 2, 1, {1, 2, 3}));
  mesh.regions.push_back(cell_region("scattered", 2, 2, {4, 0, 4, 2}));
  mesh.regions.push_back(cell_region("rest", 2, 3, {3, 4}));
  ScratchDir dir;
  for (const auto& [version, binary] : kVariants) {
    if (version == "2.2") continue;  // 2.2 keeps one group per element
    SCOPED_TRACE(variant_name(version, binary));
    mpp::write(dir.file("r.msh"), mesh, "gmsh", options(version, binary));
    const mpp::Mesh back = mpp::read(dir.file("r.msh"));
    ASSERT_EQ(back.regions.size(), 3u);
    EXPECT_EQ(values<std::int64_t>(find_region(back, "crossing")->entries), (std::vector<std::int64_t>{1, 2, 3}));
    EXPECT_EQ(values<std::int64_t>(find_region(back, "scattered")->entries), (std::vector<std::int64_t>{0, 2, 4}));
    EXPECT_EQ(values<std::int64_t>(find_region(back, "rest")->entries), (std::vector<std::int64_t>{3, 4}));
  }
}

TEST(GmshRoundTrip, ConflictingOrMissingTagsGetFreshOnes) {
  mpp::Mesh mesh = two_triangles();
  mesh.regions.push_back(cell_region("a", 2, 5, {0}));
  mesh.regions.push_back(cell_region("b", 2, 5, {1}));   // same (dim, tag): must not merge with "a"
  mesh.regions.push_back(cell_region("c", 2, -1, {1}));  // no tag
  ScratchDir dir;
  mpp::write(dir.file("t.msh"), mesh, "gmsh", {});
  const mpp::Mesh back = mpp::read(dir.file("t.msh"));
  ASSERT_EQ(back.regions.size(), 3u);
  std::map<std::string, std::vector<std::int64_t>> entries;
  std::set<std::int64_t> tags;
  for (const mpp::Region& region : back.regions) {
    entries[region.name] = values<std::int64_t>(region.entries);
    tags.insert(region.tag);
  }
  EXPECT_EQ(entries["a"], std::vector<std::int64_t>{0});
  EXPECT_EQ(entries["b"], std::vector<std::int64_t>{1});
  EXPECT_EQ(entries["c"], std::vector<std::int64_t>{1});
  EXPECT_EQ(tags.size(), 3u);
  EXPECT_EQ(find_region(back, "a")->tag, 5);
}

mpp::Region point_region(const std::string& name, std::int64_t tag, std::vector<std::int64_t> points) {
  mpp::Region region;
  region.name = name;
  region.kind = mpp::RegionKind::Point;
  region.dim = 0;
  region.tag = tag;
  region.entries = int64_vector(points);
  return region;
}

// Gmsh groups points through vertex elements. Elements added for a point set would read
// back as a vertex block the mesh never had (meshio writes no point sets at all): a Point
// region is written only when vertex cells already sit on all its points.
TEST(GmshRoundTrip, PointRegionWithoutVertexCellsIsNotWritten) {
  mpp::Mesh mesh = two_triangles();
  mesh.regions.push_back(point_region("corners", 4, {1, 3}));
  ScratchDir dir;
  for (const auto& [version, binary] : kVariants) {
    SCOPED_TRACE(variant_name(version, binary));
    mpp::write(dir.file("p.msh"), mesh, "gmsh", options(version, binary));
    const mpp::Mesh back = mpp::read(dir.file("p.msh"));
    ASSERT_EQ(back.cells.size(), 1u);
    EXPECT_TRUE(bit_equal(back.cells[0].connectivity, mesh.cells[0].connectivity));
    EXPECT_TRUE(back.regions.empty());
    EXPECT_FALSE(back.field_data.contains("corners"));
  }
}

TEST(GmshRoundTrip, PointRegionOnVertexCellsRoundTrips) {
  mpp::Mesh mesh = two_triangles();
  mpp::CellBlock vertices;
  vertices.type = "vertex";
  vertices.connectivity = int64_matrix(3, 1, {3, 1, 0});
  mesh.cells.push_back(vertices);
  mesh.regions.push_back(point_region("corners", 4, {1, 3}));      // on vertex cells: written
  mesh.regions.push_back(point_region("partly", 5, {0, 2}));       // point 2 has none: not written
  ScratchDir dir;
  for (const auto& [version, binary] : kVariants) {
    SCOPED_TRACE(variant_name(version, binary));
    mpp::write(dir.file("p.msh"), mesh, "gmsh", options(version, binary));
    const mpp::Mesh back = mpp::read(dir.file("p.msh"));
    EXPECT_EQ(cells_in_order(back), cells_in_order(mesh));
    ASSERT_EQ(back.regions.size(), 1u);
    EXPECT_EQ(back.regions[0].name, "corners");
    EXPECT_EQ(back.regions[0].kind, mpp::RegionKind::Point);
    EXPECT_EQ(values<std::int64_t>(back.regions[0].entries), (std::vector<std::int64_t>{1, 3}));
  }
}

// meshio's field_data for Gmsh is name -> [tag, dim], written as $PhysicalNames whether or
// not any element carries the tag; it reads back as int64 (2,), names with spaces included.
TEST(GmshRoundTrip, FieldDataComesBackAsPhysicalNames) {
  mpp::Mesh mesh = two_triangles();
  mesh.field_data.set("a", mpp::NDArray::from_values<std::int64_t>({1, 2}));
  mesh.field_data.set("inflow boundary", mpp::NDArray::from_values<std::int32_t>({7, 1}));
  mesh.field_data.set("not a name", mpp::NDArray::from_values<double>({0.5, 1.5, 2.5}));  // not [tag, dim]
  mesh.regions.push_back(cell_region("plate", 2, 1, {0, 1}));  // a group with a different name on (2, 1)
  ScratchDir dir;
  for (const auto& [version, binary] : kVariants) {
    SCOPED_TRACE(variant_name(version, binary));
    mpp::write(dir.file("f.msh"), mesh, "gmsh", options(version, binary));
    const mpp::Mesh back = mpp::read(dir.file("f.msh"));
    for (const char* name : {"a", "inflow boundary", "plate"}) {
      SCOPED_TRACE(name);
      ASSERT_TRUE(back.field_data.contains(name));
      EXPECT_EQ(back.field_data.find(name)->dtype(), mpp::DType::int64);
      EXPECT_EQ(back.field_data.find(name)->shape(), mpp::Shape{2});
    }
    EXPECT_EQ(integers(*back.field_data.find("a")), (std::vector<std::int64_t>{1, 2}));
    EXPECT_EQ(integers(*back.field_data.find("inflow boundary")), (std::vector<std::int64_t>{7, 1}));
    EXPECT_FALSE(back.field_data.contains("not a name"));
    // The region's group kept its elements; fresh tags never collide with field_data's.
    const mpp::Region* plate = find_region(back, "plate");
    ASSERT_NE(plate, nullptr);
    EXPECT_EQ(values<std::int64_t>(plate->entries), (std::vector<std::int64_t>{0, 1}));
  }
}

TEST(GmshRoundTrip, MeshioStylePhysicalTagsWithoutRegions) {
  mpp::Mesh mesh = two_triangles();
  mesh.cell_data.set("gmsh:physical", {mpp::NDArray::from_values<std::int64_t>({3, 0})});
  mesh.field_data.set("plate", mpp::NDArray::from_values<std::int64_t>({3, 2}));
  ScratchDir dir;
  mpp::write(dir.file("m.msh"), mesh, "gmsh", options("4.1", false));
  const mpp::Mesh back = mpp::read(dir.file("m.msh"));
  ASSERT_EQ(back.regions.size(), 1u);
  EXPECT_EQ(back.regions[0].name, "plate");
  EXPECT_EQ(back.regions[0].tag, 3);
  EXPECT_EQ(values<std::int64_t>(back.regions[0].entries), std::vector<std::int64_t>{0});
  EXPECT_EQ(joined_integers(*back.cell_data.find("gmsh:physical")), (std::vector<std::int64_t>{3, 0}));
  // 4.x attaches groups to entities: the grouped and the ungrouped cell went to two entities,
  // two element blocks; $MeshioplusplusBlocks gives the one block back.
  EXPECT_EQ(block_list(back), (std::vector<std::pair<std::string, std::int64_t>>{{"triangle", 2}}));
}

// Blocks meshio's cuts would not give back — a block split over entities (4.x), two blocks
// of one type in a row (2.2), an empty block — come back as written through
// $MeshioplusplusBlocks; other readers see the cut blocks (and the same cells).
TEST(GmshRoundTrip, BlocksComeBackAsWritten) {
  mpp::Mesh mesh = two_triangles();
  mpp::CellBlock more = mesh.cells[0];
  more.connectivity = int64_matrix(3, 3, {0, 1, 3, 1, 2, 3, 2, 0, 3});
  mesh.cells.push_back(more);
  mpp::CellBlock empty;
  empty.type = "quad";
  empty.connectivity = mpp::NDArray::allocate(mpp::DType::int64, {0, 4});
  mesh.cells.push_back(empty);
  mpp::CellBlock quad;
  quad.type = "quad";
  quad.connectivity = int64_matrix(1, 4, {0, 1, 2, 3});
  mesh.cells.push_back(quad);
  mesh.regions.push_back(cell_region("split", 2, 1, {1, 3, 5}));  // parts of blocks 0 and 1, and the quad
  mesh.cell_data.set("gmsh:geometrical", {int64_vector({7, 7}), int64_vector({7, 8, 8}), int64_vector({}), int64_vector({7})});
  ScratchDir dir;
  for (const auto& [version, binary] : kVariants) {
    SCOPED_TRACE(variant_name(version, binary));
    mpp::write(dir.file("b.msh"), mesh, "gmsh", options(version, binary));
    EXPECT_NE(read_file(dir.file("b.msh")).find("$MeshioplusplusBlocks\n4\n2 2\n2 3\n3 0\n3 1\n"), std::string::npos);
    const mpp::Mesh back = mpp::read(dir.file("b.msh"));
    ASSERT_EQ(block_list(back), block_list(mesh));
    for (std::size_t b = 0; b < mesh.cells.size(); ++b)
      EXPECT_TRUE(bit_equal(back.cells[b].connectivity, mesh.cells[b].connectivity)) << b;
    if (version == "2.2")  // 4.x gives differently grouped cells of one tag entities of their own
      EXPECT_EQ(joined_integers(*back.cell_data.find("gmsh:geometrical")), (std::vector<std::int64_t>{7, 7, 7, 8, 8, 7}));
    expect_same_regions(mesh.regions, back.regions);
  }
  // A mesh whose blocks the cuts give back needs no such section.
  mpp::write(dir.file("plain.msh"), two_triangles(), "gmsh", options("4.1", false));
  EXPECT_EQ(read_file(dir.file("plain.msh")).find("$Meshioplusplus"), std::string::npos);
  // A section that does not describe the elements is ignored: meshio's cuts.
  mpp::write(dir.file("b.msh"), mesh, "gmsh", options("4.1", false));
  std::string text = read_file(dir.file("b.msh"));
  const std::string marker = "$MeshioplusplusBlocks\n4\n2 2\n";
  text.replace(text.find(marker), marker.size(), "$MeshioplusplusBlocks\n4\n2 1\n");
  const mpp::Mesh cut = mpp::read(dir.write("cut.msh", text));
  EXPECT_EQ(cells_in_order(cut), cells_in_order(mesh));
  EXPECT_NE(block_list(cut), block_list(mesh));
  text.replace(text.find("$MeshioplusplusBlocks\n4\n2 1\n"), 28, "$MeshioplusplusBlocks\n4\n2 99999999999999\n");
  EXPECT_EQ(cells_in_order(mpp::read(dir.write("huge.msh", text))), cells_in_order(mesh));  // ignored too
}

TEST(GmshRoundTrip, Float32PlanarPointsComeBackExactAsFloat64) {
  mpp::Mesh mesh = two_triangles();
  mpp::NDArray planar = mpp::NDArray::allocate(mpp::DType::float32, {4, 2});
  const float xy[] = {0.1f, 0.2f, 1.3f, -0.7f, 1e-30f, 3.4e38f, -0.0f, 1.0f / 3.0f};
  std::copy(std::begin(xy), std::end(xy), planar.data_as<float>());
  mesh.points = planar;
  ScratchDir dir;
  for (const auto& [version, binary] : kVariants) {
    SCOPED_TRACE(variant_name(version, binary));
    mpp::write(dir.file("f.msh"), mesh, "gmsh", options(version, binary));
    const mpp::Mesh back = mpp::read(dir.file("f.msh"));
    ASSERT_EQ(back.points.shape(), (mpp::Shape{4, 3}));
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(back.points.data_as<double>()[3 * i], static_cast<double>(xy[2 * i]));
      EXPECT_EQ(back.points.data_as<double>()[3 * i + 1], static_cast<double>(xy[2 * i + 1]));
      EXPECT_EQ(back.points.data_as<double>()[3 * i + 2], 0.0);
    }
  }
}

TEST(GmshRoundTrip, SideRegionsAreNotWritten) {
  mpp::Mesh mesh = two_triangles();
  mpp::Region side;
  side.name = "edge";
  side.kind = mpp::RegionKind::Side;
  side.dim = 1;
  side.entries = int64_matrix(1, 2, {0, 0});
  mesh.regions.push_back(side);
  ScratchDir dir;
  mpp::write(dir.file("s.msh"), mesh, "gmsh", {});
  EXPECT_TRUE(mpp::read(dir.file("s.msh")).regions.empty());
}

TEST(GmshWrite, RejectsWhatMshCannotHold) {
  ScratchDir dir;
  mpp::Mesh polygons = two_triangles();
  polygons.cells[0].type = "polygon";
  polygons.cells[0].offsets = int64_vector({0, 3, 6});
  polygons.cells[0].connectivity = int64_vector({0, 1, 2, 0, 2, 3});
  EXPECT_THROW(mpp::write(dir.file("x.msh"), polygons, "gmsh", {}), mpp::WriteError);
  EXPECT_THROW(mpp::write(dir.file("x.msh"), two_triangles(), "gmsh", options("3.0", true)), mpp::WriteError);
  EXPECT_FALSE(fs::exists(dir.file("x.msh")));
}

TEST(GmshWrite, TimeStepsGoBackAsOneView) {
  mpp::Mesh mesh = two_triangles();
  mesh.point_data.set("T", mpp::NDArray::from_values<double>({1, 2, 3, 4}));
  mesh.point_data.set("T[step 3]", mpp::NDArray::from_values<double>({5, 6, 7, std::nan("")}));
  mesh.point_data.set("T[step 1, time 0.25]", mpp::NDArray::from_values<double>({8, 9, 10, 11}));
  ScratchDir dir;
  mpp::write(dir.file("d.msh"), mesh, "gmsh", options("2.2", false));
  const std::string text = read_file(dir.file("d.msh"));
  EXPECT_EQ(text.find("T[step"), std::string::npos);  // all written as steps of view "T"
  EXPECT_NE(text.find("\n0.25\n3\n1\n"), std::string::npos);  // step 1 keeps its time
  const mpp::Mesh back = mpp::read(dir.file("d.msh"));
  // The plain "T" beside steps 1 and 3 was a new array: written as step 4, the last step,
  // which the plain name shows again.
  EXPECT_TRUE(bit_equal(*back.point_data.find("T"), *mesh.point_data.find("T")));
  EXPECT_TRUE(bit_equal(*back.point_data.find("T[step 4]"), *mesh.point_data.find("T")));
  EXPECT_TRUE(bit_equal(*back.point_data.find("T[step 1, time 0.25]"), *mesh.point_data.find("T[step 1, time 0.25]")));
  const std::vector<double> step = values<double>(*back.point_data.find("T[step 3]"));
  EXPECT_EQ(step[2], 7.0);
  EXPECT_TRUE(std::isnan(step[3]));  // no entry was written for it
  // Written again, the plain alias is not a fifth step.
  mpp::write(dir.file("e.msh"), back, "gmsh", options("4.1", true));
  const mpp::Mesh again = mpp::read(dir.file("e.msh"));
  EXPECT_EQ(again.point_data.size(), back.point_data.size() + 1);  // + gmsh:dim_tags
  EXPECT_FALSE(again.point_data.contains("T[step 5]"));
  EXPECT_TRUE(bit_equal(*again.point_data.find("T"), *mesh.point_data.find("T")));
}

// MSH 4.0 as meshio and Gmsh 4.0 write it: "4.0" (a bare "4" is taken for 4.1 by meshio),
// no min/max tags, (tag, dim) block headers, int node and element tags with each record.
TEST(GmshWrite, Msh40Layout) {
  mpp::Mesh mesh = two_triangles();
  mesh.regions.push_back(cell_region("plate", 2, 3, {0, 1}));
  ScratchDir dir;
  mpp::write(dir.file("v40.msh"), mesh, "gmsh", options("4.0", false));
  const std::string text = read_file(dir.file("v40.msh"));
  EXPECT_EQ(text.substr(0, 20), std::string("$MeshFormat\n4.0 0 8\n"));
  EXPECT_NE(text.find("$Nodes\n1 4\n1 2 0 4\n1 0 0 0\n2 1 0 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("$Elements\n1 2\n1 2 2 2\n1 1 2 3\n2 1 3 4\n"), std::string::npos) << text;
  mpp::write(dir.file("v40b.msh"), mesh, "gmsh", options("4.0", true));
  const std::string binary = read_file(dir.file("v40b.msh"));
  const std::size_t elements = binary.find("$Elements\n") + 10;
  std::uint64_t counts[2];
  std::memcpy(counts, binary.data() + elements, sizeof counts);
  EXPECT_EQ(counts[0], 1u);
  EXPECT_EQ(counts[1], 2u);
  std::int32_t header[3], record[4];
  std::memcpy(header, binary.data() + elements + 16, sizeof header);
  EXPECT_EQ((std::vector<std::int32_t>(header, header + 3)), (std::vector<std::int32_t>{1, 2, 2}));  // tag, dim, type
  std::memcpy(record, binary.data() + elements + 16 + 12 + 8, sizeof record);
  EXPECT_EQ((std::vector<std::int32_t>(record, record + 4)), (std::vector<std::int32_t>{1, 1, 2, 3}));
  for (const char* file : {"v40.msh", "v40b.msh"}) {
    const mpp::Mesh back = mpp::read(dir.file(file));
    EXPECT_TRUE(bit_equal(back.cells[0].connectivity, mesh.cells[0].connectivity));
    expect_same_regions(mesh.regions, back.regions);
  }
}

// meshio cuts 2.x element lists into blocks at every change of type, 4.x ones at every
// element block: interleaved types give several blocks of one type.
TEST(GmshRead, BlocksAreCutAsMeshioCutsThem) {
  const char* text = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$Nodes
4
1 0 0 0
2 1 0 0
3 1 1 0
4 0 1 0
$EndNodes
$Elements
4
1 2 2 1 1 1 2 3
2 2 2 1 2 1 3 4
3 1 2 2 3 1 2
4 2 2 1 1 2 3 4
$EndElements
)";
  ScratchDir dir;
  const mpp::Mesh mesh = mpp::read(dir.write("runs.msh", text));
  EXPECT_EQ(block_list(mesh), (std::vector<std::pair<std::string, std::int64_t>>{{"triangle", 2}, {"line", 1}, {"triangle", 1}}));
  EXPECT_EQ(values<std::int32_t>((*mesh.cell_data.find("gmsh:geometrical"))[0]), (std::vector<std::int32_t>{1, 2}));
  ASSERT_EQ(mesh.regions.size(), 2u);  // group 1 spans blocks 0 and 2
  EXPECT_EQ(values<std::int64_t>(mesh.regions[1].entries), (std::vector<std::int64_t>{0, 1, 3}));
}

TEST(GmshRegistry, ExtensionAndOptions) {
  const mpp::FormatInfo* format = mpp::format_for_path("/some/where/Model.MSH");
  ASSERT_NE(format, nullptr);
  EXPECT_EQ(format->name, "gmsh");
  std::map<std::string_view, std::string_view> defaults;
  for (const mpp::WriteOptionSpec& spec : format->write_options) defaults[spec.name] = spec.default_value;
  EXPECT_EQ(defaults["fmt_version"], "4.1");
  EXPECT_EQ(defaults["binary"], "true");
}

TEST(GmshWrite, DefaultIsMsh41Binary) {
  ScratchDir dir;
  mpp::write(dir.file("d.msh"), two_triangles());
  EXPECT_EQ(read_file(dir.file("d.msh")).substr(0, 20), std::string("$MeshFormat\n4.1 1 8\n"));
}

// ---- hand-written files: the corners of the format ---------------------------------------

// Sparse, unordered node tags; parametric nodes; a $Comments section that mentions $Nodes;
// $Periodic; physical names with spaces.
const char* const kSparse41 = R"($MeshFormat
4.1 0 8
$EndMeshFormat
$Comments
this is not a $Nodes section
$EndComments
$PhysicalNames
2
1 7 "edge"
2 3 "the surface"
$EndPhysicalNames
$Entities
0 1 1 0
4 0 0 0 1 0 0 1 7 0
9 0 0 0 1 1 0 1 3 0
$EndEntities
$Nodes
2 4 10 40
1 4 0 2
40
10
0 0 0
1 0 0
2 9 1 2
30
20
1 1 0 0.5 0.5
0 1 0 0.25 0.75
$EndNodes
$Elements
2 3 5 9
1 4 1 1
9 40 10
2 9 2 2
5 40 10 30
7 40 30 20
$EndElements
$Periodic
1
1 4 4
16 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1
1
40 10
$EndPeriodic
)";

TEST(GmshRead, SparseTagsParametricNodesAndSkippedSections) {
  ScratchDir dir;
  const mpp::Mesh mesh = mpp::read(dir.write("sparse.msh", kSparse41));
  EXPECT_EQ(values<double>(mesh.points), (std::vector<double>{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}));
  ASSERT_EQ(mesh.cells.size(), 2u);
  EXPECT_EQ(mesh.cells[0].type, "line");
  EXPECT_EQ(values<std::int64_t>(mesh.cells[0].connectivity), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(values<std::int64_t>(mesh.cells[1].connectivity), (std::vector<std::int64_t>{0, 1, 2, 0, 2, 3}));
  EXPECT_EQ(values<std::int64_t>((*mesh.cell_data.find("gmsh:geometrical"))[1]), (std::vector<std::int64_t>{9, 9}));
  EXPECT_EQ(values<std::int64_t>((*mesh.cell_data.find("gmsh:physical"))[0]), (std::vector<std::int64_t>{7}));
  EXPECT_EQ(values<std::int64_t>(*mesh.point_data.find("gmsh:dim_tags")),
            (std::vector<std::int64_t>{1, 4, 1, 4, 2, 9, 2, 9}));
  ASSERT_EQ(mesh.regions.size(), 2u);
  EXPECT_EQ(mesh.regions[0].name, "edge");
  EXPECT_EQ(mesh.regions[0].dim, 1);
  EXPECT_EQ(values<std::int64_t>(mesh.regions[0].entries), std::vector<std::int64_t>{0});
  EXPECT_EQ(mesh.regions[1].name, "the surface");
  EXPECT_EQ(mesh.regions[1].tag, 3);
  EXPECT_EQ(values<std::int64_t>(mesh.regions[1].entries), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(values<std::int64_t>(*mesh.field_data.find("the surface")), (std::vector<std::int64_t>{3, 2}));
}

// $Periodic is kept as field_data "gmsh:periodic" (links with point-index pairs) and
// "gmsh:periodic_affine", and written back by 2.2 and 4.1 (4.0's layout is not written).
TEST(GmshRead, PeriodicLinksAreKeptAndWrittenBack) {
  ScratchDir dir;
  const mpp::Mesh mesh = mpp::read(dir.write("sparse.msh", kSparse41));
  ASSERT_TRUE(mesh.field_data.contains("gmsh:periodic"));
  // dim 1, tag 4, master 4, 16 affine values, 1 pair: node 40 (index 0) -> node 10 (index 1)
  EXPECT_EQ(values<std::int64_t>(*mesh.field_data.find("gmsh:periodic")), (std::vector<std::int64_t>{1, 4, 4, 16, 1, 0, 1}));
  const std::vector<double> affine = values<double>(*mesh.field_data.find("gmsh:periodic_affine"));
  ASSERT_EQ(affine.size(), 16u);
  EXPECT_EQ(affine[0], 1.0);
  EXPECT_EQ(affine[1], 0.0);
  EXPECT_FALSE(mesh.field_data.contains("1"));  // no physical name made of them
  for (const auto& [version, binary] : kVariants) {
    SCOPED_TRACE(variant_name(version, binary));
    mpp::write(dir.file("p.msh"), mesh, "gmsh", options(version, binary));
    const mpp::Mesh back = mpp::read(dir.file("p.msh"));
    if (version == "4.0") {
      EXPECT_FALSE(back.field_data.contains("gmsh:periodic"));
      continue;
    }
    ASSERT_TRUE(back.field_data.contains("gmsh:periodic"));
    EXPECT_TRUE(bit_equal(*back.field_data.find("gmsh:periodic"), *mesh.field_data.find("gmsh:periodic")));
    EXPECT_TRUE(bit_equal(*back.field_data.find("gmsh:periodic_affine"), *mesh.field_data.find("gmsh:periodic_affine")));
  }
  mpp::Mesh broken = mesh;
  broken.field_data.set("gmsh:periodic", mpp::NDArray::from_values<std::int64_t>({1, 4, 4, 0, 1, 0, 99}));
  EXPECT_THROW(mpp::write(dir.file("bad.msh"), broken, "gmsh", {}), mpp::WriteError);
  // A periodic link naming an undefined node is a ReadError at that tag.
  std::string text = kSparse41;
  const std::size_t pair = text.find("40 10\n$EndPeriodic");
  text.replace(pair, 5, "40 11");
  const mpp::ReadError error = expect_read_error([&] { mpp::read(dir.write("bad.msh", text)); });
  EXPECT_NE(error.reason().find("node tag 11"), std::string::npos) << error.what();
  EXPECT_EQ(error.byte_offset(), pair + 3);
}

TEST(GmshRead, Msh40HasItsOwnFieldOrder) {
  // 4.0: block headers are (entity tag, dim, …), points have a bounding box, node tags
  // come with their coordinates.
  const char* text = R"($MeshFormat
4 0 8
$EndMeshFormat
$Entities
0 0 1 0
6 0 0 0 1 1 0 1 2 0
$EndEntities
$Nodes
1 3
6 2 0 3
11 0 0 0
12 1 0 0
13 0 1 0
$EndNodes
$Elements
1 1
6 2 2 1
1 13 11 12
$EndElements
)";
  ScratchDir dir;
  const mpp::Mesh mesh = mpp::read(dir.write("v40.msh", text));
  EXPECT_EQ(values<std::int64_t>(mesh.cells.at(0).connectivity), (std::vector<std::int64_t>{2, 0, 1}));
  EXPECT_EQ(values<std::int64_t>(*mesh.point_data.find("gmsh:dim_tags")), (std::vector<std::int64_t>{2, 6, 2, 6, 2, 6}));
  ASSERT_EQ(mesh.regions.size(), 1u);
  EXPECT_EQ(mesh.regions[0].name, "2");  // no $PhysicalNames: the tag as text
}

// meshio's 4.0 writer numbers elements from 0 but their $ElementData from 1; Gmsh tags are
// positive, so a file with element tag 0 is read with data tag t meaning element t - 1.
TEST(GmshRead, MeshioMsh40ElementsFromZero) {
  const char* text = R"($MeshFormat
4.0 0 8
$EndMeshFormat
$Nodes
1 4
1 2 0 4
1 0 0 0
2 1 0 0
3 1 1 0
4 0 1 0
$EndNodes
$Elements
1 2
1 2 2 2
0 1 2 3
1 1 3 4
$EndElements
$ElementData
1
"a"
1
0.0
3
0
1
2
1 0.5
2 1.5
$EndElementData
)";
  ScratchDir dir;
  const mpp::Mesh mesh = mpp::read(dir.write("meshio40.msh", text));
  EXPECT_EQ(values<double>((*mesh.cell_data.find("a"))[0]), (std::vector<double>{0.5, 1.5}));
}

// 2.2 with data: two time steps of one view, partial node data, 3-component element data.
const char* const kData22 = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$Nodes
4
5 0 0 0
3 1 0 0
8 1 1 0
1 0 1 0
$EndNodes
$Elements
3
100 15 2 0 1 5
7 2 2 6 2 5 3 8
9 2 2 6 2 5 8 1
$EndElements
$NodeData
1
"T"
1
0.0
3
0
1
2
3 1.5
8 2.5
$EndNodeData
$NodeData
1
"T"
1
1.0
3
1
1
1
5 9
$EndNodeData
$ElementData
1
"V"
1
0.0
3
0
3
1
9 1 2 3
$EndElementData
)";

TEST(GmshRead, DataSectionsTimeStepsAndMissingEntries) {
  ScratchDir dir;
  const mpp::Mesh mesh = mpp::read(dir.write("data.msh", kData22));
  ASSERT_EQ(mesh.cells.size(), 2u);
  EXPECT_EQ(values<std::int64_t>(mesh.cells[1].connectivity), (std::vector<std::int64_t>{0, 1, 2, 0, 2, 3}));
  // Two steps of "T": one array per step, "T" shows the last (meshio's "T"); step 0's time
  // 0.0 equals its step, step 1's 1.0 too, so no time in the names.
  const std::vector<double> t0 = values<double>(*mesh.point_data.find("T[step 0]"));
  EXPECT_TRUE(std::isnan(t0[0]));
  EXPECT_EQ(t0[1], 1.5);
  EXPECT_EQ(t0[2], 2.5);
  const std::vector<double> t1 = values<double>(*mesh.point_data.find("T[step 1]"));
  EXPECT_EQ(t1[0], 9.0);
  EXPECT_TRUE(std::isnan(t1[1]));
  EXPECT_TRUE(bit_equal(*mesh.point_data.find("T"), *mesh.point_data.find("T[step 1]")));
  EXPECT_EQ(mesh.point_data.begin()->first, "T");  // where meshio's dict has it
  EXPECT_EQ(mesh.point_data.size(), 3u);  // T, T[step 0], T[step 1]: no dim_tags in 2.2
  const std::vector<mpp::NDArray>& v = *mesh.cell_data.find("V");
  EXPECT_EQ(v[1].shape(), (mpp::Shape{2, 3}));
  EXPECT_TRUE(std::isnan(v[1].data_as<double>()[0]));
  EXPECT_EQ(v[1].data_as<double>()[3], 1.0);
  EXPECT_EQ(v[1].data_as<double>()[5], 3.0);
  EXPECT_EQ(values<std::int32_t>((*mesh.cell_data.find("gmsh:physical"))[0]), std::vector<std::int32_t>{0});
  EXPECT_FALSE(mesh.cell_data.contains("V[step 0]"));  // one step at time 0: the plain name only
  ASSERT_EQ(mesh.regions.size(), 1u);  // physical 0 is no group
  EXPECT_EQ(mesh.regions[0].name, "6");
  EXPECT_EQ(values<std::int64_t>(mesh.regions[0].entries), (std::vector<std::int64_t>{1, 2}));
}

TEST(GmshRead, Tetra10NodesAndElementNodeDataComeInMeshioOrder) {
  // One tetra10 whose node tags are 1..10 in Gmsh order, and a vertex; element-node data
  // gives each tetra10 node its Gmsh index. meshio order swaps the last two edge nodes.
  std::string text = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n10\n";
  for (int i = 1; i <= 10; ++i) text += std::to_string(i) + " " + std::to_string(i) + " 0 0\n";
  text += "$EndNodes\n$Elements\n2\n1 11 2 0 1 1 2 3 4 5 6 7 8 9 10\n2 15 2 0 1 1\n$EndElements\n";
  text += "$ElementNodeData\n1\n\"N\"\n0\n3\n0\n1\n2\n1 10 0 1 2 3 4 5 6 7 8 9\n2 1 42\n$EndElementNodeData\n";
  ScratchDir dir;
  const mpp::Mesh mesh = mpp::read(dir.write("t10.msh", text));
  EXPECT_EQ(values<std::int64_t>(mesh.cells.at(0).connectivity),
            (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 9, 8}));
  EXPECT_EQ(values<double>((*mesh.cell_data.find("N"))[0]), (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 9, 8}));
  EXPECT_EQ(values<double>((*mesh.cell_data.find("N"))[1]), std::vector<double>{42});
  // Written back (widths differ per block: nodes × 1 component), the element-node data is
  // element-node data again, in Gmsh order.
  mpp::write(dir.file("again.msh"), mesh, "gmsh", options("4.1", false));
  const std::string written = read_file(dir.file("again.msh"));
  EXPECT_NE(written.find("$ElementNodeData"), std::string::npos);
  EXPECT_NE(written.find("1 10 0 1 2 3 4 5 6 7 8 9\n"), std::string::npos);
  const mpp::Mesh back = mpp::read(dir.file("again.msh"));
  for (std::size_t b = 0; b < 2; ++b) EXPECT_TRUE(bit_equal((*back.cell_data.find("N"))[b], (*mesh.cell_data.find("N"))[b]));
}

Bytes binary_41_header() {
  Bytes b;
  b.text("$MeshFormat\n4.1 1 8\n").raw<std::int32_t>(1).text("\n$EndMeshFormat\n");
  return b;
}

// Two nodes (tags 1, 2) on curve 1, written as Gmsh does in binary 4.1.
Bytes binary_41_nodes() {
  Bytes b = binary_41_header();
  b.text("$Nodes\n").raw<std::uint64_t>(1).raw<std::uint64_t>(2).raw<std::uint64_t>(1).raw<std::uint64_t>(2);
  b.raw<std::int32_t>(1).raw<std::int32_t>(1).raw<std::int32_t>(0).raw<std::uint64_t>(2);
  b.raw<std::uint64_t>(1).raw<std::uint64_t>(2);
  for (double v : {0.0, 0.0, 0.0, 1.0, 0.0, 0.0}) b.raw(v);
  b.text("\n$EndNodes\n");
  return b;
}

TEST(GmshRead, HandBuiltBinary41) {
  Bytes b = binary_41_nodes();
  b.text("$Elements\n").raw<std::uint64_t>(1).raw<std::uint64_t>(1).raw<std::uint64_t>(1).raw<std::uint64_t>(1);
  b.raw<std::int32_t>(1).raw<std::int32_t>(1).raw<std::int32_t>(1).raw<std::uint64_t>(1);
  b.raw<std::uint64_t>(1).raw<std::uint64_t>(2).raw<std::uint64_t>(1);
  b.text("\n$EndElements\n");
  ScratchDir dir;
  const mpp::Mesh mesh = mpp::read(dir.write("b.msh", b.data));
  EXPECT_EQ(values<std::int64_t>(mesh.cells.at(0).connectivity), (std::vector<std::int64_t>{1, 0}));
}

// Gmsh writes MSH 2.2 binary with a header before every element; identical headers are read
// as one run (and a header for several elements as before). Element data must still find
// every element by its tag, and a bad node inside such a run is reported at its element.
struct Binary22 {
  Bytes bytes;
  std::size_t third_triangle = 0;  // offset of element 12's record (after its header)
};

Binary22 binary_22(std::int32_t third_triangle_last_node) {
  Binary22 file;
  Bytes& b = file.bytes;
  b.text("$MeshFormat\n2.2 1 8\n").raw<std::int32_t>(1).text("\n$EndMeshFormat\n$Nodes\n4\n");
  const double xyz[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  for (std::int32_t n = 0; n < 4; ++n) b.raw<std::int32_t>(n + 1).raw(xyz[n][0]).raw(xyz[n][1]).raw(xyz[n][2]);
  b.text("\n$EndNodes\n$Elements\n5\n");
  const auto triangle = [&](std::int32_t tag, std::int32_t physical, std::int32_t geometrical, std::array<std::int32_t, 3> nodes) {
    b.raw<std::int32_t>(2).raw<std::int32_t>(1).raw<std::int32_t>(2);  // type, count, tags
    if (tag == 12) file.third_triangle = b.data.size();
    b.raw(tag).raw(physical).raw(geometrical);
    for (std::int32_t node : nodes) b.raw(node);
  };
  triangle(10, 5, 1, {1, 2, 3});
  triangle(11, 5, 1, {1, 3, 4});
  triangle(12, 6, 2, {2, 3, third_triangle_last_node});
  b.raw<std::int32_t>(1).raw<std::int32_t>(2).raw<std::int32_t>(2);  // two lines under one header
  for (std::int32_t tag : {13, 14}) b.raw(tag).raw<std::int32_t>(7).raw<std::int32_t>(3).raw(tag == 13 ? 1 : 3).raw(tag == 13 ? 2 : 4);
  b.text("\n$EndElements\n$ElementData\n1\n\"E\"\n1\n0.0\n3\n0\n1\n5\n");
  for (std::int32_t tag : {14, 10, 12, 11, 13}) b.raw(tag).raw(tag * 0.5);
  b.text("\n$EndElementData\n");
  return file;
}

TEST(GmshRead, HandBuiltBinary22WithAHeaderPerElement) {
  ScratchDir dir;
  const mpp::Mesh mesh = mpp::read(dir.write("per-element.msh", binary_22(4).bytes.data));
  ASSERT_EQ(mesh.cells.size(), 2u);
  EXPECT_EQ(values<std::int64_t>(mesh.cells[0].connectivity), (std::vector<std::int64_t>{0, 1, 2, 0, 2, 3, 1, 2, 3}));
  EXPECT_EQ(values<std::int64_t>(mesh.cells[1].connectivity), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(values<std::int32_t>((*mesh.cell_data.find("gmsh:physical"))[0]), (std::vector<std::int32_t>{5, 5, 6}));
  EXPECT_EQ(values<std::int32_t>((*mesh.cell_data.find("gmsh:geometrical"))[0]), (std::vector<std::int32_t>{1, 1, 2}));
  const std::vector<mpp::NDArray>& e = *mesh.cell_data.find("E");
  EXPECT_EQ(values<double>(e[0]), (std::vector<double>{5.0, 5.5, 6.0}));
  EXPECT_EQ(values<double>(e[1]), (std::vector<double>{6.5, 7.0}));

  const Binary22 broken = binary_22(9);
  const mpp::ReadError error = expect_read_error([&] { mpp::read(dir.write("missing22.msh", broken.bytes.data)); });
  EXPECT_NE(error.reason().find("node tag 9"), std::string::npos) << error.what();
  EXPECT_EQ(error.byte_offset(), broken.third_triangle);
}

// ---- broken input: ReadError with a location -----------------------------------------------

TEST(GmshReadErrors, ElementReferencingMissingNodeAscii) {
  std::string text = kSparse41;
  const std::string bad_element = "7 40 30 20";
  const std::size_t at = text.find(bad_element);
  text.replace(at, bad_element.size(), "7 40 30 99");
  ScratchDir dir;
  const std::string path = dir.write("missing.msh", text);
  const mpp::ReadError error = expect_read_error([&] { mpp::read(path); });
  EXPECT_NE(error.reason().find("node tag 99"), std::string::npos) << error.what();
  EXPECT_EQ(error.byte_offset(), at);  // the start of the offending element
  EXPECT_EQ(error.line(), 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

TEST(GmshReadErrors, ElementReferencingMissingNodeBinary) {
  Bytes b = binary_41_nodes();
  b.text("$Elements\n").raw<std::uint64_t>(1).raw<std::uint64_t>(1).raw<std::uint64_t>(1).raw<std::uint64_t>(1);
  b.raw<std::int32_t>(1).raw<std::int32_t>(1).raw<std::int32_t>(1).raw<std::uint64_t>(1);
  const std::size_t record = b.data.size();
  b.raw<std::uint64_t>(1).raw<std::uint64_t>(2).raw<std::uint64_t>(7);
  b.text("\n$EndElements\n");
  ScratchDir dir;
  const std::string path = dir.write("missing.msh", b.data);
  const mpp::ReadError error = expect_read_error([&] { mpp::read(path); });
  EXPECT_NE(error.reason().find("node tag 7"), std::string::npos) << error.what();
  EXPECT_EQ(error.byte_offset(), record);
}

TEST(GmshReadErrors, TruncatedBinarySections) {
  ScratchDir dir;
  const mpp::Mesh mesh = every_type_mesh();
  for (const std::string version : {"2.2", "4.1"}) {
    SCOPED_TRACE(version);
    mpp::write(dir.file("full.msh"), mesh, "gmsh", options(version, true));
    const std::string full = read_file(dir.file("full.msh"));
    for (const char* section : {"$Nodes", "$Elements", "$NodeData"}) {
      SCOPED_TRACE(section);
      const std::size_t start = full.find(section);
      const std::size_t end = full.find(std::string("$End") + (section + 1), start);
      const std::size_t cut = start + (end - start) / 2;
      const std::string path = dir.write("cut.msh", full.substr(0, cut));
      const mpp::ReadError error = expect_read_error([&] { mpp::read(path); });
      ASSERT_TRUE(error.byte_offset().has_value()) << error.what();
      EXPECT_GE(*error.byte_offset(), start);
      EXPECT_LE(*error.byte_offset(), cut);
    }
  }
}

TEST(GmshReadErrors, WrongCounts) {
  ScratchDir dir;
  struct Case {
    const char* what;
    std::string from, to;
  };
  const std::vector<Case> cases{
      {"more nodes announced than given", "2 4 10 40", "2 5 10 40"},
      {"fewer nodes announced than given", "2 4 10 40", "2 3 10 40"},
      {"node block larger than the section", "2 9 1 2\n30", "2 9 1 3\n30"},
      {"more elements announced than given", "2 3 5 9", "2 4 5 9"},
      {"element block count too high", "2 9 2 2\n5", "2 9 2 3\n5"},
      {"more physical names announced", "$PhysicalNames\n2", "$PhysicalNames\n3"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::string text = kSparse41;
    ASSERT_NE(text.find(c.from), std::string::npos);
    text.replace(text.find(c.from), c.from.size(), c.to);
    const std::string path = dir.write("counts.msh", text);
    const mpp::ReadError error = expect_read_error([&] { mpp::read(path); });
    EXPECT_TRUE(error.byte_offset().has_value()) << error.what();
    EXPECT_TRUE(error.line().has_value()) << error.what();
  }
  // 2.2: a node count beyond what follows.
  std::string text = kData22;
  text.replace(text.find("$Nodes\n4"), 8, "$Nodes\n5");
  EXPECT_THROW(mpp::read(dir.write("nodes22.msh", text)), mpp::ReadError);
  // A count no file could hold is refused before anything is allocated.
  text = kData22;
  text.replace(text.find("$Nodes\n4"), 8, "$Nodes\n999999999999");
  const mpp::ReadError huge = expect_read_error([&] { mpp::read(dir.write("huge.msh", text)); });
  EXPECT_NE(huge.reason().find("exceeds"), std::string::npos) << huge.what();
}

TEST(GmshReadErrors, ForeignByteOrderVersionsAndGarbage) {
  ScratchDir dir;
  Bytes swapped;
  swapped.text("$MeshFormat\n4.1 1 8\n").raw<std::uint32_t>(0x01000000u).text("\n$EndMeshFormat\n");
  const mpp::ReadError endian = expect_read_error([&] { mpp::read(dir.write("be.msh", swapped.data)); });
  EXPECT_NE(endian.reason().find("byte order"), std::string::npos) << endian.what();
  EXPECT_EQ(endian.byte_offset(), std::string("$MeshFormat\n4.1 1 8\n").size());

  EXPECT_THROW(mpp::read(dir.write("v3.msh", "$MeshFormat\n3.0 0 8\n$EndMeshFormat\n")), mpp::ReadError);
  EXPECT_THROW(mpp::read(dir.write("junk.msh", "solid cube\nfacet normal 0 0 1\n")), mpp::ReadError);
  EXPECT_THROW(mpp::read(dir.write("open.msh", std::string(kSparse41) + "$Unclosed\n1 2 3\n")), mpp::ReadError);
  std::string type = kSparse41;
  type.replace(type.find("2 9 2 2"), 7, "2 9 99 2");
  const mpp::ReadError unknown = expect_read_error([&] { mpp::read(dir.write("type.msh", type)); });
  EXPECT_NE(unknown.reason().find("element type 99"), std::string::npos) << unknown.what();
  std::string duplicate = kSparse41;
  duplicate.replace(duplicate.find("30\n20"), 5, "30\n40");
  EXPECT_THROW(mpp::read(dir.write("dup.msh", duplicate)), mpp::ReadError);
}

// ---- large ASCII 4.1 files: records one per line parse on all cores -------------------------

// A MSH 4.1 ASCII file whose big sections exceed the 4 MB threshold of the line-parallel
// path: a block of 200000 nodes (tags in reverse order, so a dense tag table is consulted
// from the threads), a small parametric block (u v after x y z), a run of 100000 tetra10
// (a node permutation) and a small run of triangles. Offsets of lines tests corrupt.
struct LargeMsh {
  static constexpr std::int64_t kNodes = 200000, kParametric = 5000, kTetra = 100000, kTriangles = 2000;
  std::string text;
  std::vector<double> xyz;              // expected points
  std::vector<std::int64_t> tetra10;    // expected connectivity, meshio order
  std::vector<std::size_t> coordinate_lines;  // the big block's coordinate lines
  std::vector<std::size_t> tetra_lines;       // the tetra10 element lines
};

LargeMsh large_msh41() {
  LargeMsh msh;
  constexpr std::int64_t total = LargeMsh::kNodes + LargeMsh::kParametric;
  const auto tag_of = [&](std::int64_t index) { return total - index; };
  std::string& t = msh.text;
  t.reserve(24 << 20);
  char line[256];
  t += "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n";
  t += "2 " + std::to_string(total) + " 1 " + std::to_string(total) + "\n";
  t += "3 1 0 " + std::to_string(LargeMsh::kNodes) + "\n";
  for (std::int64_t i = 0; i < LargeMsh::kNodes; ++i) t += std::to_string(tag_of(i)) + "\n";
  msh.xyz.resize(3 * total);
  for (std::int64_t i = 0; i < total; ++i) {
    msh.xyz[3 * i] = static_cast<double>(i % 97) / 7.0;
    msh.xyz[3 * i + 1] = static_cast<double>(i) / 3.0 + 0.1;
    msh.xyz[3 * i + 2] = -static_cast<double>(i) * 1e-5;
  }
  for (std::int64_t i = 0; i < LargeMsh::kNodes; ++i) {
    msh.coordinate_lines.push_back(t.size());
    std::snprintf(line, sizeof line, "%.17g %.17g %.17g\n", msh.xyz[3 * i], msh.xyz[3 * i + 1], msh.xyz[3 * i + 2]);
    t += line;
  }
  t += "2 1 1 " + std::to_string(LargeMsh::kParametric) + "\n";
  for (std::int64_t i = LargeMsh::kNodes; i < total; ++i) t += std::to_string(tag_of(i)) + "\n";
  for (std::int64_t i = LargeMsh::kNodes; i < total; ++i) {
    std::snprintf(line, sizeof line, "%.17g %.17g %.17g 0.25 %lld\n", msh.xyz[3 * i], msh.xyz[3 * i + 1],
                  msh.xyz[3 * i + 2], static_cast<long long>(i));
    t += line;
  }
  t += "$EndNodes\n$Elements\n";
  const std::int64_t elements = LargeMsh::kTetra + LargeMsh::kTriangles;
  t += "2 " + std::to_string(elements) + " 1 " + std::to_string(elements) + "\n";
  t += "3 1 11 " + std::to_string(LargeMsh::kTetra) + "\n";
  const std::span<const std::uint16_t> meshio_from_gmsh = mpp::gmsh::element_type_from_gmsh(11)->meshio_from_gmsh;
  for (std::int64_t e = 0; e < LargeMsh::kTetra; ++e) {
    msh.tetra_lines.push_back(t.size());
    std::int64_t nodes[10];
    t += std::to_string(e + 1);
    for (int j = 0; j < 10; ++j) {
      nodes[j] = (e * 7 + j * 13) % total;
      t += " " + std::to_string(tag_of(nodes[j]));
    }
    t += "\n";
    for (int i = 0; i < 10; ++i) msh.tetra10.push_back(nodes[meshio_from_gmsh[static_cast<std::size_t>(i)]]);
  }
  t += "2 1 2 " + std::to_string(LargeMsh::kTriangles) + "\n";
  for (std::int64_t e = 0; e < LargeMsh::kTriangles; ++e)
    t += std::to_string(LargeMsh::kTetra + e + 1) + " " + std::to_string(tag_of(e)) + " " + std::to_string(tag_of(e + 1)) +
         " " + std::to_string(tag_of(e + 2)) + "\n";
  t += "$EndElements\n";
  return msh;
}

void expect_same_mesh(const mpp::Mesh& a, const mpp::Mesh& b) {
  EXPECT_TRUE(bit_equal(a.points, b.points));
  ASSERT_EQ(a.cells.size(), b.cells.size());
  for (std::size_t i = 0; i < a.cells.size(); ++i) {
    EXPECT_EQ(a.cells[i].type, b.cells[i].type);
    EXPECT_TRUE(bit_equal(a.cells[i].connectivity, b.cells[i].connectivity)) << a.cells[i].type;
  }
  ASSERT_EQ(a.point_data.size(), b.point_data.size());
  for (const auto& [name, array] : a.point_data) {
    ASSERT_NE(b.point_data.find(name), nullptr) << name;
    EXPECT_TRUE(bit_equal(array, *b.point_data.find(name))) << name;
  }
  ASSERT_EQ(a.cell_data.size(), b.cell_data.size());
  for (const auto& [name, arrays] : a.cell_data) {
    const std::vector<mpp::NDArray>* other = b.cell_data.find(name);
    ASSERT_NE(other, nullptr) << name;
    ASSERT_EQ(arrays.size(), other->size()) << name;
    for (std::size_t i = 0; i < arrays.size(); ++i) EXPECT_TRUE(bit_equal(arrays[i], (*other)[i])) << name;
  }
}

TEST(GmshLargeAscii, LinesParsedInParallelMatchTheFile) {
  const LargeMsh msh = large_msh41();
  ASSERT_GT(msh.text.size(), std::size_t{16} << 20);
  ScratchDir dir;
  const mpp::Mesh mesh = mpp::read(dir.write("large.msh", msh.text));
  ASSERT_EQ(mesh.points.shape(), (mpp::Shape{LargeMsh::kNodes + LargeMsh::kParametric, 3}));
  EXPECT_EQ(std::memcmp(mesh.points.data(), msh.xyz.data(), msh.xyz.size() * sizeof(double)), 0);
  ASSERT_EQ(mesh.cells.size(), 2u);
  EXPECT_EQ(mesh.cells[0].type, "tetra10");
  EXPECT_EQ(values<std::int64_t>(mesh.cells[0].connectivity), msh.tetra10);
  EXPECT_EQ(mesh.cells[1].type, "triangle");
  const std::vector<std::int64_t> triangles = values<std::int64_t>(mesh.cells[1].connectivity);
  ASSERT_EQ(triangles.size(), 3u * LargeMsh::kTriangles);
  EXPECT_EQ(triangles[3 * 1999 + 2], 2001);
  const std::vector<std::int64_t> dim_tags = values<std::int64_t>(*mesh.point_data.find("gmsh:dim_tags"));
  EXPECT_EQ(dim_tags[0], 3);
  EXPECT_EQ(dim_tags[2 * LargeMsh::kNodes], 2);
}

TEST(GmshLargeAscii, OtherLayoutsReadTheSameThroughTheSequentialParser) {
  const LargeMsh msh = large_msh41();
  ScratchDir dir;
  const mpp::Mesh expected = mpp::read(dir.write("large.msh", msh.text));
  // Two elements on one line deep in the big run.
  std::string two = msh.text;
  two[msh.tetra_lines[70001] - 1] = ' ';
  expect_same_mesh(mpp::read(dir.write("two.msh", two)), expected);
  // An element wrapped over two lines.
  std::string wrapped = msh.text;
  wrapped[wrapped.find(' ', msh.tetra_lines[99999])] = '\n';
  expect_same_mesh(mpp::read(dir.write("wrapped.msh", wrapped)), expected);
  // A blank line among the coordinates and a node split over two lines.
  std::string nodes = msh.text;
  nodes[nodes.find(' ', msh.coordinate_lines[150000])] = '\n';
  nodes.insert(msh.coordinate_lines[120000], "\n");
  expect_same_mesh(mpp::read(dir.write("nodes.msh", nodes)), expected);
  // Element records following their block header on its line.
  std::string header = msh.text;
  header[msh.tetra_lines[0] - 1] = ' ';
  expect_same_mesh(mpp::read(dir.write("header.msh", header)), expected);
}

TEST(GmshLargeAscii, BadValuesDeepInsideAreReportedWhereTheyAre) {
  const LargeMsh msh = large_msh41();
  ScratchDir dir;
  const auto line_of = [](const std::string& text, std::size_t offset) {
    return static_cast<std::uint64_t>(1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
  };
  // A node tag that is no number, in element 80001.
  std::string number = msh.text;
  const std::size_t third = number.find(' ', number.find(' ', msh.tetra_lines[80000]) + 1) + 1;
  number.insert(number.find(' ', third), "x");
  const mpp::ReadError bad_tag = expect_read_error([&] { mpp::read(dir.write("tag.msh", number)); });
  EXPECT_NE(bad_tag.reason().find("invalid number"), std::string::npos) << bad_tag.what();
  EXPECT_EQ(bad_tag.byte_offset(), third);
  EXPECT_EQ(bad_tag.line(), line_of(number, third));
  // A coordinate that is no number, in node 180001.
  std::string coordinate = msh.text;
  const std::size_t y = coordinate.find(' ', msh.coordinate_lines[180000]) + 1;
  coordinate.insert(y, "1.5.");
  const mpp::ReadError bad_real = expect_read_error([&] { mpp::read(dir.write("real.msh", coordinate)); });
  EXPECT_NE(bad_real.reason().find("invalid number '1.5."), std::string::npos) << bad_real.what();
  EXPECT_EQ(bad_real.byte_offset(), y);
  EXPECT_EQ(bad_real.line(), line_of(coordinate, y));
  // A node tag $Nodes does not define, in element 90001: reported at the element.
  std::string missing = msh.text;
  missing.insert(missing.find(' ', msh.tetra_lines[90000]) + 1, "9");
  const mpp::ReadError undefined = expect_read_error([&] { mpp::read(dir.write("missing.msh", missing)); });
  EXPECT_NE(undefined.reason().find("which $Nodes does not define"), std::string::npos) << undefined.what();
  EXPECT_EQ(undefined.byte_offset(), msh.tetra_lines[90000]);
  EXPECT_EQ(undefined.line(), line_of(missing, msh.tetra_lines[90000]));
  // A section that does not end after the last run's lines.
  std::string unclosed = msh.text;
  const std::size_t end = unclosed.rfind("$EndElements");
  unclosed.replace(end, 12, "$EndElementz");
  const mpp::ReadError open = expect_read_error([&] { mpp::read(dir.write("unclosed.msh", unclosed)); });
  EXPECT_NE(open.reason().find("expected $EndElements, found '$EndElementz'"), std::string::npos) << open.what();
  EXPECT_EQ(open.byte_offset(), end);
  EXPECT_EQ(open.line(), line_of(unclosed, end));
}

}  // namespace

// $Entities boxes are computed on all cores for large runs: each volume's box must be the
// exact bounds of its elements' nodes (and, for the entity that hosts the nodes, of those).
TEST(GmshWrite, EntityBoxesAreTheBoundsOfTheirNodes) {
  constexpr std::int64_t kPerRegion = 70000;  // above the size that splits over threads
  mpp::Mesh mesh;
  mesh.points = mpp::NDArray::allocate(mpp::DType::float64, {8 * kPerRegion, 3});
  double* xyz = mesh.points.data_as<double>();
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::int64_t i = 0; i < 8 * kPerRegion; ++i)
    for (int a = 0; a < 3; ++a) xyz[3 * i + a] = unit(random) + (i >= 4 * kPerRegion ? 2.0 + a : 0.0);
  std::vector<std::int64_t> corners(static_cast<std::size_t>(8 * kPerRegion));
  for (std::int64_t i = 0; i < 8 * kPerRegion; ++i) corners[static_cast<std::size_t>(i)] = i;
  std::shuffle(corners.begin(), corners.begin() + 4 * kPerRegion, random);
  mpp::CellBlock tets;
  tets.type = "tetra";
  tets.connectivity = int64_matrix(2 * kPerRegion, 4, corners);
  mesh.cells.push_back(tets);
  std::vector<std::int64_t> first(kPerRegion), second(kPerRegion);
  for (std::int64_t c = 0; c < kPerRegion; ++c) first[c] = c, second[c] = kPerRegion + c;
  mesh.regions.push_back(cell_region("low", 3, 1, first));
  mesh.regions.push_back(cell_region("high", 3, 2, second));
  std::array<double, 6> low_box{9, 9, 9, -9, -9, -9}, high_box{9, 9, 9, -9, -9, -9}, all_box{9, 9, 9, -9, -9, -9};
  for (std::int64_t i = 0; i < 8 * kPerRegion; ++i)
    for (auto* box : {i < 4 * kPerRegion ? &low_box : &high_box, &all_box})
      for (int a = 0; a < 3; ++a) {
        (*box)[a] = std::min((*box)[a], xyz[3 * i + a]);
        (*box)[3 + a] = std::max((*box)[3 + a], xyz[3 * i + a]);
      }
  ScratchDir dir;
  mpp::write(dir.file("boxes.msh"), mesh, "gmsh", options("4.1", false));
  std::ifstream file(dir.file("boxes.msh"));
  std::string line;
  while (std::getline(file, line) && line != "$Entities") {}
  std::getline(file, line);
  ASSERT_EQ(line, "0 0 0 2");  // two volumes, nothing else
  std::vector<std::array<double, 6>> boxes;
  for (int v = 0; v < 2 && std::getline(file, line); ++v) {
    std::istringstream fields(line);
    int tag;
    std::array<double, 6> box;
    fields >> tag;
    for (double& bound : box) fields >> bound;
    boxes.push_back(box);
  }
  ASSERT_EQ(boxes.size(), 2u);
  // The first volume hosts every node (4.1 puts each node on an entity), so its box is all of them.
  EXPECT_EQ(boxes[0], all_box);
  EXPECT_EQ(boxes[1], high_box);
  EXPECT_NE(boxes[1], low_box);
}

// ---- hostile input (issue 18; tests/data/fuzz-regressions/gmsh/) ----

// A non-UTF-8 byte in a bad token made the error text invalid UTF-8, which Python turned
// into "RuntimeError: UnicodeDecodeError". Error texts escape such bytes as \xNN.
TEST(GmshHostile, NonUtf8TokenIsEscapedInTheError) {
  const std::string path =
      write_scratch("latin1.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 \xe9.0 0 0\n$EndNodes\n");
  const mpp::ReadError error = expect_read_error([&] { mpp::gmsh::read(path); });
  EXPECT_EQ(error.line(), std::optional<std::uint64_t>(6));
  EXPECT_NE(error.reason().find("\\xe9.0"), std::string::npos) << error.what();
  EXPECT_EQ(std::string(error.what()).find('\xe9'), std::string::npos);
}
