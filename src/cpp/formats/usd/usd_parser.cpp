// The USD text format (.usda) as far as meshes need it: a strict tokenizer and a recursive
// descent over the layer's prims (Sdf's text grammar, pxr/usd/sdf/textFileFormat.yy).
//
// Tokens: identifiers (namespaced, "primvars:st", "points.timeSamples"), numbers (from_chars,
// inf/nan included), strings ("…", '…', """…""", '''…''' with backslash escapes), asset paths
// (@…@, @@@…@@@), prim paths (<…>) and punctuation. Comments: '#' (the "#usda 1.0" header is
// one), '//' and '/* */'. Every token is looked at once; numbers go straight into the
// attribute's flat array, which the file's own length bounds.
//
// Kept: prims (specifier, type, name, "active"), the attributes the mesh reader uses with
// their "interpolation" / "elementSize" metadata, a default value or else the first time
// sample, and the layer's upAxis / metersPerUnit. Parsed and dropped: every other attribute,
// relationships, connections, dictionaries and metadata. Not followed (counted in
// Layer::composition_arcs): references, payloads, inherits, sublayers and variant sets, whose
// prims come from other layers or selections.
#include <algorithm>
#include <charconv>
#include <limits>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>

#include "formats/usd/usd_internal.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::usd {

void fail_at(std::string_view bytes, const std::string& path, std::size_t offset, const std::string& message) {
  throw ReadError(path, std::string(kFormat), message, offset, io::line_of_offset(bytes, offset));
}

namespace {

constexpr int kMaxPrimDepth = 256;      // prims nested deeper are refused (recursion bound)
constexpr std::size_t kMaxBracketDepth = 64;  // nested ( [ { in one value

enum class Kind { end, identifier, string, number, asset, path, punct };

struct Token {
  Kind kind = Kind::end;
  std::string_view text;  // strings: between the quotes, escapes not decoded
  std::size_t offset = 0;
  bool is(char c) const noexcept { return kind == Kind::punct && text.size() == 1 && text[0] == c; }
  bool is_word(std::string_view word) const noexcept { return kind == Kind::identifier && text == word; }
};

bool identifier_start(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool identifier_char(char c) noexcept {
  return identifier_start(c) || (c >= '0' && c <= '9') || c == ':' || c == '.';
}
bool number_char(char c) noexcept {
  return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' ||
         (c >= 'a' && c <= 'z');  // inf, nan
}

class Lexer {
 public:
  Lexer(std::string_view bytes, const std::string& path) : bytes_(bytes), path_(path) {}

  const Token& peek() {
    if (!peeked_) {
      lookahead_ = scan();
      peeked_ = true;
    }
    return lookahead_;
  }
  Token next() {
    const Token token = peek();
    peeked_ = false;
    return token;
  }
  void expect(char c, std::string_view where) {
    const Token token = next();
    if (!token.is(c)) fail(token, std::string("expected '") + c + "' " + std::string(where) + ", found " + describe(token));
  }
  std::string_view expect_identifier(std::string_view what) {
    const Token token = next();
    if (token.kind != Kind::identifier) fail(token, "expected " + std::string(what) + ", found " + describe(token));
    return token.text;
  }
  [[noreturn]] void fail(const Token& token, const std::string& message) const { fail_at(bytes_, path_, token.offset, message); }
  [[noreturn]] void fail_here(std::size_t offset, const std::string& message) const { fail_at(bytes_, path_, offset, message); }

  static std::string describe(const Token& token) {
    switch (token.kind) {
      case Kind::end: return "the end of the file";
      case Kind::string: return "a string";
      default: return "'" + std::string(token.text.substr(0, 40)) + "'";
    }
  }

 private:
  void skip_trivia() {
    while (pos_ < bytes_.size()) {
      const char c = bytes_[pos_];
      if (io::is_space(c)) {
        ++pos_;
      } else if (c == '#' || (c == '/' && pos_ + 1 < bytes_.size() && bytes_[pos_ + 1] == '/')) {
        const std::size_t newline = bytes_.find('\n', pos_);
        pos_ = newline == std::string_view::npos ? bytes_.size() : newline + 1;
      } else if (c == '/' && pos_ + 1 < bytes_.size() && bytes_[pos_ + 1] == '*') {
        const std::size_t close = bytes_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) fail_here(pos_, "unterminated /* comment");
        pos_ = close + 2;
      } else {
        return;
      }
    }
  }

  Token scan() {
    skip_trivia();
    Token token;
    token.offset = pos_;
    if (pos_ >= bytes_.size()) return token;
    const char c = bytes_[pos_];
    const std::size_t start = pos_;
    if (identifier_start(c)) {
      while (pos_ < bytes_.size() && identifier_char(bytes_[pos_])) ++pos_;
      token.kind = Kind::identifier;
    } else if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
      ++pos_;
      while (pos_ < bytes_.size() && number_char(bytes_[pos_])) ++pos_;
      token.kind = Kind::number;
    } else if (c == '"' || c == '\'') {
      return scan_string(c);
    } else if (c == '@') {
      const bool triple = bytes_.substr(pos_, 3) == "@@@";
      const std::string_view close = triple ? "@@@" : "@";
      const std::size_t end = bytes_.find(close, pos_ + close.size());
      if (end == std::string_view::npos) fail_here(start, "unterminated asset path");
      token.kind = Kind::asset;
      token.text = bytes_.substr(pos_ + close.size(), end - pos_ - close.size());
      pos_ = end + close.size();
      return token;
    } else if (c == '<') {
      const std::size_t end = bytes_.find('>', pos_);
      if (end == std::string_view::npos) fail_here(start, "unterminated prim path");
      token.kind = Kind::path;
      token.text = bytes_.substr(pos_ + 1, end - pos_ - 1);
      pos_ = end + 1;
      return token;
    } else if (std::strchr("()[]{}=,;&:", c) != nullptr) {
      ++pos_;
      token.kind = Kind::punct;
    } else {
      fail_here(start, "unexpected character '" + std::string(1, c) + "'");
    }
    token.text = bytes_.substr(start, pos_ - start);
    return token;
  }

  Token scan_string(char quote) {
    Token token;
    token.kind = Kind::string;
    token.offset = pos_;
    const bool triple = pos_ + 2 < bytes_.size() && bytes_[pos_ + 1] == quote && bytes_[pos_ + 2] == quote;
    const std::size_t quotes = triple ? 3 : 1;
    std::size_t p = pos_ + quotes;
    while (true) {
      if (p >= bytes_.size()) fail_here(token.offset, "unterminated string");
      const char c = bytes_[p];
      if (c == '\\') {
        p += 2;
        continue;
      }
      if (!triple && c == '\n') fail_here(token.offset, "line break inside a string");
      if (c == quote && (!triple || (p + 2 < bytes_.size() && bytes_[p + 1] == quote && bytes_[p + 2] == quote))) break;
      ++p;
    }
    token.text = bytes_.substr(pos_ + quotes, p - pos_ - quotes);
    pos_ = p + quotes;
    return token;
  }

  std::string_view bytes_;
  const std::string& path_;
  std::size_t pos_ = 0;
  Token lookahead_;
  bool peeked_ = false;
};

// A string token's text with its escapes decoded (\n \t \\ \" \' and \xHH).
std::string decode_string(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 >= text.size()) {
      out.push_back(text[i]);
      continue;
    }
    const char e = text[++i];
    switch (e) {
      case 'n': out.push_back('\n'); break;
      case 't': out.push_back('\t'); break;
      case 'r': out.push_back('\r'); break;
      case 'x': {
        unsigned value = 0;
        const auto result = std::from_chars(text.data() + i + 1, text.data() + std::min(text.size(), i + 3), value, 16);
        if (result.ec == std::errc{} && result.ptr == text.data() + std::min(text.size(), i + 3)) {
          out.push_back(static_cast<char>(value));
          i += 2;
        } else {
          out.push_back('x');
        }
        break;
      }
      default: out.push_back(e);
    }
  }
  return out;
}

// The kind and numbers per element of a value type name.
std::pair<ValueKind, int> classify_type(std::string_view type) {
  if (type == "token" || type == "string") return {ValueKind::text, 1};
  if (type == "matrix4d" || type == "frame4d") return {ValueKind::real, 16};
  if (type == "matrix3d") return {ValueKind::real, 9};
  if (type == "matrix2d") return {ValueKind::real, 4};
  if (type.starts_with("quat")) return {ValueKind::real, 4};
  int width = 1;
  std::string_view base = type;
  // point3f, texCoord2d, color4f, int3, double2 …: a digit before an optional precision letter
  if (!base.empty() && (base.back() == 'f' || base.back() == 'd' || base.back() == 'h') && base.size() >= 2 &&
      base[base.size() - 2] >= '2' && base[base.size() - 2] <= '4') {
    width = base[base.size() - 2] - '0';
    base.remove_suffix(2);
  } else if (!base.empty() && base.back() >= '2' && base.back() <= '4') {
    width = base.back() - '0';
    base.remove_suffix(1);
  }
  static constexpr std::string_view kReal[] = {"half", "float", "double", "timecode", "point", "normal", "vector",
                                                "color", "texCoord"};
  static constexpr std::string_view kInteger[] = {"bool", "uchar", "int", "uint", "int64", "uint64"};
  for (std::string_view name : kReal)
    if (base == name) return {ValueKind::real, width};
  for (std::string_view name : kInteger)
    if (base == name) return {ValueKind::integer, width};
  return {ValueKind::other, 1};
}

// Attributes the mesh reader uses; the values of all others are skipped unparsed.
bool attribute_wanted(std::string_view name) noexcept {
  static constexpr std::string_view kNames[] = {"points", "faceVertexCounts", "faceVertexIndices", "holeIndices",
                                                "normals", "orientation", "xformOpOrder", "curveVertexCounts",
                                                "indices", "elementType", "familyName", "meshioplusplus:region"};
  if (name.starts_with("primvars:") || name.starts_with("xformOp:")) return true;
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

bool is_list_op(const Token& token) noexcept {
  return token.is_word("prepend") || token.is_word("append") || token.is_word("add") || token.is_word("delete");
}

class Parser {
 public:
  Parser(std::string_view bytes, const std::string& path) : bytes_(bytes), path_(path), lexer_(bytes, path) {}

  Layer parse() {
    if (bytes_.starts_with("PXR-USDC"))
      lexer_.fail_here(0, "a binary crate layer (usdc): read it from Python with usd-core installed "
                          "(pip install usd-core; meshioplusplus.usd.read)");
    if (bytes_.starts_with("PK\x03\x04"))
      lexer_.fail_here(0, "a USDZ package: read it from Python with usd-core installed "
                          "(pip install usd-core; meshioplusplus.usd.read)");
    if (!bytes_.starts_with("#usda ")) lexer_.fail_here(0, "not a USD text layer: the '#usda 1.0' header is missing");
    if (lexer_.peek().is('(')) parse_metadata(MetadataTarget::layer, nullptr, nullptr);
    while (lexer_.peek().kind != Kind::end) parse_prim(-1, "", 0);
    return std::move(layer_);
  }

 private:
  enum class MetadataTarget { layer, prim, attribute };

  // ( key = value … ): what the targets use is kept, everything else skipped.
  void parse_metadata(MetadataTarget target, Prim* prim, Attribute* attribute) {
    lexer_.expect('(', "to open metadata");
    while (true) {
      Token token = lexer_.next();
      if (token.is(')')) return;
      if (token.is(';') || token.is(',')) continue;
      if (token.kind == Kind::string) continue;  // a doc string
      if (token.kind == Kind::end) lexer_.fail(token, "unterminated metadata: ')' expected");
      if (is_list_op(token) || token.is_word("reorder")) token = lexer_.next();
      if (token.kind != Kind::identifier) lexer_.fail(token, "expected a metadata name, found " + Lexer::describe(token));
      const std::string_view key = token.text;
      if (key == "references" || key == "payload" || key == "inherits" || key == "specializes" ||
          key == "subLayers" || key == "variantSets")
        ++layer_.composition_arcs;
      if (!lexer_.peek().is('=')) continue;
      lexer_.next();
      const Token value = lexer_.peek();
      if (target == MetadataTarget::layer && key == "upAxis" && value.kind == Kind::string) {
        layer_.up_axis = decode_string(value.text);
      } else if (target == MetadataTarget::layer && key == "metersPerUnit" && value.kind == Kind::number) {
        layer_.meters_per_unit = number_of(value);
      } else if (target == MetadataTarget::prim && key == "active" && value.kind == Kind::identifier) {
        prim->active = !(value.text == "false" || value.text == "0");
      } else if (target == MetadataTarget::prim && key == "active" && value.kind == Kind::number) {
        prim->active = value.text != "0";
      } else if (target == MetadataTarget::attribute && key == "interpolation" && value.kind == Kind::string) {
        attribute->interpolation = decode_string(value.text);
      } else if (target == MetadataTarget::attribute && key == "elementSize" && value.kind == Kind::number) {
        const double size = number_of(value);
        if (!(size >= 1 && size <= 1e6) || size != static_cast<double>(static_cast<std::int64_t>(size)))
          lexer_.fail(value, "elementSize must be a positive integer");
        attribute->element_size = static_cast<std::int64_t>(size);
      }
      skip_value();
    }
  }

  double number_of(const Token& token) {
    double value = 0;
    const char* first = token.text.data();
    const char* last = first + token.text.size();
    if (first < last && *first == '+') ++first;
    const auto result = std::from_chars(first, last, value);
    if (result.ec != std::errc{} || result.ptr != last) lexer_.fail(token, "invalid number '" + std::string(token.text.substr(0, 40)) + "'");
    return value;
  }

  // Any value, unparsed: one atom (an asset may carry a prim path), or a bracketed group.
  void skip_value() {
    Token token = lexer_.next();
    if (token.kind == Kind::asset && lexer_.peek().kind == Kind::path) lexer_.next();
    if (!(token.is('(') || token.is('[') || token.is('{'))) {
      if (token.kind == Kind::end || token.kind == Kind::punct)
        lexer_.fail(token, "expected a value, found " + Lexer::describe(token));
      return;
    }
    std::string open{token.text[0]};
    while (!open.empty()) {
      token = lexer_.next();
      if (token.kind == Kind::end) lexer_.fail(token, "unterminated value: '" + open.substr(open.size() - 1) + "' is never closed");
      if (token.kind != Kind::punct) continue;
      const char c = token.text[0];
      if (c == '(' || c == '[' || c == '{') {
        if (open.size() >= kMaxBracketDepth) lexer_.fail(token, "brackets nested too deeply");
        open.push_back(c);
      } else if (c == ')' || c == ']' || c == '}') {
        const char expected = open.back() == '(' ? ')' : open.back() == '[' ? ']' : '}';
        if (c != expected) lexer_.fail(token, std::string("mismatched '") + c + "'");
        open.pop_back();
      }
    }
  }

  // A numeric value into the attribute's flat array: a number, a tuple, a list of either, or
  // None. Nesting is checked for balance; the element count against the type afterwards.
  void parse_numbers(Attribute& attribute) {
    const Token first = lexer_.peek();
    if (first.is_word("None")) {
      lexer_.next();
      return;
    }
    std::size_t depth = 0;
    std::string open;
    bool expect_item = true;
    bool may_close = false;  // right after an opening bracket or a ',' (empty lists, trailing commas)
    do {
      const Token token = lexer_.next();
      if (token.kind == Kind::punct) {
        const char c = token.text[0];
        if ((c == '(' || c == '[') && expect_item) {
          if (open.size() >= kMaxBracketDepth) lexer_.fail(token, "brackets nested too deeply");
          open.push_back(c);
          ++depth;
          may_close = true;
          continue;
        }
        if ((c == ')' || c == ']') && depth > 0 && open.back() == (c == ')' ? '(' : '[') && (!expect_item || may_close)) {
          open.pop_back();
          --depth;
          expect_item = false;
          may_close = false;
          continue;
        }
        if (c == ',' && !expect_item && depth > 0) {
          expect_item = true;
          may_close = true;
          continue;
        }
        lexer_.fail(token, "unexpected " + Lexer::describe(token) + " in the value of a " + attribute.type);
      }
      if (!expect_item) lexer_.fail(token, "expected ',' between values, found " + Lexer::describe(token));
      append_number(attribute, token);
      expect_item = false;
      may_close = false;
    } while (depth > 0);
    attribute.has_value = true;
  }

  void append_number(Attribute& attribute, const Token& token) {
    if (attribute.kind == ValueKind::integer) {
      if (token.kind == Kind::identifier && (token.text == "true" || token.text == "false")) {
        attribute.integers.push_back(token.text == "true" ? 1 : 0);
        return;
      }
      std::int64_t value = 0;
      const char* begin = token.text.data();
      const char* end = begin + token.text.size();
      if (begin < end && *begin == '+') ++begin;
      const auto result = token.kind == Kind::number ? io::parse_int64(begin, end, value) : std::from_chars_result{begin, std::errc::invalid_argument};
      if (result.ec != std::errc{} || result.ptr != end)
        lexer_.fail(token, "invalid integer " + Lexer::describe(token) + " in the value of a " + attribute.type);
      attribute.integers.push_back(value);
      return;
    }
    if (token.kind == Kind::identifier && (token.text == "inf" || token.text == "nan")) {
      attribute.reals.push_back(token.text == "inf" ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN());
      return;
    }
    if (token.kind != Kind::number) lexer_.fail(token, "expected a number, found " + Lexer::describe(token));
    attribute.reals.push_back(number_of(token));
  }

  void parse_strings(Attribute& attribute) {
    Token token = lexer_.next();
    if (token.is_word("None")) return;
    if (token.kind == Kind::string) {
      attribute.strings.push_back(decode_string(token.text));
      attribute.has_value = true;
      return;
    }
    if (!token.is('[')) lexer_.fail(token, "expected a string or a list of strings, found " + Lexer::describe(token));
    while (true) {
      token = lexer_.next();
      if (token.is(']')) break;
      if (token.is(',')) continue;
      if (token.kind != Kind::string) lexer_.fail(token, "expected a string, found " + Lexer::describe(token));
      attribute.strings.push_back(decode_string(token.text));
    }
    attribute.has_value = true;
  }

  void parse_value_into(Attribute& attribute) {
    if (attribute.kind == ValueKind::text) parse_strings(attribute);
    else if (attribute.kind == ValueKind::other) skip_value();
    else parse_numbers(attribute);
  }

  // { time: value, … }: the first sample is the value when no default is authored.
  void parse_time_samples(Attribute& attribute) {
    lexer_.expect('{', "to open time samples");
    bool first = true;
    while (true) {
      Token token = lexer_.next();
      if (token.is('}')) return;
      if (token.is(',')) continue;
      if (token.kind != Kind::number) lexer_.fail(token, "expected a sample time, found " + Lexer::describe(token));
      lexer_.expect(':', "after a sample time");
      if (first && !attribute.has_value) {
        parse_value_into(attribute);
        attribute.from_time_sample = true;
      } else {
        skip_value();
      }
      first = false;
    }
  }

  // An attribute or relationship line of a prim's body; `token` is its first word.
  void parse_property(Prim& prim, Token token) {
    if (is_list_op(token)) token = lexer_.next();
    bool uniform = false;
    while (token.is_word("custom") || token.is_word("uniform") || token.is_word("varying") || token.is_word("config")) {
      uniform = uniform || token.is_word("uniform");
      token = lexer_.next();
    }
    if (token.is_word("rel")) {
      lexer_.expect_identifier("a relationship name");
      if (lexer_.peek().is('=')) {
        lexer_.next();
        skip_value();
      }
      if (lexer_.peek().is('(')) parse_metadata(MetadataTarget::attribute, &prim, &scratch_);
      return;
    }
    if (token.kind != Kind::identifier) lexer_.fail(token, "expected a property, found " + Lexer::describe(token));
    const std::string_view type = token.text;
    bool is_array = false;
    if (lexer_.peek().is('[')) {
      lexer_.next();
      lexer_.expect(']', "after '[' of an array type");
      is_array = true;
    }
    const std::string_view full_name = lexer_.expect_identifier("an attribute name");
    std::string_view name = full_name;
    std::string_view suffix;
    if (const std::size_t dot = full_name.find('.'); dot != std::string_view::npos) {
      name = full_name.substr(0, dot);
      suffix = full_name.substr(dot + 1);
    }
    Attribute* attribute = &scratch_;
    if (attribute_wanted(name) && (suffix.empty() || suffix == "timeSamples")) {
      attribute = nullptr;
      for (auto& [key, existing] : prim.attributes)
        if (key == name) attribute = &existing;
      if (attribute == nullptr) attribute = &prim.attributes.emplace_back(std::string(name), Attribute{}).second;
      const auto [kind, width] = classify_type(type);
      attribute->type = std::string(type);
      attribute->kind = kind;
      attribute->width = width;
      attribute->is_array = is_array;
      attribute->offset = token.offset;
      (void)uniform;
    } else {
      scratch_ = Attribute{};
    }
    if (lexer_.peek().is('=')) {
      lexer_.next();
      if (suffix == "timeSamples") {
        parse_time_samples(*attribute);
      } else if (!suffix.empty() || attribute == &scratch_) {
        skip_value();
      } else {
        // A default replaces an earlier first sample of the same attribute.
        if (attribute->from_time_sample) {
          attribute->reals.clear(), attribute->integers.clear(), attribute->strings.clear();
          attribute->has_value = false, attribute->from_time_sample = false;
        }
        parse_value_into(*attribute);
      }
    }
    if (lexer_.peek().is('(')) parse_metadata(MetadataTarget::attribute, &prim, attribute);
  }

  void parse_prim(std::int64_t parent, const std::string& parent_path, int depth) {
    const Token specifier = lexer_.next();
    if (!(specifier.is_word("def") || specifier.is_word("over") || specifier.is_word("class")))
      lexer_.fail(specifier, "expected 'def', 'over' or 'class', found " + Lexer::describe(specifier));
    if (depth >= kMaxPrimDepth) lexer_.fail(specifier, "prims nested deeper than " + std::to_string(kMaxPrimDepth));
    Prim prim;
    prim.specifier = std::string(specifier.text);
    prim.offset = specifier.offset;
    prim.parent = parent;
    if (lexer_.peek().kind == Kind::identifier) prim.type_name = std::string(lexer_.next().text);
    const Token name = lexer_.next();
    if (name.kind != Kind::string || name.text.empty()) lexer_.fail(name, "expected the prim's name in quotes, found " + Lexer::describe(name));
    prim.path = parent_path + "/" + decode_string(name.text);
    if (lexer_.peek().is('(')) parse_metadata(MetadataTarget::prim, &prim, nullptr);
    lexer_.expect('{', "to open the body of " + prim.path);
    const std::int64_t index = static_cast<std::int64_t>(layer_.prims.size());
    layer_.prims.push_back(std::move(prim));
    while (true) {
      const Token token = lexer_.peek();
      if (token.is('}')) {
        lexer_.next();
        return;
      }
      if (token.kind == Kind::end) lexer_.fail(token, "unterminated prim " + layer_.prims[static_cast<std::size_t>(index)].path + ": '}' expected");
      if (token.is(';')) {
        lexer_.next();
        continue;
      }
      if (token.is_word("def") || token.is_word("over") || token.is_word("class")) {
        const std::string path = layer_.prims[static_cast<std::size_t>(index)].path;
        parse_prim(index, path, depth + 1);
        continue;
      }
      lexer_.next();
      if (token.is_word("variantSet")) {  // variantSet "name" = { "a" { … } … }: not followed
        ++layer_.composition_arcs;
        const Token set_name = lexer_.next();
        if (set_name.kind != Kind::string) lexer_.fail(set_name, "expected the variant set's name");
        lexer_.expect('=', "after a variant set's name");
        skip_value();
        continue;
      }
      if (token.is_word("reorder")) {
        lexer_.expect_identifier("'nameChildren' or 'properties'");
        lexer_.expect('=', "after reorder");
        skip_value();
        continue;
      }
      parse_property(layer_.prims[static_cast<std::size_t>(index)], token);
    }
  }

  std::string_view bytes_;
  const std::string& path_;
  Lexer lexer_;
  Layer layer_;
  Attribute scratch_;  // properties that are parsed but not kept
};

}  // namespace

Layer parse_usda(std::string_view bytes, const std::string& path) { return Parser(bytes, path).parse(); }

}  // namespace meshioplusplus::usd
