// Floor 2: the small XML subset VTK files use — tags with attributes, text between them,
// comments and declarations skipped. No DTDs, no entities beyond the five predefined.
// Binary payloads (VTU appended raw data) are never scanned: callers stop before them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshioplusplus::io {

struct XmlAttribute {
  std::string_view name;
  std::string_view value;  // raw; decode_xml_entities() if it may hold '&'
};

struct XmlTag {
  std::string_view name;
  std::vector<XmlAttribute> attributes;
  bool closing = false;       // </name>
  bool self_closing = false;  // <name/>
  std::size_t begin = 0;      // offset of '<'
  std::size_t end = 0;        // offset just past '>'

  // nullptr when absent.
  const std::string_view* attribute(std::string_view attribute_name) const noexcept;
};

std::string decode_xml_entities(std::string_view text);
std::string escape_xml_attribute(std::string_view text);

class XmlScanner {
 public:
  XmlScanner(std::string_view document, std::size_t begin, const std::string& path,
             std::string_view format)
      : document_(document), pos_(begin), path_(path), format_(format) {}

  // The next element tag after the current position; std::nullopt at the end of input.
  // Throws ReadError on malformed markup.
  std::optional<XmlTag> next_tag();
  std::size_t position() const noexcept { return pos_; }
  void seek(std::size_t offset) noexcept { pos_ = offset; }

  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const;

 private:
  std::string_view document_;
  std::size_t pos_;
  const std::string& path_;
  std::string_view format_;
};

}  // namespace meshioplusplus::io
