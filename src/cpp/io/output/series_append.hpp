// Floor 2: what every time-series writer in append mode (append_time_series) shares: the rule
// for a mesh given again to a series that already has one, and the opening of the file's bytes
// as a temporary copy (HDF5, netCDF: the library then edits the copy, which replaces the file
// at close(), so a writer dropped half way leaves the series as it was).
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::io {

// A series keeps one mesh: write_mesh() in append mode must give the file's number of points
// and its cell blocks (types and counts), else WriteError naming the file. The points are not
// compared value by value (a restarted run may carry rounding); they are not written again.
inline void check_appended_mesh(const std::string& path, std::string_view format, const Mesh& stored,
                                const Mesh& given) {
  auto fail = [&](const std::string& what) {
    throw WriteError(path, std::string(format),
                     "append: the mesh given has " + what + " (a series keeps the mesh it was written with)");
  };
  if (given.num_points() != stored.num_points())
    fail(std::to_string(given.num_points()) + " points, the file's has " + std::to_string(stored.num_points()));
  if (given.cells.size() != stored.cells.size())
    fail(std::to_string(given.cells.size()) + " cell blocks, the file's has " + std::to_string(stored.cells.size()));
  for (std::size_t k = 0; k < given.cells.size(); ++k)
    if (given.cells[k].type != stored.cells[k].type || given.cells[k].num_cells() != stored.cells[k].num_cells())
      fail("cell block " + std::to_string(k) + " of " + std::to_string(given.cells[k].num_cells()) + " " +
           given.cells[k].type + ", the file's has " + std::to_string(stored.cells[k].num_cells()) + " " +
           stored.cells[k].type);
}

}  // namespace meshioplusplus::io
