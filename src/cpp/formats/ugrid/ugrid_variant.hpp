// The UGRID variant a file name announces (private to the UGRID reader and writer).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace meshioplusplus::ugrid::detail {

enum class Encoding { ascii, c_binary, fortran };

struct Variant {
  std::string_view suffix;  // "" for ASCII
  Encoding encoding;
  bool little_endian;
  std::size_t real_size;
  std::size_t int_size;
};

// meshio's table: b = C binary, r = Fortran records, leading l = little endian, 8/4 = real
// size, trailing l = 8-byte integers.
inline constexpr std::array<Variant, 10> kBinaryVariants{{
    {"b8l", Encoding::c_binary, false, 8, 8},
    {"b8", Encoding::c_binary, false, 8, 4},
    {"b4", Encoding::c_binary, false, 4, 4},
    {"lb8l", Encoding::c_binary, true, 8, 8},
    {"lb8", Encoding::c_binary, true, 8, 4},
    {"lb4", Encoding::c_binary, true, 4, 4},
    {"r8", Encoding::fortran, false, 8, 4},
    {"r4", Encoding::fortran, false, 4, 4},
    {"lr8", Encoding::fortran, true, 8, 4},
    {"lr4", Encoding::fortran, true, 4, 4},
}};

// The component before the last '.' of the file name chooses the variant ("grid.lb8.ugrid");
// anything else is ASCII, as in meshio.
inline Variant variant_for_path(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::size_t last = name.rfind('.');
  if (last != std::string_view::npos && last > 0) {
    const std::size_t before = name.rfind('.', last - 1);
    const std::string_view suffix =
        before == std::string_view::npos ? name.substr(0, last) : name.substr(before + 1, last - before - 1);
    for (const Variant& variant : kBinaryVariants)
      if (variant.suffix == suffix) return variant;
  }
  return Variant{"", Encoding::ascii, true, 8, 8};
}

// The element sections in file order: name, nodes per element.
struct Section {
  std::string_view type;
  int nodes;
};
inline constexpr std::array<Section, 6> kSections{{
    {"triangle", 3}, {"quad", 4}, {"tetra", 4}, {"pyramid", 5}, {"wedge", 6}, {"hexahedron", 8}}};

// UGRID lists a pyramid's nodes in another order than ours (meshio's permutation):
// ours[k] = file[kPyramidFromFile[k]], file[k] = ours[kPyramidToFile[k]].
inline constexpr int kPyramidFromFile[5] = {1, 0, 3, 4, 2};
inline constexpr int kPyramidToFile[5] = {1, 0, 4, 2, 3};

}  // namespace meshioplusplus::ugrid::detail
