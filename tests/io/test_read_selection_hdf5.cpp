// Issue 35 ("read less") for the HDF5/netCDF family (Exodus, VTKHDF, MED, XDMF), on the real
// files in tests/data: read_metadata from the header equals the summary of the full read
// (all but bounds and header_only); a read of one array equals the full read less the others,
// bit for bit; points_only gives the full read's points; time_step=k the series' step k.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/read_selection.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

namespace meshioplusplus {
namespace {

struct RealFile {
  const char* format;
  const char* path;  // under tests/data
  bool header_only = true;  // read_metadata answers from the header
};

// Every real file of these formats in tests/data (git ls-files tests/data | grep -E
// '\.(e|exo|xdmf|vtkhdf|hdf|med)$'), less the fuzz regressions (malformed on purpose).
const std::vector<RealFile> kFiles{
    {"exodus", "corpus/exodus/coarseGrid.e"},
    {"exodus", "exodus/tmap8_val-2d_limited_out.e"},
    {"exodus", "libmesh/read_exodus_HEX27.e"},
    {"exodus", "libmesh/read_exodus_PRISM18.e"},
    {"med", "corpus/med/box.med"},
    {"med", "corpus/med/cylinder.med"},
    {"med", "med/medcoupling_Test3Dpoly.med"},
    {"med", "med/medcoupling_poly3D.med"},
    // XDMF layouts the light data does not settle are read in full (xdmf_metadata.cpp):
    // DOLFINx meshtags grids, DOLFIN's FiniteElementFunction checkpoints.
    {"xdmf", "corpus/xdmf/dolfinx_mesh.xdmf", false},
    {"xdmf", "corpus/xdmf/out.xdmf"},
    {"xdmf", "xdmf/checkpoint.xdmf", false},
    {"xdmf", "xdmf/no_checkpoint.xdmf"},
};

std::string data_path(const RealFile& file) { return (testing::test_data_dir() / file.path).string(); }

bool same_array(const NDArray& a, const NDArray& b) {
  if (a.empty_handle() || b.empty_handle()) return a.empty_handle() == b.empty_handle();
  return testing_support::same_bits(a, b);
}

// Bit-for-bit equality of two meshes, reporting the first difference.
void expect_same_mesh(const Mesh& a, const Mesh& b, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_TRUE(same_array(a.points, b.points)) << "points";
  ASSERT_EQ(a.cells.size(), b.cells.size());
  for (std::size_t i = 0; i < a.cells.size(); ++i) {
    EXPECT_EQ(a.cells[i].type, b.cells[i].type);
    EXPECT_TRUE(same_array(a.cells[i].connectivity, b.cells[i].connectivity)) << "block " << i;
    EXPECT_TRUE(same_array(a.cells[i].offsets, b.cells[i].offsets)) << "block " << i;
    EXPECT_TRUE(same_array(a.cells[i].face_offsets, b.cells[i].face_offsets)) << "block " << i;
  }
  ASSERT_EQ(a.point_data.size(), b.point_data.size());
  for (const auto& [name, array] : a.point_data) {
    ASSERT_TRUE(b.point_data.contains(name)) << name;
    EXPECT_TRUE(same_array(array, (*b.point_data.find(name)))) << name;
  }
  ASSERT_EQ(a.cell_data.size(), b.cell_data.size());
  for (const auto& [name, arrays] : a.cell_data) {
    ASSERT_TRUE(b.cell_data.contains(name)) << name;
    ASSERT_EQ(arrays.size(), (*b.cell_data.find(name)).size()) << name;
    for (std::size_t i = 0; i < arrays.size(); ++i) EXPECT_TRUE(same_array(arrays[i], (*b.cell_data.find(name))[i])) << name;
  }
  ASSERT_EQ(a.field_data.size(), b.field_data.size());
  for (const auto& [name, array] : a.field_data) {
    ASSERT_TRUE(b.field_data.contains(name)) << name;
    EXPECT_TRUE(same_array(array, (*b.field_data.find(name)))) << name;
  }
  ASSERT_EQ(a.string_field_data.size(), b.string_field_data.size());
  for (const auto& [name, strings] : a.string_field_data) {
    ASSERT_TRUE(b.string_field_data.contains(name)) << name;
    EXPECT_EQ(strings, (*b.string_field_data.find(name))) << name;
  }
  ASSERT_EQ(a.regions.size(), b.regions.size());
  for (std::size_t i = 0; i < a.regions.size(); ++i) {
    EXPECT_EQ(a.regions[i].name, b.regions[i].name);
    EXPECT_EQ(a.regions[i].kind, b.regions[i].kind);
    EXPECT_EQ(a.regions[i].dim, b.regions[i].dim);
    EXPECT_EQ(a.regions[i].tag, b.regions[i].tag);
    EXPECT_TRUE(same_array(a.regions[i].entries, b.regions[i].entries)) << a.regions[i].name;
  }
}

// The file's time series; null for a file that is none (an XDMF without a temporal collection).
std::unique_ptr<TimeSeriesReader> series_of(const RealFile& file) {
  try {
    return open_time_series(data_path(file), file.format);
  } catch (const ReadError&) {
    return nullptr;
  }
}

class ReadLessHdf5 : public ::testing::TestWithParam<RealFile> {};

TEST_P(ReadLessHdf5, MetadataFromTheHeaderEqualsTheFullReadsSummary) {
  const RealFile& file = GetParam();
  const std::string path = data_path(file);
  const MeshMetadata header = read_metadata(path, file.format);
  const MeshMetadata full = summarize(read(path, file.format), file.format);
  // XDMF answers from the light data only where the layout states the counts (xdmf_metadata.cpp).
  EXPECT_EQ(header.header_only, file.header_only);
  EXPECT_EQ(header.format, file.format);
  if (header.header_only) EXPECT_FALSE(header.variant.empty());
  EXPECT_EQ(header.num_points, full.num_points);
  EXPECT_GT(header.num_points, 0);
  EXPECT_EQ(header.point_dim, full.point_dim);
  ASSERT_EQ(header.cell_blocks.size(), full.cell_blocks.size());
  EXPECT_FALSE(header.cell_blocks.empty());
  for (std::size_t i = 0; i < full.cell_blocks.size(); ++i) {
    EXPECT_EQ(header.cell_blocks[i].type, full.cell_blocks[i].type) << i;
    EXPECT_EQ(header.cell_blocks[i].count, full.cell_blocks[i].count) << i;
  }
  ASSERT_EQ(header.arrays.size(), full.arrays.size());
  for (std::size_t i = 0; i < full.arrays.size(); ++i) {
    SCOPED_TRACE(full.arrays[i].name);
    EXPECT_EQ(header.arrays[i].name, full.arrays[i].name);
    EXPECT_EQ(header.arrays[i].association, full.arrays[i].association);
    EXPECT_EQ(header.arrays[i].dtype, full.arrays[i].dtype);
    EXPECT_EQ(header.arrays[i].shape, full.arrays[i].shape);
  }
  ASSERT_EQ(header.regions.size(), full.regions.size());
  for (std::size_t i = 0; i < full.regions.size(); ++i) {
    SCOPED_TRACE(full.regions[i].name);
    EXPECT_EQ(header.regions[i].name, full.regions[i].name);
    EXPECT_EQ(header.regions[i].kind, full.regions[i].kind);
    EXPECT_EQ(header.regions[i].dim, full.regions[i].dim);
    EXPECT_EQ(header.regions[i].tag, full.regions[i].tag);
    // -1: the header does not say (MED groups: their sizes need the family numbers).
    if (header.regions[i].count != -1) EXPECT_EQ(header.regions[i].count, full.regions[i].count);
  }
  const auto series = series_of(file);
  ASSERT_EQ(header.times.size(), series ? series->num_steps() : 0);
  for (std::size_t k = 0; k < header.times.size(); ++k) EXPECT_EQ(header.times[k], series->time(k));
}

TEST_P(ReadLessHdf5, OneArrayEqualsTheFullReadLessTheOthers) {
  const RealFile& file = GetParam();
  const std::string path = data_path(file);
  const Mesh full = read(path, file.format);
  const MeshMetadata summary = summarize(full, file.format);
  for (const ArraySummary& array : summary.arrays) {
    ReadRequest request;
    request.arrays = std::vector<std::string>{array.name};
    Mesh expected = full;
    apply_read_request(expected, request, path);
    expect_same_mesh(read(path, file.format, request), expected, "arrays=[" + array.name + "]");
  }
  ReadRequest none;
  none.arrays = std::vector<std::string>{};
  Mesh expected = full;
  apply_read_request(expected, none, path);
  expect_same_mesh(read(path, file.format, none), expected, "arrays=[]");
  none.arrays = std::vector<std::string>{"no such array"};
  EXPECT_THROW(read(path, file.format, none), std::invalid_argument);
}

TEST_P(ReadLessHdf5, PointsOnlyEqualsTheFullReadsPoints) {
  const RealFile& file = GetParam();
  const std::string path = data_path(file);
  const Mesh full = read(path, file.format);
  ReadRequest request;
  request.points_only = true;
  Mesh expected = full;
  apply_read_request(expected, request, path);
  const Mesh points = read(path, file.format, request);
  EXPECT_TRUE(points.cells.empty());
  EXPECT_TRUE(same_array(points.points, full.points));
  expect_same_mesh(points, expected, "points_only");
}

TEST_P(ReadLessHdf5, TimeStepEqualsTheSeriesStep) {
  const RealFile& file = GetParam();
  const std::string path = data_path(file);
  const auto series = series_of(file);
  // An XDMF without a temporal collection holds one step: 0 and -1 are the file, 1 is out of range.
  if (!series) {
    const Mesh whole = read(path, file.format);
    for (std::int64_t k : {0, -1}) {
      ReadRequest request;
      request.time_step = k;
      expect_same_mesh(read(path, file.format, request), whole, "time_step=" + std::to_string(k));
    }
    ReadRequest past;
    past.time_step = 1;
    EXPECT_THROW(read(path, file.format, past), ReadError);
    return;
  }
  for (std::size_t k = 0; k < series->num_steps(); ++k) {
    ReadRequest request;
    request.time_step = static_cast<std::int64_t>(k);
    const Mesh step = read(path, file.format, request);
    TimeStep data = series->read_step(k);
    Mesh expected = series->read_mesh();
    for (auto& [name, array] : data.point_data) expected.point_data.set(name, std::move(array));
    for (auto& [name, arrays] : data.cell_data) expected.cell_data.set(name, std::move(arrays));
    for (auto& [name, array] : data.field_data) expected.field_data.set(name, std::move(array));
    expect_same_mesh(step, expected, "time_step=" + std::to_string(k));
  }
}

// Hostile inputs kept from fuzzing (fuzz-regressions; fuzz-library-findings crash inside
// libhdf5 whatever reads them, and are not replayed): the header-only path answers or raises a
// ReadError, never crashes (the sanitizer builds run this too).
TEST(ReadLessHdf5Hostile, MetadataOfFuzzFindingsIsAnswerOrReadError) {
  const std::vector<std::pair<const char*, const char*>> files{
      {"med", "fuzz-regressions/med/nbr-times-esp-overflow.med"},
      {"med", "fuzz-regressions/med/nga-times-nco-overflow.bin"},
  };
  int answered = 0, refused = 0;
  for (const auto& [format, relative] : files) {
    const std::string path = (testing::test_data_dir() / relative).string();
    try {
      read_metadata(path, format);
      ++answered;
    } catch (const ReadError&) {
      ++refused;
    }
  }
  EXPECT_EQ(answered + refused, static_cast<int>(files.size()));
}

// Bytes this process has read (rchar: read and pread calls, page cache or not; HDF5 and
// netCDF read through them).
std::int64_t bytes_read_so_far() {
  std::ifstream io("/proc/self/io");
  std::string key;
  std::int64_t value = 0;
  while (io >> key >> value)
    if (key == "rchar:") return value;
  return -1;
}

// The skipping is real: on a file of our writer with 60 000 points, 120 000 tetrahedra and a
// point and a cell array, the header-only summary reads a small part of the file, a
// points_only read hardly more than the points, and one array less than the others' bytes.
TEST(ReadLessHdf5Bytes, SkippedArraysAreNeverRead) {
  if (bytes_read_so_far() < 0) GTEST_SKIP() << "no /proc/self/io";
  constexpr std::int64_t kPoints = 60000, kCells = 120000;
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {kPoints, 3});
  double* xyz = mesh.points.data_as<double>();
  for (std::int64_t i = 0; i < kPoints * 3; ++i) xyz[i] = static_cast<double>((i * 7919) % 10007) / 97.0;
  CellBlock tetra{"tetra", NDArray::allocate(DType::int64, {kCells, 4}), {}, {}};
  std::int64_t* nodes = tetra.connectivity.data_as<std::int64_t>();
  for (std::int64_t i = 0; i < kCells * 4; ++i) nodes[i] = (i * 104729) % kPoints;
  mesh.cells.push_back(std::move(tetra));
  mesh.point_data.set("displacement", mesh.points.copy());
  NDArray stress = NDArray::allocate(DType::float64, {kCells});
  for (std::int64_t i = 0; i < kCells; ++i) stress.data_as<double>()[i] = static_cast<double>(i);
  mesh.cell_data.set("stress", std::vector<NDArray>{stress});
  const std::int64_t points_bytes = kPoints * 3 * 8, stress_bytes = kCells * 8;
  for (const char* format : {"exodus", "vtkhdf", "med", "xdmf"}) {
    SCOPED_TRACE(format);
    const std::string path = testing_support::scratch(std::string("bytes.") + (std::string(format) == "exodus" ? "e" : format)).string();
    WriteOptions options;
    if (std::string(format) == "xdmf") options.set("compression", "None");
    write(path, mesh, format, options);
    const auto measure = [&](auto&& call) {
      const std::int64_t before = bytes_read_so_far();
      call();
      return bytes_read_so_far() - before;
    };
    const std::int64_t full = measure([&] { (void)read(path, format); });
    ReadRequest points_only, displacement;
    points_only.points_only = true;
    displacement.arrays = std::vector<std::string>{"displacement"};
    const std::int64_t header = measure([&] { EXPECT_TRUE(read_metadata(path, format).header_only); });
    const std::int64_t points = measure([&] { (void)read(path, format, points_only); });
    const std::int64_t one = measure([&] { (void)read(path, format, displacement); });
    EXPECT_GT(full, points_bytes + stress_bytes);
    // VTKHDF's summary reads the cell types (one byte a cell): below 1/20 of the full read.
    EXPECT_LT(header, full / 20) << "full " << full;
    EXPECT_LT(points, points_bytes + (std::int64_t{256} << 10)) << "full " << full;
    EXPECT_LT(one, full - stress_bytes / 2) << "full " << full;
  }
}

std::string file_name(const ::testing::TestParamInfo<RealFile>& info) {
  std::string name = std::string(info.param.format) + "_" + info.param.path;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(RealFiles, ReadLessHdf5, ::testing::ValuesIn(kFiles), file_name);

}  // namespace
}  // namespace meshioplusplus
