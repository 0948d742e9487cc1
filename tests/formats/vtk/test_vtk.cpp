// VTK legacy (.vtk): the corpus against meshio's expectations, round trips of every cell
// type and dtype through 4.2/5.1 × ASCII/binary, the dataset kinds and sections the reader
// handles, and the errors it raises on broken files.
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
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "formats/vtk/vtk.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;

using namespace meshioplusplus::testing_support;

namespace {

WriteOptions options_for(const std::string& version, bool binary) {
  WriteOptions options;
  options.set("fmt_version", version);
  options.set("binary", binary ? "true" : "false");
  return options;
}

bool same_bytes(const NDArray& a, const NDArray& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.nbytes() == 0 || std::memcmp(a.data(), b.data(), a.nbytes()) == 0);
}

std::string describe(const NDArray& array) {
  std::string text = std::string(dtype_name(array.dtype())) + "[";
  for (std::size_t i = 0; i < array.ndim(); ++i) text += (i ? ", " : "") + std::to_string(array.dim(i));
  return text + "]";
}

void expect_same_array(const NDArray& expected, const NDArray& actual, const std::string& what) {
  EXPECT_TRUE(same_bytes(expected, actual)) << what << ": expected " << describe(expected) << ", got " << describe(actual);
}

template <class T>
NDArray make_array(Shape shape, const std::vector<T>& values) {
  NDArray array = NDArray::allocate(dtype_of<T>(), std::move(shape));
  EXPECT_EQ(array.size(), values.size());
  std::copy(values.begin(), values.end(), array.data_as<T>());
  return array;
}

// Values that stress a dtype's text and binary encodings: extremes, zero, small and odd ones.
template <class T>
std::vector<T> tricky_values(std::size_t count, unsigned seed) {
  std::vector<T> special;
  if constexpr (std::is_floating_point_v<T>) {
    special = {T(0), -T(0), T(0.1), T(1) / T(3), std::numeric_limits<T>::max(), std::numeric_limits<T>::lowest(),
               std::numeric_limits<T>::min(), std::numeric_limits<T>::denorm_min(),
               std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
               std::numeric_limits<T>::quiet_NaN(), T(-1e-7), T(12345.678)};
  } else {
    special = {T(0), T(1), std::numeric_limits<T>::max(), std::numeric_limits<T>::min(), T(42)};
  }
  std::mt19937_64 random(seed);
  std::vector<T> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (i < special.size()) {
      values[i] = special[i];
    } else if constexpr (std::is_floating_point_v<T>) {
      values[i] = static_cast<T>(std::uniform_real_distribution<double>(-1e3, 1e3)(random));
    } else {
      values[i] = static_cast<T>(random());
    }
  }
  return values;
}

NDArray tricky_array(DType dtype, Shape shape, unsigned seed) {
  std::size_t count = 1;
  for (auto extent : shape) count *= static_cast<std::size_t>(extent);
  return visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    return make_array<T>(shape, tricky_values<T>(count, seed));
  });
}

constexpr DType kAllDTypes[] = {DType::int8,   DType::int16,  DType::int32,  DType::int64,   DType::uint8,
                                DType::uint16, DType::uint32, DType::uint64, DType::float32, DType::float64};

// ---------------------------------------------------------------------------------------
// Corpus vs meshio's expectations
// ---------------------------------------------------------------------------------------

struct ExpectedArray {
  std::string name;
  std::vector<std::int64_t> shape;  // empty when the table gives none
};

struct ExpectedMesh {
  std::int64_t num_points = 0;
  std::int64_t point_dim = 0;
  std::vector<std::pair<std::string, std::int64_t>> blocks;
  std::vector<ExpectedArray> point_data, cell_data, field_data;
  double sum_points = 0;
};

std::vector<std::string> split(const std::string& text, char separator, bool respect_brackets = false) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == separator && (!respect_brackets || depth == 0)) {
      parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  parts.push_back(current);
  return parts;
}

std::vector<ExpectedArray> parse_array_list(const std::string& field) {
  std::vector<ExpectedArray> arrays;
  if (field.empty()) return arrays;
  for (const std::string& item : split(field, ',', true)) {
    ExpectedArray array;
    const auto bracket = item.find('[');
    array.name = item.substr(0, bracket);
    if (bracket != std::string::npos)
      for (const std::string& extent : split(item.substr(bracket + 1, item.size() - bracket - 2), ','))
        array.shape.push_back(std::stoll(extent));
    arrays.push_back(array);
  }
  return arrays;
}

std::map<std::string, ExpectedMesh> load_expected_vtk() {
  std::map<std::string, ExpectedMesh> table;
  std::ifstream in(kCorpusDir / "EXPECTED_meshio.tsv");
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> columns = split(line, '\t');
  auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  while (std::getline(in, line)) {
    const std::vector<std::string> fields = split(line, '\t');
    if (fields.size() < columns.size() || !fields[0].starts_with("vtk_legacy/") || fields[column("meshio_ok")] != "yes")
      continue;
    ExpectedMesh mesh;
    mesh.num_points = std::stoll(fields[column("num_points")]);
    mesh.point_dim = std::stoll(fields[column("point_dim")]);
    if (!fields[column("cell_blocks")].empty())
      for (const std::string& block : split(fields[column("cell_blocks")], ';')) {
        const auto colon = block.find(':');
        mesh.blocks.emplace_back(block.substr(0, colon), std::stoll(block.substr(colon + 1)));
      }
    mesh.point_data = parse_array_list(fields[column("point_data")]);
    mesh.cell_data = parse_array_list(fields[column("cell_data")]);
    mesh.field_data = parse_array_list(fields[column("field_data")]);
    mesh.sum_points = std::stod(fields[column("sum_points")]);
    table[fields[0].substr(std::string("vtk_legacy/").size())] = mesh;
  }
  return table;
}

template <class Value>
void expect_names(const NamedList<Value>& actual, const std::vector<ExpectedArray>& expected, const std::string& what) {
  std::vector<std::string> actual_names, expected_names;
  for (const auto& entry : actual) actual_names.push_back(entry.first);
  for (const ExpectedArray& array : expected) expected_names.push_back(array.name);
  EXPECT_EQ(actual_names, expected_names) << what;
}

class VtkLegacyCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(VtkLegacyCorpus, MatchesMeshio) {
  if (!fs::is_directory(kCorpusDir / "vtk_legacy")) {
    GTEST_SKIP() << "corpus not found at " << kCorpusDir;
  }
  const auto table = load_expected_vtk();
  const auto found = table.find(GetParam());
  ASSERT_NE(found, table.end()) << GetParam() << " is missing from EXPECTED_meshio.tsv";
  const ExpectedMesh& expected = found->second;

  const Mesh mesh = vtk::read((kCorpusDir / "vtk_legacy" / GetParam()).string());
  EXPECT_NO_THROW(validate(mesh));
  EXPECT_EQ(mesh.num_points(), expected.num_points);
  ASSERT_EQ(mesh.points.ndim(), 2u);
  EXPECT_EQ(mesh.points.dim(1), expected.point_dim);

  std::vector<std::pair<std::string, std::int64_t>> blocks;
  for (const CellBlock& block : mesh.cells) blocks.emplace_back(block.type, block.num_cells());
  EXPECT_EQ(blocks, expected.blocks);

  expect_names(mesh.point_data, expected.point_data, "point_data");
  for (const ExpectedArray& array : expected.point_data) {
    const NDArray* data = mesh.point_data.find(array.name);
    if (data != nullptr && !array.shape.empty()) {
      EXPECT_EQ(data->shape(), array.shape) << array.name;
    }
  }
  expect_names(mesh.cell_data, expected.cell_data, "cell_data");
  for (const auto& [name, parts] : mesh.cell_data) EXPECT_EQ(parts.size(), mesh.cells.size()) << name;
  expect_names(mesh.field_data, expected.field_data, "field_data");

  double sum = 0, magnitude = 0;
  visit_dtype(mesh.points.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (const T value : mesh.points.values<T>()) {
      sum += static_cast<double>(value);
      magnitude += std::abs(static_cast<double>(value));
    }
  });
  // meshio sums float32 points in float32, so for sums that cancel (rbc_001) the reference
  // is only good relative to the size of the summands, not to the (tiny) sum itself.
  const double tolerance = 1e-6 * std::max({std::abs(expected.sum_points), magnitude, 1e-300});
  EXPECT_NEAR(sum, expected.sum_points, tolerance);
}

INSTANTIATE_TEST_SUITE_P(VtkLegacyFiles, VtkLegacyCorpus,
                         ::testing::Values("00_image.vtk", "01_image.vtk", "02_structured.vtk", "03_rectilinear.vtk",
                                           "04_rectilinear.vtk", "rbc_001.vtk", "a_grid.vtk"),
                         [](const auto& file) {
                           std::string name = file.param.substr(0, file.param.find('.'));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// meshio's numbering of structured cells, spelled out independently of the reader.
std::vector<std::int64_t> meshio_structured_cells(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  std::vector<std::int64_t> e;
  for (std::int64_t d : {nx, ny, nz})
    if (d > 1) e.push_back(d - 1);
  std::int64_t n = 1;
  for (auto v : e) n *= v;
  std::vector<std::int64_t> out;
  for (std::int64_t k = 0; k < n; ++k) {
    if (e.size() == 2) {
      const std::int64_t p0 = k + k / e[0];
      out.insert(out.end(), {p0, p0 + 1, p0 + 2 + e[0], p0 + 1 + e[0]});
    } else if (e.size() == 3) {
      const std::int64_t p0 = k + (e[0] + e[1] + 1) * (k / (e[0] * e[1])) + (k % (e[0] * e[1])) / e[0];
      const std::int64_t p4 = p0 + (1 + e[0]) * (1 + e[1]);
      out.insert(out.end(), {p0, p0 + 1, p0 + 2 + e[0], p0 + 1 + e[0], p4, p4 + 1, p4 + 2 + e[0], p4 + 1 + e[0]});
    }
  }
  return out;
}

TEST(VtkLegacyCorpusDetail, StructuredCellsFollowMeshioNumbering) {
  if (!fs::is_directory(kCorpusDir / "vtk_legacy")) {
    GTEST_SKIP() << "corpus not found at " << kCorpusDir;
  }
  const std::tuple<const char*, std::int64_t, std::int64_t, std::int64_t> files[] = {
      {"00_image.vtk", 10, 10, 1}, {"01_image.vtk", 7, 7, 3},        {"02_structured.vtk", 7, 7, 3},
      {"03_rectilinear.vtk", 7, 7, 3}, {"04_rectilinear.vtk", 10, 4, 1}};
  for (const auto& [file, nx, ny, nz] : files) {
    const Mesh mesh = vtk::read((kCorpusDir / "vtk_legacy" / file).string());
    ASSERT_EQ(mesh.cells.size(), 1u) << file;
    const auto ids = mesh.cells[0].connectivity.values<std::int64_t>();
    EXPECT_EQ(std::vector<std::int64_t>(ids.begin(), ids.end()), meshio_structured_cells(nx, ny, nz)) << file;
  }
  // 03_rectilinear: x fastest, the coordinates of point 8 are (x[1], y[1], z[0]).
  const Mesh grid = vtk::read((kCorpusDir / "vtk_legacy" / "03_rectilinear.vtk").string());
  const double* p = grid.points.data_as<double>();
  EXPECT_EQ(p[3 * 1 + 1], p[0 * 3 + 1]);   // same y along x
  EXPECT_NE(p[3 * 7 + 1], p[0 * 3 + 1]);   // next row: y changes
  EXPECT_EQ(p[3 * 8 + 2], p[0 * 3 + 2]);   // still the first z plane
  // 00_image: SCALARS with one component stay (n, 1) float32.
  const Mesh image = vtk::read((kCorpusDir / "vtk_legacy" / "00_image.vtk").string());
  EXPECT_EQ(image.point_data.find("transmissivity")->dtype(), DType::float32);
  // a_grid is binary: its first point, decoded from big-endian doubles.
  const Mesh binary = vtk::read((kCorpusDir / "vtk_legacy" / "a_grid.vtk").string());
  EXPECT_EQ(binary.points.dtype(), DType::float64);
  EXPECT_EQ(binary.cells[0].connectivity.dtype(), DType::int64);
}

// ---------------------------------------------------------------------------------------
// Round trips through 4.2 / 5.1 × ASCII / binary
// ---------------------------------------------------------------------------------------

using Flavour = std::tuple<std::string, bool>;  // fmt_version, binary

std::string flavour_name(const ::testing::TestParamInfo<Flavour>& info) {
  std::string version = std::get<0>(info.param);
  version.erase(std::remove(version.begin(), version.end(), '.'), version.end());
  return "v" + version + (std::get<1>(info.param) ? "_binary" : "_ascii");
}

class VtkLegacyRoundTrip : public ::testing::TestWithParam<Flavour> {
 protected:
  Mesh round_trip(const Mesh& mesh) {
    const std::string path = scratch_.file("mesh.vtk");
    vtk::write(path, mesh, options_for(std::get<0>(GetParam()), std::get<1>(GetParam())));
    return vtk::read(path);
  }
  ScratchDir scratch_;
};

// Every fixed-size type VTK has an id for, two cells each, then a polygon block with cells
// of 3, 5 and 4 nodes. Consecutive blocks differ in type so they come back as they went.
Mesh every_cell_type_mesh(DType point_dtype) {
  Mesh mesh;
  const std::int64_t num_points = 1400;
  mesh.points = tricky_array(point_dtype, {num_points, 3}, 7);
  // Non-finite coordinates are legal in a file but make a poor mesh; keep them finite.
  visit_dtype(point_dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>)
      for (T& value : mesh.points.values<T>())
        if (!std::isfinite(value)) value = T(0.5);
  });
  std::int64_t next_id = 0;
  for (const CellTypeInfo& info : cell_types()) {
    if (info.num_nodes == 0 || info.vtk_id < 0) continue;
    // Fixed-order types written with a Lagrange id (68-74) read back as VTK_LAGRANGE_*, as in
    // meshio (tested on their own); the VTK_LAGRANGE_* types themselves take any width.
    const bool lagrange_id = info.vtk_id >= 68 && info.vtk_id <= 74;
    if (lagrange_id && info.num_nodes != kAnyNodeCount) continue;
    const std::int64_t nodes = info.num_nodes == kAnyNodeCount ? 10 + (info.vtk_id - 68) : info.num_nodes;
    CellBlock block;
    block.type = std::string(info.name);
    block.connectivity = NDArray::allocate(DType::int64, {2, nodes});
    for (std::int64_t& id : block.connectivity.values<std::int64_t>()) id = next_id++ % num_points;
    mesh.cells.push_back(std::move(block));
  }
  CellBlock polygons;
  polygons.type = "polygon";
  polygons.offsets = make_array<std::int64_t>({4}, {0, 3, 8, 12});
  polygons.connectivity = make_array<std::int64_t>({12}, {0, 1, 2, 3, 4, 5, 6, 7, 1399, 10, 11, 12});
  mesh.cells.push_back(std::move(polygons));
  return mesh;
}

void expect_same_cells(const Mesh& expected, const Mesh& actual) {
  ASSERT_EQ(actual.cells.size(), expected.cells.size());
  for (std::size_t b = 0; b < expected.cells.size(); ++b) {
    const CellBlock& want = expected.cells[b];
    const CellBlock& got = actual.cells[b];
    EXPECT_EQ(got.type, want.type) << "block " << b;
    expect_same_array(want.connectivity, got.connectivity, "connectivity of " + want.type);
    if (want.is_ragged()) expect_same_array(want.offsets, got.offsets, "offsets of " + want.type);
  }
}

TEST_P(VtkLegacyRoundTrip, EveryCellTypeWithFloat64Points) {
  const Mesh mesh = every_cell_type_mesh(DType::float64);
  const Mesh back = round_trip(mesh);
  expect_same_array(mesh.points, back.points, "points");
  expect_same_cells(mesh, back);
}

TEST_P(VtkLegacyRoundTrip, EveryCellTypeWithFloat32Points) {
  const Mesh mesh = every_cell_type_mesh(DType::float32);
  const Mesh back = round_trip(mesh);
  expect_same_array(mesh.points, back.points, "points");
  expect_same_cells(mesh, back);
}

Mesh two_block_mesh() {
  Mesh mesh;
  mesh.points = make_array<double>({5, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 0.5, 1});
  CellBlock triangles;
  triangles.type = "triangle";
  triangles.connectivity = make_array<std::int64_t>({3, 3}, {0, 1, 2, 0, 2, 3, 1, 2, 4});
  CellBlock tetra;
  tetra.type = "tetra";
  tetra.connectivity = make_array<std::int64_t>({2, 4}, {0, 1, 2, 4, 0, 2, 3, 4});
  mesh.cells = {triangles, tetra};
  return mesh;
}

TEST_P(VtkLegacyRoundTrip, DataOfEveryDTypeAndShape) {
  Mesh mesh = two_block_mesh();
  unsigned seed = 100;
  for (const DType dtype : kAllDTypes) {
    const std::string name(dtype_name(dtype));
    mesh.point_data.set("p " + name, tricky_array(dtype, {5}, seed++));
    mesh.point_data.set("p3_" + name, tricky_array(dtype, {5, 3}, seed++));
    mesh.cell_data.set("c_" + name, {tricky_array(dtype, {3}, seed++), tricky_array(dtype, {2}, seed++)});
    mesh.cell_data.set("c2_" + name, {tricky_array(dtype, {3, 2}, seed++), tricky_array(dtype, {2, 2}, seed++)});
    mesh.field_data.set("f_" + name, tricky_array(dtype, {4}, seed++));
    mesh.field_data.set("f23_" + name, tricky_array(dtype, {2, 3}, seed++));
  }
  mesh.point_data.set("scalar column", tricky_array(DType::int16, {5, 1}, seed++));
  mesh.point_data.set("tensor", tricky_array(DType::float64, {5, 3, 3}, seed++));
  mesh.point_data.set("wide", tricky_array(DType::uint8, {5, 7}, seed++));
  mesh.cell_data.set("cell column", {tricky_array(DType::float32, {3, 1}, seed), tricky_array(DType::float32, {2, 1}, seed + 1)});
  mesh.cell_data.set("stress", {tricky_array(DType::float32, {3, 3, 3}, seed), tricky_array(DType::float32, {2, 3, 3}, seed + 1)});

  const Mesh back = round_trip(mesh);
  expect_same_array(mesh.points, back.points, "points");
  expect_same_cells(mesh, back);

  std::vector<std::string> names, back_names;
  for (const auto& [name, array] : mesh.point_data) {
    names.push_back(name);
    const NDArray* got = back.point_data.find(name);
    ASSERT_NE(got, nullptr) << name;
    expect_same_array(array, *got, "point_data " + name);
  }
  for (const auto& entry : back.point_data) back_names.push_back(entry.first);
  EXPECT_EQ(back_names, names) << "point data order";

  for (const auto& [name, parts] : mesh.cell_data) {
    const std::vector<NDArray>* got = back.cell_data.find(name);
    ASSERT_NE(got, nullptr) << name;
    ASSERT_EQ(got->size(), parts.size()) << name;
    for (std::size_t b = 0; b < parts.size(); ++b) expect_same_array(parts[b], (*got)[b], "cell_data " + name);
  }
  for (const auto& [name, array] : mesh.field_data) {
    const NDArray* got = back.field_data.find(name);
    ASSERT_NE(got, nullptr) << name;
    expect_same_array(array, *got, "field_data " + name);
  }
}

TEST_P(VtkLegacyRoundTrip, TwoDimensionalPointsArePaddedWithZeros) {
  Mesh mesh;
  mesh.points = make_array<float>({3, 2}, {0.f, 0.f, 1.f, 0.f, 0.25f, 1.f});
  CellBlock triangle;
  triangle.type = "triangle";
  triangle.connectivity = make_array<std::int64_t>({1, 3}, {0, 1, 2});
  mesh.cells.push_back(triangle);
  const Mesh back = round_trip(mesh);
  expect_same_array(make_array<float>({3, 3}, {0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 0.25f, 1.f, 0.f}), back.points, "points");
}

TEST_P(VtkLegacyRoundTrip, PointCloudWithoutCells) {
  Mesh mesh;
  mesh.points = tricky_array(DType::float64, {4, 3}, 3);
  mesh.point_data.set("id", make_array<std::int32_t>({4}, {4, 3, 2, 1}));
  const Mesh back = round_trip(mesh);
  expect_same_array(mesh.points, back.points, "points");
  EXPECT_TRUE(back.cells.empty());
  expect_same_array(*mesh.point_data.find("id"), *back.point_data.find("id"), "id");
}

TEST_P(VtkLegacyRoundTrip, ThroughTheRegistry) {
  const Mesh mesh = two_block_mesh();
  const std::string path = scratch_.file("registry.vtk");
  meshioplusplus::write(path, mesh, {}, options_for(std::get<0>(GetParam()), std::get<1>(GetParam())));
  const std::string bytes = read_file(path);
  EXPECT_TRUE(bytes.starts_with("# vtk DataFile Version " + std::get<0>(GetParam()) + "\n"));
  EXPECT_NE(bytes.find(std::get<1>(GetParam()) ? "\nBINARY\n" : "\nASCII\n"), std::string::npos);
  expect_same_cells(mesh, meshioplusplus::read(path));
}

INSTANTIATE_TEST_SUITE_P(VtkLegacyFlavours, VtkLegacyRoundTrip,
                         ::testing::Combine(::testing::Values("4.2", "5.1"), ::testing::Bool()), flavour_name);

// ---------------------------------------------------------------------------------------
// Writer limits
// ---------------------------------------------------------------------------------------

// Polyhedra are written (and read): tests/formats/vtk/test_vtk_polyhedra.cpp.

TEST(VtkLegacyWrite, UnknownVersionIsRefused) {
  ScratchDir scratch;
  EXPECT_THROW(vtk::write(scratch.file("x.vtk"), two_block_mesh(), options_for("3.0", true)), std::invalid_argument);
  EXPECT_FALSE(fs::exists(scratch.file("x.vtk")));
}

TEST(VtkLegacyWrite, Version51AsciiLayout) {
  ScratchDir scratch;
  const std::string path = scratch.file("layout.vtk");
  Mesh mesh = two_block_mesh();
  mesh.point_data.set("t", make_array<double>({5, 1}, {1, 2, 3, 4, 5}));
  vtk::write(path, mesh, options_for("5.1", false));
  const std::string text = read_file(path);
  EXPECT_NE(text.find("CELLS 6 17\nOFFSETS vtktypeint64\n0 3 6 9 13 17\nCONNECTIVITY vtktypeint64\n0 1 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("CELL_TYPES 5\n5\n5\n5\n10\n10\n"), std::string::npos) << text;
  EXPECT_NE(text.find("POINT_DATA 5\nSCALARS t double 1\nLOOKUP_TABLE default\n1\n2\n"), std::string::npos) << text;
  vtk::write(path, mesh, options_for("4.2", false));
  EXPECT_NE(read_file(path).find("CELLS 5 22\n3 0 1 2\n"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// Reader: dataset kinds and sections beyond the corpus
// ---------------------------------------------------------------------------------------

class VtkLegacyRead : public ::testing::Test {
 protected:
  Mesh read_text(const std::string& text) {
    const std::string path = scratch_.file("input.vtk");
    write_file(path, text);
    return vtk::read(path);
  }
  ScratchDir scratch_;
};

std::vector<std::int64_t> ids_of(const CellBlock& block) {
  const auto values = block.connectivity.values<std::int64_t>();
  return {values.begin(), values.end()};
}

template <class T>
std::vector<T> values_of(const NDArray& array) {
  const auto values = array.values<T>();
  return {values.begin(), values.end()};
}

constexpr const char* kSixPoints =
    "POINTS 6 float\n"
    "0 0 0  1 0 0  2 0 0\n"
    "0 1 0  1 1 0  2 1 0\n";

TEST_F(VtkLegacyRead, PolydataSplitsPolyVerticesPolylinesAndStrips) {
  const Mesh mesh = read_text(std::string("# vtk DataFile Version 3.0\npolydata\nASCII\nDATASET POLYDATA\n") +
                              kSixPoints +
                              "VERTICES 2 6\n1 0\n3 1 2 3\n"
                              "LINES 2 7\n2 0 1\n3 3 4 5\n"
                              "POLYGONS 2 9\n3 0 1 4\n4 0 1 4 3\n"
                              "TRIANGLE_STRIPS 1 6\n5 0 3 1 4 2\n"
                              "CELL_DATA 7\nSCALARS id int\nLOOKUP_TABLE default\n10 11 12 13 14 15 16\n");
  ASSERT_EQ(mesh.cells.size(), 4u);
  EXPECT_EQ(mesh.cells[0].type, "vertex");
  EXPECT_EQ(ids_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(mesh.cells[1].type, "line");
  EXPECT_EQ(ids_of(mesh.cells[1]), (std::vector<std::int64_t>{0, 1, 3, 4, 4, 5}));
  EXPECT_EQ(mesh.cells[2].type, "polygon");
  EXPECT_EQ(ids_of(mesh.cells[2]), (std::vector<std::int64_t>{0, 1, 4, 0, 1, 4, 3}));
  EXPECT_EQ(mesh.cells[3].type, "triangle");
  EXPECT_EQ(ids_of(mesh.cells[3]), (std::vector<std::int64_t>{0, 3, 1, 1, 3, 4, 1, 4, 2}));
  const auto& ids = *mesh.cell_data.find("id");
  EXPECT_EQ(values_of<std::int32_t>(ids[0]), (std::vector<std::int32_t>{10, 11, 11, 11}));
  EXPECT_EQ(values_of<std::int32_t>(ids[1]), (std::vector<std::int32_t>{12, 13, 13}));
  EXPECT_EQ(values_of<std::int32_t>(ids[2]), (std::vector<std::int32_t>{14, 15}));
  EXPECT_EQ(values_of<std::int32_t>(ids[3]), (std::vector<std::int32_t>{16, 16, 16}));
}

TEST_F(VtkLegacyRead, WedgesTakeMeshioNodeOrderBothWays) {
  const std::string file = std::string("# vtk DataFile Version 4.2\nwedge\nASCII\nDATASET UNSTRUCTURED_GRID\n") +
                           kSixPoints + "CELLS 1 7\n6 0 1 2 3 4 5\nCELL_TYPES 1\n13\n";
  const Mesh mesh = read_text(file);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "wedge");
  EXPECT_EQ(ids_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 2, 1, 3, 5, 4}));
  const std::string path = scratch_.file("wedge_out.vtk");
  vtk::write(path, mesh, options_for("4.2", false));
  EXPECT_NE(read_file(path).find("CELLS 1 7\n6 0 1 2 3 4 5\n"), std::string::npos) << read_file(path);
  vtk::write(path, mesh, options_for("5.1", false));
  EXPECT_NE(read_file(path).find("CONNECTIVITY vtktypeint64\n0 1 2 3 4 5\n"), std::string::npos) << read_file(path);
}

TEST_F(VtkLegacyRead, WindowsLineEndingsAndBlankLines) {
  const Mesh mesh = read_text(
      "# vtk DataFile Version 1.0\r\ncrlf\r\nascii\r\n\r\ndataset unstructured_grid\r\nPOINTS 3 float\r\n"
      "0 0 0\r\n1 0 0\r\n0 1 0\r\n\r\nCELLS 1 4\r\n3 0 1 2\r\nCELL_TYPES 1\r\n5\r\n"
      "POINT_DATA 3\r\nSCALARS t double\r\nLOOKUP_TABLE default\r\n1 2 3\r\n");
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  EXPECT_EQ(values_of<double>(*mesh.point_data.find("t")), (std::vector<double>{1, 2, 3}));
}

TEST_F(VtkLegacyRead, PolydataVersion5WithUniformPolygons) {
  const Mesh mesh = read_text(std::string("# vtk DataFile Version 5.1\npolydata\nASCII\nDATASET POLYDATA\n") +
                              kSixPoints +
                              "POLYGONS 3 8\nOFFSETS vtktypeint64\n0 4 8\nCONNECTIVITY vtktypeint64\n0 1 4 3 1 2 5 4\n");
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "quad");
  EXPECT_EQ(mesh.cells[0].connectivity.shape(), (Shape{2, 4}));
}

TEST_F(VtkLegacyRead, AttributeSectionsOfEveryKind) {
  const Mesh mesh = read_text(
      std::string("# vtk DataFile Version 2.0\nattributes\nASCII\nDATASET UNSTRUCTURED_GRID\n") +
      "FIELD FieldData 2\ntime 1 1 double\n1.5\nsteps%20taken 2 2 int\n1 2 3 4\n" + kSixPoints +
      "CELLS 2 8\n3 0 1 4\n3 1 2 5\nCELL_TYPES 2\n5 5\n"
      "POINT_DATA 6\n"
      "SCALARS pair float 2\nLOOKUP_TABLE my_table\n0 1 2 3 4 5 6 7 8 9 10 11\n"
      "LOOKUP_TABLE my_table 2\n0 0 0 1  1 1 1 1\n"
      "VECTORS velocity double\n1 2 3 1 2 3 1 2 3 1 2 3 1 2 3 1 2 3\n"
      "NORMALS n float\n0 0 1 0 0 1 0 0 1 0 0 1 0 0 1 0 0 1\n"
      "TEXTURE_COORDINATES uv 2 float\n0 0 1 0 2 0 0 1 1 1 2 1\n"
      "TENSORS sigma float\n" + [] {
        std::string nine;
        for (int i = 0; i < 54; ++i) nine += std::to_string(i) + " ";
        return nine;
      }() +
      "\nMETADATA\nINFORMATION 1\nNAME L2_NORM_RANGE LOCATION vtkDataArray\nDATA 2 0 1\n\n"
      "COLOR_SCALARS rgb 3\n0 0 0 1 1 1 0.5 0.5 0.5 0 0 0 1 1 1 0.5 0.5 0.5\n"
      "CELL_DATA 2\nFIELD FieldData 1\nflag 1 2 bit\n1 0\n");
  EXPECT_EQ(mesh.field_data.find("time")->shape(), (Shape{1}));
  ASSERT_NE(mesh.field_data.find("steps taken"), nullptr);
  EXPECT_EQ(mesh.field_data.find("steps taken")->shape(), (Shape{2, 2}));
  EXPECT_EQ(mesh.point_data.find("pair")->shape(), (Shape{6, 2}));
  EXPECT_EQ(values_of<float>(*mesh.point_data.find("pair"))[11], 11.f);
  EXPECT_EQ(mesh.point_data.find("velocity")->shape(), (Shape{6, 3}));
  EXPECT_EQ(mesh.point_data.find("velocity")->dtype(), DType::float64);
  EXPECT_EQ(mesh.point_data.find("n")->shape(), (Shape{6, 3}));
  EXPECT_EQ(mesh.point_data.find("uv")->shape(), (Shape{6, 2}));
  EXPECT_EQ(mesh.point_data.find("sigma")->shape(), (Shape{6, 3, 3}));
  EXPECT_EQ(values_of<float>(*mesh.point_data.find("sigma"))[53], 53.f);
  EXPECT_EQ(mesh.point_data.find("rgb")->shape(), (Shape{6, 3}));
  EXPECT_EQ(mesh.point_data.find("rgb")->dtype(), DType::float32);
  const auto& flag = *mesh.cell_data.find("flag");
  ASSERT_EQ(flag.size(), 1u);
  EXPECT_EQ(values_of<std::uint8_t>(flag[0]), (std::vector<std::uint8_t>{1, 0}));
}

// Builds binary legacy files by hand: text lines and big-endian values.
class BigEndianBuilder {
 public:
  BigEndianBuilder& text(const std::string& line) {
    bytes_ += line;
    return *this;
  }
  template <class T>
  BigEndianBuilder& values(std::initializer_list<T> list) {
    for (T value : list) {
      char raw[sizeof(T)];
      std::memcpy(raw, &value, sizeof(T));
      if constexpr (std::endian::native == std::endian::little) std::reverse(raw, raw + sizeof(T));
      bytes_.append(raw, sizeof(T));
    }
    bytes_ += '\n';
    return *this;
  }
  BigEndianBuilder& raw(const std::string& data) {
    bytes_ += data;
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

TEST_F(VtkLegacyRead, BinaryStructuredPointsWithPackedBitsIdsAndColors) {
  BigEndianBuilder file;
  file.text("# vtk DataFile Version 4.2\nbinary image\nBINARY\nDATASET STRUCTURED_POINTS\n")
      .text("DIMENSIONS 3 2 1\nSPACING 0.5 2 1\nORIGIN 1 0 0\n")
      .text("POINT_DATA 6\nSCALARS level unsigned_short\nLOOKUP_TABLE default\n")
      .values<std::uint16_t>({1, 2, 3, 500, 600, 65535})
      .text("COLOR_SCALARS rgba 4\n")
      .raw(std::string("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\n", 25))
      .text("FIELD FieldData 2\nmask 1 6 bit\n")
      .raw(std::string("\xa4\n", 2))
      .text("ids 1 6 vtkIdType\n")
      .values<std::int32_t>({7, -1, 0, 1, 2, 2147483647})
      .text("CELL_DATA 2\nVECTORS v float\n")
      .values<float>({1.5f, -2.f, 0.f, 3.f, 4.f, 5.f});
  const Mesh mesh = read_text(file.bytes());
  EXPECT_EQ(values_of<double>(mesh.points), (std::vector<double>{1, 0, 0, 1.5, 0, 0, 2, 0, 0, 1, 2, 0, 1.5, 2, 0, 2, 2, 0}));
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "quad");
  EXPECT_EQ(ids_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 4, 3, 1, 2, 5, 4}));
  EXPECT_EQ(values_of<std::uint16_t>(*mesh.point_data.find("level")),
            (std::vector<std::uint16_t>{1, 2, 3, 500, 600, 65535}));
  EXPECT_EQ(mesh.point_data.find("rgba")->dtype(), DType::uint8);
  EXPECT_EQ(values_of<std::uint8_t>(*mesh.point_data.find("rgba"))[23], 0x17);
  EXPECT_EQ(values_of<std::uint8_t>(*mesh.point_data.find("mask")), (std::vector<std::uint8_t>{1, 0, 1, 0, 0, 1}));
  EXPECT_EQ(values_of<std::int64_t>(*mesh.point_data.find("ids")),
            (std::vector<std::int64_t>{7, -1, 0, 1, 2, 2147483647}));
  EXPECT_EQ(values_of<float>(mesh.cell_data.find("v")->at(0)), (std::vector<float>{1.5f, -2.f, 0.f, 3.f, 4.f, 5.f}));
}

TEST_F(VtkLegacyRead, StructuredGridsOfOneAndTwoDimensions) {
  const Mesh line = read_text(
      "# vtk DataFile Version 3.0\nline\nASCII\nDATASET RECTILINEAR_GRID\nDIMENSIONS 1 1 3\n"
      "X_COORDINATES 1 float\n0\nY_COORDINATES 1 float\n0\nZ_COORDINATES 3 double\n0 0.1 0.2\n");
  ASSERT_EQ(line.cells.size(), 1u);
  EXPECT_EQ(line.cells[0].type, "line");
  EXPECT_EQ(ids_of(line.cells[0]), (std::vector<std::int64_t>{0, 1, 1, 2}));
  EXPECT_EQ(line.points.dtype(), DType::float32);  // X_COORDINATES decides, as in meshio
  EXPECT_EQ(values_of<float>(line.points)[5], 0.1f);

  const Mesh sheet = read_text(
      "# vtk DataFile Version 3.0\nsheet\nASCII\nDATASET STRUCTURED_GRID\nDIMENSIONS 1 3 4\nPOINTS 12 double\n" +
      std::string("0 0 0 0 1 0 0 2 0 0 0 1 0 1 1 0 2 1 0 0 2 0 1 2 0 2 2 0 0 3 0 1 3 0 2 3\n"));
  ASSERT_EQ(sheet.cells.size(), 1u);
  EXPECT_EQ(sheet.cells[0].type, "quad");
  EXPECT_EQ(ids_of(sheet.cells[0]), meshio_structured_cells(1, 3, 4));
}

// ---------------------------------------------------------------------------------------
// Broken input: every error is a ReadError naming the file and where in it
// ---------------------------------------------------------------------------------------

class VtkLegacyBadInput : public ::testing::Test {
 protected:
  // Reads `bytes` and returns the ReadError, after checking it names the file, a byte
  // offset and a line.
  ReadError read_error(const std::string& bytes, const std::string& reason) {
    const std::string path = scratch_.file("broken.vtk");
    write_file(path, bytes);
    try {
      vtk::read(path);
    } catch (const ReadError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find("(byte "), std::string::npos) << what;
      EXPECT_TRUE(error.byte_offset().has_value()) << what;
      EXPECT_TRUE(error.line().has_value()) << what;
      EXPECT_NE(what.find(reason), std::string::npos) << what;
      return error;
    }
    ADD_FAILURE() << "no ReadError for input expected to fail with '" << reason << "'";
    return ReadError(path, "vtk", "none");
  }
  ScratchDir scratch_;
};

const std::string kTetraHeader = "# vtk DataFile Version 4.2\nbad\nASCII\nDATASET UNSTRUCTURED_GRID\n";

TEST_F(VtkLegacyBadInput, TruncatedBinary) {
  const std::string path = scratch_.file("whole.vtk");
  vtk::write(path, two_block_mesh(), options_for("5.1", true));
  const std::string whole = read_file(path);
  const std::size_t points = whole.find("POINTS");
  ASSERT_NE(points, std::string::npos);
  const ReadError error = read_error(whole.substr(0, points + 40), "bytes of binary data");
  EXPECT_EQ(*error.line(), 6u);  // where the point data start, just after the POINTS line
  // Cut inside the connectivity too.
  read_error(whole.substr(0, whole.find("CONNECTIVITY") + 30), "bytes of binary data");
}

TEST_F(VtkLegacyBadInput, WrongPointsCount) {
  const ReadError error = read_error(kTetraHeader + "POINTS 4 float\n0 0 0\n1 0 0\n0 1 0\nCELLS 1 5\n4 0 1 2 3\n",
                                     "invalid number 'CELLS'");
  EXPECT_EQ(*error.line(), 9u);
}

TEST_F(VtkLegacyBadInput, BadNumber) {
  const ReadError error = read_error(kTetraHeader + "POINTS 2 double\n0 0 0\n1 0.5x 0\n", "invalid number '0.5x'");
  EXPECT_EQ(*error.line(), 7u);
}

TEST_F(VtkLegacyBadInput, ConnectivityIndexOutOfRange) {
  const ReadError error = read_error(
      kTetraHeader + "POINTS 4 float\n0 0 0 1 0 0 0 1 0 0 0 1\nCELLS 1 5\n4 0 1 2 4\nCELL_TYPES 1\n10\n",
      "connectivity index 4 outside [0, 4)");
  EXPECT_EQ(*error.line(), 7u);  // the CELLS line
}

TEST_F(VtkLegacyBadInput, UnknownCellType) {
  const ReadError error = read_error(
      kTetraHeader + "POINTS 4 float\n0 0 0 1 0 0 0 1 0 0 0 1\nCELLS 1 5\n4 0 1 2 3\nCELL_TYPES 1\n99\n",
      "unknown VTK cell type 99");
  EXPECT_EQ(*error.line(), 9u);
}

TEST_F(VtkLegacyBadInput, UnknownDataset) {
  const ReadError error = read_error("# vtk DataFile Version 4.2\nbad\nASCII\nDATASET HYPERCUBE\n", "unknown DATASET 'HYPERCUBE'");
  EXPECT_EQ(*error.line(), 4u);
}

TEST_F(VtkLegacyBadInput, MoreFaults) {
  read_error("not a vtk file\n", "not a VTK legacy file");
  read_error("# vtk DataFile Version 4.2\nt\nUTF8\n", "expected ASCII or BINARY");
  read_error(kTetraHeader + "POINTS 3 float\n0 0 0 1 0 0 0 1 0\nPOINT_DATA 4\n", "POINT_DATA declares 4");
  read_error(kTetraHeader + "POINTS 3 float\n0 0 0 1 0 0 0 1 0\nCELLS 1 5\n3 0 1 2\nCELL_TYPES 1\n5\n", "declared size 5");
  read_error(kTetraHeader + "POINTS 3 float\n0 0 0 1 0 0 0 1 0\nCELLS 1 4\n3 0 1 2\nCELL_TYPES 2\n5 5\n", "CELL_TYPES lists 2");
  read_error(kTetraHeader + "POINTS 99999999999 float\n0 0 0\n", "declares 299999999997 values");
  read_error(kTetraHeader + "POINTS 1 float\n0 0 0\nPOINT_DATA 1\nSCALARS s string\n", "unsupported data type 'string'");
  read_error(kTetraHeader + "POINTS 1 float\n0 0 0\nPOINT_DATA 1\nFIELD f 1\na 1 2 int\n1 2\n", "has 2 tuples");
  read_error(kTetraHeader + "SCALARS s float\n", "outside POINT_DATA");
  read_error(kTetraHeader + "POINTS 3 float\n0 0 0 1 0 0 0 1 0\nCELLS 1 4\n3 0 1 2\nCELL_TYPES 1\n7\n"
                            "CELL_DATA 1\nFIELD f 2\na 1 1 int\n3\n",
             "FIELD declares 2 arrays");
  read_error("# vtk DataFile Version 4.2\nt\nASCII\nDATASET STRUCTURED_POINTS\nDIMENSIONS 0 1 1\n", "at least 1");
}

// Damaged copies of valid files must fail with a ReadError (or read), never crash or hang.
TEST_F(VtkLegacyBadInput, DamagedFilesNeverCrash) {
  std::vector<std::string> originals;
  for (const auto& [version, binary] : {Flavour{"4.2", false}, Flavour{"4.2", true}, Flavour{"5.1", false}, Flavour{"5.1", true}}) {
    Mesh mesh = two_block_mesh();
    mesh.point_data.set("s", make_array<double>({5, 1}, {1, 2, 3, 4, 5}));
    mesh.cell_data.set("c", {make_array<std::int32_t>({3}, {1, 2, 3}), make_array<std::int32_t>({2}, {4, 5})});
    const std::string path = scratch_.file("original.vtk");
    vtk::write(path, mesh, options_for(version, binary));
    originals.push_back(read_file(path));
  }
  std::mt19937 random(2024);
  const std::string path = scratch_.file("damaged.vtk");
  int errors = 0, reads = 0;
  for (int round = 0; round < 400; ++round) {
    std::string bytes = originals[static_cast<std::size_t>(round) % originals.size()];
    if (round % 3 == 0) {
      bytes.resize(std::uniform_int_distribution<std::size_t>(0, bytes.size())(random));
    } else {
      const int flips = 1 + round % 4;
      for (int f = 0; f < flips; ++f)
        bytes[std::uniform_int_distribution<std::size_t>(0, bytes.size() - 1)(random)] =
            static_cast<char>(std::uniform_int_distribution<int>(0, 255)(random));
    }
    write_file(path, bytes);
    try {
      const Mesh mesh = vtk::read(path);
      ++reads;
    } catch (const ReadError&) {
      ++errors;
    } catch (const std::exception& other) {
      ADD_FAILURE() << "round " << round << ": " << typeid(other).name() << ": " << other.what();
    }
  }
  EXPECT_GT(errors, 0);
  EXPECT_EQ(errors + reads, 400);
}

}  // namespace

// ---- hostile input (issue 18; tests/data/fuzz-regressions/vtk/) ----

#include "meshioplusplus/limits.hpp"

// A ~100-byte STRUCTURED_POINTS file claiming 7 x 7 x 2^31 points reached 2-3 GB of memory
// before failing: generated points and cells are checked against the read limit first.
TEST(VtkHostile, StructuredPointsBeyondTheReadLimitAreAReadError) {
  const std::string path = write_scratch("huge.vtk",
                                         "# vtk DataFile Version 4.2\nhostile\nASCII\nDATASET STRUCTURED_POINTS\n"
                                         "DIMENSIONS 7 7 2147483648\n");
  const ReadError error = expect_read_error([&] { vtk::read(path); });
  EXPECT_EQ(error.line(), std::optional<std::uint64_t>(5));
  EXPECT_NE(error.reason().find("read limit"), std::string::npos) << error.what();
  // The limit decides: a grid that fits reads, and fails once the limit is lowered below it.
  const std::string small = write_scratch("small.vtk",
                                          "# vtk DataFile Version 4.2\nsmall\nASCII\nDATASET STRUCTURED_POINTS\n"
                                          "DIMENSIONS 10 10 10\n");
  EXPECT_EQ(vtk::read(small).num_points(), 1000);
  const std::uint64_t saved = max_array_bytes();
  set_max_array_bytes(1000 * 24 - 1);
  const ReadError limited = expect_read_error([&] { vtk::read(small); });
  set_max_array_bytes(saved);
  EXPECT_NE(limited.reason().find("23999"), std::string::npos) << limited.what();
}

TEST(VtkHostile, EmptyFileIsAReadError) {
  const std::string path = write_scratch("empty.vtk", "");
  EXPECT_NE(expect_read_error([&] { vtk::read(path); }).reason().find("empty"), std::string::npos);
}
