// The two Medit readers behind medit::read, which picks one by the file's first bytes.
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::medit::detail {

Mesh read_ascii(std::string_view text, const std::string& path);
Mesh read_binary(std::string_view bytes, const std::string& path);

}  // namespace meshioplusplus::medit::detail
