// The universal file's dataset scan (unv_records.cpp: scan_body) walks the first MiB of a body on
// one thread and the rest in windows split over the cores. Bodies around and far past those
// sizes, with blank lines, CRLF ends and lines that only look like the closing "-1", must give
// the same boundaries and record counts at 1 and 2 threads as counted here line by line, and an
// unclosed large dataset must still be a ReadError at its number line.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/unv/unv_records.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"

namespace unv = meshioplusplus::unv::detail;

namespace {

struct Expected {
  std::size_t begin, end;
  std::int64_t records;
};

// Datasets 15 (one record per line), each `lines` lines long; every 997th line blank, every
// 1009th only blanks and a CR, and records that start like "-1" without being it.
std::string universal_file(const std::vector<std::int64_t>& sizes, bool crlf, std::vector<Expected>& expected) {
  const std::string eol = crlf ? "\r\n" : "\n";
  std::string text;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const std::int64_t lines = sizes[k];
    text += "    -1" + eol + "    15" + eol;
    Expected dataset{text.size(), 0, 0};
    for (std::int64_t i = 0; i < lines; ++i) {
      if (i % 997 == 5) {
        text += eol;
      } else if (i % 1009 == 7) {
        text += "   \t \r\n";
      } else {
        static const char* const kLookAlikes[] = {"        -1.5", "   -1 2", "  -10", "-1-1", "   -1x"};
        text += i % 13 == 0 ? std::string(kLookAlikes[i % 5]) : "         " + std::to_string(i) + "         1  1.25D-01  -1.0E+00";
        text += eol;
        ++dataset.records;
      }
    }
    dataset.end = text.size();
    expected.push_back(dataset);
    text += std::string(k % 2 == 0 ? "    -1" : "\t-1  ") + eol;  // the closing line, blanks around it or not
  }
  return text;
}

}  // namespace

TEST(UnvScan, BodiesOfEverySizeEndWhereALineWalkEndsThemAtOneAndTwoThreads) {
  // ~40 bytes a line: 30 k lines pass the first MiB, 300 k lines several parallel windows.
  for (const bool crlf : {false, true}) {
    std::vector<Expected> expected;
    const std::string text = universal_file({3, 26000, 27000, 1, 300000, 0, 120000, 2}, crlf, expected);
    for (const unsigned threads : {1u, 2u, 3u}) {
      meshioplusplus::set_thread_count(threads);
      const std::vector<unv::Dataset> datasets = unv::scan_datasets(text, "scan.unv");
      ASSERT_EQ(datasets.size(), expected.size());
      for (std::size_t k = 0; k < datasets.size(); ++k) {
        EXPECT_EQ(datasets[k].number, 15);
        EXPECT_EQ(datasets[k].begin, expected[k].begin) << k << ", " << threads << " threads";
        EXPECT_EQ(datasets[k].end, expected[k].end) << k << ", " << threads << " threads";
        EXPECT_EQ(datasets[k].lines, expected[k].records) << k << ", " << threads << " threads";
      }
    }
  }
  meshioplusplus::set_thread_count(0);
}

TEST(UnvScan, AnUnclosedLargeDatasetIsAReadErrorAtItsNumberLine) {
  std::vector<Expected> expected;
  std::string text = universal_file({5, 200000}, false, expected);
  text.resize(text.rfind("\t-1"));  // the last dataset loses its closing line
  for (const unsigned threads : {1u, 2u}) {
    meshioplusplus::set_thread_count(threads);
    try {
      unv::scan_datasets(text, "open.unv");
      ADD_FAILURE() << "no error at " << threads << " threads";
    } catch (const meshioplusplus::ReadError& error) {
      EXPECT_EQ(error.line(), std::optional<std::uint64_t>(5 + 4 + 1));  // -1, 15, 5 lines, -1, -1, then its number line
      EXPECT_NE(std::string(error.what()).find("not closed"), std::string::npos) << error.what();
    }
  }
  meshioplusplus::set_thread_count(0);
}
