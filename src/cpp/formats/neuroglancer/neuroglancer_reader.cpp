// Neuroglancer precomputed mesh reader (the legacy single-resolution fragment format).
//
// Layout, all little-endian: uint32 vertex count n; n * 3 float32 coordinates; then the
// triangles as uint32 corner indices (0-based), three per triangle, filling the rest of the
// file. There is no header, magic number or extension.
//
// What becomes what: points float32 (n, 3) as stored; one "triangle" block int64 (t, 3)
// (meshio returns uint32; the core model keeps int64 connectivity). A file without triangles
// gives one empty triangle block, as meshio does.
//
// Checks: the vertex section must fit the file, the triangle section must be whole
// triangles, and every index must name a vertex (meshio lets index n through).
#include <cstdint>
#include <cstring>
#include <string>

#include "formats/neuroglancer/neuroglancer.hpp"
#include "io/source/byte_order.hpp"
#include "io/source/mapped_file.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::neuroglancer {
namespace {

constexpr std::string_view kFormat = "neuroglancer";

[[noreturn]] void fail(const std::string& path, std::size_t offset, const std::string& message) {
  throw ReadError(path, std::string(kFormat), message, offset);
}

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  const std::string_view bytes = file.bytes();
  if (bytes.size() < 4) fail(path, 0, "file too short for the uint32 vertex count (" + std::to_string(bytes.size()) + " bytes)");
  std::uint32_t num_vertices = 0;
  io::copy_from_file_order(&num_vertices, bytes.data(), 4, 1, true);

  const std::uint64_t vertex_bytes = std::uint64_t{12} * num_vertices;
  const std::uint64_t available = bytes.size() - 4;
  if (vertex_bytes > available)
    fail(path, 0, "the header announces " + std::to_string(num_vertices) + " vertices (" + std::to_string(vertex_bytes) +
                      " bytes), but only " + std::to_string(available) + " bytes follow it");
  const std::uint64_t triangle_bytes = available - vertex_bytes;
  const std::size_t triangles_begin = 4 + static_cast<std::size_t>(vertex_bytes);
  if (triangle_bytes % 12 != 0)
    fail(path, triangles_begin, "the triangle section holds " + std::to_string(triangle_bytes) +
                                    " bytes, not a whole number of triangles (12 bytes each)");

  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float32, {static_cast<std::int64_t>(num_vertices), 3});
  io::copy_from_file_order(mesh.points.data(), bytes.data() + 4, 4, std::size_t{3} * num_vertices, true);

  const auto num_triangles = static_cast<std::int64_t>(triangle_bytes / 12);
  CellBlock block;
  block.type = "triangle";
  block.connectivity = NDArray::allocate(DType::int64, {num_triangles, 3});
  std::int64_t* corners = block.connectivity.data_as<std::int64_t>();
  const char* source = bytes.data() + triangles_begin;
  for (std::int64_t i = 0; i < 3 * num_triangles; ++i) {
    std::uint32_t index;
    std::memcpy(&index, source + 4 * i, 4);
    if constexpr (!io::kHostIsLittleEndian) index = __builtin_bswap32(index);
    if (index >= num_vertices)
      fail(path, triangles_begin + 4 * static_cast<std::size_t>(i),
           "triangle " + std::to_string(i / 3) + " refers to vertex " + std::to_string(index) + ", outside [0, " +
               std::to_string(num_vertices) + ")");
    corners[i] = index;
  }
  mesh.cells.push_back(std::move(block));
  return mesh;
}

}  // namespace meshioplusplus::neuroglancer
