// Neuroglancer precomputed mesh writer: uint32 vertex count, float32 xyz, uint32 triangle
// corners, little-endian (layout in neuroglancer_reader.cpp).
//
// The format holds 3-D points and triangles only. 2-D points get z = 0; points are stored as
// float32 (as meshio). Blocks of any other cell type are refused with a WriteError (meshio
// skips them with a warning, which loses cells silently in scripts); so are more than 2^32-1
// points. Point and cell data have no slot and are not written.
#include <cstdint>
#include <string>

#include "formats/neuroglancer/neuroglancer.hpp"
#include "io/output/atomic_file.hpp"
#include "io/source/byte_order.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::neuroglancer {
namespace {

constexpr std::string_view kFormat = "neuroglancer";

template <class T> void put_little_endian(io::OutputBuffer& out, T value) {
  if constexpr (!io::kHostIsLittleEndian) io::swap_bytes_in_place(&value, sizeof value, 1);
  out.bytes(&value, sizeof value);
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  for (const CellBlock& block : mesh.cells)
    if (block.type != "triangle")
      throw WriteError(path, std::string(kFormat), "neuroglancer meshes hold triangles only; cannot write a '" +
                                                       block.type + "' block");
  const std::int64_t num_points = mesh.num_points();
  const std::int64_t dim = mesh.points.ndim() == 2 ? mesh.points.dim(1) : 0;
  if (dim < 1 || dim > 3)
    throw WriteError(path, std::string(kFormat), "points must have 1 to 3 coordinates, got " + std::to_string(dim));
  if (num_points > std::int64_t{UINT32_MAX})
    throw WriteError(path, std::string(kFormat), "more points than a uint32 count can hold");

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  put_little_endian(out, static_cast<std::uint32_t>(num_points));
  visit_dtype(mesh.points.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* points = mesh.points.data_as<T>();
    for (std::int64_t i = 0; i < num_points; ++i)
      for (std::int64_t a = 0; a < 3; ++a)
        put_little_endian(out, a < dim ? static_cast<float>(points[i * dim + a]) : 0.0f);
  });
  for (const CellBlock& block : mesh.cells) {
    const std::int64_t* corners = block.connectivity.data_as<std::int64_t>();
    const std::int64_t count = 3 * block.num_cells();
    for (std::int64_t i = 0; i < count; ++i) put_little_endian(out, static_cast<std::uint32_t>(corners[i]));
  }
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::neuroglancer
