// io::hdf5::File::write_stacked: one dataset from the rows of several arrays (the blocks of a
// mesh), each written from its own memory as a hyperslab, or staged when compressed. The
// dataset must read back as the arrays concatenated, whatever the pieces' sizes. And
// File::write_generated, whose rows a filler makes a block at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "io/output/atomic_file.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/ndarray.hpp"
#include "support/test_support.hpp"

namespace hdf5 = meshioplusplus::io::hdf5;
using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// Rows first..first+rows of a width-column table whose value at (r, c) is r * 10 + c.
NDArray table_rows(std::int64_t first, std::int64_t rows, std::int64_t width) {
  NDArray array = NDArray::allocate(DType::int64, width == 0 ? Shape{rows} : Shape{rows, width});
  auto values = array.values<std::int64_t>();
  const std::int64_t columns = width == 0 ? 1 : width;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < columns; ++c) values[r * columns + c] = (first + r) * 10 + c;
  return array;
}

std::vector<std::int64_t> read_back(const std::string& path, const std::string& dataset) {
  const hdf5::File file = hdf5::File::open(path, "test");
  const NDArray array = file.read(dataset);
  const auto values = array.values<std::int64_t>();
  return {values.begin(), values.end()};
}

}  // namespace

TEST(Hdf5WriteStacked, PiecesOfAnySizeReadBackConcatenated) {
  if (!hdf5::available()) GTEST_SKIP() << "built without HDF5 (install libhdf5-dev and rebuild)";
  ScratchDir dir;
  for (const int gzip_level : {-1, 4}) {
    for (const std::int64_t width : {std::int64_t{0}, std::int64_t{3}}) {
      const std::string path = dir.file("stacked" + std::to_string(gzip_level + 1) + std::to_string(width) + ".h5");
      // An empty piece between others, pieces of one row and of many.
      const std::vector<std::int64_t> sizes{5, 0, 1, 1000, 2};
      std::vector<NDArray> pieces;
      std::int64_t first = 0;
      for (const std::int64_t rows : sizes) {
        pieces.push_back(table_rows(first, rows, width));
        first += rows;
      }
      {
        hdf5::File file = hdf5::File::create(path, "test");
        file.write_stacked("/rows", pieces, {.gzip_level = gzip_level});
        file.commit();
      }
      const hdf5::File file = hdf5::File::open(path, "test");
      const Shape expected = width == 0 ? Shape{first} : Shape{first, width};
      EXPECT_EQ(file.read("/rows").shape(), expected);
      const std::vector<std::int64_t> values = read_back(path, "/rows");
      const NDArray whole = table_rows(0, first, width);
      const auto wanted = whole.values<std::int64_t>();
      EXPECT_EQ(values, std::vector<std::int64_t>(wanted.begin(), wanted.end()));
    }
  }
}

TEST(Hdf5WriteStacked, OneArrayIsAnOrdinaryWriteAndScalarsAreRows) {
  if (!hdf5::available()) GTEST_SKIP() << "built without HDF5 (install libhdf5-dev and rebuild)";
  ScratchDir dir;
  const std::string path = dir.file("one.h5");
  NDArray zero = NDArray::allocate(DType::int64, Shape{});
  zero.data_as<std::int64_t>()[0] = 0;
  {
    hdf5::File file = hdf5::File::create(path, "test");
    file.write_stacked("/one", {table_rows(0, 4, 2)});
    // A 0-d piece is one row: VTK offsets are a leading 0 before the end offsets.
    file.write_stacked("/offsets", {zero, table_rows(1, 3, 0)});
    file.commit();
  }
  EXPECT_EQ(read_back(path, "/one"), (std::vector<std::int64_t>{0, 1, 10, 11, 20, 21, 30, 31}));
  EXPECT_EQ(read_back(path, "/offsets"), (std::vector<std::int64_t>{0, 10, 20, 30}));
}

TEST(Hdf5WriteStacked, PiecesThatDisagreeAreWriteErrors) {
  if (!hdf5::available()) GTEST_SKIP() << "built without HDF5 (install libhdf5-dev and rebuild)";
  ScratchDir dir;
  const std::string path = dir.file("bad.h5");
  hdf5::File file = hdf5::File::create(path, "test");
  EXPECT_THROW(file.write_stacked("/mixed_width", {table_rows(0, 2, 3), table_rows(2, 2, 4)}), WriteError);
  EXPECT_THROW(file.write_stacked("/mixed_dtype", {table_rows(0, 2, 0), NDArray::allocate(DType::int32, {2})}),
               WriteError);
  EXPECT_THROW(file.write_stacked("/nothing", {}), WriteError);
}

// write_generated: a derived 1-D dataset made a block at a time. Every value arrives once and
// in order whatever the row count's remainder against the block, compressed files included
// (made whole there), and the filler never sees a range larger than one block.
TEST(Hdf5WriteGenerated, EveryRowOnceInOrderAcrossBlockBoundaries) {
  if (!hdf5::available()) GTEST_SKIP() << "built without HDF5 (install libhdf5-dev and rebuild)";
  ScratchDir dir;
  const std::int64_t block_rows = static_cast<std::int64_t>(hdf5::File::kGeneratedBlockBytes / sizeof(std::int64_t));
  for (const int gzip_level : {-1, 1}) {
    for (const std::int64_t rows : {std::int64_t{0}, std::int64_t{7}, block_rows, 2 * block_rows + 17}) {
      const std::string path = dir.file("generated" + std::to_string(gzip_level + 1) + "_" + std::to_string(rows) + ".h5");
      std::int64_t next = 0, largest = 0;
      {
        hdf5::File file = hdf5::File::create(path, "test");
        file.write_generated(
            "/values", DType::int64, rows,
            [&](std::int64_t first, std::int64_t count, void* out) {
              EXPECT_EQ(first, next);  // in order, no gap, no repeat
              largest = std::max(largest, count);
              auto* values = static_cast<std::int64_t*>(out);
              for (std::int64_t i = 0; i < count; ++i) values[i] = 3 * (first + i) + 1;
              next = first + count;
            },
            {.gzip_level = gzip_level});
        file.commit();
      }
      EXPECT_EQ(next, rows);
      if (gzip_level < 0 && rows * 8 >= static_cast<std::int64_t>(io::kReserveFromBytes)) EXPECT_LE(largest, block_rows);
      const std::vector<std::int64_t> values = read_back(path, "/values");
      ASSERT_EQ(static_cast<std::int64_t>(values.size()), rows);
      for (std::int64_t i = 0; i < rows; ++i)
        if (values[i] != 3 * i + 1) {
          ADD_FAILURE() << "row " << i << " of " << rows << " reads " << values[i];
          break;
        }
    }
  }
}

// A filler that throws (a cell type VTK lacks, found mid-stream) leaves no file behind.
TEST(Hdf5WriteGenerated, AFailingFillerLeavesNoFile) {
  if (!hdf5::available()) GTEST_SKIP() << "built without HDF5 (install libhdf5-dev and rebuild)";
  ScratchDir dir;
  const std::string path = dir.file("failed.h5");
  const std::int64_t rows = 3 * static_cast<std::int64_t>(hdf5::File::kGeneratedBlockBytes);
  EXPECT_THROW(
      {
        hdf5::File file = hdf5::File::create(path, "test");
        file.write_generated("/types", DType::uint8, rows, [](std::int64_t first, std::int64_t count, void* out) {
          if (first > 0) throw WriteError("failed.h5", "test", "no such cell type");
          std::memset(out, 5, static_cast<std::size_t>(count));
        });
        file.commit();
      },
      WriteError);
  EXPECT_FALSE(std::filesystem::exists(path));
}
