// PCD reader and writer, and the LZF codec under binary_compressed: PCL's own test clouds
// (ascii .5/0.7, binary, binary_compressed, organised, COUNT > 1, packed colours), round
// trips in all three encodings bit for bit, and hostile headers and compressed blocks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "formats/pcd/pcd.hpp"
#include "io/codecs/lzf.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "pcd" / name).string(); }

double sum_of(const NDArray& array) {
  double sum = 0;
  visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    for (T v : array.values<T>())
      if (!std::isnan(static_cast<double>(v))) sum += static_cast<double>(v);
  });
  return sum;
}

void expect_same_mesh(const Mesh& a, const Mesh& b) {
  EXPECT_TRUE(same_bits(a.points, b.points));
  ASSERT_EQ(a.point_data.size(), b.point_data.size());
  for (const auto& [name, array] : a.point_data) {
    const NDArray* other = b.point_data.find(name);
    ASSERT_NE(other, nullptr) << name;
    EXPECT_TRUE(same_bits(array, *other)) << name;
  }
  ASSERT_EQ(a.field_data.size(), b.field_data.size());
  for (const auto& [name, array] : a.field_data) {
    const NDArray* other = b.field_data.find(name);
    ASSERT_NE(other, nullptr) << name;
    EXPECT_TRUE(same_bits(array, *other)) << name;
  }
  ASSERT_EQ(b.cells.size(), 1u);
  EXPECT_EQ(b.cells[0].type, "vertex");
  EXPECT_EQ(b.cells[0].connectivity.rows(), b.num_points());
}

const char* const kAsciiHeader =
    "# .PCD v0.7\nVERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 2\nHEIGHT 1\nPOINTS 2\nDATA ascii\n";

std::string binary_header(const std::string& data) {
  return "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 2\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 2\nDATA " +
         data + "\n";
}

}  // namespace

TEST(PcdRealFiles, CountsAndFields) {
  const Mesh octants = pcd::read(data_file("octants.pcd"));
  EXPECT_EQ(octants.num_points(), 8);
  EXPECT_EQ(octants.points.dtype(), DType::float32);
  EXPECT_TRUE(octants.point_data.empty());

  const Mesh bunny = pcd::read(data_file("bunny.pcd"));  // VERSION .5, ascii
  EXPECT_EQ(bunny.num_points(), 397);

  const Mesh bun0 = pcd::read(data_file("bun0.pcd"));
  EXPECT_EQ(bun0.num_points(), 397);
  for (const char* name : {"normal_x", "normal_y", "normal_z", "curvature"}) {
    ASSERT_NE(bun0.point_data.find(name), nullptr) << name;
    EXPECT_EQ(bun0.point_data.find(name)->dtype(), DType::float32);
  }

  const Mesh colored = pcd::read(data_file("colored_cloud.pcd"));  // binary, WIDTH 1 HEIGHT 1000
  EXPECT_EQ(colored.num_points(), 1000);
  ASSERT_NE(colored.point_data.find("rgb"), nullptr);
  EXPECT_EQ(colored.point_data.find("rgb")->dtype(), DType::uint32);
  ASSERT_NE(colored.field_data.find("pcd:height"), nullptr);
  EXPECT_EQ(int_values(*colored.field_data.find("pcd:height")), std::vector<std::int64_t>{1000});
  EXPECT_EQ(int_values(*colored.field_data.find("pcd:width")), std::vector<std::int64_t>{1});

  const Mesh canny = pcd::read(data_file("canny.pcd"));  // binary_compressed, organised 256 x 256
  EXPECT_EQ(canny.num_points(), 65536);
  EXPECT_EQ(int_values(*canny.field_data.find("pcd:width")), std::vector<std::int64_t>{256});
  EXPECT_EQ(canny.point_data.find("intensity")->rows(), 65536);

  const Mesh milk = pcd::read(data_file("milk_color.pcd"));
  EXPECT_EQ(milk.num_points(), 13704);
  EXPECT_EQ(milk.point_data.find("rgba")->dtype(), DType::uint32);

  const Mesh brisk = pcd::read(data_file("brisk_descriptors_gt.pcd"));  // COUNT 64, no x y z
  EXPECT_EQ(brisk.num_points(), 1534);
  const NDArray* descriptor = brisk.point_data.find("brisk_descriptor512");
  ASSERT_NE(descriptor, nullptr);
  EXPECT_EQ(descriptor->shape(), (Shape{1534, 64}));
  EXPECT_EQ(descriptor->dtype(), DType::uint8);
  EXPECT_EQ(point_sum(brisk), 0.0);

  const Mesh logo = pcd::read(data_file("pcl_logo.pcd"));  // F 4 rgb, VIEWPOINT 0 0 -2 0 1 0 0
  EXPECT_EQ(logo.num_points(), 12909);
  EXPECT_EQ(logo.point_data.find("rgb")->dtype(), DType::float32);
  const NDArray* viewpoint = logo.field_data.find("pcd:viewpoint");
  ASSERT_NE(viewpoint, nullptr);
  EXPECT_EQ(viewpoint->values<double>()[2], -2.0);

  const Mesh keypoints = pcd::read(data_file("office1_keypoints.pcd"));  // binary
  EXPECT_EQ(keypoints.num_points(), 1318);
  EXPECT_GT(std::abs(sum_of(*keypoints.point_data.find("intensity"))), 0.0);
}

TEST(PcdRoundTrip, EveryFileEveryEncodingBitExact) {
  for (const char* name : {"octants.pcd", "bunny.pcd", "bun0.pcd", "colored_cloud.pcd", "office1_keypoints.pcd", "canny.pcd",
                           "milk_color.pcd", "brisk_descriptors_gt.pcd", "pcl_logo.pcd"}) {
    const Mesh original = pcd::read(data_file(name));
    for (const char* data : {"ascii", "binary", "binary_compressed"}) {
      SCOPED_TRACE(std::string(name) + " " + data);
      WriteOptions options;
      options.set("data", data);
      const std::string path = scratch(std::string(data) + "_" + name).string();
      pcd::write(path, original, options);
      expect_same_mesh(original, pcd::read(path));
    }
  }
}

TEST(PcdRoundTrip, Float64IntegersAndNaN) {
  Mesh mesh;
  mesh.points = array_of<double>({3, 3}, {0.1, 0.2, 0.3, NAN, NAN, NAN, -1e300, 5e-324, 7});
  mesh.point_data.set("label", array_of<std::int16_t>({3}, {-3, 0, 32767}));
  mesh.point_data.set("histogram", array_of<std::uint64_t>({3, 2}, {1, 2, 3, 4, UINT64_MAX, 0}));
  mesh.field_data.set("pcd:width", array_of<std::int64_t>({1}, {3}));
  mesh.field_data.set("pcd:height", array_of<std::int64_t>({1}, {1}));
  for (const char* data : {"ascii", "binary", "binary_compressed"}) {
    SCOPED_TRACE(data);
    WriteOptions options;
    options.set("data", data);
    const std::string path = scratch(std::string("f64_") + data + ".pcd").string();
    pcd::write(path, mesh, options);
    const Mesh back = pcd::read(path);
    EXPECT_TRUE(same_bits(mesh.points, back.points));
    EXPECT_TRUE(same_bits(*mesh.point_data.find("label"), *back.point_data.find("label")));
    EXPECT_TRUE(same_bits(*mesh.point_data.find("histogram"), *back.point_data.find("histogram")));
    EXPECT_EQ(back.field_data.find("pcd:width"), nullptr);  // HEIGHT 1: not organised
  }
}

TEST(PcdRoundTrip, BadOptionIsWriteError) {
  Mesh mesh;
  mesh.points = array_of<float>({1, 3}, {1, 2, 3});
  WriteOptions options;
  options.set("data", "zip");
  EXPECT_THROW(pcd::write(scratch("bad.pcd").string(), mesh, options), WriteError);
  Mesh spaced = mesh;
  spaced.point_data.set("a b", array_of<float>({1}, {1}));
  EXPECT_THROW(pcd::write(scratch("bad2.pcd").string(), spaced, {}), WriteError);
}

// A cloud large enough for every parallel path (ascii parse and print, LZF blocks, plane
// scatter): files and meshes must be the same bytes at 1 and 2 threads, and errors name the
// same line. Packed colours with NaN bit patterns, COUNT 3, float64 x beside float32 y/z.
TEST(PcdRoundTrip, LargeCloudSameAtOneAndTwoThreads) {
  constexpr std::int64_t n = 300000;
  std::mt19937 random(34);
  std::uniform_real_distribution<float> coordinate(-100, 100);
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float32, {n, 3});
  NDArray rgb = NDArray::allocate(DType::float32, {n});
  NDArray normals = NDArray::allocate(DType::float32, {n, 3});
  NDArray label = NDArray::allocate(DType::uint8, {n});
  for (std::int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) mesh.points.data_as<float>()[3 * i + k] = i % 1000 < 300 ? static_cast<float>(i % 7) : coordinate(random);
    for (int k = 0; k < 3; ++k) normals.data_as<float>()[3 * i + k] = coordinate(random) / 100;
    const std::uint32_t bits = i % 5 == 0 ? 0xFFC00000u | static_cast<std::uint32_t>(i) : static_cast<std::uint32_t>(random()) & 0xFFFFFF;
    std::memcpy(rgb.data_as<float>() + i, &bits, 4);
    label.data_as<std::uint8_t>()[i] = static_cast<std::uint8_t>(i);
  }
  mesh.point_data.set("rgb", rgb);
  mesh.point_data.set("normal", normals);
  mesh.point_data.set("label", label);
  for (const char* data : {"ascii", "binary", "binary_compressed"}) {
    SCOPED_TRACE(data);
    WriteOptions options;
    options.set("data", data);
    std::string files[2];
    Mesh reads[2];
    for (unsigned threads : {1u, 2u}) {
      set_thread_count(threads);
      const std::string path = scratch(std::string("large_") + data + std::to_string(threads) + ".pcd").string();
      pcd::write(path, mesh, options);
      files[threads - 1] = read_file(path);
      reads[threads - 1] = pcd::read(scratch(std::string("large_") + data + "1.pcd").string());
    }
    set_thread_count(0);
    EXPECT_TRUE(files[0] == files[1]);  // not EXPECT_EQ: megabytes in a failure message
    expect_same_mesh(mesh, reads[0]);
    expect_same_mesh(mesh, reads[1]);
  }
  // The ascii file with a bad value deep inside: the same error on one core and on two.
  std::string text = read_file(scratch("large_ascii1.pcd"));
  const std::size_t bad = text.find('\n', text.size() * 2 / 3) + 1;
  text.replace(bad, 1, "x");
  const std::string path = write_scratch("large_bad.pcd", text);
  std::string messages[2];
  for (unsigned threads : {1u, 2u}) {
    set_thread_count(threads);
    const ReadError error = expect_read_error([&] { pcd::read(path); });
    messages[threads - 1] = error.what();
    EXPECT_EQ(error.byte_offset(), bad);
  }
  set_thread_count(0);
  EXPECT_EQ(messages[0], messages[1]);
}

// Records of mixed widths with padding, in all three encodings, at 1 and 2 threads: float64 x
// beside float32 y/z (points widened), a padding field between z and a COUNT 3 normal, a byte
// label. Binary reads copy runs of record bytes; binary_compressed (planes without padding,
// placed on all cores) must give the same bits, and a cut stream the same error on one thread
// and two.
TEST(PcdRoundTrip, MixedWidthRecordsWithPaddingSameAtOneAndTwoThreads) {
  constexpr std::int64_t n = 200000;
  std::mt19937 random(35);
  std::uniform_real_distribution<float> value(-50, 50);
  std::vector<double> x(n);
  std::vector<float> y(n), z(n), normal(3 * n);
  std::vector<std::uint8_t> label(n);
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<double>(value(random)) / 3;
    y[i] = value(random), z[i] = value(random);
    for (int k = 0; k < 3; ++k) normal[3 * i + k] = value(random) / 50;
    label[i] = static_cast<std::uint8_t>(i * 7);
  }
  const std::string header = "VERSION 0.7\nFIELDS x y z _ normal label\nSIZE 8 4 4 1 4 1\nTYPE F F F U F U\nCOUNT 1 1 1 3 3 1\nWIDTH " +
                             std::to_string(n) + "\nHEIGHT 1\nPOINTS " + std::to_string(n) + "\nDATA ";
  std::string records;
  std::vector<std::uint8_t> planes;
  const auto append = [](auto& out, const void* from, std::size_t size) {
    const auto* bytes = static_cast<const char*>(from);
    out.insert(out.end(), bytes, bytes + size);
  };
  for (std::int64_t i = 0; i < n; ++i) {
    append(records, &x[i], 8), append(records, &y[i], 4), append(records, &z[i], 4);
    records.append("\xAB\xCD\xEF", 3);  // padding: never read
    append(records, &normal[3 * i], 12), append(records, &label[i], 1);
  }
  append(planes, x.data(), 8 * n), append(planes, y.data(), 4 * n), append(planes, z.data(), 4 * n);
  append(planes, normal.data(), 12 * n), append(planes, label.data(), n);
  std::vector<std::uint8_t> packed;
  io::lzf_compress(planes.data(), planes.size(), packed);
  const auto sizes = [](std::uint32_t compressed, std::uint32_t decompressed) {
    std::string out(8, '\0');
    std::memcpy(out.data(), &compressed, 4), std::memcpy(out.data() + 4, &decompressed, 4);
    return out;
  };
  const std::string binary = write_scratch("mixed_binary.pcd", header + "binary\n" + records);
  const std::string compressed = write_scratch(
      "mixed_compressed.pcd", header + "binary_compressed\n" + sizes(static_cast<std::uint32_t>(packed.size()), static_cast<std::uint32_t>(planes.size())) +
                                  std::string(packed.begin(), packed.end()));
  const std::string cut = write_scratch(
      "mixed_cut.pcd", header + "binary_compressed\n" + sizes(static_cast<std::uint32_t>(packed.size() / 2), static_cast<std::uint32_t>(planes.size())) +
                           std::string(packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(packed.size() / 2)));
  std::string cut_messages[2];
  for (unsigned threads : {1u, 2u}) {
    SCOPED_TRACE(threads);
    set_thread_count(threads);
    for (const std::string& path : {binary, compressed}) {
      SCOPED_TRACE(path);
      const Mesh mesh = pcd::read(path);
      ASSERT_EQ(mesh.points.dtype(), DType::float64);
      ASSERT_EQ(mesh.num_points(), n);
      const double* points = mesh.points.data_as<double>();
      bool same = true;
      for (std::int64_t i = 0; i < n && same; ++i)
        same = points[3 * i] == x[i] && points[3 * i + 1] == static_cast<double>(y[i]) && points[3 * i + 2] == static_cast<double>(z[i]);
      EXPECT_TRUE(same);
      ASSERT_EQ(mesh.point_data.size(), 2u);
      const NDArray* normals = mesh.point_data.find("normal");
      const NDArray* labels = mesh.point_data.find("label");
      ASSERT_NE(normals, nullptr);
      ASSERT_NE(labels, nullptr);
      EXPECT_EQ(normals->shape(), (Shape{n, 3}));
      EXPECT_EQ(std::memcmp(normals->data(), normal.data(), normal.size() * 4), 0);
      EXPECT_EQ(std::memcmp(labels->data(), label.data(), label.size()), 0);
      EXPECT_EQ(mesh.cells[0].connectivity.data_as<std::int64_t>()[n - 1], n - 1);
    }
    cut_messages[threads - 1] = expect_read_error([&] { pcd::read(cut); }).what();
  }
  set_thread_count(0);
  EXPECT_EQ(cut_messages[0], cut_messages[1]);
}

// Noise, then repetitions at distances of 1, 7, 100 and 5000: the encoder's skipping over
// noise must find the repetitions again, and the decoder's wide copies must give them back.
TEST(Lzf, NoiseThenRepetitionsAtEveryDistance) {
  std::mt19937 random(9);
  std::vector<std::uint8_t> data;
  for (std::size_t distance : {1u, 7u, 100u, 5000u}) {
    for (int i = 0; i < 200000; ++i) data.push_back(static_cast<std::uint8_t>(random()));
    std::vector<std::uint8_t> unit(distance);
    for (auto& byte : unit) byte = static_cast<std::uint8_t>(random());
    for (int copy = 0; copy < static_cast<int>(400000 / distance) + 2; ++copy) data.insert(data.end(), unit.begin(), unit.end());
  }
  for (unsigned threads : {1u, 2u}) {
    set_thread_count(threads);
    std::vector<std::uint8_t> packed;
    io::lzf_compress(data.data(), data.size(), packed);
    EXPECT_LT(packed.size(), data.size() * 6 / 10);  // ~800 kB of noise in ~2.4 MB
    std::vector<std::uint8_t> unpacked(data.size());
    EXPECT_EQ(io::lzf_decompress(packed.data(), packed.size(), unpacked.data(), unpacked.size()), data.size());
    EXPECT_EQ(unpacked, data);
  }
  set_thread_count(0);
}

TEST(Lzf, RoundTripsAndRejectsCorruptStreams) {
  std::mt19937 random(7);
  for (std::size_t size : {0u, 1u, 2u, 3u, 31u, 32u, 33u, 1000u, 100000u, 6u << 20}) {  // 6 MiB: blocks on every core
    for (int kind = 0; kind < 3; ++kind) {
      std::vector<std::uint8_t> data(size);
      for (std::size_t i = 0; i < size; ++i)
        data[i] = kind == 0 ? static_cast<std::uint8_t>(random()) : kind == 1 ? static_cast<std::uint8_t>(i % 7) : 42;
      std::vector<std::uint8_t> packed;
      io::lzf_compress(data.data(), data.size(), packed);
      std::vector<std::uint8_t> unpacked(size + 1);
      EXPECT_EQ(io::lzf_decompress(packed.data(), packed.size(), unpacked.data(), unpacked.size()), size);
      EXPECT_TRUE(std::equal(data.begin(), data.end(), unpacked.begin()));
      if (kind == 2 && size >= 1000) EXPECT_LT(packed.size(), size / 20);
    }
  }
  std::uint8_t out[64];
  const std::uint8_t before_start[] = {0x00, 'a', 0x20, 0x05};  // one literal, then a reference 6 back
  EXPECT_EQ(io::lzf_decompress(before_start, sizeof before_start, out, sizeof out), SIZE_MAX);
  const std::uint8_t cut_literal[] = {0x05, 'a', 'b'};
  EXPECT_EQ(io::lzf_decompress(cut_literal, sizeof cut_literal, out, sizeof out), SIZE_MAX);
  const std::uint8_t cut_reference[] = {0x00, 'a', 0xE0};
  EXPECT_EQ(io::lzf_decompress(cut_reference, sizeof cut_reference, out, sizeof out), SIZE_MAX);
  const std::uint8_t too_long[] = {0x00, 'a', 0xE0, 0xFF, 0x00};  // 264 bytes into 64
  EXPECT_EQ(io::lzf_decompress(too_long, sizeof too_long, out, sizeof out), SIZE_MAX);
}

// Integer fields at their types' limits read as from_chars reads them; one past is an error.
TEST(PcdHostile, AsciiIntegersAtTheirLimits) {
  const std::string header = "FIELDS x a b c d\nSIZE 4 1 1 8 8\nTYPE F I U I U\nWIDTH 2\nPOINTS 2\nDATA ascii\n";
  const Mesh mesh = pcd::read(write_scratch("limits.pcd", header + "1 -128 255 -9223372036854775808 18446744073709551615\n"
                                                                   "2 +127 007 9223372036854775807 0\n"));
  EXPECT_TRUE(same_bits(*mesh.point_data.find("a"), array_of<std::int8_t>({2}, {-128, 127})));
  EXPECT_TRUE(same_bits(*mesh.point_data.find("b"), array_of<std::uint8_t>({2}, {255, 7})));
  EXPECT_TRUE(same_bits(*mesh.point_data.find("c"), array_of<std::int64_t>({2}, {INT64_MIN, INT64_MAX})));
  EXPECT_TRUE(same_bits(*mesh.point_data.find("d"), array_of<std::uint64_t>({2}, {UINT64_MAX, 0})));
  for (const char* bad : {"1 -129 0 0 0\n", "1 0 256 0 0\n", "1 0 -1 0 0\n", "1 0 0 9223372036854775808 0\n", "1 0 0 0 18446744073709551616\n", "1 0 0 0 1x\n"}) {
    SCOPED_TRACE(bad);
    const ReadError error = expect_read_error([&] { pcd::read(write_scratch("bad_limits.pcd", header + "1 0 0 0 0\n" + bad)); });
    EXPECT_EQ(error.line(), 8u);
  }
}

TEST(PcdHostile, HeaderAndDataErrors) {
  const auto fails = [](const std::string& name, const std::string& text, const std::string& words) {
    const std::string path = write_scratch(name, text);
    const ReadError error = expect_read_error([&] { pcd::read(path); });
    EXPECT_EQ(error.path(), path);
    EXPECT_EQ(error.format(), "pcd");
    EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
  };
  fails("size.pcd", "VERSION 0.7\nFIELDS x y z\nSIZE 4 4\nTYPE F F F\nWIDTH 1\nPOINTS 1\nDATA ascii\n1 2 3\n", "SIZE lists 2");
  fails("count.pcd", "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1\nWIDTH 1\nPOINTS 1\nDATA ascii\n1 2 3\n", "COUNT lists");
  fails("type.pcd", "FIELDS x\nSIZE 2\nTYPE F\nWIDTH 1\nPOINTS 1\nDATA ascii\n1\n", "TYPE F with SIZE 2");
  fails("points.pcd", "FIELDS x\nSIZE 4\nTYPE F\nWIDTH 3\nHEIGHT 2\nPOINTS 5\nDATA ascii\n1\n", "not WIDTH * HEIGHT");
  fails("nodata.pcd", "FIELDS x\nSIZE 4\nTYPE F\nWIDTH 1\n", "without a DATA line");
  fails("keyword.pcd", "FIELDS x\nSIZES 4\n", "unknown header keyword");
  fails("encoding.pcd", "FIELDS x\nSIZE 4\nTYPE F\nWIDTH 1\nDATA gzip\n", "unknown DATA encoding");
  fails("short_ascii.pcd", std::string(kAsciiHeader) + "1 2 3\n4 5      \n", "fewer values");
  fails("bad_ascii.pcd", std::string(kAsciiHeader) + "1 2 3\n4 five 6\n", "invalid or surplus value 'five'");
  fails("missing_ascii.pcd", std::string(kAsciiHeader) + "1 2 3\n\n\n\n\n\n\n", "ends after 1 of 2");
  fails("claim_ascii.pcd", std::string(kAsciiHeader) + "1 2 3\n", "which need at least");
  fails("huge.pcd", "FIELDS x\nSIZE 4\nTYPE F\nWIDTH 4000000000\nHEIGHT 4000000000\nDATA binary\n", "");
  // binary: 2 points of 12 bytes need 24
  fails("binary_short.pcd", binary_header("binary") + std::string(20, '\0'), "points");
  // binary_compressed: sizes cut off, a block longer than the file, sizes unlike the fields,
  // a stream that references before its start, and one that decodes short.
  fails("compressed_cut.pcd", binary_header("binary_compressed") + "\x10\0", "sizes are cut off");
  const auto block = [](std::uint32_t compressed, std::uint32_t decompressed, const std::string& stream) {
    std::string bytes(8, '\0');
    std::memcpy(bytes.data(), &compressed, 4);
    std::memcpy(bytes.data() + 4, &decompressed, 4);
    return bytes + stream;
  };
  fails("compressed_long.pcd", binary_header("binary_compressed") + block(100, 24, "abc"), "claims 100 bytes");
  fails("compressed_sizes.pcd", binary_header("binary_compressed") + block(3, 12, std::string("\x02" "abc", 4)), "the fields need 24");
  fails("compressed_expansion.pcd", binary_header("binary_compressed") + block(0, 24, ""), "too short");
  fails("compressed_before_start.pcd", binary_header("binary_compressed") + block(6, 24, std::string("\x00" "a" "\xE0\x0F\x10" "b", 6)),
        "LZF stream is corrupt");
  fails("compressed_truncated.pcd", binary_header("binary_compressed") + block(3, 24, std::string("\x05" "ab", 3)), "LZF stream is corrupt");
}
