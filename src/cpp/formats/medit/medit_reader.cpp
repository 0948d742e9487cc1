#include <cctype>
#include <cstdint>
#include <string>
#include <cstring>

#include "formats/medit/medit.hpp"
#include "formats/medit/medit_reader.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/significant_lines.hpp"

namespace meshioplusplus::medit {
namespace {

// A .meshb file opens with the 32-bit code word 1 in its byte order, so its first byte is
// 0 or 1; a .mesh file opens with text. The content decides, not the extension, so a
// misnamed file is still read.
bool looks_binary(std::string_view bytes) noexcept {
  if (bytes.size() < 4) return false;
  std::uint32_t code = 0;
  std::memcpy(&code, bytes.data(), 4);
  return code == 1 || code == __builtin_bswap32(1);
}

}  // namespace

bool looks_like(std::string_view head) noexcept {
  if (looks_binary(head)) return true;
  const std::string_view text = io::skip_blanks_and_comment_lines(head, '#');
  std::size_t end = 0;
  while (end < text.size() && ((text[end] >= 'A' && text[end] <= 'Z') || (text[end] >= 'a' && text[end] <= 'z'))) ++end;
  std::string keyword(text.substr(0, end));
  for (char& c : keyword) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string_view known : {"meshversionformatted", "meshversion", "dimension", "vertices", "edges", "triangles",
                                       "quadrilaterals", "tetrahedra", "prisms", "pyramids", "hexahedra", "hexaedra", "end"})
    if (keyword == known) return true;
  return false;
}

Mesh read(const std::string& path) {
  const io::MappedFile file(path, "medit");
  io::reject_empty_file(file.bytes(), path, "medit");
  const std::string_view bytes = file.bytes();
  return looks_binary(bytes) ? detail::read_binary(bytes, path) : detail::read_ascii(bytes, path);
}

}  // namespace meshioplusplus::medit
