// Reads a mesh, adds a point field (each point's distance from the centroid) and writes the
// mesh in the format of the output's extension. The complete example of docs/cpp.md.
//   add_point_field input.vtu output.vtu [--ascii]
#include <cmath>
#include <cstdint>
#include <iostream>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <meshioplusplus/errors.hpp>
#include <meshioplusplus/mesh.hpp>
#include <meshioplusplus/ndarray.hpp>
#include <meshioplusplus/registry.hpp>

namespace mpp = meshioplusplus;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: add_point_field INPUT OUTPUT [--ascii]\n";
    return 2;
  }
  try {
    // The format comes from the extension (and, for a shared one such as .msh, the content).
    mpp::Mesh mesh = mpp::read(argv[1]);
    const std::int64_t num_points = mesh.num_points();
    const std::int64_t dim = mesh.points.ndim() == 2 ? mesh.points.dim(1) : 0;
    // Readers keep the file's float type: work in double whatever it is.
    const mpp::NDArray points = mesh.points.astype(mpp::DType::float64);
    const std::span<const double> xyz = points.values<double>();

    std::vector<double> centroid(static_cast<std::size_t>(dim), 0.0);
    for (std::int64_t i = 0; i < num_points; ++i)
      for (std::int64_t k = 0; k < dim; ++k) centroid[k] += xyz[i * dim + k] / static_cast<double>(num_points);

    // One allocation, through the allocator hook, in the final dtype and shape (n,).
    mpp::NDArray distance = mpp::NDArray::allocate(mpp::DType::float64, {num_points});
    double* out = distance.data_as<double>();
    for (std::int64_t i = 0; i < num_points; ++i) {
      double squared = 0.0;
      for (std::int64_t k = 0; k < dim; ++k) squared += std::pow(xyz[i * dim + k] - centroid[k], 2);
      out[i] = std::sqrt(squared);
    }
    mesh.point_data.set("distance_from_centroid", std::move(distance));

    mpp::WriteOptions options;  // text values, as each format documents them
    if (argc > 3 && std::string_view(argv[3]) == "--ascii") options.set("binary", "false");
    mpp::write(argv[2], mesh, /*format=*/{}, options);

    std::cout << argv[2] << ": " << num_points << " points, " << mesh.num_cells() << " cells in "
              << mesh.cells.size() << " blocks, point data:";
    for (const auto& [name, array] : mesh.point_data) std::cout << " " << name;
    std::cout << "\n";
    return 0;
  } catch (const mpp::ReadError& error) {
    // what() names the file, the format and where (byte offset, line); the parts are separate too.
    std::cerr << "cannot read " << error.path() << ": " << error.what() << "\n";
  } catch (const mpp::WriteError& error) {
    std::cerr << "cannot write " << error.path() << ": " << error.what() << "\n";
  }
  return 1;
}
