#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/base64.hpp"
#include "io/text_scanner.hpp"
#include "io/zlib_codec.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

namespace io = meshioplusplus::io;
namespace fs = std::filesystem;

using namespace meshioplusplus::testing_support;

namespace {
}  // namespace

TEST(Base64, RoundTripsEveryLength) {
  std::mt19937 random(7);
  for (std::size_t size = 0; size < 70; ++size) {
    std::vector<std::uint8_t> data(size);
    for (auto& byte : data) byte = static_cast<std::uint8_t>(random());
    std::string text;
    io::base64_encode_append(data.data(), data.size(), text);
    EXPECT_EQ(text.size(), io::base64_encoded_size(size));
    std::vector<std::uint8_t> decoded(io::base64_decoded_capacity(text.size()));
    auto count = io::base64_decode(text, decoded.data());
    ASSERT_TRUE(count.has_value());
    decoded.resize(*count);
    EXPECT_EQ(decoded, data);
  }
}

TEST(Base64, ConcatenatedStreamsAndWhitespace) {
  std::string text;
  io::base64_encode_append("ab", 2, text);  // padded
  text += "\n  ";
  io::base64_encode_append("cde", 3, text);
  std::vector<std::uint8_t> decoded(io::base64_decoded_capacity(text.size()));
  auto count = io::base64_decode(text, decoded.data());
  ASSERT_TRUE(count.has_value());
  EXPECT_EQ(std::string(decoded.begin(), decoded.begin() + *count), "abcde");
  std::uint8_t prefix[2];
  EXPECT_EQ(io::base64_decode_prefix(text, prefix, 2), std::optional<std::size_t>(4));
}

TEST(Base64, ReportsTheFirstBadCharacter) {
  std::vector<std::uint8_t> out(32);
  std::size_t bad = 0;
  EXPECT_FALSE(io::base64_decode("QUJD$EFG", out.data(), &bad).has_value());
  EXPECT_EQ(bad, 4u);
  EXPECT_FALSE(io::base64_decode("QUJ", out.data(), &bad).has_value());  // truncated quantum
}

TEST(TextScanner, ParsesNumbersLocaleFreeAndBitExact) {
  const std::string path = "numbers.txt";
  const double values[] = {0.1, -1e-310, 1.7976931348623157e308, 3.0, 5e-324, -0.0};
  std::string text;
  for (double v : values) {
    char buffer[40];
    auto result = std::to_chars(buffer, buffer + 40, v);
    text.append(buffer, result.ptr);
    text += "  \n";
  }
  text += "+7 -3";
  io::TextScanner scanner(text, path, "test");
  for (double v : values) {
    const double parsed = scanner.next_number<double>();
    EXPECT_EQ(std::memcmp(&parsed, &v, sizeof v), 0) << v;
  }
  EXPECT_EQ(scanner.next_number<int>(), 7);
  EXPECT_EQ(scanner.next_number<std::int64_t>(), -3);
}

TEST(TextScanner, ErrorsNameFileOffsetAndLine) {
  const std::string text = "1 2\n3 x4\n";
  const std::string path = "bad.txt";
  io::TextScanner scanner(text, path, "test");
  scanner.next_number<int>();
  scanner.next_number<int>();
  scanner.next_number<int>();
  try {
    scanner.next_number<int>();
    FAIL() << "expected a ReadError";
  } catch (const meshioplusplus::ReadError& error) {
    EXPECT_EQ(error.path(), "bad.txt");
    EXPECT_EQ(error.byte_offset(), std::optional<std::uint64_t>(6));
    EXPECT_EQ(error.line(), std::optional<std::uint64_t>(2));
    EXPECT_NE(std::string(error.what()).find("bad.txt:2"), std::string::npos);
  }
}

TEST(AtomicFile, ReplacesOnlyOnCommit) {
  const fs::path target = scratch_dir() / "atomic.txt";
  { std::ofstream(target) << "old"; }
  {
    io::AtomicFile file(target.string(), "test");
    file.write("new contents");
    EXPECT_EQ(read_file(target), "old");  // nothing visible before commit
  }  // abandoned: destructor removes the temp file
  EXPECT_EQ(read_file(target), "old");
  for (const auto& entry : fs::directory_iterator(target.parent_path()))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos);
  {
    io::AtomicFile file(target.string(), "test");
    io::OutputBuffer out(file);
    out.text("value ");
    out.number(0.1);
    out.put(' ');
    out.number(std::int8_t{-5});
    out.flush();
    file.commit();
  }
  EXPECT_EQ(read_file(target), "value 0.1 -5");
  fs::remove_all(target.parent_path());
}

TEST(AtomicFile, UnwritableFolderIsAWriteError) {
  EXPECT_THROW(io::AtomicFile("/nonexistent-folder/x.vtu", "test"), meshioplusplus::WriteError);
}

TEST(Zlib, RoundTripAndCorruption) {
  if (!io::zlib_available()) GTEST_SKIP() << "built without zlib";
  std::string data(10000, 'a');
  for (std::size_t i = 0; i < data.size(); i += 7) data[i] = static_cast<char>('a' + i % 13);
  std::vector<std::uint8_t> packed;
  io::zlib_compress_append(data.data(), data.size(), 6, packed);
  std::string unpacked(data.size(), '\0');
  EXPECT_TRUE(io::zlib_decompress(packed.data(), packed.size(), unpacked.data(), unpacked.size()));
  EXPECT_EQ(unpacked, data);
  packed[packed.size() / 2] ^= 0xFF;
  EXPECT_FALSE(io::zlib_decompress(packed.data(), packed.size(), unpacked.data(), unpacked.size()));
}
