// A driver for a profiler (perf record -g): a clean-up operation on the bench's 1 M-tetrahedron
// box (bench/common.py tet_box: Kuhn split, 6 tetrahedra a cube), N times.
//   clean_up_profile extract_surface|merge_points|check|crop|split [cubes=56] [times=5]
// (split: the tetrahedra plus a triangle block of a quarter as many, as bench_clean_up.py.)
// Not built by CMake; link it against a build's static library with that build's link line:
//   g++ -std=c++20 -O3 -g -Iinclude bench/clean_up_profile.cpp -o /tmp/clean_up_profile \
//       build/<dir>/libmeshioplusplus.a <the LINK_LIBRARIES of the CLI in build/<dir>/build.ninja>
// (add -Isrc/cpp src/cpp/core/mesh_surface.cpp … to get line numbers for those files).
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/mesh_ops.hpp"

using namespace meshioplusplus;

int main(int argc, char** argv) {
  const std::string op = argc > 1 ? argv[1] : "extract_surface";
  const std::int64_t cubes = argc > 2 ? std::stoll(argv[2]) : 56, times = argc > 3 ? std::stoll(argv[3]) : 5;
  const std::int64_t n = cubes + 1;
  NDArray points = NDArray::allocate(DType::float64, {n * n * n, 3});
  double* xyz = points.data_as<double>();
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t k = 0; k < n; ++k) {
        double* p = xyz + 3 * ((i * n + j) * n + k);
        p[0] = double(i) / double(cubes), p[1] = double(j) / double(cubes), p[2] = double(k) / double(cubes);
      }
  const int kuhn[6][4] = {{0, 4, 6, 7}, {0, 4, 5, 7}, {0, 1, 5, 7}, {0, 1, 3, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}};
  const std::int64_t cells = 6 * cubes * cubes * cubes;
  NDArray tets = NDArray::allocate(DType::int64, {cells, 4});
  std::int64_t* t = tets.data_as<std::int64_t>();
  std::int64_t at = 0;
  for (const auto& split : kuhn)
    for (std::int64_t i = 0; i < cubes; ++i)
      for (std::int64_t j = 0; j < cubes; ++j)
        for (std::int64_t k = 0; k < cubes; ++k) {
          const std::int64_t base = i * n * n + j * n + k;
          for (int c = 0; c < 4; ++c) {
            const int corner = split[c];
            t[at++] = base + (corner >> 2 & 1) * n * n + (corner >> 1 & 1) * n + (corner & 1);
          }
        }
  for (std::int64_t r = 0; r < times; ++r) {
    Mesh mesh;
    if (op == "merge_points") {  // every tetrahedron its own points
      mesh.points = NDArray::allocate(DType::float64, {4 * cells, 3});
      NDArray ids = NDArray::allocate(DType::int64, {cells, 4});
      for (std::int64_t i = 0; i < 4 * cells; ++i) {
        std::memcpy(mesh.points.data_as<double>() + 3 * i, xyz + 3 * t[i], 3 * sizeof(double));
        ids.data_as<std::int64_t>()[i] = i;
      }
      mesh.cells.push_back({"tetra", std::move(ids), {}, {}});
    } else {
      mesh.points = points;
      mesh.cells.push_back({"tetra", tets, {}, {}});
    }
    if (op == "split") {  // the first quarter's first three corners as triangles
      NDArray triangles = NDArray::allocate(DType::int64, {cells / 4, 3});
      for (std::int64_t c = 0; c < cells / 4; ++c)
        for (int k = 0; k < 3; ++k) triangles.data_as<std::int64_t>()[3 * c + k] = t[4 * c + k];
      mesh.cells.push_back({"triangle", std::move(triangles), {}, {}});
    }
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();  // all threads' CPU time: the figure a loaded machine leaves intact
    std::int64_t result = 0;
    const double low[3] = {0.2, 0.2, 0.2}, high[3] = {0.8, 0.8, 0.8};
    if (op == "merge_points") result = merge_points(mesh, 1e-8);
    else if (op == "check") result = static_cast<std::int64_t>(check(mesh).degenerate.size());
    else if (op == "crop") result = crop(mesh, low, high, false).num_cells();
    else if (op == "split") result = extract_cell_type(mesh, "tetra").num_cells() + extract_cell_type(mesh, "triangle").num_cells();
    else result = extract_surface(mesh).num_cells();
    std::printf("%s %.4f s wall %.4f s cpu (%lld)\n", op.c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC, static_cast<long long>(result));
  }
}
