// Floor 2: a strict JSON reader (RFC 8259) for formats whose header or scene is JSON (glTF).
//
// Strict: one value and white space only, no comments, no trailing commas, no NaN/Infinity,
// no leading zeros, no raw control characters in strings, \u escapes with surrogate pairs
// checked, valid UTF-8 not required of the bytes (passed through as they are). Bounded: the
// nesting depth is capped (kMaxJsonDepth) and the number of values is checked against
// max_array_bytes() as they are created, so no input makes it recurse deep or allocate past
// the library's limit. Numbers through std::from_chars; a number that is an integer in the
// text and fits int64 is kept exact as well (glTF indices, byte offsets and counts).
// Errors: ReadError(path, format, message, byte offset).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace meshioplusplus::io {

inline constexpr int kMaxJsonDepth = 128;

class JsonValue {
 public:
  enum class Kind : std::uint8_t { null, boolean, number, string, array, object };

  Kind kind() const noexcept { return kind_; }
  bool is_null() const noexcept { return kind_ == Kind::null; }
  bool is_bool() const noexcept { return kind_ == Kind::boolean; }
  bool is_number() const noexcept { return kind_ == Kind::number; }
  bool is_string() const noexcept { return kind_ == Kind::string; }
  bool is_array() const noexcept { return kind_ == Kind::array; }
  bool is_object() const noexcept { return kind_ == Kind::object; }

  bool as_bool() const noexcept { return boolean_; }
  double as_double() const noexcept { return number_; }
  // True when the text was an integer that fits int64 (then as_int64 is exact).
  bool is_integer() const noexcept { return kind_ == Kind::number && integer_; }
  std::int64_t as_int64() const noexcept { return int_; }
  const std::string& as_string() const noexcept { return string_; }
  const std::vector<JsonValue>& items() const noexcept { return items_; }  // array
  const std::vector<std::pair<std::string, JsonValue>>& members() const noexcept { return members_; }  // object

  // The member named `key` of an object, or nullptr (also when this is not an object).
  const JsonValue* find(std::string_view key) const noexcept;
  // Byte offset of the value's first character in the parsed text (for messages).
  std::uint64_t offset() const noexcept { return offset_; }

 private:
  friend class JsonParser;
  Kind kind_ = Kind::null;
  bool boolean_ = false;
  bool integer_ = false;
  double number_ = 0;
  std::int64_t int_ = 0;
  std::uint64_t offset_ = 0;
  std::string string_;
  std::vector<JsonValue> items_;
  std::vector<std::pair<std::string, JsonValue>> members_;
};

// Parses `text` (the whole document). `base_offset` is added to byte offsets in messages
// (where the JSON sits inside a container, e.g. a GLB chunk). Throws ReadError(path, format).
JsonValue parse_json(std::string_view text, const std::string& path, std::string_view format,
                     std::uint64_t base_offset = 0);

// A JSON string literal of `text` (quotes and escapes), appended to `out`: for writers.
void append_json_string(std::string& out, std::string_view text);

}  // namespace meshioplusplus::io
