// The .feb format's name and FEBio's element table (io/cells/febio_element_types.hpp) under the
// names the reader and writer use.
#pragma once

#include <string_view>

#include "io/cells/febio_element_types.hpp"

namespace meshioplusplus::febio::detail {

inline constexpr std::string_view kFormat = "febio";
using io::febio_elements::FebioType;
using io::febio_elements::find_by_febio_name;
using io::febio_elements::find_by_name;
using io::febio_elements::kHex27Order;
using io::febio_elements::kTypes;

}  // namespace meshioplusplus::febio::detail
