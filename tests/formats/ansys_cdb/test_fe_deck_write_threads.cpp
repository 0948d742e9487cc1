// The .cdb, .unv, code_aster .mail and COMSOL .mphtxt writers format their bulk sections on all cores while earlier chunks are
// written (io/output/parallel_rows.hpp): on a mesh large enough for many chunks, with the
// writers' optional columns and regions, the file must be byte for byte the same at 1 and 2
// threads and read back to what was written. The .cdb element numbers take both paths of the
// distinctness check (ascending: no sort; shuffled: sorted).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/ansys_cdb/ansys_cdb.hpp"
#include "formats/code_aster/code_aster.hpp"
#include "formats/mphtxt/mphtxt.hpp"
#include "formats/unv/unv.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

constexpr std::int64_t kPoints = 30000, kTets = 90000;

Mesh large_mesh(bool shuffled_numbers) {
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {kPoints, 3});
  double* xyz = mesh.points.data_as<double>();
  for (std::int64_t i = 0; i < 3 * kPoints; ++i) xyz[i] = (i % 3 == 1 ? -1.0 : 1.0) * static_cast<double>(i) / 7.0;
  std::vector<std::int64_t> ids(4 * kTets), numbers(kTets), mats(kTets);
  for (std::int64_t c = 0; c < kTets; ++c) {
    for (std::int64_t k = 0; k < 4; ++k) ids[4 * c + k] = (c * 5 + k * 7919) % kPoints;
    numbers[c] = shuffled_numbers ? (c * 7 % kTets) * 3 + 1 : c * 2 + 5;  // distinct either way
    mats[c] = 1 + c % 3;
  }
  CellBlock block;
  block.type = "tetra";
  block.connectivity = int64_matrix(kTets, 4, ids);
  mesh.cells.push_back(std::move(block));
  mesh.cell_data.set("ansys:element", {int64_vector(numbers)});
  mesh.cell_data.set("ansys:mat", {int64_vector(mats)});
  mesh.regions.push_back(cell_region("SOME_CELLS", 3, 0, {0, 1, 2, 500, 89999}));
  return mesh;
}

std::string written_at(unsigned threads, const std::string& name, const Mesh& mesh, bool cdb) {
  set_thread_count(threads);
  const std::string path = (scratch_dir() / name).string();
  if (cdb)
    ansys_cdb::write(path, mesh, {});
  else
    unv::write(path, mesh, {});
  set_thread_count(0);
  return read_file(path);
}

using WriteFunction = void (*)(const std::string&, const Mesh&, const WriteOptions&);

std::string written_at(unsigned threads, const std::string& name, const Mesh& mesh, WriteFunction write) {
  set_thread_count(threads);
  const std::string path = (scratch_dir() / name).string();
  write(path, mesh, {});
  set_thread_count(0);
  return read_file(path);
}

// The points and cells of `mesh` read back from scratch_dir() / name by `read`.
template <class Read> void expect_reads_back(const std::string& name, const Mesh& mesh, Read read) {
  const Mesh back = read((scratch_dir() / name).string());
  ASSERT_EQ(back.num_points(), kPoints);
  ASSERT_EQ(back.num_cells(), kTets);
  EXPECT_EQ(int_values(back.cells[0].connectivity), int_values(mesh.cells[0].connectivity));
  const double* xyz = back.points.data_as<double>();
  const double* written = mesh.points.data_as<double>();
  for (std::int64_t i = 0; i < 3 * kPoints; ++i) ASSERT_EQ(xyz[i], written[i]) << i;
}

}  // namespace

TEST(FeDeckWriteThreads, AnsysCdbIsTheSameAtOneAndTwoThreadsAndReadsBack) {
  for (const bool shuffled : {false, true}) {
    const Mesh mesh = large_mesh(shuffled);
    const std::string one = written_at(1, "one.cdb", mesh, true);
    EXPECT_EQ(written_at(2, "two.cdb", mesh, true), one);
    const Mesh back = ansys_cdb::read((scratch_dir() / "two.cdb").string());
    ASSERT_EQ(back.num_points(), kPoints);
    ASSERT_EQ(back.num_cells(), kTets);
    const std::vector<NDArray>* numbers = back.cell_data.find("ansys:element");
    ASSERT_NE(numbers, nullptr);
    EXPECT_EQ(int_values((*numbers)[0]), int_values(mesh.cell_data.find("ansys:element")->at(0)));
    const Region* region = find_region(back, "SOME_CELLS");
    ASSERT_NE(region, nullptr);
    EXPECT_EQ(int_values(region->entries), (std::vector<std::int64_t>{0, 1, 2, 500, 89999}));
  }
}

TEST(FeDeckWriteThreads, UnvIsTheSameAtOneAndTwoThreadsAndReadsBack) {
  const Mesh mesh = large_mesh(false);
  const std::string one = written_at(1, "one.unv", mesh, false);
  EXPECT_EQ(written_at(2, "two.unv", mesh, false), one);
  const Mesh back = unv::read((scratch_dir() / "two.unv").string());
  ASSERT_EQ(back.num_points(), kPoints);
  ASSERT_EQ(back.num_cells(), kTets);
  EXPECT_EQ(int_values(back.cells[0].connectivity), int_values(mesh.cells[0].connectivity));
  const double* xyz = back.points.data_as<double>();
  EXPECT_EQ(xyz[3 * kPoints - 1], mesh.points.data_as<double>()[3 * kPoints - 1]);
}

TEST(FeDeckWriteThreads, CodeAsterIsTheSameAtOneAndTwoThreadsAndReadsBack) {
  const Mesh mesh = large_mesh(false);
  const std::string one = written_at(1, "one.mail", mesh, code_aster::write);
  EXPECT_EQ(written_at(2, "two.mail", mesh, code_aster::write), one);
  std::size_t longest = 0, line_start = 0;
  for (std::size_t i = 0; i < one.size(); ++i)
    if (one[i] == '\n') {
      longest = std::max(longest, i - line_start);
      line_start = i + 1;
    }
  EXPECT_LE(longest, 80u);  // code_aster reads 80 columns: long rows are wrapped
  expect_reads_back("two.mail", mesh, [](const std::string& path) { return code_aster::read(path); });
}

TEST(FeDeckWriteThreads, MphtxtIsTheSameAtOneAndTwoThreadsAndReadsBack) {
  const Mesh mesh = large_mesh(false);
  const std::string one = written_at(1, "one.mphtxt", mesh, mphtxt::write);
  EXPECT_EQ(written_at(2, "two.mphtxt", mesh, mphtxt::write), one);
  expect_reads_back("two.mphtxt", mesh, [](const std::string& path) { return mphtxt::read(path); });
}
