#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/output/atomic_file.hpp"
#include "io/codecs/base64.hpp"
#include "io/source/byte_order.hpp"
#include "io/cells/coordinate_welder.hpp"
#include "io/cells/id_map.hpp"
#include "core/parallel_ranges.hpp"
#include "io/source/parallel.hpp"
#include "io/text/significant_lines.hpp"
#include "io/text/text_scanner.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "io/codecs/zlib_codec.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"
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

TEST(Base64, PaddingRunsAcrossQuantaAreRejectedWithoutOverflow) {
  // Fuzz finding (vtp, sanitizer lane): '=' after a padded quantum counted on into the next
  // one, and the decoder shifted a 32-bit accumulator by 6 * 6 bits before rejecting it.
  std::vector<std::uint8_t> out(32);
  std::size_t bad = 0;
  EXPECT_FALSE(io::base64_decode("QQ======", out.data(), &bad).has_value());
  EXPECT_EQ(bad, 7u);
  EXPECT_FALSE(io::base64_decode("QQ==A===", out.data(), &bad).has_value());
  EXPECT_FALSE(io::base64_decode("====", out.data(), &bad).has_value());
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
  // The previous file was swapped out and deleted: nothing but the target is left.
  std::size_t entries = 0;
  for (const auto& entry : fs::directory_iterator(target.parent_path())) {
    ++entries;
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos);
  }
  EXPECT_EQ(entries, 1u);
  // A symbolic link in the way is replaced itself, as rename does; what it pointed to stays.
  const fs::path pointee = target.parent_path() / "pointee.txt";
  { std::ofstream(pointee) << "pointee"; }
  const fs::path link = target.parent_path() / "link.txt";
  fs::create_symlink(pointee, link);
  {
    io::AtomicFile file(link.string(), "test");
    file.write("through the link");
    file.commit();
  }
  EXPECT_FALSE(fs::is_symlink(link));
  EXPECT_EQ(read_file(link), "through the link");
  EXPECT_EQ(read_file(pointee), "pointee");
  fs::remove_all(target.parent_path());
}

// Writes of a MiB and more allocate their range first (io::reserve_file_range): the file holds
// exactly the bytes written, and no block past its end once committed.
TEST(AtomicFile, LargeWritesAllocateOnlyWhatTheyWrite) {
  ScratchDir dir;
  const std::string target = dir.file("large.bin");
  std::string large((3 << 20) + 7, 'a'), small(100, 'b'), last((2 << 20) + 5, 'c');
  for (std::size_t i = 0; i < large.size(); i += 4093) large[i] = static_cast<char>(i % 251);
  {
    io::AtomicFile file(target, "test");
    file.write(large);
    file.write(small);
    file.write(last);
    file.commit();
  }
  const std::string expected = large + small + last;
  EXPECT_TRUE(read_file(target) == expected);
  EXPECT_EQ(fs::file_size(target), expected.size());
  EXPECT_LE(allocated_bytes(target), allocation_allowed(static_cast<std::int64_t>(expected.size())));
}

// reserve_file_range allocates without changing the size, ignores small ranges, and any
// range or descriptor it cannot use.
TEST(ReserveFileRange, AllocatesBlocksButNotSize) {
  ScratchDir dir;
  const std::string path = dir.file("reserved.bin");
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  io::reserve_file_range(fd, 0, io::kReserveFromBytes - 1);
  EXPECT_EQ(allocated_bytes(path), 0);  // below the threshold: nothing
  io::reserve_file_range(-1, 0, 8 << 20);
  io::reserve_file_range(fd, std::numeric_limits<std::uint64_t>::max() - 10, 8 << 20);
  io::reserve_file_range(fd, 0, std::numeric_limits<std::uint64_t>::max());
  const std::int64_t before = allocated_bytes(path);
  io::reserve_file_range(fd, 1 << 20, 4 << 20);
  const std::int64_t after = allocated_bytes(path);
  EXPECT_EQ(fs::file_size(path), 0u);
  ::close(fd);
  // Where the filesystem allocates for fallocate itself (probed on a file beside it), the
  // reservation must have allocated the whole range; elsewhere it may do nothing.
  const std::string probe = dir.file("probe.bin");
  const int probe_fd = ::open(probe.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  ASSERT_GE(probe_fd, 0);
  const bool filesystem_allocates =
      ::fallocate(probe_fd, FALLOC_FL_KEEP_SIZE, 0, 4 << 20) == 0 && allocated_bytes(probe) >= (std::int64_t{4} << 20);
  ::close(probe_fd);
  if (filesystem_allocates) EXPECT_GE(after - before, std::int64_t{4} << 20);
  else EXPECT_EQ(after, before);
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

TEST(IdMap, ContiguousGappyAndScatteredIdsFindTheirPositions) {
  const std::vector<std::vector<std::int64_t>> cases = {
      {1, 2, 3, 4},                                     // arithmetic
      {10, 3, 7, 12, 4},                                // table
      {5, -4000000000000, 900000000000, 17},            // hash map
      {std::numeric_limits<std::int64_t>::max() - 1, std::numeric_limits<std::int64_t>::min()},
  };
  for (const auto& ids : cases) {
    io::IdMap map;
    ASSERT_FALSE(map.build(ids).has_value());
    for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(map.find(ids[i]), static_cast<std::int64_t>(i));
    EXPECT_EQ(map.find(6), -1);
    EXPECT_EQ(map.find(std::numeric_limits<std::int64_t>::max()), -1);
    EXPECT_EQ(map.find(std::numeric_limits<std::int64_t>::min() + 1), -1);
  }
}

TEST(IdMap, ReportsTheFirstRepeatedId) {
  for (const std::vector<std::int64_t>& ids : {std::vector<std::int64_t>{1, 2, 3, 2, 1}, {9, 4, 9}, {1, 1000000000000, 1}}) {
    io::IdMap map;
    const std::optional<std::size_t> repeat = map.build(ids);
    ASSERT_TRUE(repeat.has_value());
    EXPECT_NE(std::find(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(*repeat), ids[*repeat]),
              ids.begin() + static_cast<std::ptrdiff_t>(*repeat));
  }
}

TEST(SignificantLines, CommentsAnywhereOrAtLineStartAndLazyNames) {
  const std::string path = "lines.txt";
  const std::string text = "  # header\n\nvalue 1 # trailing\n\t#skipped\nname#with#hash\n";
  io::SignificantLines anywhere(text, path, "test", '#');
  EXPECT_EQ(anywhere.text(*anywhere.next()), "value 1");
  EXPECT_EQ(anywhere.text(*anywhere.next()), "name");
  EXPECT_FALSE(anywhere.next().has_value());

  io::SignificantLines at_start(text, path, "test", '#', io::CommentAt::line_start);
  EXPECT_EQ(at_start.text(*at_start.next()), "value 1 # trailing");
  EXPECT_EQ(at_start.text(*at_start.next()), "name#with#hash");
  bool described = false;
  try {
    at_start.require([&] {
      described = true;
      return std::string("point 7");
    });
    FAIL() << "no ReadError";
  } catch (const meshioplusplus::ReadError& error) {
    EXPECT_NE(std::string(error.what()).find("expected point 7"), std::string::npos) << error.what();
  }
  EXPECT_TRUE(described);
}

TEST(LabelIndex, AscendingRunsAndOutOfOrderLabelsFindTheirPositions) {
  io::LabelIndex ascending;
  std::int64_t position = 0;
  for (std::int64_t label : std::vector<std::int64_t>{1, 2, 3, 10, 11, 20, 1000000000000, 1000000000001})
    ASSERT_TRUE(ascending.insert(label, position++));
  EXPECT_EQ(ascending.find(1), 0);
  EXPECT_EQ(ascending.find(3), 2);
  EXPECT_EQ(ascending.find(11), 4);
  EXPECT_EQ(ascending.find(1000000000001), 7);
  for (std::int64_t missing : std::vector<std::int64_t>{0, 4, 9, 12, 21, -5}) EXPECT_EQ(ascending.find(missing), -1) << missing;
  EXPECT_FALSE(ascending.insert(3, 99));  // a repeat inside an earlier run
  EXPECT_EQ(ascending.find(3), 2);

  io::LabelIndex shuffled;
  const std::vector<std::int64_t> labels{5, 6, 7, 2, 9, 1, std::numeric_limits<std::int64_t>::min()};
  for (std::size_t i = 0; i < labels.size(); ++i) ASSERT_TRUE(shuffled.insert(labels[i], static_cast<std::int64_t>(i)));
  for (std::size_t i = 0; i < labels.size(); ++i) EXPECT_EQ(shuffled.find(labels[i]), static_cast<std::int64_t>(i));
  EXPECT_FALSE(shuffled.insert(6, 42));
  EXPECT_EQ(shuffled.find(3), -1);
}

// The short path for plain integers must agree with from_chars on range and errors.
TEST(TextScanner, IntegersAtTheLimitsOfEveryWidth) {
  const std::string path = "ints.txt";
  const auto read_one = [&](const std::string& text, auto zero) {
    io::TextScanner scanner(text, path, "test");
    return scanner.next_number<decltype(zero)>();
  };
  EXPECT_EQ(read_one("2147483647", std::int32_t{}), 2147483647);
  EXPECT_EQ(read_one("-2147483648", std::int32_t{}), -2147483647 - 1);
  EXPECT_THROW(read_one("2147483648", std::int32_t{}), meshioplusplus::ReadError);
  EXPECT_THROW(read_one("-1", std::uint32_t{}), meshioplusplus::ReadError);
  EXPECT_EQ(read_one("4294967295", std::uint32_t{}), 4294967295u);
  EXPECT_EQ(read_one("999999999999999999", std::int64_t{}), 999999999999999999);       // 18 digits: short path
  EXPECT_EQ(read_one("9223372036854775807", std::int64_t{}), 9223372036854775807);     // 19: from_chars
  EXPECT_THROW(read_one("9223372036854775808", std::int64_t{}), meshioplusplus::ReadError);
  EXPECT_EQ(read_one("18446744073709551615", std::uint64_t{}), 18446744073709551615u);
  EXPECT_EQ(read_one("-0", std::int64_t{}), 0);
  EXPECT_EQ(read_one("007", std::int16_t{}), 7);
  EXPECT_EQ(read_one("+12", std::int8_t{}), 12);
  EXPECT_THROW(read_one("128", std::int8_t{}), meshioplusplus::ReadError);
  EXPECT_THROW(read_one("12x", std::int64_t{}), meshioplusplus::ReadError);
  EXPECT_THROW(read_one("-", std::int64_t{}), meshioplusplus::ReadError);
  EXPECT_THROW(read_one("1.5", std::int64_t{}), meshioplusplus::ReadError);
}

TEST(ParseInt64, AgreesWithFromChars) {
  for (const std::string text : {"0", "-0", "7", "-7", "123456789012345678", "-123456789012345678", "1234567890123456789",
                                 "9223372036854775807", "9223372036854775808", "-9223372036854775808", "12a", "-", "",
                                 "+5", "00000000000000000000042", " 1", "1 2", "1.5", "-x"}) {
    std::int64_t ours = -99, theirs = -99;
    const auto a = io::parse_int64(text.data(), text.data() + text.size(), ours);
    const auto b = std::from_chars(text.data(), text.data() + text.size(), theirs);
    EXPECT_EQ(a.ec, b.ec) << text;
    EXPECT_EQ(a.ptr, b.ptr) << text;
    if (b.ec == std::errc{}) EXPECT_EQ(ours, theirs) << text;
  }
}

namespace {

// "header\n" then `records` lines "i 2i.5", as a writer lays them out.
std::string numbered_lines(std::int64_t records) {
  std::string text = "header\n";
  for (std::int64_t i = 0; i < records; ++i) text += std::to_string(i) + " " + std::to_string(2 * i) + ".5\n";
  return text + "trailer\n";
}

// Parses record `index` from its line as TextScanner would, refusing other layouts.
struct RecordParser {
  const std::string& text;
  const std::string& path;
  std::vector<double>& out;
  bool operator()(std::uint64_t index, std::size_t begin, std::size_t end) const {
    io::TextScanner scanner(text, begin, end, path, "test");
    scanner.skip_whitespace();
    if (scanner.at_end()) return false;
    out[2 * index] = static_cast<double>(scanner.next_number<std::int64_t>());
    scanner.skip_whitespace();
    if (scanner.at_end()) return false;
    out[2 * index + 1] = scanner.next_number<double>();
    scanner.skip_whitespace();
    return scanner.at_end();
  }
};

}  // namespace

TEST(ParseLinesInParallel, FillsEveryRecordAndFindsTheSectionEnd) {
  const std::int64_t records = 400000;  // ~6 MB: above the threshold
  const std::string text = numbered_lines(records);
  const std::string path = "lines.txt";
  std::vector<double> out(2 * records, -1);
  const std::optional<std::size_t> end = io::parse_lines_in_parallel(text, 7, records, RecordParser{text, path, out});
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(text.substr(*end), "trailer\n");
  for (std::int64_t i = 0; i < records; i += 997) {
    EXPECT_EQ(out[2 * i], static_cast<double>(i));
    EXPECT_EQ(out[2 * i + 1], 2.0 * i + 0.5);
  }
  EXPECT_EQ(out[2 * (records - 1)], static_cast<double>(records - 1));
}

TEST(ParseLinesInParallel, OtherLayoutsAndSmallSectionsAreLeftToTheSequentialParser) {
  const std::string path = "lines.txt";
  const std::int64_t records = 400000;
  std::vector<double> out(2 * records);
  std::string blank = numbered_lines(records);
  blank.insert(blank.find("\n300000 ") + 1, "\n");  // a blank line, and one record fewer before the end
  EXPECT_FALSE(io::parse_lines_in_parallel(blank, 7, records, RecordParser{blank, path, out}).has_value());
  std::string two_per_line = numbered_lines(records);
  two_per_line.replace(two_per_line.find("\n250000 ") , 1, " ");  // two records on one line
  EXPECT_FALSE(io::parse_lines_in_parallel(two_per_line, 7, records, RecordParser{two_per_line, path, out}).has_value());
  const std::string truncated = numbered_lines(records).substr(0, 5000000);
  EXPECT_FALSE(io::parse_lines_in_parallel(truncated, 7, records, RecordParser{truncated, path, out}).has_value());
  const std::string small = numbered_lines(1000);
  EXPECT_FALSE(io::parse_lines_in_parallel(small, 7, 1000, RecordParser{small, path, out}).has_value());
}

TEST(ParseLinesInParallel, ABadNumberIsReportedWithItsLine) {
  const std::string path = "lines.txt";
  const std::int64_t records = 400000;
  std::vector<double> out(2 * records);
  std::string text = numbered_lines(records);
  const std::size_t bad = text.find("\n350000 ") + 1;
  text[bad] = 'x';
  try {
    io::parse_lines_in_parallel(text, 7, records, RecordParser{text, path, out});
    FAIL() << "no ReadError";
  } catch (const meshioplusplus::ReadError& error) {
    EXPECT_EQ(error.byte_offset(), bad);
    EXPECT_EQ(error.line(), 350002u);  // the header line, then records numbered from 0
  }
}

TEST(CountNewlines, AgreesWithStdCountAtEveryLengthAndAlignment) {
  std::mt19937 random(5);
  std::string text(100000, 'x');
  for (char& c : text) c = random() % 7 == 0 ? '\n' : 'a';
  for (std::size_t begin : {0u, 1u, 15u, 17u})
    for (std::size_t length : {0u, 1u, 15u, 16u, 4079u, 4080u, 4081u, 8161u, 99000u}) {
      const char* first = text.data() + begin;
      EXPECT_EQ(io::count_newlines(first, first + length), static_cast<std::uint64_t>(std::count(first, first + length, '\n')))
          << begin << " " << length;
    }
}

// Every whitespace byte is_space() knows, and bytes next to them (8, 14, 31, 33, 0x80+) that
// are not whitespace, at every alignment around the 64-byte step.
TEST(CountTokens, AgreesWithASpaceByteLoopAtEveryLengthAndAlignment) {
  std::mt19937 random(6);
  const std::string alphabet = std::string(" \t\n\v\f\r") + std::string("\x08\x0e\x1f!ab9\x80\xff", 9);
  std::string text(20000, 'x');
  for (char& c : text) c = random() % 3 == 0 ? alphabet[random() % alphabet.size()] : '7';
  const auto by_loop = [](const char* first, const char* last) {
    std::uint64_t tokens = 0;
    bool after_space = true;
    for (; first < last; ++first) {
      tokens += after_space && !io::is_space(*first);
      after_space = io::is_space(*first);
    }
    return tokens;
  };
  for (std::size_t begin : {0u, 1u, 15u, 63u, 64u})
    for (std::size_t length : {0u, 1u, 15u, 16u, 17u, 31u, 32u, 63u, 64u, 65u, 127u, 128u, 129u, 19000u}) {
      const char* first = text.data() + begin;
      EXPECT_EQ(io::count_tokens(first, first + length), by_loop(first, first + length)) << begin << " " << length;
    }
  const std::string spaced = "  12 -3\t4.5\r\n\n 6 ";
  EXPECT_EQ(io::count_tokens(spaced.data(), spaced.data() + spaced.size()), 4u);
}

TEST(ThreadCount, ProgramChoiceOverridesTheDefaultAndZeroRestoresIt) {
  const unsigned by_default = meshioplusplus::thread_count();
  EXPECT_GE(by_default, 1u);
  meshioplusplus::set_thread_count(1);
  EXPECT_EQ(meshioplusplus::thread_count(), 1u);
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  io::parallel_ranges(1000, 1, [&](std::size_t first, std::size_t last) { ranges.emplace_back(first, last); });
  EXPECT_EQ(ranges, (std::vector<std::pair<std::size_t, std::size_t>>{{0, 1000}}));  // one thread: one range
  meshioplusplus::set_thread_count(3);
  EXPECT_EQ(meshioplusplus::thread_count(), 3u);
  meshioplusplus::set_thread_count(0);
  EXPECT_EQ(meshioplusplus::thread_count(), by_default);
}

// Items handed out one at a time: each runs exactly once, and when some throw, every item
// before the earliest failure still runs and that failure's exception is the one rethrown
// (what a sequential run reports), whatever the thread count.
TEST(ParallelClaims, EveryItemOnceAndTheEarliestFailureWins) {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    meshioplusplus::set_thread_count(threads);
    std::vector<std::atomic<int>> runs(1000);
    meshioplusplus::parallel_claims(runs.size(), 1, [&](auto&& claim) {
      for (std::size_t item = claim(); item < runs.size(); item = claim()) runs[item].fetch_add(1);
    });
    for (const auto& count : runs) EXPECT_EQ(count.load(), 1) << threads << " threads";
    std::vector<std::atomic<int>> done(1000);
    try {
      meshioplusplus::parallel_claims(done.size(), 1, [&](auto&& claim) {
        for (std::size_t item = claim(); item < done.size(); item = claim()) {
          if (item == 700 || item == 431 || item == 999) throw std::runtime_error("item " + std::to_string(item));
          done[item].fetch_add(1);
        }
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& error) {
      EXPECT_STREQ(error.what(), "item 431") << threads << " threads";
    }
    for (std::size_t item = 0; item < 431; ++item) EXPECT_EQ(done[item].load(), 1) << item;
  }
  meshioplusplus::set_thread_count(0);
}

// Points drawn from a small grid repeat often; the welder must agree with a std::map keyed
// on the values through many growths, at each width, and number points by first appearance.
TEST(CoordinateWelder, AgreesWithAnOrderedMapThroughGrowth) {
  for (std::size_t width : {2u, 3u, 4u}) {
    std::mt19937 random(static_cast<unsigned>(width));
    std::vector<double> stored;
    std::map<std::vector<double>, std::int64_t> reference;
    io::CoordinateWelder<double> welder(width, 4);  // starts tiny: grows many times
    const auto coordinates_of = [&stored, width](std::int64_t id) { return stored.data() + id * static_cast<std::int64_t>(width); };
    for (int i = 0; i < 50000; ++i) {
      std::vector<double> values(width);
      for (double& v : values) v = static_cast<double>(random() % 40) * 0.125;
      const auto next = static_cast<std::int64_t>(stored.size() / width);
      const std::int64_t found = welder.find_or_add(values.data(), next, coordinates_of);
      const auto [it, inserted] = reference.try_emplace(values, next);
      ASSERT_EQ(found, it->second) << i;
      if (found == next) stored.insert(stored.end(), values.begin(), values.end());
    }
    EXPECT_EQ(stored.size() / width, reference.size());
  }
}

TEST(CoordinateWelder, MinusZeroIsZeroAndNaNNeverMatches) {
  std::vector<std::array<float, 3>> stored;
  io::CoordinateWelder<float> welder(3, 1);
  const auto coordinates_of = [&stored](std::int64_t id) { return stored[static_cast<std::size_t>(id)]; };
  const auto add = [&](std::array<float, 3> xyz) {
    const auto found = welder.find_or_add(xyz.data(), static_cast<std::int64_t>(stored.size()), coordinates_of);
    if (found == static_cast<std::int64_t>(stored.size())) stored.push_back(xyz);
    return found;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(add({0.0f, -0.0f, 1.0f}), 0);
  EXPECT_EQ(add({-0.0f, 0.0f, 1.0f}), 0);
  EXPECT_EQ(std::signbit(stored[0][1]), true);  // the first spelling is the one kept
  EXPECT_EQ(add({nan, 0.0f, 1.0f}), 1);
  EXPECT_EQ(add({nan, 0.0f, 1.0f}), 2);
  EXPECT_EQ(add({0.0f, 0.0f, 1.0f}), 0);
}

// Line parsers let plain_digits load past the line's end: whatever follows (more digits of
// the next line included) never becomes part of the number.
TEST(PlainDigits, BytesPastTheEndAreLoadedButNeverRead) {
  std::mt19937_64 random(12);
  for (int i = 0; i < 100000; ++i) {
    std::string text;
    const int digits = 1 + static_cast<int>(random() % 12);
    for (int d = 0; d < digits; ++d) text += static_cast<char>('0' + random() % 10);
    const std::size_t line_end = static_cast<std::size_t>(random() % (text.size() + 1));
    for (int d = 0; d < 10; ++d) text += static_cast<char>('0' + random() % 10);  // the next line's digits
    const char* const p = text.data();
    std::uint64_t bounded = 7, loading = 7;
    const char* const a = io::plain_digits(p, p + line_end, bounded);
    const char* const b = io::plain_digits(p, p + line_end, loading, p + text.size());
    ASSERT_EQ(a, b) << text << " " << line_end;
    if (a != nullptr) ASSERT_EQ(bounded, loading) << text << " " << line_end;
  }
}

// next() searches for comments only when a line passes the last one found; seeking back must
// not let it skip a comment that lies before that one.
TEST(SignificantLines, CommentsAreCutAfterLongCleanStretchesAndAfterSeekingBack) {
  std::string text = "a # one\n";
  for (int i = 0; i < 1000; ++i) text += "1 2 3\n";
  text += "b # two\n\n   # only a comment\nc\n";
  const std::string path = "memory";
  io::SignificantLines lines(text, path, "test", '#');
  std::vector<std::string> seen;
  while (const auto line = lines.next()) seen.emplace_back(lines.text(*line));
  ASSERT_EQ(seen.size(), 1003u);
  EXPECT_EQ(seen.front(), "a");
  EXPECT_EQ(seen[1001], "b");
  EXPECT_EQ(seen.back(), "c");
  const std::size_t second_line = text.find('\n') + 1;
  lines.seek(text.size() - 3);  // at "c": the comments before it were found already
  EXPECT_EQ(lines.text(*lines.next()), "c");
  lines.seek(0);
  EXPECT_EQ(lines.text(*lines.next()), "a");
  lines.seek(second_line);
  EXPECT_EQ(lines.text(*lines.next()), "1 2 3");
}

// The inline 16-byte steps, the memchr tail and the no-newline case agree with memchr.
TEST(FindNewline, AgreesWithMemchrAtEveryLengthAndAlignment) {
  std::mt19937 random(9);
  std::string text(3000, 'x');
  for (char& c : text) c = random() % 50 == 0 ? '\n' : static_cast<char>('a' + random() % 20);
  for (std::size_t begin = 0; begin < 40; ++begin)
    for (std::size_t length : {0u, 1u, 15u, 16u, 17u, 63u, 64u, 65u, 80u, 200u, 2900u}) {
      const char* first = text.data() + begin;
      const void* expected = std::memchr(first, '\n', length);
      EXPECT_EQ(io::find_newline(first, first + length), static_cast<const char*>(expected)) << begin << " " << length;
    }
  const std::string none(100, 'y');
  EXPECT_EQ(io::find_newline(none.data(), none.data() + none.size()), nullptr);
}

// Every digit count on both sides of the 8-byte step, every terminator, every alignment.
TEST(ParseInt64, RandomDigitRunsAgreeWithFromChars) {
  std::mt19937_64 random(11);
  const std::string terminators = " \t\n\r,;x-+.e/\xfa\xff";
  for (int i = 0; i < 200000; ++i) {
    std::string text = random() % 4 == 0 ? "-" : "";
    const int digits = static_cast<int>(random() % 21);
    for (int d = 0; d < digits; ++d) text += static_cast<char>('0' + random() % 10);
    text += terminators[random() % terminators.size()];
    text += "123456789";  // room for the 8-byte step, whatever the run's length
    std::int64_t ours = -7, theirs = -7;
    const auto a = io::parse_int64(text.data(), text.data() + text.size(), ours);
    const auto b = std::from_chars(text.data(), text.data() + text.size(), theirs);
    ASSERT_EQ(a.ec, b.ec) << text;
    ASSERT_EQ(a.ptr, b.ptr) << text;
    if (b.ec == std::errc{}) ASSERT_EQ(ours, theirs) << text;
  }
}

// Large copies and passes run on several threads; their results must be those of one thread
// whatever the thread count, including pieces that end mid-page and hits near piece edges.
TEST(ParallelPasses, CopyInParallelIsAPlainCopyAtEveryThreadCount) {
  const std::size_t bytes = io::kParallelBytesMin * 2 + 4097;  // crosses the threshold; a partial last page
  std::vector<std::uint8_t> source(bytes);
  std::mt19937 random(5);
  for (std::uint8_t& byte : source) byte = static_cast<std::uint8_t>(random());
  for (unsigned threads : {1u, 3u, 7u}) {
    meshioplusplus::set_thread_count(threads);
    std::vector<std::uint8_t> target(bytes + 2, 0xAB);
    io::copy_in_parallel(target.data() + 1, source.data(), bytes);  // unaligned destination
    EXPECT_EQ(target.front(), 0xAB);
    EXPECT_EQ(target.back(), 0xAB);  // nothing written past the end
    EXPECT_TRUE(std::equal(source.begin(), source.end(), target.begin() + 1)) << threads;
  }
  meshioplusplus::set_thread_count(0);
}

TEST(ParallelPasses, FindFirstReturnsTheEarliestHitAtEveryThreadCount) {
  const std::size_t n = 9'000'000;
  for (unsigned threads : {1u, 4u}) {
    meshioplusplus::set_thread_count(threads);
    for (std::vector<std::size_t> hits : std::vector<std::vector<std::size_t>>{
             {}, {17}, {70'000}, {4'000'000, 2'500'000, 8'999'999}, {8'999'999}, {3'000'000, 3'000'001}}) {
      std::vector<std::uint8_t> marks(n, 0);
      for (std::size_t hit : hits) marks[hit] = 1;
      const std::size_t expected = hits.empty() ? n : *std::min_element(hits.begin(), hits.end());
      EXPECT_EQ(io::find_first_in_parallel(0, n, [&](std::size_t i) { return marks[i] != 0; }), expected) << threads;
      // searching from past the earliest hit finds the next one
      if (!hits.empty() && expected + 1 < n) {
        std::size_t next = n;
        for (std::size_t hit : hits)
          if (hit > expected) next = std::min(next, hit);
        EXPECT_EQ(io::find_first_in_parallel(expected + 1, n, [&](std::size_t i) { return marks[i] != 0; }), next);
      }
    }
  }
  meshioplusplus::set_thread_count(0);
}

TEST(ParallelPasses, AnyInParallelSeesASingleOffenderAnywhere) {
  const std::size_t n = 5'000'000;
  std::vector<std::int64_t> values(n, 1);
  for (unsigned threads : {1u, 4u}) {
    meshioplusplus::set_thread_count(threads);
    EXPECT_FALSE(io::any_in_parallel(n, [&](std::size_t i) { return values[i] < 0; }));
    for (std::size_t at : {std::size_t{0}, std::size_t{1'250'000}, n - 1}) {
      values[at] = -1;
      EXPECT_TRUE(io::any_in_parallel(n, [&](std::size_t i) { return values[i] < 0; })) << at;
      values[at] = 1;
    }
  }
  meshioplusplus::set_thread_count(0);
}

TEST(ParallelPasses, ForeignByteOrderCopiesSwapEveryElementOfALargeArray) {
  const std::size_t count = io::kParallelBytesMin / 8 * 3 + 5;  // several 8192-element pieces and a short one
  std::vector<std::uint64_t> host(count);
  for (std::size_t i = 0; i < count; ++i) host[i] = 0x0102030405060708ull * (i + 1);
  std::vector<std::uint64_t> foreign(count);
  for (std::size_t i = 0; i < count; ++i) foreign[i] = __builtin_bswap64(host[i]);
  meshioplusplus::set_thread_count(4);
  std::vector<std::uint64_t> read(count);
  io::copy_from_file_order(read.data(), foreign.data(), 8, count, !io::kHostIsLittleEndian);
  EXPECT_EQ(read, host);
  io::copy_from_file_order(read.data(), host.data(), 8, count, io::kHostIsLittleEndian);
  EXPECT_EQ(read, host);
  meshioplusplus::set_thread_count(0);
}

// cells_from_vtk leaves the "offsets never decrease" check to the readers (which name the
// entry); fixed-size cells cannot go back, polygon and polyhedron runs are checked here.
TEST(VtkCellStream, PolygonOffsetsThatGoBackAreRefused) {
  const std::vector<std::int64_t> ids{0, 1, 2, 3, 1, 2, 3, 0, 0, 2};
  const auto cells_of = [&](const std::vector<std::uint8_t>& types, const std::vector<std::int64_t>& offsets) {
    io::VtkCellStream stream;
    stream.types = types;
    stream.offsets = offsets;
    stream.connectivity = meshioplusplus::NDArray::allocate(meshioplusplus::DType::int64, {static_cast<std::int64_t>(ids.size())});
    std::copy(ids.begin(), ids.end(), stream.connectivity.data_as<std::int64_t>());
    stream.num_points = 4;
    return io::cells_from_vtk(stream);
  };
  const std::vector<std::uint8_t> triangle_triangle_quad{5, 5, 9}, polygons{7, 7, 7};
  const io::VtkCells good = cells_of(triangle_triangle_quad, {0, 3, 6, 10});
  ASSERT_EQ(good.blocks.size(), 2u);
  EXPECT_EQ(good.blocks[1].type, "quad");
  EXPECT_EQ(cells_of(polygons, {0, 3, 6, 10}).blocks.at(0).offsets.rows(), 4);
  try {
    cells_of(polygons, {0, 6, 3, 10});  // the second polygon would have -3 corners
    ADD_FAILURE() << "expected a CellStreamError";
  } catch (const io::CellStreamError& error) {
    EXPECT_STREQ(error.what(), "cell offsets decrease");
  }
}

// fill_vtk_types / fill_vtk_end_offsets: any range of rows, across the joins of fixed-size
// and ragged blocks, equals that slice of the whole arrays vtk_types_and_offsets makes.
TEST(VtkCellStream, FilledRangesAreSlicesOfTheWholeArrays) {
  using meshioplusplus::CellBlock;
  using meshioplusplus::DType;
  using meshioplusplus::NDArray;
  auto filled = [](std::int64_t rows, std::int64_t cols, std::int64_t first_value) {
    NDArray array = NDArray::allocate(DType::int64, {rows, cols});
    for (std::int64_t i = 0; i < rows * cols; ++i) array.data_as<std::int64_t>()[i] = first_value + i % 5;
    return array;
  };
  std::vector<CellBlock> blocks;
  blocks.push_back({"triangle", filled(4, 3, 0), {}, {}});
  CellBlock polygons{"polygon", filled(12, 1, 0).reshaped({12}), {}, {}};
  polygons.offsets = NDArray::allocate(DType::int64, {4});
  const std::int64_t polygon_offsets[] = {0, 5, 9, 12};  // a pentagon, a quad, a triangle
  std::copy(std::begin(polygon_offsets), std::end(polygon_offsets), polygons.offsets.data_as<std::int64_t>());
  blocks.push_back(polygons);
  blocks.push_back({"tetra", filled(0, 4, 0), {}, {}});  // an empty block between others
  blocks.push_back({"tetra", filled(5, 4, 0), {}, {}});
  const io::VtkTypesAndOffsets whole = io::vtk_types_and_offsets(blocks);
  const std::int64_t cells = whole.types.rows();
  ASSERT_EQ(cells, 12);
  EXPECT_EQ(whole.offsets.data_as<std::int64_t>()[cells - 1], 12 + 12 + 20);
  for (std::int64_t first = 0; first <= cells; ++first) {
    for (std::int64_t count = 0; first + count <= cells; ++count) {
      std::vector<std::uint8_t> types(static_cast<std::size_t>(count) + 1, 0xEE);
      std::vector<std::int64_t> offsets(static_cast<std::size_t>(count) + 1, -7);
      io::fill_vtk_types(blocks, first, count, types.data());
      io::fill_vtk_end_offsets(blocks, first, count, offsets.data());
      for (std::int64_t i = 0; i < count; ++i) {
        ASSERT_EQ(types[i], whole.types.data_as<std::uint8_t>()[first + i]) << first << "+" << i;
        ASSERT_EQ(offsets[i], whole.offsets.data_as<std::int64_t>()[first + i]) << first << "+" << i;
      }
      EXPECT_EQ(types[count], 0xEE);  // nothing past the range is written
      EXPECT_EQ(offsets[count], -7);
    }
  }
}
