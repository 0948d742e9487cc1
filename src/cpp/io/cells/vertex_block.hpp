// The one "vertex" block [0, n) that point clouds read as (meshio's way: PCD, XYZ): an
// (n, 1) int64 array of 0 … n-1. For a large cloud it is as many bytes as the points
// themselves and fresh memory, so it is filled on all cores: the threads share the page
// faults, which cost more than the stores on a virtual machine.
#pragma once

#include <cstddef>
#include <cstdint>

#include "io/source/parallel.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::io {

inline CellBlock vertex_block(std::int64_t n) {
  CellBlock vertices;
  vertices.type = "vertex";
  vertices.connectivity = NDArray::allocate(DType::int64, {n, 1});
  std::int64_t* const ids = vertices.connectivity.data_as<std::int64_t>();
  parallel_ranges(static_cast<std::size_t>(n), std::size_t{1} << 18,  // 2 MB a thread at least
                   [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) ids[i] = static_cast<std::int64_t>(i);
  });
  return vertices;
}

}  // namespace meshioplusplus::io
