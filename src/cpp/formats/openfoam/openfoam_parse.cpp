// The FoamFile grammar (openfoam_parse.hpp): header, tokens, lists, faces, dictionaries.
#include "formats/openfoam/openfoam_parse.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <filesystem>
#include <optional>
#include <system_error>

#include "io/codecs/zlib_codec.hpp"
#include "io/source/byte_order.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/limits.hpp"

namespace meshioplusplus::openfoam {
namespace {

bool is_delimiter(char c) noexcept {
  return c == ';' || c == '(' || c == ')' || c == '{' || c == '}' || c == '[' || c == ']' || c == '"';
}

bool ends_token(std::string_view text, std::size_t pos) noexcept {
  return pos >= text.size() || io::is_space(text[pos]) || is_delimiter(text[pos]) || text[pos] == '/';
}

std::string strip_quotes(std::string_view word) {
  if (word.size() >= 2 && word.front() == '"' && word.back() == '"') word = word.substr(1, word.size() - 2);
  return std::string(word);
}

bool is_regular_file(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

// The element sizes a binary list of `kind` may have, the header's first.
std::vector<int> candidate_sizes(const FoamHeader& header, ElementKind kind) {
  const int stated = element_bytes(header, kind);
  if (stated != 0) return {stated};
  switch (kind) {
    case ElementKind::label: return {4, 8};
    case ElementKind::scalar: return {8, 4};
    case ElementKind::boolean: return {1};
  }
  return {};
}

template <class From, class To>
void convert_raw(const char* raw, std::size_t count, bool swap, To* out) {
  if constexpr (std::is_same_v<From, To>) {
    if (!swap) {
      std::memcpy(out, raw, count * sizeof(To));
      return;
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    From value;
    if constexpr (std::is_floating_point_v<From>) {
      using Bits = std::conditional_t<sizeof(From) == 8, std::uint64_t, std::uint32_t>;
      Bits bits;
      std::memcpy(&bits, raw + i * sizeof(From), sizeof(From));
      if (swap) bits = sizeof(From) == 8 ? static_cast<Bits>(__builtin_bswap64(bits)) : static_cast<Bits>(__builtin_bswap32(static_cast<std::uint32_t>(bits)));
      std::memcpy(&value, &bits, sizeof(From));
    } else {
      value = swap ? io::load_integer<From, true>(reinterpret_cast<const unsigned char*>(raw + i * sizeof(From)))
                   : io::load_integer<From, false>(reinterpret_cast<const unsigned char*>(raw + i * sizeof(From)));
    }
    out[i] = static_cast<To>(value);
  }
}

DType dtype_of_kind(ElementKind kind) noexcept {
  switch (kind) {
    case ElementKind::label: return DType::int64;
    case ElementKind::scalar: return DType::float64;
    case ElementKind::boolean: return DType::uint8;
  }
  return DType::float64;
}

std::string_view kind_name(ElementKind kind) noexcept {
  switch (kind) {
    case ElementKind::label: return "label";
    case ElementKind::scalar: return "scalar";
    case ElementKind::boolean: return "bool";
  }
  return "";
}

// The claim of `count` elements at `at`: io::check_claim, with the claim's line counted only
// when the claim fails (counting lines from the start for every list made reads quadratic).
void check_list_claim(const FoamFile& file, std::size_t at, const std::string& what, std::uint64_t count,
                      std::uint64_t min_file_bytes_each, std::uint64_t bytes_left, std::uint64_t bytes_each_in_memory) {
  const auto needed = io::checked_product(count, min_file_bytes_each);
  const auto memory = io::checked_product(count, bytes_each_in_memory);
  if (needed && *needed <= bytes_left && memory && *memory <= max_array_bytes()) return;
  io::check_claim(file.path(), kFormat, what, count, min_file_bytes_each, bytes_left, bytes_each_in_memory,
                  {at, io::line_of_offset(file.text(), at)});
}

Shape list_shape(std::int64_t count, int width) {
  return width == 1 ? Shape{count} : Shape{count, width};
}

// One ASCII component into out[index].
void read_component(Cursor& cursor, ElementKind kind, NDArray& out, std::size_t index, std::string_view what) {
  switch (kind) {
    case ElementKind::label: out.data_as<std::int64_t>()[index] = cursor.label(what); return;
    case ElementKind::scalar: out.data_as<double>()[index] = cursor.scalar(what); return;
    case ElementKind::boolean: {
      if (cursor.at_number()) {
        out.data_as<std::uint8_t>()[index] = cursor.label(what) != 0 ? 1 : 0;
        return;
      }
      const std::string_view word = cursor.word(what);
      if (word == "true" || word == "on" || word == "yes" || word == "y" || word == "t") {
        out.data_as<std::uint8_t>()[index] = 1;
      } else if (word == "false" || word == "off" || word == "no" || word == "n" || word == "f" || word == "none") {
        out.data_as<std::uint8_t>()[index] = 0;
      } else {
        cursor.fail("in " + std::string(what) + ": '" + std::string(word) + "' is not a bool");
      }
      return;
    }
  }
}

void read_ascii_element(Cursor& cursor, ElementKind kind, int width, NDArray& out, std::size_t element,
                        std::string_view what) {
  if (width == 1) {
    read_component(cursor, kind, out, element, what);
    return;
  }
  cursor.expect('(', what);
  for (int c = 0; c < width; ++c) read_component(cursor, kind, out, element * static_cast<std::size_t>(width) + c, what);
  cursor.expect(')', what);
}

// Fills `out` (already allocated, `count` elements) from a binary block starting just past
// '(' at `open + 1`, with `size` bytes per component.
void copy_binary(const Cursor& cursor, std::size_t begin, std::size_t count, int width, ElementKind kind, int size,
                 NDArray& out) {
  const char* raw = cursor.file().text().data() + begin;
  const std::size_t n = count * static_cast<std::size_t>(width);
  const bool swap = cursor.file().header().swap_bytes;
  switch (kind) {
    case ElementKind::label:
      if (size == 4) convert_raw<std::int32_t>(raw, n, swap, out.data_as<std::int64_t>());
      else convert_raw<std::int64_t>(raw, n, swap, out.data_as<std::int64_t>());
      return;
    case ElementKind::scalar:
      if (size == 8) convert_raw<double>(raw, n, swap, out.data_as<double>());
      else convert_raw<float>(raw, n, swap, out.data_as<double>());
      return;
    case ElementKind::boolean:
      for (std::size_t i = 0; i < n; ++i) out.data_as<std::uint8_t>()[i] = raw[i] != 0 ? 1 : 0;
      return;
  }
}

// The binary block of `count` elements starting just past '(' at `begin`: its component size
// (stated, or told by where ')' is). Fails when it does not fit the file.
int binary_component_size(Cursor& cursor, std::size_t begin, std::uint64_t count, int width, ElementKind kind,
                          std::string_view what) {
  const std::string_view text = cursor.file().text();
  const std::vector<int> sizes = candidate_sizes(cursor.file().header(), kind);
  const std::uint64_t left = begin <= text.size() ? text.size() - begin : 0;
  for (int size : sizes) {
    const auto bytes = io::checked_product(count, static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(size));
    if (bytes && *bytes < left && text[begin + *bytes] == ')') return size;
  }
  const int size = sizes.front();
  const auto bytes = io::checked_product(count, static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(size));
  if (!bytes || *bytes >= left) {
    cursor.fail("binary list " + std::string(what) + " of " + std::to_string(count) + " elements needs " +
                (bytes ? std::to_string(*bytes) : std::string("over 2^64")) + " bytes (" + std::to_string(size) +
                "-byte " + std::string(kind_name(kind)) + "s), but the file has only " + std::to_string(left) +
                " bytes left");
  }
  cursor.fail("binary list " + std::string(what) + " of " + std::to_string(count) + " elements does not end with ')' "
              "where its size says (" + std::to_string(size) + "-byte " + std::string(kind_name(kind)) + "s)");
}

}  // namespace

// ---- FoamFile ----------------------------------------------------------------------------

FoamFile::FoamFile(const std::string& path, std::string case_note) : case_note_(std::move(case_note)) {
  const std::optional<std::string> found = locate(path);
  path_ = found ? *found : path;
  // A missing file: MappedFile's own ReadError says so, naming the path asked for.
  mapped_ = std::make_unique<io::MappedFile>(path_, kFormat);
  text_ = mapped_->bytes();
  if (io::is_gzip(text_)) {
    inflated_ = io::gunzip(text_, path_, kFormat);
    text_ = inflated_;
    compressed_ = true;
  }
  parse_header();
}

FoamFile::~FoamFile() = default;
FoamFile::FoamFile(FoamFile&&) noexcept = default;
FoamFile& FoamFile::operator=(FoamFile&&) noexcept = default;

std::optional<std::string> FoamFile::locate(const std::string& path) {
  if (is_regular_file(path)) return path;
  if (is_regular_file(path + ".gz")) return path + ".gz";
  return std::nullopt;
}

void FoamFile::fail(std::size_t offset, const std::string& message) const {
  offset = std::min(offset, text_.size());
  throw ReadError(path_, std::string(kFormat),
                  message + (compressed_ ? " (at that offset of the uncompressed text)" : "") + case_note_, offset,
                  io::line_of_offset(text_, offset));
}

void FoamFile::parse_header() {
  Cursor cursor(*this, 0);
  if (!cursor.skip_space_and_directives()) {
    body_ = text_.size();
    return;
  }
  const std::size_t start = cursor.position();
  if (cursor.peek() == '"' || is_delimiter(cursor.peek())) return;
  if (cursor.word("header") != "FoamFile" || cursor.peek() != '{') {
    body_ = start;  // no header: an ASCII file (OpenFOAM's own readers accept that too)
    return;
  }
  cursor.expect('{', "FoamFile header");
  std::size_t end = 0;
  const std::vector<DictEntry> entries = dictionary_entries(*this, cursor.position(), &end);
  header_.present = true;
  if (const DictEntry* format = find_entry(entries, "format")) {
    const std::string value = entry_word(*this, *format);
    if (value == "binary") header_.binary = true;
    else if (value != "ascii") fail(format->value, "FoamFile format '" + value + "' is neither ascii nor binary");
  }
  if (const DictEntry* klass = find_entry(entries, "class")) header_.class_name = entry_word(*this, *klass);
  if (const DictEntry* object = find_entry(entries, "object")) header_.object = entry_word(*this, *object);
  if (const DictEntry* arch = find_entry(entries, "arch")) {
    const std::string value = entry_word(*this, *arch);
    const auto bits = [&](std::string_view key) {
      const std::size_t at = value.find(key);
      if (at == std::string::npos) return 0;
      int number = 0;
      const char* first = value.data() + at + key.size();
      std::from_chars(first, value.data() + value.size(), number);
      if (number != 32 && number != 64) fail(arch->value, "arch '" + value + "': " + std::string(key) + " must be 32 or 64");
      return number / 8;
    };
    header_.label_bytes = bits("label=");
    header_.scalar_bytes = bits("scalar=");
    const bool msb = value.rfind("MSB", 0) == 0;
    header_.swap_bytes = msb == io::kHostIsLittleEndian;
  }
  body_ = end;
}

// ---- Cursor ------------------------------------------------------------------------------

bool Cursor::skip_space() {
  const std::size_t size = text_.size();
  while (pos_ < size) {
    const char c = text_[pos_];
    if (io::is_space(c)) {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < size && text_[pos_ + 1] == '/') {
      const char* newline = io::find_newline(text_.data() + pos_, text_.data() + size);
      pos_ = newline ? static_cast<std::size_t>(newline - text_.data()) + 1 : size;
    } else if (c == '/' && pos_ + 1 < size && text_[pos_ + 1] == '*') {
      const std::size_t close = text_.find("*/", pos_ + 2);
      pos_ = close == std::string_view::npos ? size : close + 2;
    } else {
      return true;
    }
  }
  return false;
}

bool Cursor::skip_space_and_directives() {
  while (skip_space()) {
    if (text_[pos_] != '#') return true;
    const char* newline = io::find_newline(text_.data() + pos_, text_.data() + text_.size());
    pos_ = newline ? static_cast<std::size_t>(newline - text_.data()) + 1 : text_.size();
  }
  return false;
}

char Cursor::peek() { return skip_space() ? text_[pos_] : '\0'; }

bool Cursor::accept(char c) {
  if (peek() != c) return false;
  ++pos_;
  return true;
}

void Cursor::expect(char c, std::string_view what) {
  if (accept(c)) return;
  const char found = peek();
  std::string seen = found == '\0' ? std::string("the end of the file")
                                   : (static_cast<unsigned char>(found) >= 32 && static_cast<unsigned char>(found) < 127
                                          ? "'" + std::string(1, found) + "'"
                                          : "byte " + std::to_string(static_cast<unsigned char>(found)));
  fail("in " + std::string(what) + ": expected '" + std::string(1, c) + "', found " + seen);
}

std::string_view Cursor::word(std::string_view what) {
  if (!skip_space()) fail("in " + std::string(what) + ": the file ends where a word was expected");
  const std::size_t begin = pos_;
  if (text_[pos_] == '"') {
    std::size_t p = pos_ + 1;
    while (p < text_.size() && text_[p] != '"') p += text_[p] == '\\' ? 2 : 1;
    if (p >= text_.size()) fail("in " + std::string(what) + ": a string that never ends");
    pos_ = p + 1;
    return text_.substr(begin, pos_ - begin);
  }
  while (pos_ < text_.size() && !io::is_space(text_[pos_]) && !is_delimiter(text_[pos_])) ++pos_;
  if (pos_ == begin) fail("in " + std::string(what) + ": expected a word, found '" + std::string(1, text_[pos_]) + "'");
  return text_.substr(begin, pos_ - begin);
}

bool Cursor::at_number() {
  if (!skip_space()) return false;
  const auto digit = [&](std::size_t p) { return p < text_.size() && text_[p] >= '0' && text_[p] <= '9'; };
  const char c = text_[pos_];
  if (digit(pos_)) return true;
  if (c == '-' || c == '+') return digit(pos_ + 1) || (pos_ + 2 < text_.size() && text_[pos_ + 1] == '.' && digit(pos_ + 2));
  if (c == '.') return digit(pos_ + 1);
  return false;
}

std::int64_t Cursor::label(std::string_view what) {
  if (!skip_space()) fail("in " + std::string(what) + ": the file ends where a label was expected");
  const char* first = text_.data() + pos_;
  const char* last = text_.data() + text_.size();
  if (*first == '+') ++first;
  std::int64_t value = 0;
  const auto [end, error] = io::parse_int64(first, last, value);
  const std::size_t stop = static_cast<std::size_t>(end - text_.data());
  if (error != std::errc{} || !ends_token(text_, stop)) {
    std::size_t token_end = pos_;
    while (!ends_token(text_, token_end) && token_end - pos_ < 32) ++token_end;
    fail("in " + std::string(what) + ": expected a label, found '" + std::string(text_.substr(pos_, std::max<std::size_t>(token_end - pos_, 1))) + "'");
  }
  pos_ = stop;
  return value;
}

double Cursor::scalar(std::string_view what) {
  if (!skip_space()) fail("in " + std::string(what) + ": the file ends where a number was expected");
  const char* first = text_.data() + pos_;
  const char* last = text_.data() + text_.size();
  if (*first == '+') ++first;
  double value = 0;
  const auto [end, error] = std::from_chars(first, last, value, std::chars_format::general);
  const std::size_t stop = static_cast<std::size_t>(end - text_.data());
  if ((error != std::errc{} && error != std::errc::result_out_of_range) || !ends_token(text_, stop)) {
    std::size_t token_end = pos_;
    while (!ends_token(text_, token_end) && token_end - pos_ < 32) ++token_end;
    fail("in " + std::string(what) + ": expected a number, found '" + std::string(text_.substr(pos_, std::max<std::size_t>(token_end - pos_, 1))) + "'");
  }
  pos_ = stop;
  return value;
}

void Cursor::skip_group() {
  const char open = peek();
  if (open != '(' && open != '{') fail("expected '(' or '{'");
  int depth = 0;
  do {
    if (!skip_space()) fail("a bracket that is never closed");
    const char c = text_[pos_];
    if (c == '(' || c == '{' || c == '[') {
      ++depth;
      ++pos_;
    } else if (c == ')' || c == '}' || c == ']') {
      --depth;
      ++pos_;
    } else if (c == '"') {
      word("a string");
    } else {
      ++pos_;
    }
  } while (depth > 0);
}

void Cursor::skip_value() {
  const bool binary = file_->header().binary;
  int depth = 0;
  int list_width = 0;  // components of the List<T> just named (0: none or not contiguous)
  ElementKind list_kind = ElementKind::scalar;
  for (;;) {
    if (!skip_space()) fail("an entry that never ends (no ';')");
    const char c = text_[pos_];
    if (depth == 0 && c == ';') {
      ++pos_;
      return;
    }
    if (depth == 0 && c == '}') return;  // the last entry of a dictionary without its ';'
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
      ++pos_;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) fail("unbalanced '" + std::string(1, c) + "'");
      --depth;
      ++pos_;
    } else if (c == '"') {
      word("a string");
    } else if (at_number()) {
      const std::size_t number_at = pos_;
      while (!ends_token(text_, pos_)) ++pos_;
      if (binary && list_width > 0 && pos_ < text_.size() && (text_[pos_] == '(' || peek() == '(')) {
        seek(number_at);
        const std::int64_t count = label("a binary list");
        skip_space();
        if (count < 0) fail("a list of negative size");
        const int size = binary_component_size(*this, pos_ + 1, static_cast<std::uint64_t>(count), list_width, list_kind,
                                               "value");
        pos_ += 1 + static_cast<std::size_t>(count) * static_cast<std::size_t>(list_width) * static_cast<std::size_t>(size) + 1;
      }
      list_width = 0;
    } else {
      const std::string_view token = word("a value");
      if (token.rfind("List<", 0) == 0 && token.back() == '>') {
        list_width = components_of(token.substr(5, token.size() - 6), &list_kind);
      } else {
        list_width = 0;
      }
    }
  }
}

// ---- lists -------------------------------------------------------------------------------

int element_bytes(const FoamHeader& header, ElementKind kind) noexcept {
  switch (kind) {
    case ElementKind::label: return header.label_bytes;
    case ElementKind::scalar: return header.scalar_bytes;
    case ElementKind::boolean: return 1;
  }
  return 0;
}

int components_of(std::string_view type_name, ElementKind* kind) noexcept {
  struct Row {
    std::string_view name;
    int width;
    ElementKind kind;
  };
  static constexpr Row kRows[] = {
      {"scalar", 1, ElementKind::scalar},       {"vector", 3, ElementKind::scalar},
      {"symmTensor", 6, ElementKind::scalar},   {"tensor", 9, ElementKind::scalar},
      {"sphericalTensor", 1, ElementKind::scalar}, {"diagTensor", 3, ElementKind::scalar},
      {"vector2D", 2, ElementKind::scalar},     {"symmTensor2D", 3, ElementKind::scalar},
      {"tensor2D", 4, ElementKind::scalar},     {"complex", 2, ElementKind::scalar},
      {"label", 1, ElementKind::label},         {"bool", 1, ElementKind::boolean},
  };
  for (const Row& row : kRows)
    if (row.name == type_name) {
      if (kind != nullptr) *kind = row.kind;
      return row.width;
    }
  return 0;
}

namespace {

// ---- ASCII lists on every core ------------------------------------------------------------
// Large lists hold one element per line — what OpenFOAM and our writer write: "13", "(x y z)",
// "3(a b c)". Such a list is parsed on all cores (io::parse_lines_in_parallel) by readers that
// accept only that plain layout, with the same number parsers the Cursor uses (io::parse_int64,
// std::from_chars general); any other line (a comment, a '+', two elements on one line, a
// number Cursor would read differently) makes them give up, and the sequential loop then reads
// the whole list, so results and errors are the sequential ones.

const char* skip_blanks(const char* p, const char* end) noexcept {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
  return p;
}

// A label ending at a blank, '(' or ')' (or the line's end): its end, or nullptr.
const char* plain_label(const char* p, const char* end, std::int64_t& value) noexcept {
  if (p >= end || *p == '+') return nullptr;
  const auto [stop, error] = io::parse_int64(p, end, value);
  if (error != std::errc{} || stop == p) return nullptr;
  if (stop < end && *stop != ' ' && *stop != '\t' && *stop != '\r' && *stop != '(' && *stop != ')') return nullptr;
  return stop;
}

const char* plain_scalar(const char* p, const char* end, double& value) noexcept {
  if (p >= end || *p == '+') return nullptr;
  const auto [stop, error] = std::from_chars(p, end, value, std::chars_format::general);
  if (error != std::errc{} || stop == p) return nullptr;
  if (stop < end && *stop != ' ' && *stop != '\t' && *stop != '\r' && *stop != ')') return nullptr;
  return stop;
}

// Where the list's first line starts (the list's '(' ends its own line), else nullopt.
std::optional<std::size_t> first_line_after(const Cursor& cursor) {
  const std::string_view text = cursor.file().text();
  std::size_t at = cursor.position();
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\r')) ++at;
  if (at >= text.size() || text[at] != '\n') return std::nullopt;
  return at + 1;
}

// Labels (width 1) or scalar tuples "(a b …)" one per line into `out`; false: not so laid out,
// or too small to split — the cursor is untouched then.
bool read_lines_in_parallel(Cursor& cursor, ElementKind kind, int width, std::uint64_t n, NDArray& out) {
  if (kind == ElementKind::boolean || (kind == ElementKind::label && width != 1)) return false;
  const std::optional<std::size_t> begin = first_line_after(cursor);
  if (!begin) return false;
  const std::string_view text = cursor.file().text();
  const auto parse = [&](std::uint64_t i, std::size_t first, std::size_t last) {
    const char* p = skip_blanks(text.data() + first, text.data() + last);
    const char* end = text.data() + last;
    if (kind == ElementKind::label) {
      p = plain_label(p, end, out.data_as<std::int64_t>()[i]);
    } else if (width == 1) {
      p = plain_scalar(p, end, out.data_as<double>()[i]);
    } else {
      if (p >= end || *p != '(') return false;
      double* row = out.data_as<double>() + i * static_cast<std::uint64_t>(width);
      for (int c = 0; c < width && p != nullptr; ++c) p = plain_scalar(skip_blanks(p + (c == 0 ? 1 : 0), end), end, row[c]);
      if (p == nullptr || (p = skip_blanks(p, end)) >= end || *p != ')') return false;
      ++p;
    }
    return p != nullptr && skip_blanks(p, end) == end;
  };
  const std::optional<std::size_t> end = io::parse_lines_in_parallel(text, *begin, n, parse);
  if (!end) return false;
  cursor.seek(*end);
  return true;
}

}  // namespace

NDArray read_list(Cursor& cursor, ElementKind kind, int width, std::string_view what, bool scratch, bool int32_labels) {
  const FoamFile& file = cursor.file();
  const auto allocate = [scratch](DType type, Shape shape) {
    return scratch ? NDArray::allocate_scratch(type, std::move(shape)) : NDArray::allocate(type, std::move(shape));
  };
  const std::string_view text = file.text();
  if (!cursor.skip_space()) cursor.fail("the file ends where the list " + std::string(what) + " was expected");
  const DType dtype = dtype_of_kind(kind);
  const std::size_t component_bytes = dtype_size(dtype);
  if (cursor.peek() == '(') {
    // No count (hand-written): count the elements of the balanced list first.
    const std::size_t open = cursor.position();
    cursor.skip_group();
    const std::size_t close = cursor.position();
    cursor.seek(open + 1);
    std::int64_t count = 0;
    while (cursor.peek() != ')' && cursor.position() < close) {
      if (cursor.peek() == '(') cursor.skip_group();
      else cursor.word(what);
      ++count;
    }
    cursor.seek(open);
    cursor.expect('(', what);
    NDArray out = allocate(dtype, list_shape(count, width));
    for (std::int64_t i = 0; i < count; ++i) read_ascii_element(cursor, kind, width, out, static_cast<std::size_t>(i), what);
    cursor.expect(')', what);
    return out;
  }
  const std::size_t count_at = cursor.position();
  const std::int64_t count = cursor.label(std::string(what) + " (its size)");
  if (count < 0) file.fail(count_at, "the list " + std::string(what) + " has a negative size (" + std::to_string(count) + ")");
  const auto n = static_cast<std::uint64_t>(count);
  const char next = cursor.peek();
  if (next == '{') {
    // N copies of one element.
    check_list_claim(file, count_at, std::string(what) + " elements", n, 0, 0, component_bytes * static_cast<std::size_t>(width));
    cursor.expect('{', what);
    NDArray one = NDArray::allocate_scratch(dtype, list_shape(1, width));
    read_ascii_element(cursor, kind, width, one, 0, what);
    cursor.expect('}', what);
    NDArray out = allocate(dtype, list_shape(count, width));
    const std::size_t row = component_bytes * static_cast<std::size_t>(width);
    for (std::uint64_t i = 0; i < n; ++i) std::memcpy(static_cast<char*>(out.data()) + i * row, one.data(), row);
    return out;
  }
  if (next != '(') {
    if (count == 0) return NDArray::allocate(dtype, list_shape(0, width));  // a binary empty list: "0" alone
    cursor.expect('(', what);
  }
  const std::size_t open = cursor.position();
  if (file.header().binary) {
    const int size = binary_component_size(cursor, open + 1, n, width, kind, what);
    check_list_claim(file, count_at, std::string(what) + " elements", n,
                     static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(size), text.size() - open - 1,
                     component_bytes * static_cast<std::size_t>(width));
    if (int32_labels && kind == ElementKind::label && size == 4) {
      // A temporary's 32-bit labels stay 32-bit (half the memory; the reader narrows the rest).
      NDArray out = allocate(DType::int32, list_shape(count, width));
      convert_raw<std::int32_t>(text.data() + open + 1, n * static_cast<std::size_t>(width), file.header().swap_bytes,
                                out.data_as<std::int32_t>());
      cursor.seek(open + 1 + n * static_cast<std::size_t>(width) * static_cast<std::size_t>(size) + 1);
      return out;
    }
    NDArray out = allocate(dtype, list_shape(count, width));
    copy_binary(cursor, open + 1, n, width, kind, size, out);
    cursor.seek(open + 1 + n * static_cast<std::size_t>(width) * static_cast<std::size_t>(size) + 1);
    return out;
  }
  // ASCII: a number takes at least two bytes (digit and separator); a tuple two more.
  check_list_claim(file, count_at, std::string(what) + " elements", n,
                   static_cast<std::uint64_t>(width) * 2 + (width > 1 ? 2 : 0), text.size() - open,
                   component_bytes * static_cast<std::size_t>(width));
  cursor.expect('(', what);
  NDArray out = allocate(dtype, list_shape(count, width));
  if (!read_lines_in_parallel(cursor, kind, width, n, out))
    for (std::uint64_t i = 0; i < n; ++i) read_ascii_element(cursor, kind, width, out, i, what);
  if (cursor.peek() != ')') {
    cursor.fail("the list " + std::string(what) + " has more elements than its size " + std::to_string(count) + " says");
  }
  cursor.expect(')', what);
  return out;
}

std::vector<std::string> read_word_list(Cursor& cursor, std::string_view what) {
  std::vector<std::string> words;
  if (cursor.at_number()) {
    const std::int64_t count = cursor.label(what);
    if (count < 0) cursor.fail("the list " + std::string(what) + " has a negative size");
    if (cursor.peek() != '(' && count == 0) return words;
    if (cursor.peek() == '{') {
      cursor.expect('{', what);
      const std::string word = strip_quotes(cursor.word(what));
      cursor.expect('}', what);
      io::check_claim_fits_limit(cursor.file().path(), kFormat, std::string(what) + " words",
                                 static_cast<std::uint64_t>(count), word.size() + 32);
      words.assign(static_cast<std::size_t>(count), word);
      return words;
    }
  }
  cursor.expect('(', what);
  while (cursor.peek() != ')') {
    if (cursor.peek() == '\0') cursor.fail("the list " + std::string(what) + " never ends");
    words.push_back(strip_quotes(cursor.word(what)));
  }
  cursor.expect(')', what);
  return words;
}

NDArray read_list_file(const FoamFile& file, ElementKind kind, int width, std::string_view what, bool scratch,
                       bool int32_labels) {
  Cursor cursor(file, file.body());
  if (!cursor.skip_space_and_directives()) file.fail(file.body(), "no " + std::string(what) + " list in the file");
  return read_list(cursor, kind, width, what, scratch, int32_labels);
}

namespace {

// faceList's "k(a b c …)" lines on every core: the sizes first (into offsets[1..n], each
// bounded by its line: a label takes two bytes), then the labels straight into place, as int32
// (half the memory of a large mesh's largest list). False: not so laid out, or a label outside
// int32 (the sequential int64 path then reads it and the reader names a bad one), the cursor
// untouched and `faces` unset.
// Offsets are int32 where the text is under 2 GiB (a label takes two bytes: they fit), which the
// reader widens once the file is closed.
template <class Offset>
bool read_faces_in_parallel_as(Cursor& cursor, std::uint64_t n, Faces& faces) {
  const std::optional<std::size_t> begin = first_line_after(cursor);
  if (!begin) return false;
  const std::string_view text = cursor.file().text();
  NDArray offsets = NDArray::allocate_scratch(sizeof(Offset) == 4 ? DType::int32 : DType::int64, {static_cast<std::int64_t>(n) + 1});
  Offset* offset = offsets.data_as<Offset>();
  const auto size_of = [&](std::uint64_t i, std::size_t first, std::size_t last) {
    const char* end = text.data() + last;
    std::int64_t k = 0;
    const char* p = plain_label(skip_blanks(text.data() + first, end), end, k);
    if (p == nullptr || k < 0 || static_cast<std::uint64_t>(k) > (last - first) / 2) return false;
    offset[i + 1] = static_cast<Offset>(k);
    return true;
  };
  if (!io::parse_lines_in_parallel(text, *begin, n, size_of)) return false;
  offset[0] = 0;
  for (std::uint64_t f = 0; f < n; ++f) offset[f + 1] += offset[f];  // at most half the list's bytes
  NDArray nodes = NDArray::allocate_scratch(DType::int32, {offset[n]});
  std::int32_t* node = nodes.data_as<std::int32_t>();
  const auto labels_of = [&](std::uint64_t i, std::size_t first, std::size_t last) {
    const char* end = text.data() + last;
    std::int64_t k = 0;
    const char* p = plain_label(skip_blanks(text.data() + first, end), end, k);
    if (p == nullptr || k != offset[i + 1] - offset[i] || (p = skip_blanks(p, end)) >= end || *p != '(') return false;
    ++p;
    for (std::int64_t j = 0; j < k && p != nullptr; ++j) {
      std::int64_t label = 0;
      p = plain_label(skip_blanks(p, end), end, label);
      if (label < std::numeric_limits<std::int32_t>::min() || label > std::numeric_limits<std::int32_t>::max()) return false;
      node[offset[i] + j] = static_cast<std::int32_t>(label);
    }
    if (p == nullptr || (p = skip_blanks(p, end)) >= end || *p != ')') return false;
    return skip_blanks(p + 1, end) == end;
  };
  const std::optional<std::size_t> end = io::parse_lines_in_parallel(text, *begin, n, labels_of);
  if (!end) return false;
  cursor.seek(*end);
  faces.offsets = std::move(offsets);
  faces.nodes = std::move(nodes);
  return true;
}

bool read_faces_in_parallel(Cursor& cursor, std::uint64_t n, Faces& faces) {
  if (cursor.file().text().size() < (std::size_t{1} << 31)) return read_faces_in_parallel_as<std::int32_t>(cursor, n, faces);
  return read_faces_in_parallel_as<std::int64_t>(cursor, n, faces);
}

}  // namespace

Faces read_faces_file(const FoamFile& file) {
  Cursor cursor(file, file.body());
  if (!cursor.skip_space_and_directives()) file.fail(file.body(), "no faces list in the file");
  const std::string_view text = file.text();
  Faces faces;
  if (file.header().class_name == "faceCompactList") {
    faces.offsets = read_list(cursor, ElementKind::label, 1, "faces (offsets)", true);
    faces.nodes = read_list(cursor, ElementKind::label, 1, "faces (nodes)", true, true);
    const auto offsets = faces.offsets.values<std::int64_t>();
    if (offsets.empty()) {
      faces.offsets = NDArray::zeros(DType::int64, {1});
      if (faces.nodes.rows() != 0) file.fail(file.body(), "faceCompactList: no offsets but " + std::to_string(faces.nodes.rows()) + " nodes");
      return faces;
    }
    if (offsets.front() != 0) file.fail(file.body(), "faceCompactList: the first offset is " + std::to_string(offsets.front()) + ", not 0");
    for (std::size_t f = 1; f < offsets.size(); ++f)
      if (offsets[f] < offsets[f - 1])
        file.fail(file.body(), "faceCompactList: offset " + std::to_string(f) + " (" + std::to_string(offsets[f]) +
                                   ") is smaller than the one before (" + std::to_string(offsets[f - 1]) + ")");
    if (offsets.back() != faces.nodes.rows())
      file.fail(file.body(), "faceCompactList: the last offset is " + std::to_string(offsets.back()) + " but the node list has " +
                                 std::to_string(faces.nodes.rows()) + " labels");
    return faces;
  }
  // faceList: N ( k(a b c …) … ), each face ASCII or (binary files) k(<raw labels>).
  const std::size_t count_at = cursor.position();
  const std::int64_t count = cursor.label("faces (their number)");
  if (count < 0) file.fail(count_at, "faces: a negative number of faces (" + std::to_string(count) + ")");
  const auto n = static_cast<std::uint64_t>(count);
  if (count == 0 && cursor.peek() != '(') {
    faces.offsets = NDArray::zeros(DType::int64, {1});
    faces.nodes = NDArray::allocate(DType::int64, {0});
    return faces;
  }
  cursor.expect('(', "faces");
  // A face takes at least "3(a b c)" — 8 bytes in text, more in binary.
  check_list_claim(file, count_at, "faces", n, 8, text.size() - cursor.position(), 8);
  if (!file.header().binary && read_faces_in_parallel(cursor, n, faces)) {
    if (cursor.peek() != ')') cursor.fail("faces: more faces than the " + std::to_string(count) + " the list says");
    cursor.expect(')', "faces");
    return faces;
  }
  faces.offsets = NDArray::allocate_scratch(DType::int64, {count + 1});
  std::int64_t* offsets = faces.offsets.data_as<std::int64_t>();
  offsets[0] = 0;
  std::vector<std::int64_t> nodes;
  nodes.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n * 4, (text.size() - cursor.position()) / 2)));
  const bool binary = file.header().binary;
  int label_size = file.header().label_bytes;
  for (std::uint64_t f = 0; f < n; ++f) {
    const std::size_t face_at = cursor.position();
    const std::int64_t k = cursor.label("faces (a face's size)");
    if (k < 0) file.fail(face_at, "face " + std::to_string(f) + " has a negative size");
    if (binary) {
      if (k != 0 || cursor.peek() == '(') cursor.expect('(', "faces");
      if (label_size == 0) label_size = binary_component_size(cursor, cursor.position(), static_cast<std::uint64_t>(k), 1, ElementKind::label, "face");
      const auto bytes = io::checked_product(static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(label_size));
      if (!bytes || *bytes >= text.size() - cursor.position() || text[cursor.position() + *bytes] != ')')
        file.fail(face_at, "face " + std::to_string(f) + ": " + std::to_string(k) + " labels do not fit before its ')'");
      const std::size_t begin = nodes.size();
      nodes.resize(begin + static_cast<std::size_t>(k));
      if (label_size == 4) convert_raw<std::int32_t>(text.data() + cursor.position(), static_cast<std::size_t>(k), file.header().swap_bytes, nodes.data() + begin);
      else convert_raw<std::int64_t>(text.data() + cursor.position(), static_cast<std::size_t>(k), file.header().swap_bytes, nodes.data() + begin);
      cursor.seek(cursor.position() + *bytes + 1);
    } else {
      // A label takes two bytes at least (the claim's site, its line, only on failure).
      if (static_cast<std::uint64_t>(k) > (text.size() - cursor.position()) / 2)
        io::check_claim_fits_file(file.path(), kFormat, "labels of a face", static_cast<std::uint64_t>(k), 2,
                                  text.size() - cursor.position(), {face_at, io::line_of_offset(text, face_at)});
      cursor.expect('(', "faces");
      for (std::int64_t i = 0; i < k; ++i) nodes.push_back(cursor.label("faces"));
      cursor.expect(')', "faces");
    }
    offsets[f + 1] = static_cast<std::int64_t>(nodes.size());
  }
  if (cursor.peek() != ')') cursor.fail("faces: more faces than the " + std::to_string(count) + " the list says");
  cursor.expect(')', "faces");
  faces.nodes = NDArray::allocate_scratch(DType::int64, {static_cast<std::int64_t>(nodes.size())});
  if (!nodes.empty()) std::memcpy(faces.nodes.data(), nodes.data(), nodes.size() * sizeof(std::int64_t));
  return faces;
}

// ---- dictionaries ------------------------------------------------------------------------

namespace {

// The entries of a dictionary; with `wanted`, stops at the entry of that keyword (returned last,
// its value not read).
std::vector<DictEntry> walk_dictionary(const FoamFile& file, std::size_t begin, std::size_t* end, std::string_view wanted) {
  std::vector<DictEntry> entries;
  Cursor cursor(file, begin);
  for (;;) {
    if (!cursor.skip_space_and_directives()) {
      if (end != nullptr) *end = cursor.position();
      return entries;
    }
    const char c = cursor.peek();
    if (c == '}') {
      cursor.expect('}', "a dictionary");
      if (end != nullptr) *end = cursor.position();
      return entries;
    }
    if (c == ';') {  // a stray ';'
      cursor.expect(';', "a dictionary");
      continue;
    }
    if (c == ')' || c == '(' || c == '{' || c == '[' || c == ']') cursor.fail("expected a keyword, found '" + std::string(1, c) + "'");
    DictEntry entry;
    entry.keyword = strip_quotes(cursor.word("a keyword"));
    if (!wanted.empty() && entry.keyword == wanted) {
      entry.is_dict = cursor.peek() == '{';
      entry.value = cursor.position() + (entry.is_dict ? 1 : 0);
      entries.push_back(std::move(entry));
      return entries;
    }
    if (cursor.peek() == '{') {
      cursor.expect('{', "a dictionary");
      entry.is_dict = true;
      entry.value = cursor.position();
      std::size_t sub_end = 0;
      dictionary_entries(file, cursor.position(), &sub_end);
      if (sub_end > file.text().size() || sub_end == 0 || file.text()[sub_end - 1] != '}')
        file.fail(entry.value, "the dictionary '" + entry.keyword + "' is never closed");
      cursor.seek(sub_end);
    } else {
      entry.value = cursor.position();
      cursor.skip_value();
    }
    entry.end = cursor.position();
    entries.push_back(std::move(entry));
  }
}

}  // namespace

std::vector<DictEntry> dictionary_entries(const FoamFile& file, std::size_t begin, std::size_t* end) {
  return walk_dictionary(file, begin, end, {});
}

std::optional<DictEntry> find_dictionary_entry(const FoamFile& file, std::size_t begin, std::string_view keyword) {
  std::vector<DictEntry> entries = walk_dictionary(file, begin, nullptr, keyword);
  if (entries.empty() || entries.back().keyword != keyword) return std::nullopt;
  return std::move(entries.back());
}

const DictEntry* find_entry(const std::vector<DictEntry>& entries, std::string_view keyword) noexcept {
  // The last one wins, as in OpenFOAM's own dictionaries.
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)
    if (it->keyword == keyword) return &*it;
  return nullptr;
}

std::string entry_word(const FoamFile& file, const DictEntry& entry) {
  Cursor cursor(file, entry.value);
  if (entry.is_dict) file.fail(entry.value, "'" + entry.keyword + "' is a dictionary, not a word");
  if (cursor.peek() == ';') file.fail(entry.value, "'" + entry.keyword + "' has no value");
  return strip_quotes(cursor.word(entry.keyword));
}

std::int64_t entry_label(const FoamFile& file, const DictEntry& entry) {
  Cursor cursor(file, entry.value);
  if (entry.is_dict) file.fail(entry.value, "'" + entry.keyword + "' is a dictionary, not a label");
  return cursor.label(entry.keyword);
}

std::vector<NamedDict> read_named_dicts(const FoamFile& file, std::string_view what) {
  Cursor cursor(file, file.body());
  std::vector<NamedDict> dicts;
  if (!cursor.skip_space_and_directives()) return dicts;
  std::int64_t count = -1;
  const std::size_t count_at = cursor.position();
  if (cursor.at_number()) {
    count = cursor.label(std::string(what) + " (their number)");
    if (count < 0) file.fail(count_at, std::string(what) + ": a negative count");
    if (count == 0 && cursor.peek() != '(') return dicts;
  }
  cursor.expect('(', what);
  while (cursor.skip_space_and_directives() && cursor.peek() != ')') {
    NamedDict dict;
    dict.at = cursor.position();
    dict.name = strip_quotes(cursor.word(what));
    cursor.expect('{', std::string(what) + " '" + dict.name + "'");
    std::size_t end = 0;
    dict.entries = dictionary_entries(file, cursor.position(), &end);
    if (end == 0 || file.text()[end - 1] != '}') file.fail(dict.at, std::string(what) + " '" + dict.name + "': its dictionary is never closed");
    cursor.seek(end);
    dicts.push_back(std::move(dict));
  }
  cursor.expect(')', what);
  if (count >= 0 && static_cast<std::size_t>(count) != dicts.size())
    file.fail(count_at, std::string(what) + ": the list says " + std::to_string(count) + " entries but holds " + std::to_string(dicts.size()));
  return dicts;
}

}  // namespace meshioplusplus::openfoam
