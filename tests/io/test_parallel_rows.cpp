// io::write_rows_in_parallel (io/output/parallel_rows.hpp): chunks formatted on several threads
// and written in order while the next ones are formatted. The file must be byte for byte what a
// sequential loop writes, at 1 and 2 threads, for sections below, at and above the parallel
// threshold and chunk sizes; a row that fails must give the earliest failing row's error.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;
namespace io = meshioplusplus::io;
using namespace meshioplusplus::testing_support;

namespace {

// Rows of unequal length (1 to 4 numbers), so chunk boundaries fall anywhere in the bytes.
char* format_row(char* p, std::int64_t row) {
  p = io::put_number(p, row);
  for (std::int64_t k = 0; k < row % 4; ++k) {
    *p++ = ' ';
    p = io::put_number(p, static_cast<double>(row) / 7.0 + k);
  }
  *p++ = '\n';
  return p;
}
constexpr std::size_t kLongest = 4 * (io::kMaxNumberChars + 1) + 1;

std::string expected_text(std::int64_t rows) {
  std::string text = "head\n";
  char line[kLongest];
  for (std::int64_t row = 0; row < rows; ++row) text.append(line, format_row(line, row));
  return text + "tail\n";
}

std::string written_text(const std::filesystem::path& path, std::int64_t rows, std::size_t longest) {
  io::AtomicFile file(path.string(), "test");
  io::OutputBuffer out(file);
  out.text("head\n");
  io::write_rows_in_parallel(out, file, rows, longest, format_row);
  out.text("tail\n");
  out.flush();
  file.commit();
  return read_file(path);
}

}  // namespace

TEST(ParallelRows, SameBytesAsASequentialLoopAtOneAndTwoThreads) {
  const std::filesystem::path path = scratch_dir() / "rows.txt";
  for (const std::int64_t rows : {0, 1, 255, 4095, 4096, 4097, 70001, 300000}) {
    const std::string expected = expected_text(rows);
    for (const unsigned threads : {1u, 2u, 3u}) {
      mpp::set_thread_count(threads);
      EXPECT_EQ(written_text(path, rows, kLongest), expected) << rows << " rows, " << threads << " threads";
      // A generous bound (few rows per chunk) and a tight one (many) split the section differently.
      EXPECT_EQ(written_text(path, rows, io::kChunkBytes / 3), expected) << rows << " rows, " << threads << " threads";
    }
  }
  mpp::set_thread_count(0);
}

TEST(ParallelRows, TheEarliestFailingRowsErrorComesOutAndTheOldFileStays) {
  const std::filesystem::path path = scratch_dir() / "failing.txt";
  { std::ofstream(path) << "old"; }
  for (const unsigned threads : {1u, 2u}) {
    mpp::set_thread_count(threads);
    io::AtomicFile file(path.string(), "test");
    io::OutputBuffer out(file);
    const auto failing = [](char* p, std::int64_t row) {
      if (row == 150000 || row == 60000) throw std::invalid_argument("row " + std::to_string(row));
      return format_row(p, row);
    };
    try {
      io::write_rows_in_parallel(out, file, 200000, kLongest, failing);
      ADD_FAILURE() << "no error at " << threads << " threads";
    } catch (const std::invalid_argument& error) {
      EXPECT_STREQ(error.what(), "row 60000");
    }
  }
  mpp::set_thread_count(0);
  EXPECT_EQ(read_file(path), "old");
}
