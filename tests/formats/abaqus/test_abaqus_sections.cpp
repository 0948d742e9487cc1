// The counting helpers of abaqus_input.hpp that read whole data sections at once, against
// plain byte-by-byte versions of what they count: plain_section (the first '*' line, searched
// window by window on all cores, and the line breaks before it) and filled_lines (lines
// holding more than blanks).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>

#include "formats/abaqus/abaqus_input.hpp"
#include "io/source/parallel.hpp"
#include "meshioplusplus/threads.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::abaqus::detail;

namespace {

std::int64_t filled_lines_one_by_one(std::string_view text) {
  std::int64_t lines = 0;
  bool filled = false;
  for (const char c : text) {
    if (c == '\n') {
      lines += filled;
      filled = false;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      filled = true;
    }
  }
  return lines + filled;
}

// Node lines of about 40 bytes up to `bytes`, then "*ELEMENT" when `star` is set.
std::string data_lines(std::size_t bytes, bool star) {
  std::string text;
  for (std::int64_t n = 1; text.size() < bytes; ++n) text += std::to_string(n) + ", 0.25, " + std::to_string(n % 89) + ".5, -1.125\n";
  if (star) text += "*ELEMENT, TYPE=C3D4\n1, 1, 2, 3, 4\n";
  return text;
}

class AbaqusSections : public ::testing::Test {
 protected:
  void SetUp() override { set_thread_count(2); }
  void TearDown() override { set_thread_count(0); }
};

}  // namespace

TEST_F(AbaqusSections, FilledLinesCountsWhatTheByteByByteLoopCounts) {
  std::mt19937 random(36);
  const char alphabet[] = {'1', ',', ' ', '\t', '\r', '\n', '\n', '7', '.'};
  for (int round = 0; round < 400; ++round) {
    std::string text(random() % 300, ' ');
    for (char& c : text) c = alphabet[random() % sizeof alphabet];
    EXPECT_EQ(filled_lines(text), filled_lines_one_by_one(text)) << round;
  }
  // Blank lines and indented lines across 64-byte steps, and a last line without a break.
  std::string text;
  for (int i = 0; i < 500; ++i) text += i % 7 == 0 ? "   \t\r\n" : i % 5 == 0 ? "\n" : i % 3 == 0 ? "  12, 3.5\n" : "4, 5.25, 6\n";
  EXPECT_EQ(filled_lines(text), filled_lines_one_by_one(text));
  EXPECT_EQ(filled_lines(text + "  9"), filled_lines_one_by_one(text + "  9"));
  EXPECT_EQ(filled_lines(text + "  "), filled_lines_one_by_one(text + "  "));
  EXPECT_EQ(filled_lines(""), 0);
}

TEST_F(AbaqusSections, PlainSectionEndsAtTheFirstStarLineInEveryWindow) {
  const std::string path = "sections.inp";
  // Small (no section), one window past the first, the second piece of a window, several windows, no '*'.
  for (const std::size_t bytes : {std::size_t{1} << 20, std::size_t{5} << 20, std::size_t{17} << 20, std::size_t{45} << 20}) {
    for (const bool star : {true, false}) {
      const std::string text = "*NODE\n" + data_lines(bytes, star);
      const std::size_t begin = 6;
      InputLines in(text, begin, text.size(), path);
      Line line;
      const std::optional<PlainSection> section = plain_section(in);
      const std::size_t star_at = star ? text.find('*', begin) : text.size();
      const std::size_t stop = star ? star_at : text.size();
      if (stop - begin < io::kParallelLinesMinBytes) {
        EXPECT_FALSE(section.has_value()) << bytes;
        continue;
      }
      ASSERT_TRUE(section.has_value()) << bytes;
      EXPECT_EQ(section->begin, begin);
      EXPECT_EQ(section->end, stop) << bytes;
      EXPECT_EQ(section->lines, io::count_newlines(text.data() + begin, text.data() + stop)) << bytes;
    }
  }
  // An indented '*' line: the section ends at that line's start; a last line without a break counts.
  std::string text = "*NODE\n" + data_lines(std::size_t{9} << 20, false) + "   ** comment\n1, 2, 3\n";
  InputLines in(text, 6, text.size(), path);
  std::optional<PlainSection> section = plain_section(in);
  ASSERT_TRUE(section.has_value());
  EXPECT_EQ(section->end, text.find("   **"));
  text = "*NODE\n" + data_lines(std::size_t{9} << 20, false) + "5, 1.0, 2.0, 3.0";
  InputLines unbroken(text, 6, text.size(), path);
  section = plain_section(unbroken);
  ASSERT_TRUE(section.has_value());
  EXPECT_EQ(section->lines, io::count_newlines(text.data() + 6, text.data() + text.size()) + 1);
}
