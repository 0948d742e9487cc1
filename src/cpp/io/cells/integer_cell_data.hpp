// Formats with one integer slot per cell (SU2 marker tags, UGRID surface ids, Netgen indices,
// AVS-UCD materials) fill it as meshio does: from the format's own cell data name, else from
// the first integer cell data holding one value per cell of every block. One definition of
// "fits", one widening read.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/ndarray.hpp"

namespace meshioplusplus::io {

// Element `index` of an integer array, widened to int64 (0 for a float array, which
// per_cell_integers never returns).
inline std::int64_t integer_at(const NDArray& array, std::int64_t index) {
  return visit_dtype(array.dtype(), [&](auto zero) -> std::int64_t {
    using T = decltype(zero);
    if constexpr (std::is_integral_v<T>) return static_cast<std::int64_t>(array.data_as<T>()[index]);
    return 0;
  });
}

// One integer value per cell in every block.
inline bool holds_one_integer_per_cell(const Mesh& mesh, const std::vector<NDArray>& arrays) {
  if (arrays.size() != mesh.cells.size()) return false;
  for (std::size_t b = 0; b < arrays.size(); ++b)
    if (dtype_is_float(arrays[b].dtype()) || arrays[b].rows() != mesh.cells[b].num_cells() ||
        arrays[b].row_width() != 1)
      return false;
  return true;
}

// Cell data `preferred` when it fits, else the first that does (meshio's choice), else
// nullptr; `chosen_name` receives the name of the one returned.
inline const std::vector<NDArray>* per_cell_integers(const Mesh& mesh, std::string_view preferred,
                                                    std::string_view* chosen_name = nullptr) {
  if (const auto* arrays = mesh.cell_data.find(preferred); arrays && holds_one_integer_per_cell(mesh, *arrays)) {
    if (chosen_name) *chosen_name = preferred;
    return arrays;
  }
  for (const auto& [name, arrays] : mesh.cell_data)
    if (holds_one_integer_per_cell(mesh, arrays)) {
      if (chosen_name) *chosen_name = name;
      return &arrays;
    }
  return nullptr;
}

}  // namespace meshioplusplus::io
