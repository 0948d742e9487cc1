// ANSYS MAPDL results (.rst / .rth): ansys-mapdl-reader's own test files (gzip-compressed in
// tests/data/ansys_rst; the reader inflates them), counts and sums from that reader; result
// sets read alone; damaged pointers and records -> ReadError with the record's byte offset.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "formats/ansys_rst/ansys_rst.hpp"
#include "io/codecs/zlib_codec.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) {
  return (meshioplusplus::testing::test_data_dir() / "ansys_rst" / (name + ".gz")).string();
}

// The file as MAPDL wrote it (inflated), for tests that damage bytes at given offsets.
std::string plain_bytes(const std::string& name) {
  const std::string path = data_file(name);
  return io::gunzip(read_file(path), path, "ansys_rst");
}

std::int32_t word_at(const std::string& bytes, std::int64_t word) {
  std::int32_t value = 0;
  std::memcpy(&value, bytes.data() + word * 4, 4);
  return value;
}
void set_word(std::string& bytes, std::int64_t word, std::int32_t value) { std::memcpy(bytes.data() + word * 4, &value, 4); }

// Sum of |value| over a step's point arrays (the DOF solution), NaN (nodes outside it) skipped.
double solution_sum(const TimeStep& step) {
  double sum = 0;
  for (const auto& [name, array] : step.point_data)
    for (double v : array.values<double>())
      if (!std::isnan(v)) sum += std::abs(v);
  return sum;
}

struct Expected {
  const char* name;
  std::size_t sets;
  std::int64_t nodes, elements;
  const char* blocks;
  double point_sum, first_solution, last_solution, last_time;
  const char* arrays;
};

// Counts and sums from ansys-mapdl-reader 0.55 (rst.mesh, rst.nodal_solution, rst.time_values).
const Expected kFiles[] = {
    {"hex_201.rst", 6, 321, 40, "hexahedron20:40", 1123.5, 2.002788467774307, 1.5121449013883663, 254.85112372052464, "displacement"},
    {"shell181_2021R1.rst", 1, 9, 4, "quad:4", 0.0, 153.69311179761533, 153.69311179761533, 1.0, "displacement,rotation"},
    {"beam44.rst", 1, 17, 16, "line:16", 7707.5, 50.64981000576105, 50.64981000576105, 1.0, "displacement,rotation"},
    {"materials.rst", 2, 25, 33, "vertex:29;quad8:4", -200.0, 208.1468031584418, 2.8339392827684247, 2.0, "displacement,rotation"},
    {"shell281.rst", 1, 141, 24, "hexahedron20:16;quad8:8", 1410.0, 0.0017945734104432573, 0.0017945734104432573, 1.0, "displacement,rotation"},
    {"vm1.rst", 1, 4, 3, "line:3", 21.0, 0.00017, 0.00017, 1.0, "displacement"},
    {"thermal.rth", 1, 2720, 450, "hexahedron20:450", 680.0, 142799.9999999046, 142799.9999999046, 1.0, "temperature"},
};

std::string names_of(const NamedList<NDArray>& list) {
  std::string out;
  for (const auto& [name, array] : list) out += (out.empty() ? "" : ",") + name;
  return out;
}

}  // namespace

TEST(AnsysRst, RealFilesMatchTheReferenceReader) {
  if (!io::zlib_available()) GTEST_SKIP() << "this build has no zlib (the test files are gzip-compressed)";
  for (const Expected& e : kFiles) {
    SCOPED_TRACE(e.name);
    auto series = ansys_rst::open_time_series(data_file(e.name));
    ASSERT_EQ(series->num_steps(), e.sets);
    EXPECT_DOUBLE_EQ(series->time(e.sets - 1), e.last_time);
    const Mesh mesh = series->read_mesh();
    EXPECT_EQ(mesh.num_points(), e.nodes);
    EXPECT_EQ(mesh.num_cells(), e.elements);
    EXPECT_EQ(block_summary(mesh), e.blocks);
    EXPECT_NEAR(point_sum(mesh), e.point_sum, 1e-9 * (1 + std::abs(e.point_sum)));
    const TimeStep first = series->read_step(0), last = series->read_step(e.sets - 1);
    EXPECT_EQ(names_of(first.point_data), e.arrays);
    EXPECT_NEAR(solution_sum(first), e.first_solution, 1e-9 * e.first_solution);
    EXPECT_NEAR(solution_sum(last), e.last_solution, 1e-9 * e.last_solution);
    EXPECT_EQ(last.field_data.find("ansys:set")->values<std::int64_t>()[0], static_cast<std::int64_t>(e.sets));
    ASSERT_TRUE(mesh.cell_data.contains("ansys:element"));
    std::int64_t elements = 0;
    for (const NDArray& ids : *mesh.cell_data.find("ansys:element")) elements += ids.rows();
    EXPECT_EQ(elements, e.elements);
  }
}

TEST(AnsysRst, ReadGivesTheFirstSetAndTheRegistryKnowsTheExtensions) {
  if (!io::zlib_available()) GTEST_SKIP() << "this build has no zlib";
  const std::string path = write_scratch("modal.rst", plain_bytes("hex_201.rst"));
  const Mesh mesh = read(path);  // by extension
  EXPECT_EQ(mesh.num_points(), 321);
  EXPECT_NEAR(mesh.field_data.find("ansys:time")->values<double>()[0], 32.13951614479067, 1e-12);
  EXPECT_EQ(mesh.point_data.find("displacement")->shape()[1], 3);
  EXPECT_EQ(format_for_path("x.rth")->name, "ansys_rst");
  EXPECT_EQ(format_for_path("x.rmg")->name, "ansys_rst");
  EXPECT_TRUE(ansys_rst::looks_like(plain_bytes("vm1.rst").substr(0, 64)));
  EXPECT_FALSE(ansys_rst::looks_like("Title\n=====\n\nreStructuredText"));
}

TEST(AnsysRst, OneSetReadsOnlyItsOwnRecords) {
  if (!io::zlib_available()) GTEST_SKIP() << "this build has no zlib";
  std::string bytes = plain_bytes("hex_201.rst");
  // The data set index (DSI): the first set's solution header pointer. Damage that set's header.
  const std::int64_t dsi = word_at(bytes, 103 + 2 + 10);
  const std::int64_t first_set = word_at(bytes, dsi + 2);
  set_word(bytes, first_set, 0x7fffffff);
  const std::string path = write_scratch("damaged.rst", bytes);
  auto series = ansys_rst::open_time_series(path);
  const TimeStep last = series->read_step(5);
  EXPECT_NEAR(solution_sum(last), 1.5121449013883663, 1e-9);
  const ReadError error = expect_read_error([&] { series->read_step(0); });
  EXPECT_EQ(error.path(), path);
  EXPECT_EQ(error.byte_offset(), static_cast<std::uint64_t>(first_set) * 4);
  EXPECT_NE(error.reason().find("solution header of set 1"), std::string::npos) << error.reason();
  expect_read_error([&] { series->read_step(6); });
}

TEST(AnsysRst, GarbagePointersAndCountsAreReadErrorsWithTheirOffset) {
  if (!io::zlib_available()) GTEST_SKIP() << "this build has no zlib";
  const std::string good = plain_bytes("shell281.rst");
  {  // the geometry header pointer (result header word 15) far past the end
    std::string bytes = good;
    set_word(bytes, 103 + 2 + 15, 0x7ffffff0);
    const ReadError error = expect_read_error([&] { ansys_rst::read(write_scratch("geo.rst", bytes)); });
    EXPECT_NE(error.reason().find("geometry header"), std::string::npos) << error.reason();
  }
  {  // the node table claims more nodes than the file could hold
    std::string bytes = good;
    const std::int64_t geo = word_at(bytes, 103 + 2 + 15);
    set_word(bytes, geo + 2 + 3, 2000000000);
    const ReadError error = expect_read_error([&] { ansys_rst::read(write_scratch("nodes.rst", bytes)); });
    EXPECT_EQ(error.byte_offset(), static_cast<std::uint64_t>(geo) * 4);
  }
  {  // a record length past the end: the NOD table
    std::string bytes = good;
    const std::int64_t nod = word_at(bytes, 103 + 2 + 14);
    set_word(bytes, nod, 0x40000000);
    const ReadError error = expect_read_error([&] { ansys_rst::read(write_scratch("nod.rst", bytes)); });
    EXPECT_EQ(error.byte_offset(), static_cast<std::uint64_t>(nod) * 4);
  }
  {  // more sets than the index holds
    std::string bytes = good;
    set_word(bytes, 103 + 2 + 8, 1000);
    expect_read_error([&] { ansys_rst::read(write_scratch("sets.rst", bytes)); });
  }
  {  // not a results file
    const ReadError error = expect_read_error([&] { ansys_rst::read(write_scratch("text.rst", "Title\n=====\n")); });
    EXPECT_EQ(error.format(), "ansys_rst");
  }
}

TEST(AnsysRst, EveryTruncationIsAReadErrorOrReadsWhatIsLeft) {
  if (!io::zlib_available()) GTEST_SKIP() << "this build has no zlib";
  const std::string good = plain_bytes("vm1.rst");
  // The file's records end well before its 64 KiB padding: cut everywhere up to the last record.
  std::size_t used = good.size();
  while (used > 0 && good[used - 1] == 0) --used;
  // Up to the set's solution header everything read is needed; records after it (element
  // results of kinds not read) may be cut off without harm.
  const std::int64_t dsi = word_at(good, 103 + 2 + 10);
  const auto set_header = static_cast<std::size_t>(word_at(good, dsi + 2)) * 4;
  std::size_t errors = 0, cuts = 0;
  for (std::size_t size = 0; size < used; size += 389, ++cuts) {
    const std::string path = write_scratch("cut.rst", good.substr(0, size));
    try {
      auto series = ansys_rst::open_time_series(path);
      series->read_mesh();
      for (std::size_t k = 0; k < series->num_steps(); ++k) series->read_step(k);
    } catch (const ReadError& error) {
      EXPECT_EQ(error.path(), path);
      ++errors;
      continue;
    }
    EXPECT_GT(size, set_header) << "a file cut at " << size << " bytes, before the set's header, read";
  }
  EXPECT_GT(errors, cuts * 9 / 10);
}
