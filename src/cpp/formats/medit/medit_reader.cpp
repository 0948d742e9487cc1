#include <cstdint>
#include <cstring>

#include "formats/medit/medit.hpp"
#include "formats/medit/medit_reader.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"

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

Mesh read(const std::string& path) {
  const io::MappedFile file(path, "medit");
  io::reject_empty_file(file.bytes(), path, "medit");
  const std::string_view bytes = file.bytes();
  return looks_binary(bytes) ? detail::read_binary(bytes, path) : detail::read_ascii(bytes, path);
}

}  // namespace meshioplusplus::medit
