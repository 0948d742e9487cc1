// What the LS-DYNA reader and writer share: element families and the degenerate 8-node
// solid forms; the reader's *SET_SEGMENT sets (lsdyna_segments.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::lsdyna::detail {

enum Family : int { kSolid, kTshell, kShell, kBeam, kDiscrete, kSph, kMass, kFamilies };

inline constexpr int kFamilyDim[kFamilies] = {3, 3, 2, 1, 1, 0, 0};
inline constexpr const char* kFamilyName[kFamilies] = {"SOLID", "TSHELL", "SHELL", "BEAM", "DISCRETE", "SPH", "MASS"};

// The cell an 8-node LS-DYNA solid (file node ids n[0..7]) is, with its nodes in meshio's
// order written to `out` and their count to `width`; returns the cell type name.
inline const char* collapse_solid(const std::int64_t* n, std::int64_t* out, int& width) noexcept {
  auto put = [&](std::initializer_list<int> at) {
    int k = 0;
    for (const int i : at) out[k++] = n[i];
    width = k;
  };
  if (n[3] == n[4] && n[4] == n[5] && n[5] == n[6] && n[6] == n[7]) {  // 1 2 3 4 4 4 4 4
    put({0, 1, 2, 3});
    return "tetra";
  }
  if (n[2] == n[3] && n[4] == n[5] && n[5] == n[6] && n[6] == n[7]) {  // 1 2 3 3 4 4 4 4
    put({0, 1, 2, 4});
    return "tetra";
  }
  if (n[4] == n[5] && n[5] == n[6] && n[6] == n[7]) {  // 1 2 3 4 5 5 5 5
    put({0, 1, 2, 3, 4});
    return "pyramid";
  }
  if (n[4] == n[5] && n[6] == n[7]) {  // 1 2 3 4 5 5 6 6: triangles 1 5 2 and 4 6 3
    put({0, 4, 1, 3, 6, 2});
    return "wedge";
  }
  if (n[2] == n[3] && n[6] == n[7]) {  // 1 2 3 3 5 6 7 7: triangles 1 2 3 and 5 6 7
    put({0, 1, 2, 4, 5, 6});
    return "wedge";
  }
  put({0, 1, 2, 3, 4, 5, 6, 7});
  return "hexahedron";
}

// One segment of a *SET_SEGMENT: its four point indices (a triangle repeats its third).
using Segment = std::array<std::int64_t, 4>;
struct SegmentSet {
  std::int64_t sid = 0;
  std::string title;
  std::vector<Segment> segments;
};

// Adds one region per set, in order, named by its title (else "SEGMENT set <sid>"), tag =
// sid, dim 2: a Side region of (cell, local facet) pairs when every segment is a face of a
// solid (3-D) cell (the first such face, in block-major order); else a Cell region of the
// shells when every segment is a shell's corners; else a Cell region of new cells: the
// segments themselves as triangle / quad blocks appended after the deck's blocks (one of
// each at most, shared by all such sets), nodes in the deck's order.
void add_segment_regions(Mesh& mesh, const std::vector<SegmentSet>& sets);

}  // namespace meshioplusplus::lsdyna::detail
