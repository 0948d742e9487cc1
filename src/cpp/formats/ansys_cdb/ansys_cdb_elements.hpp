// The element routine table lives in io/cells/ansys_element_types.hpp (shared with the .rst
// results reader); the .cdb reader, writer and tests name it as detail::Family, detail::resolve ….
#pragma once

#include "io/cells/ansys_element_types.hpp"

namespace meshioplusplus::ansys_cdb::detail {
using namespace ::meshioplusplus::io::ansys_elements;
}  // namespace meshioplusplus::ansys_cdb::detail
