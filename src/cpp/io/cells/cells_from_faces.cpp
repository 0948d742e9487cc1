// Face lists -> cells (see cells_from_faces.hpp for the contract).
//
// Three passes, so that no per-cell node table is kept beside the result:
//   1. cell -> faces lists (CSR) from owner/neighbour, in face order;
//   2. each cell's shape, on every core: a standard shape is accepted only when its node order
//      can be derived from its faces (see the derive_* functions), else it is a polyhedron
//      (3-D) or a polygon (2-D);
//   3. block rows from a running count per shape, then on every core each cell derives its
//      nodes again straight into its block row and writes its faces' (cell, local facet) pairs.
// A face's nodes "seen from" a cell are its own order for its owner and reversed for its
// neighbour: out of the cell in 3-D, counter-clockwise round the cell in 2-D.
#include "io/cells/cells_from_faces.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "io/source/parallel.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus::io {
namespace {

constexpr std::size_t kCellGrain = 1 << 14;

// Shapes, numbered per dimension. 3-D: tetra, pyramid, wedge, hexahedron, polyhedron.
// 2-D: triangle, quad, polygon.
enum Shape3 : std::uint8_t { kTetra, kPyramid, kWedge, kHexahedron, kPolyhedron };
enum Shape2 : std::uint8_t { kTriangle, kQuad, kPolygon };
constexpr std::array<std::string_view, 5> kShapeNames3{"tetra", "pyramid", "wedge", "hexahedron", "polyhedron"};
constexpr std::array<std::string_view, 3> kShapeNames2{"triangle", "quad", "polygon"};
constexpr std::array<int, 5> kShapeNodes3{4, 5, 6, 8, 0};

// One face as a cell sees it: its nodes (from the face list) and whether to walk them backwards.
struct FaceView {
  const std::int64_t* nodes;
  int count;
  bool reversed;
  std::int64_t at(int i) const noexcept { return reversed ? nodes[count - 1 - i] : nodes[i]; }
};

// The faces of one cell: entries of the cell -> faces list are 2 * face + (1 if the cell is the
// face's neighbour).
struct CellFaces {
  std::span<const std::int64_t> entries;
  const FaceCellInput* input;
  std::size_t size() const noexcept { return entries.size(); }
  std::int64_t face(std::size_t k) const noexcept { return entries[k] >> 1; }
  FaceView view(std::size_t k) const noexcept {
    const std::int64_t f = face(k);
    const std::int64_t first = input->face_offsets[static_cast<std::size_t>(f)];
    const std::int64_t last = input->face_offsets[static_cast<std::size_t>(f) + 1];
    return {input->face_nodes.data() + first, static_cast<int>(last - first), (entries[k] & 1) != 0};
  }
};

bool contains(const std::int64_t* values, int count, std::int64_t value) noexcept {
  return std::find(values, values + count, value) != values + count;
}

// The distinct nodes of a cell's faces, up to `limit` + 1 of them (enough to see "too many").
int distinct_nodes(const CellFaces& faces, std::int64_t* out, int limit) noexcept {
  int found = 0;
  for (std::size_t k = 0; k < faces.size(); ++k) {
    const FaceView view = faces.view(k);
    for (int i = 0; i < view.count; ++i) {
      if (contains(out, found, view.nodes[i])) continue;
      if (found == limit) return limit + 1;
      out[found++] = view.nodes[i];
    }
  }
  return found;
}

// The base face of a prism-like shape seen from outside gives the bottom nodes in VTK order by
// walking it backwards (VTK's bottom faces, listed outward, are (0, m-1, ..., 1)).
void bottom_from_base(const FaceView& base, std::int64_t* nodes) noexcept {
  nodes[0] = base.at(0);
  for (int i = 1; i < base.count; ++i) nodes[i] = base.at(base.count - i);
}

// Top nodes of a hexahedron or wedge: the bottom node i's partner is the node next to it, in a
// side quad, that is not a bottom node. Every side quad must hold exactly two bottom nodes
// along one edge, the partners must agree between the quads that name them, and the partners
// must be the remaining distinct nodes.
bool derive_prism(const CellFaces& faces, std::size_t base, int m, std::int64_t* nodes) noexcept {
  bottom_from_base(faces.view(base), nodes);
  std::int64_t* top = nodes + m;
  std::fill(top, top + m, -1);
  for (std::size_t k = 0; k < faces.size(); ++k) {
    if (k == base) continue;
    const FaceView view = faces.view(k);
    int bottom_count = 0;
    for (int i = 0; i < view.count; ++i) bottom_count += contains(nodes, m, view.nodes[i]) ? 1 : 0;
    if (bottom_count == 0) continue;  // the top face
    if (view.count != 4 || bottom_count != 2) return false;
    for (int i = 0; i < 4; ++i) {
      const std::int64_t node = view.nodes[i];
      const int position = static_cast<int>(std::find(nodes, nodes + m, node) - nodes);
      if (position == m) continue;
      const std::int64_t before = view.nodes[(i + 3) % 4], after = view.nodes[(i + 1) % 4];
      const bool before_bottom = contains(nodes, m, before), after_bottom = contains(nodes, m, after);
      if (before_bottom == after_bottom) return false;
      const std::int64_t partner = before_bottom ? after : before;
      if (top[position] != -1 && top[position] != partner) return false;
      top[position] = partner;
    }
  }
  for (int i = 0; i < m; ++i) {
    if (top[i] == -1 || contains(nodes, m, top[i]) || contains(top, i, top[i])) return false;
  }
  // The top face must be there, holding exactly the partners.
  for (std::size_t k = 0; k < faces.size(); ++k) {
    const FaceView view = faces.view(k);
    if (k == base || view.count != m) continue;
    bool all_top = true;
    for (int i = 0; i < m && all_top; ++i) all_top = contains(top, m, view.nodes[i]);
    if (all_top) return true;
  }
  return false;
}

// Tetra or pyramid: the base (a triangle for a tetra, the quad for a pyramid) walked backwards,
// then the apex: the one node not on the base.
bool derive_apex_shape(const CellFaces& faces, std::size_t base, int corners, std::int64_t* nodes) noexcept {
  const FaceView view = faces.view(base);
  bottom_from_base(view, nodes);
  std::int64_t all[6];
  if (distinct_nodes(faces, all, corners + 1) != corners + 1) return false;
  int apexes = 0;
  for (int i = 0; i <= corners; ++i) {
    if (!contains(nodes, corners, all[i])) {
      nodes[corners] = all[i];
      ++apexes;
    }
  }
  if (apexes != 1) return false;
  // Every other face is a triangle with the apex and one edge of the base.
  for (std::size_t k = 0; k < faces.size(); ++k) {
    if (k == base) continue;
    const FaceView side = faces.view(k);
    if (side.count != 3 || !contains(side.nodes, 3, nodes[corners])) return false;
  }
  return true;
}

// The cell's shape and, when `nodes` is given room for 8, its nodes in VTK order.
Shape3 classify_3d(const CellFaces& faces, bool recognise, std::int64_t* nodes) noexcept {
  if (!recognise) return kPolyhedron;
  const std::size_t count = faces.size();
  if (count < 4 || count > 6) return kPolyhedron;
  int triangles = 0, quads = 0;
  std::size_t first_triangle = count, first_quad = count;
  for (std::size_t k = 0; k < count; ++k) {
    const int corners = faces.view(k).count;
    if (corners == 3) {
      ++triangles;
      if (first_triangle == count) first_triangle = k;
    } else if (corners == 4) {
      ++quads;
      if (first_quad == count) first_quad = k;
    } else {
      return kPolyhedron;
    }
  }
  std::int64_t distinct[9];
  if (count == 4 && triangles == 4) {
    return distinct_nodes(faces, distinct, 4) == 4 && derive_apex_shape(faces, 0, 3, nodes) ? kTetra : kPolyhedron;
  }
  if (count == 5 && quads == 1) {
    return distinct_nodes(faces, distinct, 5) == 5 && derive_apex_shape(faces, first_quad, 4, nodes) ? kPyramid : kPolyhedron;
  }
  if (count == 5 && triangles == 2) {
    return distinct_nodes(faces, distinct, 6) == 6 && derive_prism(faces, first_triangle, 3, nodes) ? kWedge : kPolyhedron;
  }
  if (count == 6 && quads == 6) {
    return distinct_nodes(faces, distinct, 8) == 8 && derive_prism(faces, 0, 4, nodes) ? kHexahedron : kPolyhedron;
  }
  return kPolyhedron;
}

// The local facet (side_regions' table) whose corners are the face's nodes.
std::int64_t local_facet(std::span<const FacetCorners> facets, const std::int64_t* cell_nodes, const FaceView& face) noexcept {
  for (std::size_t k = 0; k < facets.size(); ++k) {
    const FacetCorners& facet = facets[k];
    if (facet.count != face.count) continue;
    bool all = true;
    for (int i = 0; i < facet.count && all; ++i) all = contains(face.nodes, face.count, cell_nodes[facet.corners[static_cast<std::size_t>(i)]]);
    if (all) return static_cast<std::int64_t>(k);
  }
  return -1;  // not reached for a shape derive_* accepted
}

// 2-D: chains the cell's edges into one loop, counter-clockwise. `loop` gets the nodes (edge j
// runs from loop[j] to loop[j + 1]) and `edge_of` the cell's edge index of each loop edge.
// False when the edges are not one closed loop.
bool chain_edges(const CellFaces& faces, std::vector<std::int64_t>& loop, std::vector<std::size_t>& edge_of,
                 std::vector<char>& used) {
  const std::size_t count = faces.size();
  loop.clear();
  edge_of.clear();
  used.assign(count, 0);
  if (count < 3) return false;
  std::size_t current = 0;
  for (std::size_t step = 0; step < count; ++step) {
    used[current] = 1;
    const FaceView edge = faces.view(current);
    loop.push_back(edge.at(0));
    edge_of.push_back(current);
    if (step + 1 == count) return edge.at(1) == loop.front();
    std::size_t next = count;
    for (std::size_t k = 0; k < count; ++k) {
      if (!used[k] && faces.view(k).at(0) == edge.at(1)) {
        next = k;
        break;
      }
    }
    if (next == count) return false;
    current = next;
  }
  return false;
}

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

}  // namespace

FaceCells build_cells_from_faces(const FaceCellInput& input) {
  const std::size_t num_faces = input.owner.size();
  const std::int64_t num_cells = input.num_cells;
  if (input.dimension != 2 && input.dimension != 3) fail("cells from faces: dimension must be 2 or 3");
  if (num_cells < 0) fail("cells from faces: negative cell count");
  if (input.face_offsets.size() != num_faces + 1) fail("cells from faces: face offsets and owner lengths differ");
  if (input.neighbour.size() > num_faces) fail("cells from faces: more neighbours than faces");
  if (input.face_offsets[0] != 0) fail("cells from faces: face offsets must start at 0");
  for (std::size_t f = 0; f < num_faces; ++f) {
    const std::int64_t corners = input.face_offsets[f + 1] - input.face_offsets[f];
    if (corners < 0 || input.face_offsets[f + 1] > static_cast<std::int64_t>(input.face_nodes.size()))
      fail("cells from faces: face " + std::to_string(f) + " has bad offsets");
    if (input.dimension == 3 ? corners < 3 : corners != 2)
      fail("cells from faces: face " + std::to_string(f) + " has " + std::to_string(corners) +
           (input.dimension == 3 ? " nodes (at least 3 needed)" : " nodes (a 2-D face is an edge of 2)"));
  }

  // 1. cell -> faces.
  std::vector<std::int64_t> cell_first(static_cast<std::size_t>(num_cells) + 1, 0);
  auto check_cell = [&](std::int64_t cell, std::size_t face, const char* side) {
    if (cell < -1 || cell >= num_cells)
      fail("cells from faces: face " + std::to_string(face) + " names " + side + " cell " + std::to_string(cell) +
           " outside the " + std::to_string(num_cells) + " cells");
  };
  for (std::size_t f = 0; f < num_faces; ++f) {
    check_cell(input.owner[f], f, "owner");
    if (input.owner[f] >= 0) ++cell_first[static_cast<std::size_t>(input.owner[f]) + 1];
    if (f < input.neighbour.size()) {
      check_cell(input.neighbour[f], f, "neighbour");
      if (input.neighbour[f] >= 0) ++cell_first[static_cast<std::size_t>(input.neighbour[f]) + 1];
    }
  }
  for (std::int64_t c = 0; c < num_cells; ++c) {
    if (cell_first[static_cast<std::size_t>(c) + 1] == 0) fail("cells from faces: cell " + std::to_string(c) + " has no faces");
    cell_first[static_cast<std::size_t>(c) + 1] += cell_first[static_cast<std::size_t>(c)];
  }
  std::vector<std::int64_t> entries(static_cast<std::size_t>(cell_first.back()));
  {
    std::vector<std::int64_t> fill(cell_first.begin(), cell_first.end() - 1);
    for (std::size_t f = 0; f < num_faces; ++f) {
      const auto face = static_cast<std::int64_t>(f);
      if (input.owner[f] >= 0) entries[static_cast<std::size_t>(fill[static_cast<std::size_t>(input.owner[f])]++)] = 2 * face;
      if (f < input.neighbour.size() && input.neighbour[f] >= 0)
        entries[static_cast<std::size_t>(fill[static_cast<std::size_t>(input.neighbour[f])]++)] = 2 * face + 1;
    }
  }
  auto faces_of = [&](std::int64_t cell) {
    const auto c = static_cast<std::size_t>(cell);
    return CellFaces{std::span<const std::int64_t>(entries).subspan(static_cast<std::size_t>(cell_first[c]),
                                                                     static_cast<std::size_t>(cell_first[c + 1] - cell_first[c])),
                     &input};
  };

  // 2. shapes.
  const bool three_d = input.dimension == 3;
  std::vector<std::uint8_t> shape(static_cast<std::size_t>(num_cells));
  parallel_ranges(static_cast<std::size_t>(num_cells), kCellGrain, [&](std::size_t first, std::size_t last) {
    std::int64_t nodes[8];
    std::vector<std::int64_t> loop;
    std::vector<std::size_t> edge_of;
    std::vector<char> used;
    for (std::size_t c = first; c < last; ++c) {
      const CellFaces faces = faces_of(static_cast<std::int64_t>(c));
      if (three_d) {
        shape[c] = classify_3d(faces, input.recognise_shapes, nodes);
      } else {
        if (!chain_edges(faces, loop, edge_of, used))
          fail("cells from faces: the " + std::to_string(faces.size()) + " edges of cell " + std::to_string(c) +
               " do not form one closed loop");
        shape[c] = !input.recognise_shapes || faces.size() > 4 ? kPolygon : faces.size() == 3 ? kTriangle : kQuad;
      }
    }
  });

  // 3. blocks: rows by a running count per shape, in cell order.
  const std::size_t num_shapes = three_d ? kShapeNames3.size() : kShapeNames2.size();
  const std::uint8_t ragged_shape = three_d ? std::uint8_t{kPolyhedron} : std::uint8_t{kPolygon};
  std::vector<std::int64_t> shape_count(num_shapes, 0);
  std::vector<int> block_of_shape(num_shapes, -1);
  std::vector<std::uint8_t> shape_of_block;
  std::vector<std::int64_t> row(static_cast<std::size_t>(num_cells));
  std::vector<std::int64_t> ragged_faces_before, ragged_nodes_before;  // per ragged cell: prefix sums
  ragged_faces_before.push_back(0);
  ragged_nodes_before.push_back(0);
  for (std::int64_t c = 0; c < num_cells; ++c) {
    const std::uint8_t s = shape[static_cast<std::size_t>(c)];
    if (block_of_shape[s] < 0) {
      block_of_shape[s] = static_cast<int>(shape_of_block.size());
      shape_of_block.push_back(s);
    }
    row[static_cast<std::size_t>(c)] = shape_count[s]++;
    if (s == ragged_shape) {
      const CellFaces faces = faces_of(c);
      std::int64_t nodes = 0;
      if (three_d) {
        for (std::size_t k = 0; k < faces.size(); ++k) nodes += faces.view(k).count;
      } else {
        nodes = static_cast<std::int64_t>(faces.size());
      }
      ragged_faces_before.push_back(ragged_faces_before.back() + (three_d ? static_cast<std::int64_t>(faces.size()) : 0));
      ragged_nodes_before.push_back(ragged_nodes_before.back() + nodes);
    }
  }

  FaceCells result;
  std::vector<std::int64_t> block_base(shape_of_block.size() + 1, 0);
  for (std::size_t b = 0; b < shape_of_block.size(); ++b) {
    const std::uint8_t s = shape_of_block[b];
    const std::int64_t n = shape_count[s];
    block_base[b + 1] = block_base[b] + n;
    CellBlock block;
    block.type = std::string(three_d ? kShapeNames3[s] : kShapeNames2[s]);
    if (s == ragged_shape) {
      block.connectivity = NDArray::allocate(DType::int64, {ragged_nodes_before.back()});
      block.offsets = NDArray::allocate(DType::int64, {n + 1});
      if (three_d) {
        block.face_offsets = NDArray::allocate(DType::int64, {ragged_faces_before.back() + 1});
        std::copy(ragged_faces_before.begin(), ragged_faces_before.end(), block.offsets.data_as<std::int64_t>());
      } else {
        std::copy(ragged_nodes_before.begin(), ragged_nodes_before.end(), block.offsets.data_as<std::int64_t>());
      }
    } else {
      const int width = three_d ? kShapeNodes3[s] : (s == kTriangle ? 3 : 4);
      block.connectivity = NDArray::allocate(DType::int64, {n, width});
    }
    result.blocks.push_back(std::move(block));
  }
  result.block_major_of_cell = NDArray::allocate(DType::int64, {num_cells});
  result.cell_of_block_major = NDArray::allocate(DType::int64, {num_cells});
  result.owner_sides = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(num_faces), 2});
  result.neighbour_sides = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(num_faces), 2});
  std::int64_t* owner_sides = result.owner_sides.data_as<std::int64_t>();
  std::int64_t* neighbour_sides = result.neighbour_sides.data_as<std::int64_t>();
  std::fill(owner_sides, owner_sides + 2 * num_faces, -1);
  std::fill(neighbour_sides, neighbour_sides + 2 * num_faces, -1);
  std::int64_t* block_major = result.block_major_of_cell.data_as<std::int64_t>();
  std::int64_t* cell_of = result.cell_of_block_major.data_as<std::int64_t>();

  parallel_ranges(static_cast<std::size_t>(num_cells), kCellGrain, [&](std::size_t first, std::size_t last) {
    std::int64_t nodes[8];
    std::vector<std::int64_t> loop;
    std::vector<std::size_t> edge_of;
    std::vector<char> used;
    for (std::size_t c = first; c < last; ++c) {
      const std::uint8_t s = shape[c];
      const auto b = static_cast<std::size_t>(block_of_shape[s]);
      const std::int64_t r = row[c];
      const std::int64_t global = block_base[b] + r;
      block_major[c] = global;
      cell_of[global] = static_cast<std::int64_t>(c);
      CellBlock& block = result.blocks[b];
      const CellFaces faces = faces_of(static_cast<std::int64_t>(c));
      auto set_side = [&](std::size_t k, std::int64_t facet) {
        const std::int64_t f = faces.face(k);
        std::int64_t* side = ((faces.entries[k] & 1) != 0 ? neighbour_sides : owner_sides) + 2 * f;
        side[0] = global;
        side[1] = facet;
      };
      if (three_d && s != kPolyhedron) {
        classify_3d(faces, true, nodes);
        const int width = kShapeNodes3[s];
        std::copy(nodes, nodes + width, block.connectivity.data_as<std::int64_t>() + r * width);
        const std::span<const FacetCorners> facets = cell_facets(kShapeNames3[s]);
        for (std::size_t k = 0; k < faces.size(); ++k) set_side(k, local_facet(facets, nodes, faces.view(k)));
      } else if (three_d) {
        std::int64_t* offsets = block.face_offsets.data_as<std::int64_t>();
        std::int64_t face_slot = block.offsets.data_as<std::int64_t>()[r];
        std::int64_t node_slot = ragged_nodes_before[static_cast<std::size_t>(r)];
        std::int64_t* out = block.connectivity.data_as<std::int64_t>();
        for (std::size_t k = 0; k < faces.size(); ++k) {
          const FaceView view = faces.view(k);
          offsets[face_slot++] = node_slot;
          for (int i = 0; i < view.count; ++i) out[node_slot++] = view.at(i);
          set_side(k, static_cast<std::int64_t>(k));
        }
        if (r + 1 == shape_count[kPolyhedron]) offsets[face_slot] = node_slot;
      } else {
        chain_edges(faces, loop, edge_of, used);
        std::int64_t* out = s == kPolygon ? block.connectivity.data_as<std::int64_t>() + block.offsets.data_as<std::int64_t>()[r]
                                          : block.connectivity.data_as<std::int64_t>() + r * (s == kTriangle ? 3 : 4);
        std::copy(loop.begin(), loop.end(), out);
        for (std::size_t j = 0; j < edge_of.size(); ++j) set_side(edge_of[j], static_cast<std::int64_t>(j));
      }
    }
  });
  return result;
}

std::vector<NDArray> cell_values_by_block(const FaceCells& cells, const NDArray& values) {
  const std::int64_t num_cells = cells.block_major_of_cell.rows();
  if (values.rows() != num_cells) fail("cell values: " + std::to_string(values.rows()) + " rows for " + std::to_string(num_cells) + " cells");
  const std::size_t row_bytes = values.rows() > 0 ? values.nbytes() / static_cast<std::size_t>(values.rows()) : 0;
  std::vector<NDArray> out;
  Shape shape = values.shape();
  const std::int64_t* cell_of = cells.cell_of_block_major.data_as<std::int64_t>();
  std::int64_t base = 0;
  for (const CellBlock& block : cells.blocks) {
    const std::int64_t n = block.num_cells();
    shape[0] = n;
    NDArray part = NDArray::allocate(values.dtype(), shape);
    auto* to = static_cast<std::uint8_t*>(part.data());
    const auto* from = static_cast<const std::uint8_t*>(values.data());
    parallel_ranges(static_cast<std::size_t>(n), kCellGrain, [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i)
        std::memcpy(to + i * row_bytes, from + static_cast<std::size_t>(cell_of[base + static_cast<std::int64_t>(i)]) * row_bytes, row_bytes);
    });
    out.push_back(std::move(part));
    base += n;
  }
  return out;
}

}  // namespace meshioplusplus::io
