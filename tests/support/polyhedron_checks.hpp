// Polyhedra for the tests of formats that store them (Exodus NFACED, MED POE, …): small meshes
// with known volumes, and the checks that the faces read back point out of their cells.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <vector>

#include "support/test_support.hpp"

namespace meshioplusplus::testing_support {

// One polyhedron as its faces' node lists.
using Polyhedron = std::vector<std::vector<std::int64_t>>;

// A "polyhedron" block (offsets into faces, face offsets into the node list) of `cells`.
inline CellBlock polyhedron_block(const std::vector<Polyhedron>& cells) {
  std::vector<std::int64_t> nodes, face_offsets{0}, offsets{0};
  for (const Polyhedron& cell : cells) {
    for (const auto& face : cell) {
      nodes.insert(nodes.end(), face.begin(), face.end());
      face_offsets.push_back(static_cast<std::int64_t>(nodes.size()));
    }
    offsets.push_back(static_cast<std::int64_t>(face_offsets.size()) - 1);
  }
  CellBlock block;
  block.type = "polyhedron";
  block.connectivity = int64_vector(nodes);
  block.offsets = int64_vector(offsets);
  block.face_offsets = int64_vector(face_offsets);
  return block;
}

// The cells of a "polyhedron" block as their faces' node lists.
inline std::vector<Polyhedron> polyhedra_of(const CellBlock& block) {
  const std::vector<std::int64_t> offsets = int_values(block.offsets), face_offsets = int_values(block.face_offsets),
                                  nodes = int_values(block.connectivity);
  std::vector<Polyhedron> cells;
  for (std::size_t c = 0; c + 1 < offsets.size(); ++c) {
    Polyhedron faces;
    for (auto f = static_cast<std::size_t>(offsets[c]); f < static_cast<std::size_t>(offsets[c + 1]); ++f)
      faces.emplace_back(nodes.begin() + face_offsets[f], nodes.begin() + face_offsets[f + 1]);
    cells.push_back(faces);
  }
  return cells;
}

// The signed volume of each polyhedron of `cells` by the divergence theorem: positive when its
// faces point out of it (our rule), negative when they all point in.
inline std::vector<double> polyhedron_volumes(const NDArray& points, const CellBlock& cells) {
  const NDArray xyz = points.astype(DType::float64);
  const double* p = xyz.data_as<double>();
  const std::int64_t width = xyz.dim(1);
  auto at = [&](std::int64_t node) {
    std::array<double, 3> r{0, 0, 0};
    for (std::int64_t a = 0; a < std::min<std::int64_t>(width, 3); ++a) r[static_cast<std::size_t>(a)] = p[node * width + a];
    return r;
  };
  const std::vector<std::int64_t> offsets = int_values(cells.offsets), faces = int_values(cells.face_offsets),
                                  nodes = int_values(cells.connectivity);
  std::vector<double> volumes;
  for (std::size_t c = 0; c + 1 < offsets.size(); ++c) {
    double volume = 0;
    for (std::int64_t f = offsets[c]; f < offsets[c + 1]; ++f) {
      const auto a = at(nodes[static_cast<std::size_t>(faces[static_cast<std::size_t>(f)])]);
      for (std::int64_t k = faces[static_cast<std::size_t>(f)] + 1; k + 1 < faces[static_cast<std::size_t>(f) + 1]; ++k) {
        const auto b = at(nodes[static_cast<std::size_t>(k)]), d = at(nodes[static_cast<std::size_t>(k + 1)]);
        volume += (a[0] * (b[1] * d[2] - b[2] * d[1]) - a[1] * (b[0] * d[2] - b[2] * d[0]) + a[2] * (b[0] * d[1] - b[1] * d[0])) / 6;
      }
    }
    volumes.push_back(volume);
  }
  return volumes;
}

// Each face of polyhedron `cell` as its set of nodes (orientation left out).
inline std::multiset<std::set<std::int64_t>> face_sets(const CellBlock& cells, std::int64_t cell) {
  const std::vector<std::int64_t> offsets = int_values(cells.offsets), faces = int_values(cells.face_offsets),
                                  nodes = int_values(cells.connectivity);
  std::multiset<std::set<std::int64_t>> result;
  for (std::int64_t f = offsets[static_cast<std::size_t>(cell)]; f < offsets[static_cast<std::size_t>(cell) + 1]; ++f)
    result.insert(std::set<std::int64_t>(nodes.begin() + faces[static_cast<std::size_t>(f)],
                                         nodes.begin() + faces[static_cast<std::size_t>(f) + 1]));
  return result;
}

// Points of a unit cube (0-7), an apex above it (8) and an L-shaped prism beside it (9-20).
inline NDArray polyhedra_points() {
  return array_of<double>({21, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0.5, 0.5, 2,
                                    // L-shaped bottom (z = 0): (2,0) (4,0) (4,1) (3,1) (3,2) (2,2), top at z = 1
                                    2, 0, 0, 4, 0, 0, 4, 1, 0, 3, 1, 0, 3, 2, 0, 2, 2, 0,
                                    2, 0, 1, 4, 0, 1, 4, 1, 1, 3, 1, 1, 3, 2, 1, 2, 2, 1});
}

// Three polyhedra: the cube (volume 1), the pyramid on its top (1/3) sharing the cube's top face,
// and the non-convex L prism (3). `scrambled`: some faces listed inward, as a file without
// face signs may give them.
inline CellBlock polyhedra_block(bool scrambled = false) {
  std::vector<std::vector<std::vector<std::int64_t>>> cells{
      {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}},
      {{7, 6, 5, 4}, {4, 5, 8}, {5, 6, 8}, {6, 7, 8}, {7, 4, 8}},
      {{9, 14, 13, 12, 11, 10}, {15, 16, 17, 18, 19, 20}, {9, 10, 16, 15}, {10, 11, 17, 16}, {11, 12, 18, 17},
       {12, 13, 19, 18}, {13, 14, 20, 19}, {14, 9, 15, 20}}};
  if (scrambled) {
    std::reverse(cells[0][2].begin(), cells[0][2].end());
    std::reverse(cells[1][0].begin(), cells[1][0].end());
    for (auto& face : cells[2]) std::reverse(face.begin(), face.end());  // all inward
    std::reverse(cells[2][3].begin(), cells[2][3].end());               // but one
  }
  std::vector<std::int64_t> offsets{0}, face_offsets{0}, nodes;
  for (const auto& cell : cells) {
    for (const auto& face : cell) {
      nodes.insert(nodes.end(), face.begin(), face.end());
      face_offsets.push_back(static_cast<std::int64_t>(nodes.size()));
    }
    offsets.push_back(static_cast<std::int64_t>(face_offsets.size() - 1));
  }
  return {"polyhedron", int64_vector(nodes), int64_vector(offsets), int64_vector(face_offsets)};
}

}  // namespace meshioplusplus::testing_support
