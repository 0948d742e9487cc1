// Strict, bounded JSON reader: see json.hpp.
#include "io/text/json.hpp"

#include <charconv>
#include <cstdio>
#include <string>

#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/limits.hpp"

namespace meshioplusplus::io {

const JsonValue* JsonValue::find(std::string_view key) const noexcept {
  for (const auto& member : members_)
    if (member.first == key) return &member.second;
  return nullptr;
}

class JsonParser {
 public:
  JsonParser(std::string_view text, const std::string& path, std::string_view format, std::uint64_t base_offset)
      : text_(text), path_(path), format_(format), base_offset_(base_offset) {}

  JsonValue parse_document() {
    skip_space();
    JsonValue root = parse_value(0);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the JSON document");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw ReadError(path_, std::string(format_), "JSON: " + message, base_offset_ + pos_);
  }

  void skip_space() noexcept {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  // Every value costs one JsonValue: counting them bounds the memory a document can claim.
  void count_value() {
    ++values_;
    if (values_ * sizeof(JsonValue) > max_array_bytes())
      fail("the document holds more values than the array size limit allows");
  }

  JsonValue parse_value(int depth) {
    if (depth > kMaxJsonDepth) fail("nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    if (pos_ >= text_.size()) fail("the document ends where a value was expected (truncated?)");
    count_value();
    JsonValue value;
    value.offset_ = base_offset_ + pos_;
    const char c = text_[pos_];
    if (c == '{') {
      value.kind_ = JsonValue::Kind::object;
      ++pos_;
      skip_space();
      if (peek() == '}') {
        ++pos_;
        return value;
      }
      while (true) {
        skip_space();
        if (peek() != '"') fail("expected a member name in quotes");
        std::string key = parse_string();
        skip_space();
        if (peek() != ':') fail("expected ':' after a member name");
        ++pos_;
        skip_space();
        JsonValue member = parse_value(depth + 1);
        value.members_.emplace_back(std::move(key), std::move(member));
        skip_space();
        const char next = peek();
        ++pos_;
        if (next == '}') return value;
        if (next != ',') {
          --pos_;
          fail("expected ',' or '}' in an object");
        }
      }
    }
    if (c == '[') {
      value.kind_ = JsonValue::Kind::array;
      ++pos_;
      skip_space();
      if (peek() == ']') {
        ++pos_;
        return value;
      }
      while (true) {
        skip_space();
        value.items_.push_back(parse_value(depth + 1));
        skip_space();
        const char next = peek();
        ++pos_;
        if (next == ']') return value;
        if (next != ',') {
          --pos_;
          fail("expected ',' or ']' in an array");
        }
      }
    }
    if (c == '"') {
      value.kind_ = JsonValue::Kind::string;
      value.string_ = parse_string();
      return value;
    }
    if (literal("true")) {
      value.kind_ = JsonValue::Kind::boolean;
      value.boolean_ = true;
      return value;
    }
    if (literal("false")) {
      value.kind_ = JsonValue::Kind::boolean;
      return value;
    }
    if (literal("null")) return value;
    parse_number(value);
    return value;
  }

  char peek() const {
    if (pos_ >= text_.size()) fail("the document ends early (truncated?)");
    return text_[pos_];
  }

  bool literal(std::string_view word) noexcept {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  void parse_number(JsonValue& value) {
    const std::size_t start = pos_;
    std::size_t i = pos_;
    if (i < text_.size() && text_[i] == '-') ++i;
    const std::size_t digits_start = i;
    while (i < text_.size() && text_[i] >= '0' && text_[i] <= '9') ++i;
    if (i == digits_start) fail("expected a value");
    if (text_[digits_start] == '0' && i - digits_start > 1) fail("a number with a leading zero");
    bool integer = true;
    if (i < text_.size() && text_[i] == '.') {
      integer = false;
      const std::size_t fraction = ++i;
      while (i < text_.size() && text_[i] >= '0' && text_[i] <= '9') ++i;
      if (i == fraction) fail("a number without digits after '.'");
    }
    if (i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
      integer = false;
      ++i;
      if (i < text_.size() && (text_[i] == '+' || text_[i] == '-')) ++i;
      const std::size_t exponent = i;
      while (i < text_.size() && text_[i] >= '0' && text_[i] <= '9') ++i;
      if (i == exponent) fail("a number without exponent digits");
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + i;
    value.kind_ = JsonValue::Kind::number;
    const auto parsed = std::from_chars(first, last, value.number_);
    if (parsed.ec == std::errc::result_out_of_range) fail("a number out of the double range");
    if (parsed.ec != std::errc() || parsed.ptr != last) fail("a malformed number");
    if (integer) {
      const auto exact = std::from_chars(first, last, value.int_);
      value.integer_ = exact.ec == std::errc() && exact.ptr == last;
    }
    pos_ = i;
  }

  unsigned hex4() {
    if (text_.size() - pos_ < 4) fail("a truncated \\u escape");
    unsigned code = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = text_[pos_++];
      code <<= 4;
      if (h >= '0' && h <= '9') code |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f') code |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') code |= static_cast<unsigned>(h - 'A' + 10);
      else fail("a bad hex digit in a \\u escape");
    }
    return code;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out.push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (code >> 6)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (code >> 12)));
      out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (code >> 18)));
      out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
  }

  std::string parse_string() {
    ++pos_;  // the opening quote
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("a string without its closing quote (truncated?)");
      // Copy the run of plain characters at once: strings in glTF are long base64 URIs.
      std::size_t run = pos_;
      while (run < text_.size() && text_[run] != '"' && text_[run] != '\\' &&
             static_cast<unsigned char>(text_[run]) >= 0x20)
        ++run;
      out.append(text_.data() + pos_, run - pos_);
      pos_ = run;
      if (pos_ >= text_.size()) fail("a string without its closing quote (truncated?)");
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c != '\\') fail("a control character inside a string");
      ++pos_;
      if (pos_ >= text_.size()) fail("a truncated escape");
      const char e = text_[pos_++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          unsigned code = hex4();
          if (code >= 0xD800 && code <= 0xDBFF) {
            if (!literal("\\u")) fail("a high surrogate without its low surrogate");
            const unsigned low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("a high surrogate without its low surrogate");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code <= 0xDFFF) {
            fail("a lone low surrogate");
          }
          append_utf8(out, code);
          break;
        }
        default: --pos_; fail("an unknown escape");
      }
    }
  }

  std::string_view text_;
  const std::string& path_;
  std::string_view format_;
  std::uint64_t base_offset_;
  std::size_t pos_ = 0;
  std::uint64_t values_ = 0;
};

JsonValue parse_json(std::string_view text, const std::string& path, std::string_view format,
                     std::uint64_t base_offset) {
  return JsonParser(text, path, format, base_offset).parse_document();
}

void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", u);
      out.append(escape);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

}  // namespace meshioplusplus::io
