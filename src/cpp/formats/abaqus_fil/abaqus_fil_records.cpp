// Abaqus .fil records: ASCII fields and binary blocks (abaqus_fil_records.hpp).
#include "formats/abaqus_fil/abaqus_fil_records.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <charconv>
#include <cstring>

#include "io/source/byte_order.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::abaqus_fil::detail {

namespace {

constexpr std::size_t kWordsPerBlock = 512;
constexpr std::size_t kBlockBytes = kWordsPerBlock * 8;
constexpr std::size_t kFramedBlockBytes = kBlockBytes + 8;  // the two 4-byte markers
// A record longer than this many words is a corrupt length (Abaqus records are short: the
// longest, element connectivity and labels, hold a few hundred words).
constexpr std::int64_t kMaxRecordWords = 1 << 20;

std::uint32_t u32_le(const char* p) noexcept {
  std::uint32_t out;
  std::memcpy(&out, p, 4);
  return io::kHostIsLittleEndian ? out : __builtin_bswap32(out);
}

bool line_end(char c) noexcept { return c == '\n' || c == '\r'; }

}  // namespace

std::int64_t integer(const Word& word) noexcept {
  if (word.kind == 'D') {
    // A real where an integer is read: converted only when it fits (NaN and huge values are
    // the smallest int64, which every count and id check refuses).
    const double value = std::bit_cast<double>(word.bits);
    return value > -9.2e18 && value < 9.2e18 ? static_cast<std::int64_t>(value) : INT64_MIN;
  }
  return static_cast<std::int64_t>(word.bits);
}

double real(const Word& word) noexcept {
  if (word.kind == 'I') return static_cast<double>(static_cast<std::int64_t>(word.bits));
  return std::bit_cast<double>(word.bits);
}

std::string text(const Word& word) {
  char chars[8];
  std::memcpy(chars, &word.bits, 8);
  std::string out(chars, 8);
  while (!out.empty() && (out.back() == ' ' || out.back() == '\0')) out.pop_back();
  return out;
}

RecordStream::RecordStream(std::string_view bytes, const std::string& path) : bytes_(bytes), path_(&path) {
  binary_ = bytes.size() >= 4 && u32_le(bytes.data()) == kBlockBytes;
  if (!binary_) {
    end_ = bytes.size();
    return;
  }
  if (bytes.size() % kFramedBlockBytes != 0)
    fail(bytes.size() - bytes.size() % kFramedBlockBytes, "the binary file ends inside a 4096-byte block");
  for (std::size_t block = 0; block < bytes.size(); block += kFramedBlockBytes)
    if (u32_le(bytes.data() + block) != kBlockBytes || u32_le(bytes.data() + block + 4 + kBlockBytes) != kBlockBytes)
      fail(block, "a block of the binary file is not framed by 4096-byte length markers");
  end_word_ = bytes.size() / kFramedBlockBytes * kWordsPerBlock;
  end_ = bytes.size();
}

RecordStream::RecordStream(const RecordStream& file, std::size_t begin, std::size_t end)
    : bytes_(file.bytes_), path_(file.path_), binary_(file.binary_) {
  if (!binary_) {
    position_ = begin;
    end_ = std::min(end, bytes_.size());
    return;
  }
  const auto word_at = [](std::size_t offset) {
    return offset / kFramedBlockBytes * kWordsPerBlock + (std::max<std::size_t>(offset % kFramedBlockBytes, 4) - 4) / 8;
  };
  word_ = word_at(begin);
  end_word_ = end >= bytes_.size() ? file.end_word_ : word_at(end);
  end_ = end;
}

void RecordStream::fail(std::size_t offset, const std::string& message) const {
  throw ReadError(*path_, std::string(kFormat), message, offset);
}

std::size_t RecordStream::word_offset(std::uint64_t word) const noexcept {
  return static_cast<std::size_t>(word / kWordsPerBlock * kFramedBlockBytes + 4 + word % kWordsPerBlock * 8);
}

std::uint64_t RecordStream::word_bits(std::uint64_t word) const noexcept {
  std::uint64_t out;
  std::memcpy(&out, bytes_.data() + word_offset(word), 8);
  return io::kHostIsLittleEndian ? out : __builtin_bswap64(out);
}

std::size_t RecordStream::next_offset() const noexcept {
  if (!binary_) return position_;
  return word_ >= end_word_ ? end_ : word_offset(word_);
}

bool RecordStream::next(Record& record, bool (*wanted)(std::int64_t key)) {
  return binary_ ? next_binary(record, wanted) : next_ascii(record);
}

bool RecordStream::next_binary(Record& record, bool (*wanted)(std::int64_t key)) {
  if (word_ >= end_word_) return false;
  const std::int64_t length = static_cast<std::int64_t>(word_bits(word_));
  if (length == 0) {  // the padding of the last block
    word_ = end_word_;
    return false;
  }
  const std::size_t offset = word_offset(word_);
  if (length < 2 || length > kMaxRecordWords || static_cast<std::uint64_t>(length) > end_word_ - word_)
    fail(offset, "record length " + std::to_string(length) + " words is out of range (" +
                     std::to_string(end_word_ - word_) + " words left)");
  record.key = static_cast<std::int64_t>(word_bits(word_ + 1));
  record.offset = offset;
  if (wanted && !wanted(record.key)) {
    record.words.clear();
    word_ += static_cast<std::uint64_t>(length);
    return true;
  }
  record.words.resize(static_cast<std::size_t>(length - 2));
  for (std::int64_t k = 2; k < length; ++k) record.words[k - 2] = Word{word_bits(word_ + k), 0};
  word_ += static_cast<std::uint64_t>(length);
  return true;
}

bool RecordStream::next_ascii(Record& record) {
  auto skip_breaks = [&] {
    while (position_ < end_ && (line_end(bytes_[position_]) || bytes_[position_] == ' ')) ++position_;
  };
  // `count` characters of a field, line ends skipped; false when the range ends first.
  char field[32];
  auto take = [&](std::size_t count) {
    std::size_t got = 0;
    while (got < count && position_ < end_) {
      const char c = bytes_[position_++];
      if (!line_end(c)) field[got++] = c;
    }
    return got == count;
  };
  skip_breaks();
  if (position_ >= end_) return false;
  const std::size_t start = position_;
  if (bytes_[position_] != '*') fail(position_, "a record does not start with '*'");
  ++position_;
  std::vector<Word>& words = record.words;
  words.clear();
  std::int64_t length = -1;
  std::size_t fields = 0;
  while (true) {
    skip_breaks();
    if (position_ >= end_ || bytes_[position_] == '*') break;
    const std::size_t field_start = position_;
    const char kind = bytes_[position_++];
    Word word{0, kind};
    if (kind == 'I') {
      if (!take(2)) fail(field_start, "the file ends inside an integer field");
      int width = 0;
      const char* digits_end = field + 2;
      const char* digits = field;
      while (digits < digits_end && *digits == ' ') ++digits;
      if (std::from_chars(digits, digits_end, width).ec != std::errc() || width < 1 || width > 19)
        fail(field_start, "an integer field has a bad width");
      if (!take(static_cast<std::size_t>(width))) fail(field_start, "the file ends inside an integer field");
      std::int64_t value = 0;
      const char* begin = field;
      while (begin < field + width && *begin == ' ') ++begin;
      const auto parsed = std::from_chars(begin, field + width, value);
      if (parsed.ec != std::errc() || parsed.ptr != field + width) fail(field_start, "an integer field is not a number");
      word.bits = static_cast<std::uint64_t>(value);
    } else if (kind == 'D') {
      if (!take(22)) fail(field_start, "the file ends inside a real field");
      std::replace(field, field + 22, 'D', 'e');
      const char* begin = field;
      while (begin < field + 22 && *begin == ' ') ++begin;
      if (begin < field + 22 && *begin == '+') ++begin;
      double value = 0;
      const auto parsed = std::from_chars(begin, field + 22, value);
      if (parsed.ec != std::errc() || parsed.ptr != field + 22) fail(field_start, "a real field is not a number");
      word.bits = std::bit_cast<std::uint64_t>(value);
    } else if (kind == 'A') {
      if (!take(8)) fail(field_start, "the file ends inside a text field");
      std::memcpy(&word.bits, field, 8);
    } else {
      fail(field_start, std::string("unknown field type '") + kind + "' (I, D and A are read)");
    }
    if (fields == 0) {
      length = integer(word);
      if (kind != 'I' || length < 2 || length > kMaxRecordWords) fail(field_start, "a record length is out of range");
    } else if (fields == 1) {
      if (kind != 'I') fail(field_start, "a record key is not an integer");
      record.key = integer(word);
    } else {
      words.push_back(word);
    }
    ++fields;
    if (static_cast<std::int64_t>(fields) > length) fail(field_start, "a record has more fields than its length says");
  }
  if (static_cast<std::int64_t>(fields) != length)
    fail(start, "a record has " + std::to_string(fields) + " fields, its length says " + std::to_string(length));
  record.offset = start;
  return true;
}

}  // namespace meshioplusplus::abaqus_fil::detail
