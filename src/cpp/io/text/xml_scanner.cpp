#include "io/text/xml_scanner.hpp"

#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::io {

const std::string_view* XmlTag::attribute(std::string_view attribute_name) const noexcept {
  for (const XmlAttribute& a : attributes)
    if (a.name == attribute_name) return &a.value;
  return nullptr;
}

std::string decode_xml_entities(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out.push_back(text[i]);
      continue;
    }
    const std::size_t semicolon = text.find(';', i);
    if (semicolon == std::string_view::npos) {
      out.push_back('&');
      continue;
    }
    const std::string_view entity = text.substr(i + 1, semicolon - i - 1);
    if (entity == "lt") out.push_back('<');
    else if (entity == "gt") out.push_back('>');
    else if (entity == "amp") out.push_back('&');
    else if (entity == "quot") out.push_back('"');
    else if (entity == "apos") out.push_back('\'');
    else {
      out.append(text.substr(i, semicolon - i + 1));
    }
    i = semicolon;
  }
  return out;
}

std::string escape_xml_attribute(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

void XmlScanner::fail_at(std::size_t offset, const std::string& message) const {
  throw ReadError(path_, std::string(format_), message, offset, line_of_offset(document_, offset));
}

namespace {
bool is_name_char(char c) {
  return c != '>' && c != '/' && c != '=' && !is_space(c) && c != '<';
}
}  // namespace

std::optional<XmlTag> XmlScanner::next_tag() {
  const std::size_t size = document_.size();
  while (true) {
    const std::size_t open = document_.find('<', pos_);
    if (open == std::string_view::npos) {
      pos_ = size;
      return std::nullopt;
    }
    if (document_.compare(open, 4, "<!--") == 0) {
      const std::size_t close = document_.find("-->", open + 4);
      if (close == std::string_view::npos) fail_at(open, "unterminated XML comment");
      pos_ = close + 3;
      continue;
    }
    if (document_.compare(open, 9, "<![CDATA[") == 0) {  // text, even when it looks like markup
      const std::size_t close = document_.find("]]>", open + 9);
      if (close == std::string_view::npos) fail_at(open, "unterminated CDATA section");
      pos_ = close + 3;
      continue;
    }
    if (document_.compare(open, 2, "<?") == 0 || document_.compare(open, 2, "<!") == 0) {
      const std::size_t close = document_.find('>', open);
      if (close == std::string_view::npos) fail_at(open, "unterminated XML declaration");
      pos_ = close + 1;
      continue;
    }
    XmlTag tag;
    tag.begin = open;
    std::size_t i = open + 1;
    if (i < size && document_[i] == '/') {
      tag.closing = true;
      ++i;
    }
    const std::size_t name_start = i;
    while (i < size && is_name_char(document_[i])) ++i;
    tag.name = document_.substr(name_start, i - name_start);
    if (tag.name.empty()) fail_at(open, "XML tag without a name");
    while (true) {
      while (i < size && is_space(document_[i])) ++i;
      if (i >= size) fail_at(open, "unterminated XML tag <" + std::string(tag.name) + ">");
      if (document_[i] == '>') {
        ++i;
        break;
      }
      if (document_[i] == '/' && i + 1 < size && document_[i + 1] == '>') {
        tag.self_closing = true;
        i += 2;
        break;
      }
      const std::size_t attribute_start = i;
      while (i < size && is_name_char(document_[i])) ++i;
      XmlAttribute attribute;
      attribute.name = document_.substr(attribute_start, i - attribute_start);
      while (i < size && is_space(document_[i])) ++i;
      if (attribute.name.empty() || i >= size || document_[i] != '=')
        fail_at(i < size ? i : open, "malformed attribute in <" + std::string(tag.name) + ">");
      ++i;
      while (i < size && is_space(document_[i])) ++i;
      if (i >= size || (document_[i] != '"' && document_[i] != '\''))
        fail_at(i < size ? i : open, "attribute value must be quoted");
      const char quote = document_[i++];
      const std::size_t value_start = i;
      const std::size_t value_end = document_.find(quote, value_start);
      if (value_end == std::string_view::npos) fail_at(value_start, "unterminated attribute value");
      attribute.value = document_.substr(value_start, value_end - value_start);
      tag.attributes.push_back(attribute);
      i = value_end + 1;
    }
    tag.end = i;
    pos_ = i;
    return tag;
  }
}

}  // namespace meshioplusplus::io
