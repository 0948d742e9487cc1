#include "formats/gmsh/gmsh_sniff.hpp"

namespace meshioplusplus::gmsh {

bool looks_like(std::string_view head) noexcept {
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && head.substr(first).starts_with("$MeshFormat");
}

}  // namespace meshioplusplus::gmsh
