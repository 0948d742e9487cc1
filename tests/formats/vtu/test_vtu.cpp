// VTK XML UnstructuredGrid (.vtu): corpus files, round trips through every write variant,
// hand-built files for the encodings our writer never produces, hostile input, atomic writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <typeinfo>
#include <string>
#include <vector>

#include "formats/vtu/vtu.hpp"
#include "io/codecs/base64.hpp"
#include "io/codecs/block_codec.hpp"
#include "io/codecs/zlib_codec.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;
namespace fs = std::filesystem;

using namespace meshioplusplus::testing_support;

namespace {

// ------------------------------------------------------------------ small helpers

template <class T> mpp::NDArray make_array(mpp::Shape shape, const std::vector<T>& values) {
  mpp::NDArray array = mpp::NDArray::allocate(mpp::dtype_of<T>(), std::move(shape));
  EXPECT_EQ(array.size(), values.size());
  std::copy(values.begin(), values.end(), array.data_as<T>());
  return array;
}

std::vector<std::int64_t> int64_values(const mpp::NDArray& array) {
  const auto values = array.values<std::int64_t>();
  return {values.begin(), values.end()};
}

void expect_same_array(const mpp::NDArray& expected, const mpp::NDArray& actual, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(expected.dtype(), actual.dtype());
  ASSERT_EQ(expected.shape(), actual.shape());
  EXPECT_EQ(0, std::memcmp(expected.data(), actual.data(), expected.nbytes())) << "values differ";
}

void expect_same_blocks(const std::vector<mpp::CellBlock>& expected, const std::vector<mpp::CellBlock>& actual) {
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t b = 0; b < expected.size(); ++b) {
    SCOPED_TRACE("block " + std::to_string(b) + " " + expected[b].type);
    EXPECT_EQ(expected[b].type, actual[b].type);
    expect_same_array(expected[b].connectivity, actual[b].connectivity, "connectivity");
    EXPECT_EQ(expected[b].offsets.empty_handle(), actual[b].offsets.empty_handle());
    if (!expected[b].offsets.empty_handle()) expect_same_array(expected[b].offsets, actual[b].offsets, "offsets");
    EXPECT_EQ(expected[b].face_offsets.empty_handle(), actual[b].face_offsets.empty_handle());
    if (!expected[b].face_offsets.empty_handle())
      expect_same_array(expected[b].face_offsets, actual[b].face_offsets, "face_offsets");
  }
}

void expect_same_mesh(const mpp::Mesh& expected, const mpp::Mesh& actual) {
  expect_same_array(expected.points, actual.points, "points");
  expect_same_blocks(expected.cells, actual.cells);
  ASSERT_EQ(expected.point_data.size(), actual.point_data.size());
  for (const auto& [name, array] : expected.point_data) {
    const mpp::NDArray* read = actual.point_data.find(name);
    ASSERT_NE(read, nullptr) << "point_data " << name;
    expect_same_array(array, *read, "point_data " + name);
  }
  ASSERT_EQ(expected.cell_data.size(), actual.cell_data.size());
  for (const auto& [name, arrays] : expected.cell_data) {
    const std::vector<mpp::NDArray>* read = actual.cell_data.find(name);
    ASSERT_NE(read, nullptr) << "cell_data " << name;
    ASSERT_EQ(arrays.size(), read->size());
    for (std::size_t b = 0; b < arrays.size(); ++b)
      expect_same_array(arrays[b], (*read)[b], "cell_data " + name + "[" + std::to_string(b) + "]");
  }
  ASSERT_EQ(expected.field_data.size(), actual.field_data.size());
  for (const auto& [name, array] : expected.field_data) {
    const mpp::NDArray* read = actual.field_data.find(name);
    ASSERT_NE(read, nullptr) << "field_data " << name;
    expect_same_array(array, *read, "field_data " + name);
  }
  ASSERT_EQ(expected.string_field_data.size(), actual.string_field_data.size());
  for (const auto& [name, strings] : expected.string_field_data) {
    const std::vector<std::string>* read = actual.string_field_data.find(name);
    ASSERT_NE(read, nullptr) << "string_field_data " << name;
    EXPECT_EQ(strings, *read) << "string_field_data " << name;
  }
}

// Every ReadError must say which file and where in it.
void expect_located_read_error(const fs::path& path, const std::string& reason_part = "") {
  try {
    mpp::vtu::read(path.string());
    ADD_FAILURE() << "expected a ReadError for " << path;
  } catch (const mpp::ReadError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find("(byte "), std::string::npos) << message;
    EXPECT_TRUE(error.byte_offset().has_value()) << message;
    if (!reason_part.empty()) EXPECT_NE(message.find(reason_part), std::string::npos) << message;
  }
}

// ------------------------------------------------------------------ the round-trip mesh

constexpr std::int64_t kPoints = 40;

template <class T> std::vector<T> random_values(std::mt19937_64& random, std::size_t count) {
  std::vector<T> values(count);
  for (T& value : values) {
    if constexpr (std::is_floating_point_v<T>) {
      // Finite values over many magnitudes: shortest round-trip text must restore the bits.
      const double mantissa = std::uniform_real_distribution<double>(-1.0, 1.0)(random);
      const int exponent = std::uniform_int_distribution<int>(-30, 30)(random);
      value = static_cast<T>(std::ldexp(mantissa, exponent));
    } else {
      value = static_cast<T>(random());
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (count >= 6) {
      values[0] = T(-0.0);
      values[1] = std::numeric_limits<T>::denorm_min();
      values[2] = std::numeric_limits<T>::max();
      values[3] = std::numeric_limits<T>::lowest();
      values[4] = T(1) / T(3);
      values[5] = std::numeric_limits<T>::min();
    }
  } else if (count >= 2) {
    values[0] = std::numeric_limits<T>::min();
    values[1] = std::numeric_limits<T>::max();
  }
  return values;
}

mpp::NDArray random_array(mpp::DType dtype, mpp::Shape shape, std::mt19937_64& random) {
  return mpp::visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    std::size_t count = 1;
    for (std::int64_t extent : shape) count *= static_cast<std::size_t>(extent);
    return make_array<T>(shape, random_values<T>(random, count));
  });
}

const std::vector<mpp::DType>& all_dtypes() {
  static const std::vector<mpp::DType> dtypes{mpp::DType::int8,   mpp::DType::int16,   mpp::DType::int32,
                                              mpp::DType::int64,  mpp::DType::uint8,   mpp::DType::uint16,
                                              mpp::DType::uint32, mpp::DType::uint64,  mpp::DType::float32,
                                              mpp::DType::float64};
  return dtypes;
}

mpp::CellBlock polygon_block() {
  mpp::CellBlock block;
  block.type = "polygon";
  block.connectivity = make_array<std::int64_t>({12}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  block.offsets = make_array<std::int64_t>({4}, {0, 3, 8, 12});  // a triangle, a pentagon, a quad
  return block;
}

mpp::CellBlock polyhedron_block() {
  mpp::CellBlock block;
  block.type = "polyhedron";
  // A tetrahedron (four triangles) and a pyramid (a quad and four triangles).
  block.connectivity = make_array<std::int64_t>(
      {28}, {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3, 10, 11, 12, 13, 10, 11, 14, 11, 12, 14, 12, 13, 14, 13, 10, 14});
  block.face_offsets = make_array<std::int64_t>({10}, {0, 3, 6, 9, 12, 16, 19, 22, 25, 28});
  block.offsets = make_array<std::int64_t>({3}, {0, 4, 9});
  return block;
}

// Every fixed VTK cell type, both ragged ones, and data of every dtype.
mpp::Mesh reference_mesh(mpp::DType point_dtype) {
  std::mt19937_64 random(20240601);
  mpp::Mesh mesh;
  mesh.points = random_array(point_dtype, {kPoints, 3}, random);
  for (const mpp::CellTypeInfo& info : mpp::cell_types()) {
    if (info.vtk_id < 0 || info.num_nodes == 0) continue;
    // Fixed-order types written with a Lagrange id (68-74) read back as VTK_LAGRANGE_*, as in
    // meshio (tested on their own); the VTK_LAGRANGE_* types themselves take any width.
    const bool lagrange_id = info.vtk_id >= 68 && info.vtk_id <= 74;
    if (lagrange_id && info.num_nodes != mpp::kAnyNodeCount) continue;
    const std::int64_t nodes = info.num_nodes == mpp::kAnyNodeCount ? 10 + (info.vtk_id - 68) : info.num_nodes;
    mpp::CellBlock block;
    block.type = std::string(info.name);
    const std::int64_t cells = 2;
    std::vector<std::int64_t> ids(static_cast<std::size_t>(cells * nodes));
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int64_t>((i * 7 + mesh.cells.size()) % kPoints);
    block.connectivity = make_array<std::int64_t>({cells, nodes}, ids);
    mesh.cells.push_back(std::move(block));
  }
  mesh.cells.push_back(polygon_block());
  mesh.cells.push_back(polyhedron_block());

  for (mpp::DType dtype : all_dtypes()) {
    const std::string suffix(mpp::dtype_name(dtype));
    mesh.point_data.set("point_" + suffix, random_array(dtype, {kPoints}, random));
    mesh.field_data.set("field_" + suffix, random_array(dtype, {5}, random));
    std::vector<mpp::NDArray> per_block;
    for (const mpp::CellBlock& block : mesh.cells) per_block.push_back(random_array(dtype, {block.num_cells()}, random));
    mesh.cell_data.set("cell_" + suffix, std::move(per_block));
  }
  mesh.point_data.set("point_vectors", random_array(mpp::DType::float64, {kPoints, 3}, random));
  mesh.point_data.set("point_pairs", random_array(mpp::DType::int16, {kPoints, 2}, random));
  mesh.point_data.set("odd <name> & \"quotes\" 'too'", random_array(mpp::DType::uint8, {kPoints}, random));
  std::vector<mpp::NDArray> tensors;
  for (const mpp::CellBlock& block : mesh.cells) tensors.push_back(random_array(mpp::DType::float32, {block.num_cells(), 9}, random));
  mesh.cell_data.set("cell_tensors", std::move(tensors));
  mesh.field_data.set("field_matrix", random_array(mpp::DType::int32, {2, 3}, random));
  mesh.string_field_data.set("names", {"alpha", "", "gamma \xce\xb4 <&\"'>"});
  mesh.string_field_data.set("single", {"one"});
  return mesh;
}

// ------------------------------------------------------------------ corpus

struct NamedShape {
  std::string name;
  std::vector<std::int64_t> shape;
};

struct ExpectedFile {
  std::string file;
  std::int64_t num_points = 0;
  std::vector<std::pair<std::string, std::int64_t>> blocks;
  std::vector<NamedShape> point_data;
  std::vector<std::string> cell_data;
  double sum_points = 0;
};

// Splits at `separator` outside brackets ("a[1, 2],b[3]").
std::vector<std::string> split_top_level(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : text) {
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (c == separator && depth == 0) {
      parts.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) parts.push_back(current);
  return parts;
}

NamedShape parse_named_shape(const std::string& text) {
  NamedShape result;
  const std::size_t open = text.find('[');
  result.name = text.substr(0, open);
  if (open == std::string::npos) return result;
  for (const std::string& extent : split_top_level(text.substr(open + 1, text.size() - open - 2), ','))
    result.shape.push_back(std::stoll(extent));
  return result;
}

std::vector<ExpectedFile> expected_vtu_files() {
  std::ifstream in(kCorpusDir / "EXPECTED_meshio.tsv");
  std::vector<ExpectedFile> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> columns;
    std::stringstream stream(line);
    for (std::string column; std::getline(stream, column, '\t');) columns.push_back(column);
    if (columns.size() < 11 || !columns[0].starts_with("vtu/") || columns[1] != "yes") continue;
    ExpectedFile row;
    row.file = columns[0];
    row.num_points = std::stoll(columns[2]);
    for (const std::string& block : split_top_level(columns[4], ';')) {
      const std::size_t colon = block.find(':');
      row.blocks.emplace_back(block.substr(0, colon), std::stoll(block.substr(colon + 1)));
    }
    for (const std::string& entry : split_top_level(columns[5], ',')) row.point_data.push_back(parse_named_shape(entry));
    for (const std::string& entry : split_top_level(columns[6], ',')) row.cell_data.push_back(entry);
    row.sum_points = std::stod(columns[10]);
    rows.push_back(std::move(row));
  }
  return rows;
}

void expect_close_sum(double expected, double actual) {
  EXPECT_NEAR(expected, actual, 1e-6 * std::max(1.0, std::abs(expected)));
}

std::vector<std::pair<std::string, std::int64_t>> block_list(const mpp::Mesh& mesh) {
  std::vector<std::pair<std::string, std::int64_t>> blocks;
  for (const mpp::CellBlock& block : mesh.cells) blocks.emplace_back(block.type, block.num_cells());
  return blocks;
}

TEST(VtuCorpus, MatchesMeshioExpectations) {
  SKIP_WITHOUT_CORPUS_DIR();
  const std::vector<ExpectedFile> rows = expected_vtu_files();
  ASSERT_GE(rows.size(), 5u) << "EXPECTED_meshio.tsv lists too few readable vtu files";
  for (const ExpectedFile& row : rows) {
    SCOPED_TRACE(row.file);
    const mpp::Mesh mesh = mpp::vtu::read((kCorpusDir / row.file).string());
    EXPECT_EQ(row.num_points, mesh.num_points());
    ASSERT_EQ(2u, mesh.points.ndim());
    EXPECT_EQ(3, mesh.points.dim(1));
    EXPECT_EQ(row.blocks, block_list(mesh));
    expect_close_sum(row.sum_points, point_sum(mesh.points));
    ASSERT_EQ(row.point_data.size(), mesh.point_data.size());
    for (const NamedShape& expected : row.point_data) {
      const mpp::NDArray* array = mesh.point_data.find(expected.name);
      ASSERT_NE(array, nullptr) << expected.name;
      EXPECT_EQ(expected.shape, array->shape()) << expected.name;
    }
    ASSERT_EQ(row.cell_data.size(), mesh.cell_data.size());
    for (const std::string& name : row.cell_data) {
      const std::vector<mpp::NDArray>* arrays = mesh.cell_data.find(name);
      ASSERT_NE(arrays, nullptr) << name;
      EXPECT_EQ(mesh.cells.size(), arrays->size()) << name;
    }
  }
}

TEST(VtuCorpus, NotchDispInlineBase64ZlibWithWedge15) {
  SKIP_WITHOUT_CORPUS_DIR();
  const mpp::Mesh mesh = mpp::vtu::read((kCorpusDir / "vtu/notch_disp.vtu").string());
  EXPECT_EQ(12717, mesh.num_points());
  EXPECT_EQ(mpp::DType::float64, mesh.points.dtype());
  const std::vector<std::pair<std::string, std::int64_t>> blocks{
      {"hexahedron20", 1172}, {"wedge15", 2}, {"hexahedron20", 38}, {"wedge15", 2}, {"hexahedron20", 978}};
  EXPECT_EQ(blocks, block_list(mesh));
  expect_close_sum(3178.4106878960665, point_sum(mesh.points));
  const mpp::NDArray* displacement = mesh.point_data.find("Nodal Displacement");
  ASSERT_NE(displacement, nullptr);
  EXPECT_EQ(mpp::DType::float64, displacement->dtype());
  EXPECT_EQ((mpp::Shape{12717, 3}), displacement->shape());
  expect_close_sum(0.017102858011171652, point_sum(*displacement));
}

TEST(VtuCorpus, CanAppendedRawUInt64WithStringFieldData) {
  SKIP_WITHOUT_CORPUS_FILE("vtu/can.vtu");
  const mpp::Mesh mesh = mpp::vtu::read((kCorpusDir / "vtu/can.vtu").string());
  EXPECT_EQ(6724, mesh.num_points());
  EXPECT_EQ(mpp::DType::float32, mesh.points.dtype());
  EXPECT_EQ((std::vector<std::pair<std::string, std::int64_t>>{{"hexahedron", 4800}}), block_list(mesh));
  expect_close_sum(-124696.85799534386, point_sum(mesh.points));

  const std::vector<std::string>* title = mesh.string_field_data.find("Title");
  ASSERT_NE(title, nullptr);
  EXPECT_EQ(std::vector<std::string>{" self contact test problem"}, *title);
  const mpp::NDArray* qa_records = mesh.field_data.find("QA_Records");
  ASSERT_NE(qa_records, nullptr);
  EXPECT_EQ(mpp::DType::int8, qa_records->dtype());
  EXPECT_EQ((mpp::Shape{24, 33}), qa_records->shape());
  EXPECT_EQ('F', qa_records->data_as<std::int8_t>()[0]);
  const mpp::NDArray* kinetic_energy = mesh.field_data.find("KE");
  ASSERT_NE(kinetic_energy, nullptr);
  EXPECT_EQ((mpp::Shape{44}), kinetic_energy->shape());
  EXPECT_DOUBLE_EQ(2959999.75, kinetic_energy->data_as<double>()[0]);
  const mpp::NDArray* block_ids = mesh.field_data.find("ElementBlockIds");
  ASSERT_NE(block_ids, nullptr);
  EXPECT_EQ(mpp::DType::int32, block_ids->dtype());
  EXPECT_EQ(1, block_ids->data_as<std::int32_t>()[0]);

  const mpp::NDArray* displacement = mesh.point_data.find("DISPL");
  ASSERT_NE(displacement, nullptr);
  EXPECT_EQ((mpp::Shape{6724, 3}), displacement->shape());
  const mpp::NDArray* node_ids = mesh.point_data.find("GlobalNodeId");
  ASSERT_NE(node_ids, nullptr);
  EXPECT_EQ(mpp::DType::int64, node_ids->dtype());
  const std::vector<mpp::NDArray>* plastic_strain = mesh.cell_data.find("EQPS");
  ASSERT_NE(plastic_strain, nullptr);
  ASSERT_EQ(1u, plastic_strain->size());
  EXPECT_EQ((mpp::Shape{4800}), (*plastic_strain)[0].shape());
}

TEST(VtuCorpus, PointsKeepTheirFileDtype) {
  SKIP_WITHOUT_CORPUS_DIR();
  EXPECT_EQ(mpp::DType::float32, mpp::vtu::read((kCorpusDir / "vtu/Triangle.vtu").string()).points.dtype());
  EXPECT_EQ(mpp::DType::float64, mpp::vtu::read((kCorpusDir / "vtu/Hexahedron.vtu").string()).points.dtype());
  EXPECT_EQ(mpp::DType::float64, mpp::vtu::read((kCorpusDir / "vtu/Cells/Tetra.vtu").string()).points.dtype());
  const mpp::Mesh hexahedra = mpp::vtu::read((kCorpusDir / "vtu/Hexahedron.vtu").string());
  EXPECT_EQ(mpp::DType::int32, hexahedra.cell_data.find("material")->front().dtype());
}

// Counts what goes through the allocator hook.
struct CountingPool {
  std::atomic<int> allocations{0};
};

void* counting_alloc(std::size_t bytes, void* user) {
  ++static_cast<CountingPool*>(user)->allocations;
  return ::operator new(bytes);
}

void counting_free(void* data, std::size_t, void*) { ::operator delete(data); }

class InstalledAllocator {
 public:
  explicit InstalledAllocator(CountingPool& pool) : allocator_{counting_alloc, counting_free, &pool} {
    mpp::set_buffer_allocator(&allocator_);
  }
  ~InstalledAllocator() { mpp::set_buffer_allocator(nullptr); }

 private:
  mpp::BufferAllocator allocator_;
};

// The mesh's arrays are allocated once each, through the hook; parsing temporaries are not.
TEST(VtuCorpus, ResultArraysComeFromTheAllocatorHookOnce) {
  SKIP_WITHOUT_CORPUS_FILE("vtu/can.vtu");
  for (const char* file : {"vtu/can.vtu", "vtu/Cells/Tetra.vtu", "vtu/Hexahedron.vtu"}) {
    SCOPED_TRACE(file);
    CountingPool pool;
    mpp::Mesh mesh;
    {
      const InstalledAllocator installed(pool);
      mesh = mpp::vtu::read((kCorpusDir / file).string());
    }
    std::vector<const mpp::Buffer*> buffers;
    auto note = [&](const mpp::NDArray& array) {
      if (array.empty_handle()) return;
      ASSERT_TRUE(array.owns_data());
      EXPECT_NE(array.buffer()->allocator(), nullptr) << "an array of the mesh bypassed the hook";
      if (std::find(buffers.begin(), buffers.end(), array.buffer().get()) == buffers.end())
        buffers.push_back(array.buffer().get());
    };
    note(mesh.points);
    for (const mpp::CellBlock& block : mesh.cells) {
      note(block.connectivity);
      note(block.offsets);
      note(block.face_offsets);
    }
    for (const auto& [name, array] : mesh.point_data) note(array);
    for (const auto& [name, arrays] : mesh.cell_data)
      for (const mpp::NDArray& array : arrays) note(array);
    for (const auto& [name, array] : mesh.field_data) note(array);
    EXPECT_EQ(static_cast<int>(buffers.size()), pool.allocations.load());
  }
}

// ------------------------------------------------------------------ round trips

struct WriteVariant {
  std::string name;
  std::vector<std::pair<std::string, std::string>> options;
};

std::ostream& operator<<(std::ostream& out, const WriteVariant& variant) { return out << variant.name; }

std::vector<WriteVariant> write_variants() {
  std::vector<WriteVariant> variants{
      {"ascii", {{"binary", "false"}}},
      {"base64", {{"compression", "none"}}},
      {"appended_raw", {{"appended", "true"}, {"compression", "none"}}},
      {"base64_uint64", {{"compression", "none"}, {"header_type", "UInt64"}}},
      {"appended_raw_uint64", {{"appended", "true"}, {"compression", "none"}, {"header_type", "UInt64"}}},
  };
  // Every compressor this build has × header type × inline/appended.
  for (const mpp::io::BlockCodec& codec : mpp::io::block_codecs()) {
    if (!codec.available) continue;
    const std::string name(codec.name);
    for (const std::string header : {"UInt32", "UInt64"}) {
      const std::string suffix = header == "UInt64" ? "_uint64" : "";
      variants.push_back({"base64_" + name + suffix, {{"compression", name}, {"header_type", header}}});
      variants.push_back(
          {"appended_raw_" + name + suffix, {{"appended", "true"}, {"compression", name}, {"header_type", header}}});
    }
  }
  return variants;
}

class VtuRoundTrip : public ::testing::TestWithParam<WriteVariant> {
 protected:
  mpp::WriteOptions options() const {
    mpp::WriteOptions result;
    for (const auto& [name, value] : GetParam().options) result.set(name, value);
    return result;
  }

  mpp::Mesh round_trip(const mpp::Mesh& mesh) {
    const std::string path = dir_.file("mesh.vtu");
    mpp::write(path, mesh, "", options());
    return mpp::read(path);
  }

  ScratchDir dir_;
};

TEST_P(VtuRoundTrip, EveryCellTypeAndDtypeFloat64Points) {
  const mpp::Mesh mesh = reference_mesh(mpp::DType::float64);
  expect_same_mesh(mesh, round_trip(mesh));
}

TEST_P(VtuRoundTrip, EveryCellTypeAndDtypeFloat32Points) {
  const mpp::Mesh mesh = reference_mesh(mpp::DType::float32);
  expect_same_mesh(mesh, round_trip(mesh));
}

TEST_P(VtuRoundTrip, EmptyMesh) {
  mpp::Mesh mesh;
  mesh.points = mpp::NDArray::allocate(mpp::DType::float64, {0, 3});
  const mpp::Mesh read = round_trip(mesh);
  EXPECT_EQ(0, read.num_points());
  EXPECT_TRUE(read.cells.empty());
}

TEST_P(VtuRoundTrip, LargeArraysSpanManyCompressionBlocks) {
  // Hundreds of 32 KiB blocks plus a partial one, cell data split across blocks, and
  // enough data for the multi-threaded zlib, base64 and ASCII paths to engage.
  std::mt19937_64 random(7);
  mpp::Mesh mesh;
  const std::int64_t points = 270000;
  mesh.points = random_array(mpp::DType::float64, {points, 3}, random);
  std::vector<std::int64_t> ids(static_cast<std::size_t>(points));
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int64_t>(i);
  mpp::CellBlock vertices{"vertex", make_array<std::int64_t>({points, 1}, ids), {}, {}};
  mpp::CellBlock lines{"line", make_array<std::int64_t>({points / 2, 2}, ids), {}, {}};
  mesh.cells = {vertices, lines};
  mesh.cell_data.set("values", {random_array(mpp::DType::float64, {points}, random),
                                random_array(mpp::DType::float64, {points / 2}, random)});
  expect_same_mesh(mesh, round_trip(mesh));
}

TEST_P(VtuRoundTrip, TwoDimensionalPointsArePaddedWithZeros) {
  mpp::Mesh mesh;
  mesh.points = make_array<double>({3, 2}, {0.5, 1.5, 2.5, 3.5, 4.5, 5.5});
  mesh.cells.push_back({"triangle", make_array<std::int64_t>({1, 3}, {0, 1, 2}), {}, {}});
  const mpp::Mesh read = round_trip(mesh);
  ASSERT_EQ((mpp::Shape{3, 3}), read.points.shape());
  const std::vector<double> expected{0.5, 1.5, 0, 2.5, 3.5, 0, 4.5, 5.5, 0};
  const auto values = read.points.values<double>();
  EXPECT_EQ(expected, std::vector<double>(values.begin(), values.end()));
}

INSTANTIATE_TEST_SUITE_P(Vtu, VtuRoundTrip, ::testing::ValuesIn(write_variants()),
                         [](const ::testing::TestParamInfo<WriteVariant>& info) { return info.param.name; });

TEST(VtuWrite, RegionsAreNotWrittenAndDoNotFail) {
  ScratchDir dir;
  mpp::Mesh mesh;
  mesh.points = make_array<double>({3, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0});
  mesh.cells.push_back({"triangle", make_array<std::int64_t>({1, 3}, {0, 1, 2}), {}, {}});
  mesh.regions.push_back({"corner", mpp::RegionKind::Point, 0, 1, make_array<std::int64_t>({1}, {0})});
  const std::string path = dir.file("regions.vtu");
  mpp::write(path, mesh);
  EXPECT_TRUE(mpp::read(path).regions.empty());
}

TEST(VtuWrite, UnknownOptionValuesAreWriteErrors) {
  ScratchDir dir;
  mpp::Mesh mesh;
  mesh.points = mpp::NDArray::allocate(mpp::DType::float64, {0, 3});
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"compression", "bzip2"}, {"header_type", "UInt16"}, {"binary", "maybe"}}) {
    mpp::WriteOptions options;
    options.set(name, value);
    EXPECT_THROW(mpp::write(dir.file("x.vtu"), mesh, "", options), mpp::WriteError) << name;
    EXPECT_THROW(mpp::vtu::write(dir.file("x.vtu"), mesh, options), std::invalid_argument) << name;
  }
  EXPECT_FALSE(fs::exists(dir.file("x.vtu")));
}

TEST(VtuWrite, AsciiFloatsAreShortestRoundTripText) {
  ScratchDir dir;
  mpp::Mesh mesh;
  mesh.points = make_array<double>({1, 3}, {0.1, 1.0 / 3.0, -2.5e-300});
  const std::string path = dir.file("ascii.vtu");
  mpp::WriteOptions options;
  options.set("binary", "false");
  mpp::write(path, mesh, "", options);
  const std::string text = read_file(path);
  EXPECT_NE(text.find("0.1 0.3333333333333333 -2.5e-300"), std::string::npos) << text;
}

// Sections past a few MiB are parsed on several threads; the outcome must not show it.
TEST(VtuRead, LargeAsciiSectionsParseAsSequentialParsing) {
  ScratchDir dir;
  std::mt19937_64 random(11);
  mpp::Mesh mesh;
  const std::int64_t points = 250000;
  mesh.points = random_array(mpp::DType::float64, {points, 3}, random);
  mesh.point_data.set("ids", random_array(mpp::DType::int64, {points}, random));
  mpp::WriteOptions ascii;
  ascii.set("binary", "false");
  const std::string path = dir.file("large.vtu");
  mpp::write(path, mesh, "", ascii);
  expect_same_mesh(mesh, mpp::vtu::read(path));

  // A bad number late in the points must be reported at its own offset and line.
  std::string text = read_file(path);
  const std::size_t points_begin = text.find('>', text.find("Name=\"Points\"")) + 1;
  const std::size_t points_end = text.find('<', points_begin);
  std::size_t token = points_begin + (points_end - points_begin) * 9 / 10;
  while (text[token - 1] != ' ' && text[token - 1] != '\n') --token;
  text[token] = 'x';
  write_file(path, text);
  try {
    mpp::vtu::read(path);
    ADD_FAILURE() << "expected a ReadError";
  } catch (const mpp::ReadError& error) {
    EXPECT_EQ(token, error.byte_offset().value());
    EXPECT_EQ(1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(token), '\n'),
              static_cast<std::ptrdiff_t>(error.line().value()));
  }
}

// ------------------------------------------------------------------ hand-built files

// Builds the bytes of VTU files independently of the writer under test.
struct ByteWriter {
  bool big_endian = false;
  std::size_t header_bytes = 4;

  template <class T> std::string values(std::initializer_list<T> list) const {
    std::string bytes;
    for (T value : list) bytes += value_bytes(value);
    return bytes;
  }
  template <class T> std::string value_bytes(T value) const {
    std::string bytes(sizeof(T), '\0');
    std::memcpy(bytes.data(), &value, sizeof(T));
    if (big_endian == (std::endian::native == std::endian::little)) std::reverse(bytes.begin(), bytes.end());
    return bytes;
  }
  std::string size_header(std::uint64_t size) const {
    return header_bytes == 4 ? value_bytes(static_cast<std::uint32_t>(size)) : value_bytes(size);
  }
};

std::string base64(const std::string& bytes) {
  std::string text;
  mpp::io::base64_encode_append(bytes.data(), bytes.size(), text);
  return text;
}

std::string triangle_file(const std::string& piece_body, const std::string& file_attributes = "") {
  return "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\"" + file_attributes +
         ">\n<UnstructuredGrid>\n" + piece_body + "</UnstructuredGrid>\n</VTKFile>\n";
}

std::string ascii_piece(const std::string& points, const std::string& connectivity, const std::string& offsets,
                        const std::string& types, int num_points, int num_cells, const std::string& extra = "") {
  return "<Piece NumberOfPoints=\"" + std::to_string(num_points) + "\" NumberOfCells=\"" + std::to_string(num_cells) +
         "\">\n" + extra + "<Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">" + points +
         "</DataArray></Points>\n<Cells>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">" +
         connectivity + "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">" + offsets +
         "</DataArray>\n<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">" + types +
         "</DataArray>\n</Cells>\n</Piece>\n";
}

const std::string kTrianglePoints = "0 0 0  1 0 0  0 1 0";

TEST(VtuRead, BigEndianAppendedRawWithUInt64Headers) {
  ScratchDir dir;
  ByteWriter bytes{true, 8};
  const std::string points = bytes.values<double>({0, 0, 0, 1, 0, 0, 0, 1, 0.25});
  const std::string connectivity = bytes.values<std::int32_t>({0, 1, 2});
  const std::string offsets = bytes.values<std::int32_t>({3});
  const std::string types = bytes.values<std::uint8_t>({5});
  const std::string temperature = bytes.values<float>({1.5f, 2.5f, 3.5f});
  std::string appended;
  std::vector<std::size_t> at;
  for (const std::string* array : {&temperature, &points, &connectivity, &offsets, &types}) {
    at.push_back(appended.size());
    appended += bytes.size_header(array->size()) + *array;
  }
  auto appended_array = [&](const std::string& type, const std::string& name, int components, std::size_t offset) {
    return "<DataArray type=\"" + type + "\" Name=\"" + name + "\" NumberOfComponents=\"" +
           std::to_string(components) + "\" format=\"appended\" offset=\"" + std::to_string(offset) + "\"/>\n";
  };
  const std::string file =
      "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"BigEndian\" header_type=\"UInt64\">\n"
      "<UnstructuredGrid><Piece NumberOfPoints=\"3\" NumberOfCells=\"1\">\n<PointData>" +
      appended_array("Float32", "temperature", 1, at[0]) + "</PointData>\n<Points>" +
      appended_array("Float64", "Points", 3, at[1]) + "</Points>\n<Cells>" +
      appended_array("Int32", "connectivity", 1, at[2]) + appended_array("Int32", "offsets", 1, at[3]) +
      appended_array("UInt8", "types", 1, at[4]) +
      "</Cells>\n</Piece></UnstructuredGrid>\n<AppendedData encoding=\"raw\">\n   _" + appended +
      "\n</AppendedData>\n</VTKFile>\n";
  write_file(dir.file("big.vtu"), file);

  const mpp::Mesh mesh = mpp::vtu::read(dir.file("big.vtu"));
  const auto coordinates = mesh.points.values<double>();
  EXPECT_EQ((std::vector<double>{0, 0, 0, 1, 0, 0, 0, 1, 0.25}), std::vector<double>(coordinates.begin(), coordinates.end()));
  ASSERT_EQ(1u, mesh.cells.size());
  EXPECT_EQ("triangle", mesh.cells[0].type);
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2}), int64_values(mesh.cells[0].connectivity));
  const auto temperatures = mesh.point_data.find("temperature")->values<float>();
  EXPECT_EQ((std::vector<float>{1.5f, 2.5f, 3.5f}), std::vector<float>(temperatures.begin(), temperatures.end()));
}

// Cell arrays of millions of cells are copied, converted and checked on several threads: the
// blocks and every error must be those of a one-thread read. Vertices then lines (two runs),
// appended raw with UInt64 headers, built byte by byte.
struct LargeCellFile {
  static constexpr std::int64_t kCells = 3'000'000, kVertices = 2'200'000, kPoints = 1000;
  std::vector<std::uint8_t> types;
  std::vector<std::int64_t> offsets, connectivity;

  LargeCellFile() {
    for (std::int64_t c = 0; c < kCells; ++c) {
      const bool vertex = c < kVertices;
      types.push_back(vertex ? 1 : 3);  // VTK_VERTEX, VTK_LINE
      for (int k = 0; k < (vertex ? 1 : 2); ++k) connectivity.push_back((c + k) % kPoints);
      offsets.push_back(static_cast<std::int64_t>(connectivity.size()));
    }
  }
  template <class T> static std::string raw(const std::vector<T>& values) {
    const ByteWriter bytes{false, 8};
    std::string block = bytes.size_header(values.size() * sizeof(T));
    block.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
    return block;
  }
  std::string text() const {
    std::vector<double> points(3 * kPoints);
    for (std::size_t i = 0; i < points.size(); ++i) points[i] = static_cast<double>(i) * 0.5;
    const std::string blocks[] = {raw(points), raw(connectivity), raw(offsets), raw(types)};
    std::vector<std::size_t> at;
    std::string appended;
    for (const std::string& block : blocks) {
      at.push_back(appended.size());
      appended += block;
    }
    auto array = [&](const std::string& type, const std::string& name, int components, std::size_t offset) {
      return "<DataArray type=\"" + type + "\" Name=\"" + name + "\" NumberOfComponents=\"" + std::to_string(components) +
             "\" format=\"appended\" offset=\"" + std::to_string(offset) + "\"/>\n";
    };
    return "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
           "<UnstructuredGrid><Piece NumberOfPoints=\"" + std::to_string(kPoints) + "\" NumberOfCells=\"" +
           std::to_string(kCells) + "\">\n<Points>" + array("Float64", "Points", 3, at[0]) + "</Points>\n<Cells>" +
           array("Int64", "connectivity", 1, at[1]) + array("Int64", "offsets", 1, at[2]) +
           array("UInt8", "types", 1, at[3]) + "</Cells>\n</Piece></UnstructuredGrid>\n<AppendedData encoding=\"raw\">\n   _" +
           appended + "\n</AppendedData>\n</VTKFile>\n";
  }
};

std::string read_error_with_threads(const std::string& path, unsigned threads) {
  mpp::set_thread_count(threads);
  std::string message = "no error";
  try {
    mpp::vtu::read(path);
  } catch (const mpp::ReadError& error) {
    message = error.what();
  }
  mpp::set_thread_count(0);
  return message;
}

TEST(VtuRead, LargeRawCellArraysReadAsOneThreadReadsThem) {
  ScratchDir dir;
  LargeCellFile cells;
  const std::string path = dir.file("large_cells.vtu");
  write_file(path, cells.text());
  for (unsigned threads : {1u, 4u}) {
    mpp::set_thread_count(threads);
    const mpp::Mesh mesh = mpp::vtu::read(path);
    mpp::set_thread_count(0);
    ASSERT_EQ(2u, mesh.cells.size());
    EXPECT_EQ("vertex", mesh.cells[0].type);
    EXPECT_EQ(LargeCellFile::kVertices, mesh.cells[0].connectivity.rows());
    EXPECT_EQ("line", mesh.cells[1].type);
    EXPECT_EQ(LargeCellFile::kCells - LargeCellFile::kVertices, mesh.cells[1].connectivity.rows());
    std::vector<std::int64_t> all = int64_values(mesh.cells[0].connectivity);
    const std::vector<std::int64_t> lines = int64_values(mesh.cells[1].connectivity);
    all.insert(all.end(), lines.begin(), lines.end());
    EXPECT_EQ(cells.connectivity, all) << threads;
  }

  // Each fault sits in a later piece; the message must name it exactly as one thread does.
  const auto expect_same_error = [&](LargeCellFile broken, const std::string& expected_part) {
    write_file(path, broken.text());
    const std::string one = read_error_with_threads(path, 1);
    EXPECT_NE(one.find(expected_part), std::string::npos) << one;
    EXPECT_EQ(one, read_error_with_threads(path, 4));
  };
  LargeCellFile decreasing = cells;
  decreasing.offsets[2'100'000] = 5;
  expect_same_error(decreasing, "decreases at entry 2100000");
  LargeCellFile unknown_type = cells;
  unknown_type.types[2'600'000] = 200;
  expect_same_error(unknown_type, "unknown VTK cell type 200");
  LargeCellFile outside = cells;
  outside.connectivity[2'900'000] = LargeCellFile::kPoints + 7;
  expect_same_error(outside, std::to_string(LargeCellFile::kPoints + 7));
  LargeCellFile outside_of_one_run = cells;
  outside_of_one_run.types.assign(LargeCellFile::kCells, 1);
  outside_of_one_run.connectivity.resize(LargeCellFile::kCells);
  for (std::int64_t c = 0; c < LargeCellFile::kCells; ++c) outside_of_one_run.offsets[c] = c + 1;
  outside_of_one_run.connectivity[2'700'000] = -3;
  expect_same_error(outside_of_one_run, "-3");
}

// Uncompressed inline base64 in both layouts seen in the wild: VTK's single stream of
// header and data, and header and data encoded separately.
TEST(VtuRead, InlineBase64HeaderJointOrSeparate) {
  ScratchDir dir;
  const ByteWriter bytes;
  for (const bool separate : {false, true}) {
    for (const std::size_t header : {std::size_t{4}, std::size_t{8}}) {
      SCOPED_TRACE(std::string(separate ? "separate" : "joint") + " header of " + std::to_string(header));
      const ByteWriter writer{false, header};
      auto encode = [&](const std::string& data) {
        return separate ? base64(writer.size_header(data.size())) + base64(data)
                        : base64(writer.size_header(data.size()) + data);
      };
      auto binary_array = [&](const std::string& type, const std::string& name, int components, const std::string& data) {
        return "<DataArray type=\"" + type + "\" Name=\"" + name + "\" NumberOfComponents=\"" +
               std::to_string(components) + "\" format=\"binary\">\n  " + encode(data) + "\n</DataArray>\n";
      };
      const std::string file = triangle_file(
          "<Piece NumberOfPoints=\"3\" NumberOfCells=\"1\">\n<PointData>" +
              binary_array("UInt8", "flag", 1, bytes.values<std::uint8_t>({7, 8, 9})) + "</PointData>\n<Points>" +
              binary_array("Float32", "Points", 3, bytes.values<float>({0, 0, 0, 1, 0, 0, 0, 1, 0})) +
              "</Points>\n<Cells>" + binary_array("Int64", "connectivity", 1, bytes.values<std::int64_t>({2, 1, 0})) +
              binary_array("Int64", "offsets", 1, bytes.values<std::int64_t>({3})) +
              binary_array("UInt8", "types", 1, bytes.values<std::uint8_t>({5})) + "</Cells>\n</Piece>\n",
          header == 8 ? " header_type=\"UInt64\"" : "");
      write_file(dir.file("inline.vtu"), file);
      const mpp::Mesh mesh = mpp::vtu::read(dir.file("inline.vtu"));
      EXPECT_EQ(mpp::DType::float32, mesh.points.dtype());
      EXPECT_EQ((std::vector<std::int64_t>{2, 1, 0}), int64_values(mesh.cells.at(0).connectivity));
      const auto flags = mesh.point_data.find("flag")->values<std::uint8_t>();
      EXPECT_EQ((std::vector<std::uint8_t>{7, 8, 9}), std::vector<std::uint8_t>(flags.begin(), flags.end()));
    }
  }
}

TEST(VtuRead, AppendedBase64Uncompressed) {
  ScratchDir dir;
  const ByteWriter bytes;
  std::string appended;
  std::vector<std::size_t> at;
  for (const std::string& data : {bytes.values<double>({0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}),
                                  bytes.values<std::int32_t>({0, 1, 3, 2}), bytes.values<std::int32_t>({4}),
                                  bytes.values<std::uint8_t>({9})}) {
    at.push_back(appended.size());
    appended += base64(bytes.size_header(data.size()) + data);
  }
  const std::string file =
      "<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n<UnstructuredGrid>"
      "<Piece NumberOfPoints=\"4\" NumberOfCells=\"1\">\n<Points><DataArray type=\"Float64\" "
      "NumberOfComponents=\"3\" format=\"appended\" offset=\"" +
      std::to_string(at[0]) +
      "\"/></Points>\n<Cells>\n<DataArray type=\"Int32\" Name=\"connectivity\" format=\"appended\" offset=\"" +
      std::to_string(at[1]) + "\"/>\n<DataArray type=\"Int32\" Name=\"offsets\" format=\"appended\" offset=\"" +
      std::to_string(at[2]) + "\"/>\n<DataArray type=\"UInt8\" Name=\"types\" format=\"appended\" offset=\"" +
      std::to_string(at[3]) + "\"/>\n</Cells>\n</Piece></UnstructuredGrid>\n<AppendedData encoding=\"base64\">\n   _" +
      appended + "\n</AppendedData>\n</VTKFile>\n";
  write_file(dir.file("appended64.vtu"), file);
  const mpp::Mesh mesh = mpp::vtu::read(dir.file("appended64.vtu"));
  ASSERT_EQ(1u, mesh.cells.size());
  EXPECT_EQ("quad", mesh.cells[0].type);
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 3, 2}), int64_values(mesh.cells[0].connectivity));
  EXPECT_EQ(4, mesh.num_points());
}

TEST(VtuRead, SeveralPiecesAreMerged) {
  ScratchDir dir;
  const std::string data_one =
      "<PointData><DataArray type=\"Int32\" Name=\"p\" format=\"ascii\">1 2 3</DataArray></PointData>\n"
      "<CellData><DataArray type=\"Float64\" Name=\"c\" format=\"ascii\">10</DataArray></CellData>\n";
  const std::string data_two =
      "<PointData><DataArray type=\"Int64\" Name=\"p\" format=\"ascii\">4 5 6 7</DataArray></PointData>\n"
      "<CellData><DataArray type=\"Float64\" Name=\"c\" format=\"ascii\">20 30</DataArray></CellData>\n";
  const std::string file =
      triangle_file(ascii_piece(kTrianglePoints, "0 1 2", "3", "5", 3, 1, data_one) +
                    ascii_piece("0 0 1  1 0 1  1 1 1  0 1 1", "0 1 2 3  1 2 3", "4 7", "9 5", 4, 2, data_two));
  write_file(dir.file("pieces.vtu"), file);
  const mpp::Mesh mesh = mpp::vtu::read(dir.file("pieces.vtu"));
  EXPECT_EQ(7, mesh.num_points());
  EXPECT_EQ((std::vector<std::pair<std::string, std::int64_t>>{{"triangle", 1}, {"quad", 1}, {"triangle", 1}}),
            block_list(mesh));
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2}), int64_values(mesh.cells[0].connectivity));
  EXPECT_EQ((std::vector<std::int64_t>{3, 4, 5, 6}), int64_values(mesh.cells[1].connectivity));
  EXPECT_EQ((std::vector<std::int64_t>{4, 5, 6}), int64_values(mesh.cells[2].connectivity));
  // Pieces disagreeing on a dtype are widened to one that holds both.
  const mpp::NDArray& p = *mesh.point_data.find("p");
  EXPECT_EQ(mpp::DType::int64, p.dtype());
  EXPECT_EQ((std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7}), int64_values(p));
  const std::vector<mpp::NDArray>& c = *mesh.cell_data.find("c");
  ASSERT_EQ(3u, c.size());
  EXPECT_EQ(10.0, c[0].data_as<double>()[0]);
  EXPECT_EQ(20.0, c[1].data_as<double>()[0]);
  EXPECT_EQ(30.0, c[2].data_as<double>()[0]);
}

TEST(VtuRead, AsciiStringAndNumericFieldData) {
  ScratchDir dir;
  // VTK writes each character as its signed code and ends every string with 0.
  const std::string field =
      "<FieldData>\n<Array type=\"String\" Name=\"words\" NumberOfTuples=\"3\" format=\"ascii\">\n"
      "104 105 0 0 -61 -87 0\n</Array>\n"
      "<DataArray type=\"Int16\" Name=\"steps\" NumberOfComponents=\"2\" format=\"ascii\">1 2 3 4 5 6</DataArray>\n"
      "</FieldData>\n";
  const std::string file = "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid>" + field +
                           ascii_piece(kTrianglePoints, "0 1 2", "3", "5", 3, 1) + "</UnstructuredGrid></VTKFile>";
  write_file(dir.file("strings.vtu"), file);
  const mpp::Mesh mesh = mpp::vtu::read(dir.file("strings.vtu"));
  EXPECT_EQ((std::vector<std::string>{"hi", "", "\xc3\xa9"}), *mesh.string_field_data.find("words"));
  const mpp::NDArray& steps = *mesh.field_data.find("steps");
  EXPECT_EQ(mpp::DType::int16, steps.dtype());
  EXPECT_EQ((mpp::Shape{3, 2}), steps.shape());
}

TEST(VtuRead, PixelAndVoxelAreReorderedToQuadAndHexahedron) {
  ScratchDir dir;
  const std::string points = "0 0 0  1 0 0  0 1 0  1 1 0  0 0 1  1 0 1  0 1 1  1 1 1";
  write_file(dir.file("pixel.vtu"), triangle_file(ascii_piece(points, "0 1 2 3  0 1 2 3 4 5 6 7", "4 12", "8 11", 8, 2)));
  const mpp::Mesh mesh = mpp::vtu::read(dir.file("pixel.vtu"));
  ASSERT_EQ(2u, mesh.cells.size());
  EXPECT_EQ("quad", mesh.cells[0].type);
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 3, 2}), int64_values(mesh.cells[0].connectivity));
  EXPECT_EQ("hexahedron", mesh.cells[1].type);
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 3, 2, 4, 5, 7, 6}), int64_values(mesh.cells[1].connectivity));
}

TEST(VtuRead, PolyhedronFaceTablesOfVtk94) {
  ScratchDir dir;
  const std::string faces =
      "<DataArray type=\"Int64\" Name=\"face_connectivity\" format=\"ascii\">0 2 1 0 1 3 1 2 3 2 0 3</DataArray>\n"
      "<DataArray type=\"Int64\" Name=\"face_offsets\" format=\"ascii\">3 6 9 12</DataArray>\n"
      "<DataArray type=\"Int64\" Name=\"polyhedron_to_faces\" format=\"ascii\">0 1 2 3</DataArray>\n"
      "<DataArray type=\"Int64\" Name=\"polyhedron_offsets\" format=\"ascii\">0 4</DataArray>\n";
  std::string piece = ascii_piece("0 0 0  1 0 0  0 1 0  0 0 1", "0 1 2 3  0 1 2 3", "4 8", "10 42", 4, 2);
  piece.insert(piece.find("</Cells>"), faces);
  write_file(dir.file("poly94.vtu"), triangle_file(piece));
  const mpp::Mesh mesh = mpp::vtu::read(dir.file("poly94.vtu"));
  ASSERT_EQ(2u, mesh.cells.size());
  EXPECT_EQ("tetra", mesh.cells[0].type);
  const mpp::CellBlock& polyhedron = mesh.cells[1];
  EXPECT_EQ("polyhedron", polyhedron.type);
  EXPECT_EQ((std::vector<std::int64_t>{0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3}), int64_values(polyhedron.connectivity));
  EXPECT_EQ((std::vector<std::int64_t>{0, 4}), int64_values(polyhedron.offsets));
  EXPECT_EQ((std::vector<std::int64_t>{0, 3, 6, 9, 12}), int64_values(polyhedron.face_offsets));
}

// ------------------------------------------------------------------ hostile input

fs::path write_reference_file(const ScratchDir& dir, const std::string& name,
                              const std::vector<std::pair<std::string, std::string>>& option_list) {
  mpp::WriteOptions options;
  for (const auto& [option, value] : option_list) options.set(option, value);
  const fs::path path = dir.file(name);
  mpp::write(path.string(), reference_mesh(mpp::DType::float64), "vtu", options);
  return path;
}

TEST(VtuBadInput, TruncatedFile) {
  ScratchDir dir;
  for (const WriteVariant& variant : write_variants()) {
    SCOPED_TRACE(variant.name);
    const std::string bytes = read_file(write_reference_file(dir, "whole.vtu", variant.options));
    // Cut before the closing tags, so that something the reader needs is always missing.
    const std::size_t useful = bytes.rfind(variant.name.starts_with("appended") ? "</AppendedData>" : "</Piece>");
    for (int part = 1; part <= 7; ++part) {
      const fs::path cut = dir.file("cut.vtu");
      write_file(cut, bytes.substr(0, useful * static_cast<std::size_t>(part) / 8));
      expect_located_read_error(cut);
    }
  }
}

TEST(VtuBadInput, WrongNumberOfPoints) {
  ScratchDir dir;
  write_file(dir.file("count.vtu"), triangle_file(ascii_piece(kTrianglePoints, "0 1 2", "3", "5", 4, 1)));
  expect_located_read_error(dir.file("count.vtu"), "fewer than the 12 values");
  write_file(dir.file("count2.vtu"), triangle_file(ascii_piece(kTrianglePoints, "0 1 2", "3", "5", 2, 1)));
  expect_located_read_error(dir.file("count2.vtu"), "more than the 6 values");

  // Binary: the size header disagrees with NumberOfPoints.
  std::string binary = read_file(write_reference_file(dir, "binary.vtu", {{"compression", "none"}}));
  const std::string announced = "NumberOfPoints=\"" + std::to_string(kPoints) + "\"";
  binary.replace(binary.find(announced), announced.size(), "NumberOfPoints=\"" + std::to_string(kPoints + 1) + "\"");
  write_file(dir.file("binary.vtu"), binary);
  expect_located_read_error(dir.file("binary.vtu"), "expected");
}

TEST(VtuBadInput, InvalidBase64) {
  ScratchDir dir;
  std::string bytes = read_file(write_reference_file(dir, "b64.vtu", {{"compression", "none"}}));
  const std::size_t points = bytes.find("Name=\"Points\"");
  const std::size_t content = bytes.find('>', points) + 20;
  bytes[content] = '*';
  write_file(dir.file("b64.vtu"), bytes);
  expect_located_read_error(dir.file("b64.vtu"), "base64");
}

TEST(VtuBadInput, CorruptZlibBlock) {
  if (!mpp::io::zlib_available()) GTEST_SKIP() << "built without zlib";
  ScratchDir dir;
  std::string bytes = read_file(write_reference_file(dir, "z.vtu", {{"appended", "true"}, {"compression", "zlib"}}));
  // The Points array is followed by the connectivity array; just before the latter's
  // offset sits the adler32 checksum that ends the last zlib stream of the points.
  auto offset_of = [&](const std::string& name) {
    const std::size_t tag = bytes.find("Name=\"" + name + "\"");
    const std::size_t value = bytes.find("offset=\"", tag) + 8;
    return std::stoull(bytes.substr(value, bytes.find('"', value) - value));
  };
  const std::size_t data = bytes.find('_', bytes.find("<AppendedData")) + 1;
  const std::size_t checksum = data + offset_of("connectivity") - 4;
  for (std::size_t i = checksum; i < checksum + 4; ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5A);
  write_file(dir.file("z.vtu"), bytes);
  expect_located_read_error(dir.file("z.vtu"), "zlib block");
}

TEST(VtuBadInput, ConnectivityIndexOutOfRange) {
  ScratchDir dir;
  const std::string file = triangle_file(ascii_piece(kTrianglePoints, "0 1 7", "3", "5", 3, 1));
  write_file(dir.file("index.vtu"), file);
  expect_located_read_error(dir.file("index.vtu"), "outside [0, 3)");
  try {
    mpp::vtu::read(dir.file("index.vtu"));
  } catch (const mpp::ReadError& error) {
    EXPECT_EQ(file.find("<Cells>"), error.byte_offset().value()) << "the offset names the Cells section";
  }
}

TEST(VtuBadInput, UnknownCellType) {
  ScratchDir dir;
  write_file(dir.file("type.vtu"), triangle_file(ascii_piece(kTrianglePoints, "0 1 2", "3", "99", 3, 1)));
  expect_located_read_error(dir.file("type.vtu"), "unknown VTK cell type 99");
}

TEST(VtuBadInput, MalformedStructure) {
  ScratchDir dir;
  const std::vector<std::string> files{
      "",
      "<VTKFile type=\"PolyData\"><PolyData/></VTKFile>",
      "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece NumberOfPoints=\"-3\"/></UnstructuredGrid></VTKFile>",
      triangle_file(ascii_piece(kTrianglePoints, "0 1 2", "3", "5", 3, 1), " byte_order=\"MiddleEndian\""),
      triangle_file(ascii_piece(kTrianglePoints, "0 1 2", "3", "5", 3, 1), " header_type=\"UInt16\""),
      triangle_file(ascii_piece(kTrianglePoints, "0 1 x", "3", "5", 3, 1)),
      triangle_file(ascii_piece(kTrianglePoints, "0 1 2", "4", "5", 3, 1)),
      triangle_file(ascii_piece(kTrianglePoints, "0 1 2", "3", "5", 3, 2)),
      "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece NumberOfPoints=\"1\"><Points>"
      "<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"appended\" offset=\"0\"/></Points></Piece>"
      "</UnstructuredGrid></VTKFile>",
  };
  for (std::size_t i = 0; i < files.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    write_file(dir.file("bad.vtu"), files[i]);
    expect_located_read_error(dir.file("bad.vtu"));
  }
}

// Random damage must give a ReadError or a mesh, never a crash, a hang or another exception.
TEST(VtuBadInput, RandomCorruptionIsReportedOrHarmless) {
  ScratchDir dir;
  std::mt19937_64 random(99);
  for (const WriteVariant& variant : write_variants()) {
    SCOPED_TRACE(variant.name);
    const std::string bytes = read_file(write_reference_file(dir, "whole.vtu", variant.options));
    for (int trial = 0; trial < 40; ++trial) {
      std::string damaged = bytes;
      const int flips = 1 + static_cast<int>(random() % 4);
      for (int f = 0; f < flips; ++f) damaged[random() % damaged.size()] = static_cast<char>(random());
      write_file(dir.file("damaged.vtu"), damaged);
      try {
        mpp::vtu::read(dir.file("damaged.vtu"));
      } catch (const mpp::ReadError&) {
      } catch (const std::exception& error) {
        ADD_FAILURE() << "trial " << trial << ": " << typeid(error).name() << ": " << error.what();
      }
    }
  }
}

// ------------------------------------------------------------------ atomic writes

mpp::Mesh small_mesh() {
  mpp::Mesh mesh;
  mesh.points = make_array<double>({3, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0});
  mesh.cells.push_back({"triangle", make_array<std::int64_t>({1, 3}, {0, 1, 2}), {}, {}});
  return mesh;
}

std::size_t entries_in(const fs::path& directory) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(directory), fs::directory_iterator()));
}

TEST(VtuAtomicWrite, InvalidMeshLeavesExistingFileIntact) {
  ScratchDir dir;
  const std::string path = dir.file("keep.vtu");
  mpp::write(path, small_mesh());
  const std::string before = read_file(path);
  mpp::Mesh broken = small_mesh();
  broken.cells[0].connectivity = make_array<std::int64_t>({1, 3}, {0, 1, 9});
  EXPECT_THROW(mpp::write(path, broken), mpp::WriteError);
  EXPECT_THROW(mpp::vtu::write(path, broken, {}), std::invalid_argument);
  EXPECT_EQ(before, read_file(path));
  EXPECT_EQ(1u, entries_in(dir.path())) << "no temporary file may be left behind";
}

TEST(VtuAtomicWrite, UnstorableStringLeavesExistingFileIntact) {
  ScratchDir dir;
  const std::string path = dir.file("keep.vtu");
  mpp::write(path, small_mesh());
  const std::string before = read_file(path);
  mpp::Mesh unwritable = small_mesh();
  unwritable.string_field_data.set("bad", {std::string("a\0b", 3)});
  EXPECT_THROW(mpp::write(path, unwritable), mpp::WriteError);
  EXPECT_EQ(before, read_file(path));
  EXPECT_EQ(1u, entries_in(dir.path()));
}

TEST(VtuAtomicWrite, FailedReplaceLeavesTargetIntact) {
  ScratchDir dir;
  // A non-empty directory cannot be replaced by a file: the write runs to the end and the
  // final rename fails.
  const fs::path target = dir.file("occupied.vtu");
  fs::create_directories(target / "inside");
  EXPECT_THROW(mpp::write(target.string(), small_mesh()), mpp::WriteError);
  EXPECT_TRUE(fs::is_directory(target / "inside"));
  EXPECT_EQ(1u, entries_in(dir.path()));
}

TEST(VtuAtomicWrite, MissingDirectoryIsAWriteError) {
  ScratchDir dir;
  EXPECT_THROW(mpp::write((dir.path() / "missing" / "x.vtu").string(), small_mesh()), mpp::WriteError);
  EXPECT_EQ(0u, entries_in(dir.path()));
}

TEST(VtuAtomicWrite, UnwritableDirectoryLeavesExistingFileIntact) {
  ScratchDir dir;
  const std::string path = dir.file("keep.vtu");
  mpp::write(path, small_mesh());
  const std::string before = read_file(path);
  fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
  if (::access(dir.path().c_str(), W_OK) == 0) {
    fs::permissions(dir.path(), fs::perms::owner_all);
    GTEST_SKIP() << "permissions do not restrict this user (root?)";
  }
  EXPECT_THROW(mpp::write(path, small_mesh()), mpp::WriteError);
  fs::permissions(dir.path(), fs::perms::owner_all);
  EXPECT_EQ(before, read_file(path));
}

// ------------------------------------------------------------------ compressors

TEST(VtuCompression, EachCodecNamesItsVtkClassAndReadsBack) {
  ScratchDir dir;
  const std::vector<std::pair<std::string, std::string>> classes{
      {"zlib", "vtkZLibDataCompressor"}, {"lzma", "vtkLZMADataCompressor"}, {"lz4", "vtkLZ4DataCompressor"}};
  for (const auto& [codec_name, vtk_class] : classes) {
    const mpp::io::BlockCodec* codec = mpp::io::find_block_codec(codec_name);
    ASSERT_NE(nullptr, codec) << codec_name;
    mpp::WriteOptions options;
    options.set("compression", codec_name);
    const std::string path = dir.file(codec_name + ".vtu");
    if (!codec->available) {
      // A build without the library refuses, naming it.
      try {
        mpp::write(path, reference_mesh(mpp::DType::float64), "", options);
        ADD_FAILURE() << codec_name << " written without its library";
      } catch (const mpp::WriteError& error) {
        EXPECT_NE(std::string(error.what()).find(std::string(codec->library)), std::string::npos) << error.what();
      }
      continue;
    }
    const mpp::Mesh mesh = reference_mesh(mpp::DType::float64);
    mpp::write(path, mesh, "", options);
    EXPECT_NE(read_file(path).find("compressor=\"" + vtk_class + "\""), std::string::npos) << codec_name;
    expect_same_mesh(mesh, mpp::read(path));
  }
}

TEST(VtuCompression, AsciiIsNeverCompressed) {
  ScratchDir dir;
  mpp::WriteOptions options;
  options.set("binary", "false");
  options.set("compression", "zlib");
  const std::string path = dir.file("ascii.vtu");
  mpp::write(path, reference_mesh(mpp::DType::float64), "", options);
  EXPECT_EQ(read_file(path).find("compressor="), std::string::npos);
}

TEST(VtuCompression, CorruptBlocksOfEveryCodecAreLocatedReadErrors) {
  for (const mpp::io::BlockCodec& codec : mpp::io::block_codecs()) {
    if (!codec.available) continue;
    ScratchDir dir;
    const std::string name = std::string(codec.name) + ".vtu";
    std::string bytes = read_file(write_reference_file(dir, name, {{"appended", "true"}, {"compression", std::string(codec.name)}}));
    // The first bytes of the Points array's first block: a zlib header, the .xz magic, an
    // LZ4 token. (LZ4 blocks carry no checksum, so flipping literal bytes at the end would
    // go unnoticed; a broken token does not.)
    const std::size_t tag = bytes.find("Name=\"Points\"");
    const std::size_t value = bytes.find("offset=\"", tag) + 8;
    const std::size_t offset = std::stoull(bytes.substr(value, bytes.find('"', value) - value));
    const std::size_t data = bytes.find('_', bytes.find("<AppendedData")) + 1;
    std::uint32_t blocks = 0;
    std::memcpy(&blocks, bytes.data() + data + offset, 4);  // UInt32 header words, little-endian host
    const std::size_t first_block = data + offset + (3 + blocks) * 4;
    for (std::size_t i = first_block; i < first_block + 2; ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0xFF);
    write_file(dir.file(name), bytes);
    expect_located_read_error(dir.file(name), std::string(codec.name) + " block");
  }
}

TEST(VtuCompression, UnknownCompressorIsNamed) {
  ScratchDir dir;
  const std::string file = read_file(write_reference_file(dir, "z.vtu", {{"compression", "zlib"}}));
  std::string renamed = file;
  const std::string from = "vtkZLibDataCompressor";
  renamed.replace(renamed.find(from), from.size(), "vtkBZip2DataCompressor");
  write_file(dir.file("bz.vtu"), renamed);
  expect_located_read_error(dir.file("bz.vtu"), "unsupported compressor 'vtkBZip2DataCompressor'");
}

// An xz stream header claiming far more than LZMA can produce from the bytes present is
// refused before anything is allocated.
TEST(VtuCompression, ImplausibleExpansionIsRefused) {
  const mpp::io::BlockCodec* lzma = mpp::io::find_block_codec("lzma");
  if (!lzma->available) GTEST_SKIP() << "built without liblzma";
  ScratchDir dir;
  // One block of 2^31 bytes from 8 compressed bytes (UInt32 header words).
  std::string header;
  for (std::uint32_t word : {1u, 0x80000000u, 0u, 8u})
    header.append(reinterpret_cast<const char*>(&word), 4);
  header.append(8, 'x');
  const std::string file =
      "<VTKFile type=\"UnstructuredGrid\" byte_order=\"LittleEndian\" header_type=\"UInt32\" "
      "compressor=\"vtkLZMADataCompressor\"><UnstructuredGrid><Piece NumberOfPoints=\"0\" NumberOfCells=\"0\">"
      "<FieldData><DataArray type=\"UInt8\" Name=\"big\" format=\"appended\" offset=\"0\"/></FieldData>"
      "</Piece></UnstructuredGrid><AppendedData encoding=\"raw\">_" + header + "</AppendedData></VTKFile>";
  write_file(dir.file("big.vtu"), file);
  expect_located_read_error(dir.file("big.vtu"), "more than lzma can produce");
}

// ------------------------------------------------------------------ Lagrange and unknown cell types

mpp::Mesh lagrange_mesh() {
  // meshio's names, any order: a (2, 20) cubic tetrahedron block and a (1, 10) cubic triangle.
  mpp::Mesh mesh;
  const std::int64_t points = 24;
  std::vector<double> xyz;
  for (std::int64_t i = 0; i < points * 3; ++i) xyz.push_back(0.25 * static_cast<double>(i % 7) + static_cast<double>(i / 7));
  mesh.points = make_array<double>({points, 3}, xyz);
  std::vector<std::int64_t> tetra(40), triangle(10);
  for (std::size_t i = 0; i < tetra.size(); ++i) tetra[i] = static_cast<std::int64_t>((i * 5) % points);
  for (std::size_t i = 0; i < triangle.size(); ++i) triangle[i] = static_cast<std::int64_t>(i + 3);
  mesh.cells.push_back({"VTK_LAGRANGE_TETRAHEDRON", make_array<std::int64_t>({2, 20}, tetra), {}, {}});
  mesh.cells.push_back({"VTK_LAGRANGE_TRIANGLE", make_array<std::int64_t>({1, 10}, triangle), {}, {}});
  mesh.cell_data.set("order", {make_array<std::int32_t>({2}, {3, 3}), make_array<std::int32_t>({1}, {3})});
  return mesh;
}

TEST(VtuLagrange, MeshioNamesRoundTripThroughVtuAndLegacyVtk) {
  ScratchDir dir;
  const mpp::Mesh mesh = lagrange_mesh();
  for (const std::string name : {"l.vtu", "l.vtk"}) {
    for (const std::string binary : {"true", "false"}) {
      mpp::WriteOptions options;
      options.set("binary", binary);
      mpp::write(dir.file(name), mesh, "", options);
      const mpp::Mesh read = mpp::read(dir.file(name));
      expect_same_blocks(mesh.cells, read.cells);
    }
  }
}

TEST(VtuLagrange, FixedOrderTypesWrittenWithLagrangeIdsReadBackAsMeshioDoes) {
  // triangle10 has no VTK id of its own; it is written as a Lagrange triangle and read back
  // as meshio reads every VTK id 69: VTK_LAGRANGE_TRIANGLE, with the same nodes.
  ScratchDir dir;
  mpp::Mesh mesh;
  mesh.points = mpp::NDArray::zeros(mpp::DType::float64, {10, 3});
  mesh.cells.push_back({"triangle10", make_array<std::int64_t>({1, 10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), {}, {}});
  mpp::write(dir.file("t.vtu"), mesh);
  const mpp::Mesh read = mpp::read(dir.file("t.vtu"));
  ASSERT_EQ(1u, read.cells.size());
  EXPECT_EQ("VTK_LAGRANGE_TRIANGLE", read.cells[0].type);
  EXPECT_EQ(int64_values(mesh.cells[0].connectivity), int64_values(read.cells[0].connectivity));
}

TEST(VtuLagrange, BlocksSplitWhereTheNodeCountChanges) {
  // Consecutive Lagrange cells of one id but different orders become one block per order.
  ScratchDir dir;
  const std::string piece = ascii_piece(kTrianglePoints, "0 1 2  2 1 0  0 1 2 1 2 0", "3 6 12", "69 69 69", 3, 3);
  write_file(dir.file("split.vtu"), triangle_file(piece));
  const mpp::Mesh mesh = mpp::vtu::read(dir.file("split.vtu"));
  EXPECT_EQ((std::vector<std::pair<std::string, std::int64_t>>{{"VTK_LAGRANGE_TRIANGLE", 2}, {"VTK_LAGRANGE_TRIANGLE", 1}}),
            block_list(mesh));
  EXPECT_EQ((mpp::Shape{2, 3}), mesh.cells[0].connectivity.shape());
  EXPECT_EQ((mpp::Shape{1, 6}), mesh.cells[1].connectivity.shape());
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2, 1, 2, 0}), int64_values(mesh.cells[1].connectivity));
}

TEST(CellTypesUnknown, RectangularBlocksOfUnknownTypesAreValidAndNamedByWriters) {
  ScratchDir dir;
  mpp::Mesh mesh;
  mesh.points = mpp::NDArray::zeros(mpp::DType::float64, {4, 3});
  mesh.cells.push_back({"my_special_cell", make_array<std::int64_t>({1, 4}, {0, 1, 2, 3}), {}, {}});
  EXPECT_NO_THROW(mpp::validate(mesh));
  for (const std::string name : {"u.vtu", "u.vtk"}) {
    try {
      mpp::write(dir.file(name), mesh);
      ADD_FAILURE() << name << " accepted a type VTK has no id for";
    } catch (const mpp::WriteError& error) {
      EXPECT_NE(std::string(error.what()).find("my_special_cell"), std::string::npos) << error.what();
    }
  }
  // Unknown types are rectangular: offsets (a ragged block) are refused.
  mpp::Mesh ragged = mesh;
  ragged.cells[0].connectivity = make_array<std::int64_t>({4}, {0, 1, 2, 3});
  ragged.cells[0].offsets = make_array<std::int64_t>({2}, {0, 4});
  EXPECT_THROW(mpp::validate(ragged), std::invalid_argument);
}

}  // namespace
