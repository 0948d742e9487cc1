// The guards every reader shares against hostile input (issue 18): the read limit and its
// checks, UTF-8-safe error texts, empty files, and std::bad_alloc at the read boundary.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/limits.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// Restores the limit a test changes, also when an expectation fails early.
struct LimitGuard {
  std::uint64_t saved = max_array_bytes();
  ~LimitGuard() { set_max_array_bytes(saved); }
};

}  // namespace

TEST(ReadLimits, DefaultIsHalfOfPhysicalMemoryAndSettable) {
  const LimitGuard guard;
  EXPECT_GT(default_max_array_bytes(), std::uint64_t{0});
  if (std::getenv("MESHIOPLUSPLUS_MAX_ARRAY_BYTES") == nullptr) EXPECT_EQ(max_array_bytes(), default_max_array_bytes());
  set_max_array_bytes(12345);
  EXPECT_EQ(max_array_bytes(), 12345u);
  set_max_array_bytes(0);  // back to the default
  EXPECT_NE(max_array_bytes(), 12345u);
}

TEST(ReadLimits, ClaimsAreCheckedAgainstTheFileAndTheLimit) {
  const LimitGuard guard;
  // Explicit data: 10 values of at least 2 bytes need 20 bytes.
  EXPECT_NO_THROW(io::check_claim_fits_file("f.txt", "fmt", "values", 10, 2, 20));
  const ReadError short_file = expect_read_error([] { io::check_claim_fits_file("f.txt", "fmt", "values", 10, 2, 19, {7, 2}); });
  EXPECT_EQ(short_file.path(), "f.txt");
  EXPECT_EQ(short_file.format(), "fmt");
  EXPECT_EQ(short_file.byte_offset(), std::optional<std::uint64_t>(7));
  EXPECT_EQ(short_file.line(), std::optional<std::uint64_t>(2));
  EXPECT_NE(short_file.reason().find("only 19 bytes left"), std::string::npos) << short_file.what();
  // A product past 2^64 is refused, not wrapped.
  expect_read_error([] { io::check_claim_fits_file("f", "fmt", "values", std::uint64_t{1} << 40, std::uint64_t{1} << 30, ~0ull); });
  // Implicit data: against the limit.
  set_max_array_bytes(1000);
  EXPECT_NO_THROW(io::check_claim_fits_limit("f", "fmt", "points", 125, 8));
  const ReadError over = expect_read_error([] { io::check_claim_fits_limit("f", "fmt", "points", 126, 8); });
  EXPECT_NE(over.reason().find("1008 bytes"), std::string::npos) << over.what();
  EXPECT_NE(over.reason().find("read limit of 1000 bytes"), std::string::npos) << over.what();
  expect_read_error([] { io::check_claim_fits_limit("f", "fmt", "points", ~0ull, 8); });
}

TEST(ReadLimits, IdArithmeticDoesNotOverflow) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(io::zero_based(1), 0);
  EXPECT_EQ(io::zero_based(kMin), kMax);  // wraps to a value every range check refuses
  EXPECT_EQ(io::one_based(kMax), kMin);
  EXPECT_FALSE(io::checked_sum(kMax, 1));
  EXPECT_EQ(io::checked_sum(kMax - 1, 1), kMax);
  EXPECT_FALSE(io::checked_product(std::uint64_t{1} << 32, std::uint64_t{1} << 32));
}

TEST(ErrorText, InvalidUtf8IsEscapedValidUtf8Kept) {
  EXPECT_EQ(escape_invalid_utf8("plain"), "plain");
  EXPECT_EQ(escape_invalid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(escape_invalid_utf8("1 \xe9.0"), "1 \\xe9.0");
  EXPECT_EQ(escape_invalid_utf8("\xc3"), "\\xc3");                  // cut short
  EXPECT_EQ(escape_invalid_utf8("\xc0\xaf"), "\\xc0\\xaf");          // overlong
  EXPECT_EQ(escape_invalid_utf8("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(escape_invalid_utf8("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  const ReadError error("p", "fmt", "bad token '\xff'", 3, 1);
  EXPECT_EQ(error.reason(), "bad token '\\xff'");
  EXPECT_EQ(std::string(error.what()), "p:1 (byte 3): fmt: bad token '\\xff'");
  const WriteError write_error("p", "fmt", "name '\xff'");
  EXPECT_EQ(std::string(write_error.what()), "p: fmt: name '\\xff'");
}

// No format holds a mesh in an empty file: every reader says so (ReadError at byte 0).
TEST(EmptyFiles, EveryReaderRefusesAnEmptyFile) {
  const ScratchDir dir;
  for (const FormatInfo& format : registered_formats()) {
    if (format.read == nullptr) continue;
    std::string extension = format.extensions.empty() ? "." + std::string(format.name) : std::string(format.extensions.front());
    const std::string path = dir.write("empty" + extension, "");
    if (extension == ".node" || extension == ".ele") dir.write(std::string("empty") + (extension == ".node" ? ".ele" : ".node"), "");
    try {
      read(path, format.name);
      ADD_FAILURE() << format.name << ": an empty file read without an error";
    } catch (const ReadError& error) {
      EXPECT_EQ(error.path(), path) << format.name;
      EXPECT_EQ(error.format(), std::string(format.name)) << error.what();
    } catch (const std::exception& error) {
      ADD_FAILURE() << format.name << ": " << error.what() << " is not a ReadError";
    }
  }
}
