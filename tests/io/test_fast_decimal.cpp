// io/text/fast_decimal.hpp: whenever the fast path answers, it gives std::from_chars' bits —
// on shortest-form floats and doubles, random digit strings with exponents, and the float
// halfway points that double rounding would get wrong.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <system_error>

#include "io/text/fast_decimal.hpp"

namespace {

template <class T> std::uint64_t bits_of(T value) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof value);
  return bits;
}

// Fast path and from_chars agree on `text` for T; returns whether the fast path answered.
template <class T> bool agrees(const std::string& text) {
  T fast{};
  const bool answered = meshioplusplus::io::parse_plain_decimal(text.data(), text.data() + text.size(), fast);
  if (!answered) return false;
  T reference{};
  const auto result = std::from_chars(text.data(), text.data() + text.size(), reference);
  EXPECT_EQ(result.ec, std::errc{}) << text;
  EXPECT_EQ(result.ptr, text.data() + text.size()) << text;
  EXPECT_EQ(bits_of(fast), bits_of(reference)) << text;
  return true;
}

}  // namespace

TEST(FastDecimal, ShortestFormsReadBackBitForBit) {
  std::mt19937_64 random(36);
  std::size_t answered = 0;
  for (int i = 0; i < 300000; ++i) {
    const std::uint64_t bits = random();
    double wide;
    std::memcpy(&wide, &bits, 8);
    const auto narrow_bits = static_cast<std::uint32_t>(bits);
    float narrow;
    std::memcpy(&narrow, &narrow_bits, 4);
    // Magnitudes writers meet: scaled into 1e-6 … 1e6, and the raw random bits.
    const double scaled = static_cast<double>(bits >> 11) / 9007199254740992.0 * std::pow(10.0, static_cast<int>(random() % 13) - 6);
    for (double value : {wide, scaled, -scaled}) {
      char text[64];
      const std::string shortest(text, std::to_chars(text, text + sizeof text, value).ptr);
      answered += agrees<double>(shortest);
      agrees<float>(shortest);
    }
    for (float value : {narrow, static_cast<float>(scaled)}) {
      char text[64];
      const std::string shortest(text, std::to_chars(text, text + sizeof text, value).ptr);
      answered += agrees<float>(shortest);
      agrees<double>(shortest);
    }
  }
  EXPECT_GT(answered, 600000u);  // the fast path takes most of them
}

TEST(FastDecimal, RandomDigitStringsAndEdges) {
  std::mt19937 random(7);
  for (int i = 0; i < 300000; ++i) {
    std::string text = random() % 4 == 0 ? "-" : "";
    const int digits = 1 + static_cast<int>(random() % 20);
    const int point = static_cast<int>(random() % (digits + 1));
    for (int d = 0; d < digits; ++d) {
      if (d == point && d > 0) text += '.';
      text += static_cast<char>('0' + random() % 10);
    }
    if (random() % 3 == 0) text += (random() % 2 ? "e" : "E") + std::string(random() % 2 ? "-" : "") + std::to_string(random() % 40);
    agrees<double>(text);
    agrees<float>(text);
  }
  // Float halfway points (ties to even): 2^24 + 1 lies between 2^24 and 2^24 + 2.
  for (const char* text : {"16777217", "16777217e0", "1.6777217e7", "16777219", "33554434", "0.5000000298023223876953125",
                           "16777217.00000001", "16777216.99999999", "-0", "0", "0.0e5", "1e22", "1e23", "1e-22", "3.4028235e38",
                           "1e-40", "1.", ".5", "+1", "inf", "nan", "1e", "1e+", "1e99999", "00000000000000000000001",
                           "9007199254740993", "9007199254740992", "123456789012345678901", "-", ""}) {
    SCOPED_TRACE(text);
    agrees<double>(text);
    agrees<float>(text);
  }
  float value = 0;
  EXPECT_FALSE(meshioplusplus::io::parse_plain_decimal("16777217", "16777217" + 8, value));  // a float tie: from_chars decides
  EXPECT_FALSE(meshioplusplus::io::parse_plain_decimal("1.", "1." + 2, value));
  EXPECT_TRUE(meshioplusplus::io::parse_plain_decimal("-12.375", "-12.375" + 7, value));
  EXPECT_EQ(value, -12.375f);
}
