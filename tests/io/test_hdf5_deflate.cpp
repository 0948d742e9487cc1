// Compressed HDF5 datasets (src/cpp/io/hdf5/hdf5_chunks.cpp): deflate chunks compressed on every core
// and stored with H5Dwrite_chunk, read back with H5Dread_chunk and inflated on every core.
// Round trips over dtypes, row widths and chunk edges (one row, exact chunk multiples, a
// partial last chunk), row ranges across chunks with and without conversion, the bytes and
// arrays independent of the thread count, and a corrupt chunk as a ReadError. Files written
// and read by h5py: tests/python/test_hdf5_deflate.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "io/hdf5/hdf5_file.hpp"
#include "io/codecs/zlib_codec.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/ndarray.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"
#include "support/hdf5_skip.hpp"

namespace hdf5 = meshioplusplus::io::hdf5;
using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// Values that compress, but not to nothing: a slow ramp plus pseudo-random low bits.
NDArray pattern(DType dtype, Shape shape, std::uint32_t seed = 1) {
  NDArray array = NDArray::allocate(dtype, shape);
  visit_dtype(dtype, [&](auto zero) {
    using T = decltype(zero);
    auto values = array.values<T>();
    std::uint32_t state = seed;
    for (std::size_t i = 0; i < values.size(); ++i) {
      state = state * 1664525u + 1013904223u;
      values[i] = static_cast<T>((i / 16) % 100 + (state >> 28));
    }
  });
  return array;
}

// Rows per chunk the writer picks: ~256 KiB of whole rows.
std::int64_t chunk_rows(DType dtype, std::int64_t row_elements) {
  return std::max<std::int64_t>(1, (std::int64_t{1} << 18) / (static_cast<std::int64_t>(dtype_size(dtype)) * row_elements));
}

struct ThreadCount {
  explicit ThreadCount(unsigned count) { set_thread_count(count); }
  ~ThreadCount() { set_thread_count(0); }
};

}  // namespace

TEST(Hdf5Deflate, RoundTripsDtypesWidthsAndChunkEdges) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  struct Case {
    DType dtype;
    Shape row;  // trailing extents
  };
  const std::vector<Case> cases{{DType::int8, {}},     {DType::uint16, {1}},  {DType::int32, {4}},
                                {DType::int64, {4}},   {DType::uint64, {2}},  {DType::float32, {3}},
                                {DType::float64, {3}}, {DType::float64, {7}}, {DType::int32, {2, 3}}};
  for (const Case& c : cases) {
    std::int64_t row_elements = 1;
    for (std::int64_t extent : c.row) row_elements *= extent;
    const std::int64_t per_chunk = chunk_rows(c.dtype, row_elements);
    for (std::int64_t rows : {std::int64_t{1}, std::int64_t{5}, per_chunk, 2 * per_chunk, 2 * per_chunk + 3}) {
      Shape shape{rows};
      shape.insert(shape.end(), c.row.begin(), c.row.end());
      const NDArray array = pattern(c.dtype, shape, static_cast<std::uint32_t>(rows));
      for (int level : {0, 1, 4, 9}) {
        // Every level once, on the partial chunk of float64 rows of 3 (points).
        if (level != 4 && (rows != 2 * per_chunk + 3 || c.dtype != DType::float64 || row_elements != 3)) continue;
        const std::string path = dir.file("round.h5");
        {
          hdf5::File file = hdf5::File::create(path, "test");
          file.write("/g/data", array, {.gzip_level = level});
          file.commit();
        }
        hdf5::File file = hdf5::File::open(path, "test");
        const NDArray back = file.read("/g/data");
        SCOPED_TRACE(std::string(dtype_name(c.dtype)) + " rows " + std::to_string(rows) + " level " +
                     std::to_string(level));
        ASSERT_EQ(back.shape(), shape);
        ASSERT_EQ(back.dtype(), c.dtype);
        EXPECT_TRUE(same_bits(back, array));
        NDArray into = NDArray::allocate(c.dtype, shape);
        file.read_into("/g/data", into);
        EXPECT_TRUE(same_bits(into, array));
        // The chunk is a zlib stream of the full chunk (edge chunks too).
        std::uint32_t mask = 7;
        std::vector<std::int64_t> offset(shape.size(), 0);
        const std::vector<std::uint8_t> chunk = file.stored_chunk("/g/data", offset, &mask);
        EXPECT_EQ(mask, 0u);
        ASSERT_GE(chunk.size(), 2u);
        EXPECT_EQ(chunk[0] & 0x0f, 8);  // CM = deflate (RFC 1950)
        EXPECT_EQ(((chunk[0] << 8) | chunk[1]) % 31, 0);
        const std::size_t chunk_bytes = static_cast<std::size_t>(std::min(per_chunk, std::max<std::int64_t>(rows, 1))) *
                                        dtype_size(c.dtype) * static_cast<std::size_t>(row_elements);
        std::vector<std::uint8_t> inflated(chunk_bytes);
        EXPECT_TRUE(io::zlib_decompress(chunk.data(), chunk.size(), inflated.data(), inflated.size()));
      }
    }
  }
}

TEST(Hdf5Deflate, EmptyAndScalarDatasets) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("empty.h5");
  {
    hdf5::File file = hdf5::File::create(path, "test");
    file.write("/empty", NDArray::allocate(DType::float64, {0, 3}), {.gzip_level = 4});
    file.write("/empty1", NDArray::allocate(DType::int32, {0}), {.gzip_level = 4});
    file.write("/scalar", array_of<double>({}, {2.5}), {.gzip_level = 4});
    file.commit();
  }
  hdf5::File file = hdf5::File::open(path, "test");
  EXPECT_EQ(file.read("/empty").shape(), (Shape{0, 3}));
  EXPECT_EQ(file.read("/empty1").shape(), (Shape{0}));
  EXPECT_EQ(file.read("/scalar").values<double>()[0], 2.5);
}

TEST(Hdf5Deflate, RowRangesAcrossChunksAndConversions) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("rows.h5");
  const std::int64_t per_chunk = chunk_rows(DType::int32, 4);
  const std::int64_t rows = 3 * per_chunk + 11;
  const NDArray full = pattern(DType::int32, {rows, 4});
  const NDArray wide = pattern(DType::float32, {rows}, 9);
  {
    hdf5::File file = hdf5::File::create(path, "test");
    file.write("/cells", full, {.gzip_level = 4});
    file.write("/f", wide, {.gzip_level = 4});
    file.commit();
  }
  hdf5::File file = hdf5::File::open(path, "test");
  const auto values = full.values<std::int32_t>();
  const std::vector<std::pair<std::int64_t, std::int64_t>> ranges{
      {0, rows}, {0, 1}, {per_chunk - 1, 2}, {per_chunk, per_chunk}, {5, 2 * per_chunk}, {rows - 3, 3}, {rows, 0}};
  const std::vector<std::int64_t> as_int64(values.begin(), values.end());
  const std::vector<std::int16_t> as_int16(values.begin(), values.end());
  for (const auto& [first, count] : ranges) {
    SCOPED_TRACE("rows " + std::to_string(first) + " + " + std::to_string(count));
    const auto n = static_cast<std::size_t>(count) * 4;
    const NDArray same = file.read_rows("/cells", first, count);
    ASSERT_EQ(same.shape(), (Shape{count, 4}));
    EXPECT_EQ(std::memcmp(same.data(), values.data() + first * 4, n * 4), 0);
    const NDArray widened = file.read_rows("/cells", first, count, DType::int64);  // exact: our path
    EXPECT_EQ(std::memcmp(widened.data(), as_int64.data() + first * 4, n * 8), 0);
    const NDArray narrowed = file.read_rows("/cells", first, count, DType::int16);  // HDF5 converts
    EXPECT_EQ(std::memcmp(narrowed.data(), as_int16.data() + first * 4, n * 2), 0);
  }
  const auto floats = wide.values<float>();
  const std::vector<double> as_double(floats.begin(), floats.end());
  EXPECT_EQ(std::memcmp(file.read("/f", DType::float64).data(), as_double.data(), as_double.size() * 8), 0);
  EXPECT_EQ(std::memcmp(file.read("/cells", DType::int64).data(), as_int64.data(), as_int64.size() * 8), 0);
}

TEST(Hdf5Deflate, BytesAndArraysDoNotDependOnTheThreadCount) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::int64_t per_chunk = chunk_rows(DType::float64, 3);
  const NDArray array = pattern(DType::float64, {9 * per_chunk + 17, 3});
  std::vector<std::vector<std::vector<std::uint8_t>>> chunks;
  std::vector<NDArray> reads;
  for (unsigned threads : {1u, 2u, 5u}) {
    ThreadCount scope(threads);
    const std::string path = dir.file("threads" + std::to_string(threads) + ".h5");
    {
      hdf5::File file = hdf5::File::create(path, "test");
      file.write("/points", array, {.gzip_level = 4});
      file.commit();
    }
    hdf5::File file = hdf5::File::open(path, "test");
    std::vector<std::vector<std::uint8_t>> stored;
    for (std::int64_t row = 0; row < array.rows(); row += per_chunk) stored.push_back(file.stored_chunk("/points", {row, 0}));
    chunks.push_back(std::move(stored));
    reads.push_back(file.read("/points"));
    EXPECT_TRUE(same_bits(reads.back(), array));
    EXPECT_TRUE(same_bits(file.read_rows("/points", per_chunk / 2, 4 * per_chunk), file.read_rows("/points", per_chunk / 2, 4 * per_chunk)));
  }
  EXPECT_EQ(chunks[0], chunks[1]);
  EXPECT_EQ(chunks[0], chunks[2]);
}

TEST(Hdf5Deflate, CorruptChunkIsAReadErrorNamingTheDataset) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("corrupt.h5");
  const std::int64_t per_chunk = chunk_rows(DType::int64, 4);
  const NDArray array = pattern(DType::int64, {3 * per_chunk, 4});
  std::vector<std::uint8_t> second;
  {
    hdf5::File file = hdf5::File::create(path, "test");
    file.write("/mesh/cells", array, {.gzip_level = 4});
    file.commit();
  }
  second = hdf5::File::open(path, "test").stored_chunk("/mesh/cells", {per_chunk, 0});
  ASSERT_GT(second.size(), 64u);
  std::string bytes = read_file(path);
  const std::size_t at = bytes.find(std::string(second.begin(), second.end()));
  ASSERT_NE(at, std::string::npos);
  for (std::size_t i = 16; i < 48; ++i) bytes[at + i] = static_cast<char>(~bytes[at + i]);
  write_file(path, bytes);
  for (unsigned threads : {1u, 4u}) {
    ThreadCount scope(threads);
    hdf5::File file = hdf5::File::open(path, "test");
    const ReadError error = expect_read_error([&] { file.read("/mesh/cells"); });
    EXPECT_NE(error.reason().find("/mesh/cells"), std::string::npos) << error.reason();
    EXPECT_NE(error.reason().find("chunk at (" + std::to_string(per_chunk) + ", 0)"), std::string::npos) << error.reason();
    EXPECT_NE(std::string(error.what()).find("corrupt.h5"), std::string::npos);
    // Rows in the intact first chunk still read.
    const NDArray rows = file.read_rows("/mesh/cells", 0, per_chunk);
    EXPECT_EQ(std::memcmp(rows.data(), array.data(), rows.nbytes()), 0);
    expect_read_error([&] { file.read_rows("/mesh/cells", per_chunk - 1, 2); });
  }
}

TEST(Hdf5Deflate, StackedPiecesCompressLikeOneArray) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("stacked.h5");
  const std::int64_t per_chunk = chunk_rows(DType::int64, 4);
  const NDArray a = pattern(DType::int64, {per_chunk + 3, 4}, 1), b = pattern(DType::int64, {per_chunk, 4}, 2);
  {
    hdf5::File file = hdf5::File::create(path, "test");
    file.write_stacked("/s", {a, b}, {.gzip_level = 4});
    file.commit();
  }
  const NDArray back = hdf5::File::open(path, "test").read("/s");
  ASSERT_EQ(back.shape(), (Shape{2 * per_chunk + 3, 4}));
  EXPECT_EQ(std::memcmp(back.data(), a.data(), a.nbytes()), 0);
  EXPECT_EQ(std::memcmp(static_cast<const char*>(back.data()) + a.nbytes(), b.data(), b.nbytes()), 0);
}

TEST(Hdf5Deflate, FastCodecRoundTrips) {
  if (!io::zlib_fast_available()) GTEST_SKIP() << "built without zlib or libdeflate";
  std::vector<std::uint8_t> data(100000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>((i * 31) % 251 / 7);
  for (int level : {0, 1, 4, 9}) {
    std::vector<std::uint8_t> compressed;
    io::zlib_compress_fast(data.data(), data.size(), level, compressed);
    std::vector<std::uint8_t> back(data.size());
    EXPECT_TRUE(io::zlib_decompress(compressed.data(), compressed.size(), back.data(), back.size()));  // zlib reads it
    EXPECT_EQ(back, data);
    std::fill(back.begin(), back.end(), 0);
    EXPECT_TRUE(io::zlib_decompress_fast(compressed.data(), compressed.size(), back.data(), back.size()));
    EXPECT_EQ(back, data);
    EXPECT_FALSE(io::zlib_decompress_fast(compressed.data(), compressed.size(), back.data(), back.size() - 1));
    back.resize(data.size() + 1);
    EXPECT_FALSE(io::zlib_decompress_fast(compressed.data(), compressed.size(), back.data(), back.size()));
    compressed[compressed.size() / 2] ^= 0x5a;
    compressed[compressed.size() / 2 + 1] ^= 0xa5;
    back.resize(data.size());
    EXPECT_FALSE(io::zlib_decompress_fast(compressed.data(), compressed.size(), back.data(), back.size()) && back == data);
  }
}

// The inflater (ISA-L, libdeflate or zlib: zlib_inflate_library) accepts exactly one complete
// zlib stream of the expected size, whoever compressed it, and checks its Adler-32.
TEST(Hdf5Deflate, FastInflateChecksTheStreamWhoeverWroteIt) {
  if (!io::zlib_available()) GTEST_SKIP() << "built without zlib";
  EXPECT_FALSE(io::zlib_inflate_library().empty());
  std::vector<std::uint8_t> data(300000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>((i * 7919) % 257 / (1 + i % 5));
  for (int level : {0, 1, 6, 9}) {
    SCOPED_TRACE("zlib level " + std::to_string(level));
    std::vector<std::uint8_t> compressed;
    io::zlib_compress_append(data.data(), data.size(), level, compressed);  // zlib's compress2
    std::vector<std::uint8_t> back(data.size());
    ASSERT_TRUE(io::zlib_decompress_fast(compressed.data(), compressed.size(), back.data(), back.size()));
    EXPECT_EQ(back, data);
    // A wrong Adler-32 (the stream's last four bytes).
    std::vector<std::uint8_t> bad_checksum = compressed;
    bad_checksum.back() ^= 0x01;
    EXPECT_FALSE(io::zlib_decompress_fast(bad_checksum.data(), bad_checksum.size(), back.data(), back.size()));
    // Cut short: the checksum or the data missing.
    EXPECT_FALSE(io::zlib_decompress_fast(compressed.data(), compressed.size() - 2, back.data(), back.size()));
    EXPECT_FALSE(io::zlib_decompress_fast(compressed.data(), compressed.size() / 2, back.data(), back.size()));
    // A header that is not zlib's (a gzip member), and one asking for a preset dictionary.
    std::vector<std::uint8_t> not_zlib = compressed;
    not_zlib[0] = 0x1f;
    not_zlib[1] = 0x8b;
    EXPECT_FALSE(io::zlib_decompress_fast(not_zlib.data(), not_zlib.size(), back.data(), back.size()));
    std::vector<std::uint8_t> with_dictionary = compressed;
    with_dictionary[1] = static_cast<std::uint8_t>((with_dictionary[1] | 0x20) & 0xe0);
    with_dictionary[1] = static_cast<std::uint8_t>(with_dictionary[1] + (31 - ((with_dictionary[0] << 8) | with_dictionary[1]) % 31) % 31);
    EXPECT_FALSE(io::zlib_decompress_fast(with_dictionary.data(), with_dictionary.size(), back.data(), back.size()));
  }
  // An empty payload is a valid stream of nothing.
  std::vector<std::uint8_t> empty;
  io::zlib_compress_append(nullptr, 0, 6, empty);
  std::uint8_t sink = 0;
  EXPECT_TRUE(io::zlib_decompress_fast(empty.data(), empty.size(), &sink, 0));
  EXPECT_FALSE(io::zlib_decompress_fast(empty.data(), empty.size(), &sink, 1));
}
