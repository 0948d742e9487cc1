// Face lists -> cells (see cells_from_faces.hpp for the contract).
//
// Three passes, so that no per-cell node table is kept beside the result:
//   1. cell -> faces lists (CSR) from owner/neighbour, in face order, with each cell's count of
//      triangle and quad faces (3-D);
//   2. each cell's shape, on every core: a standard shape is accepted only when its node order
//      can be derived from its faces (see the derive_* functions), else it is a polyhedron
//      (3-D) or a polygon (2-D);
//   3. block rows from a running count per shape, then on every core each cell derives its
//      nodes straight into its block row and puts its own cell -> faces list in local facet
//      order, which is all FaceCells::side() needs (no pair per face is written: those were
//      scattered stores into two arrays of 16 bytes per face, most never asked for).
// A face's nodes "seen from" a cell are its own order for its owner and reversed for its
// neighbour: out of the cell in 3-D, counter-clockwise round the cell in 2-D.
#include "io/cells/cells_from_faces.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "io/source/parallel.hpp"
#include "io/source/scratch_vector.hpp"

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

// One face as a cell sees it: its nodes and whether to walk them backwards. The nodes are a
// copy (`nodes`, pass 3's gathered standard cells) or a range of the input's face list.
struct FaceView {
  const std::int64_t* nodes;  // null: (*list)[first ...]
  int count;
  bool reversed;
  const Labels* list = nullptr;
  std::int64_t first = 0;
  std::int64_t node(int i) const noexcept {
    return nodes != nullptr ? nodes[i] : (*list)[static_cast<std::size_t>(first + i)];
  }
  std::int64_t at(int i) const noexcept { return node(reversed ? count - 1 - i : i); }
};

// The faces of one cell: entries of the cell -> faces list are 2 * face + (1 if the cell is the
// face's neighbour).
struct CellFaces {
  std::span<const std::uint32_t> entries;
  const FaceCellInput* input;
  std::size_t size() const noexcept { return entries.size(); }
  std::int64_t face(std::size_t k) const noexcept { return entries[k] >> 1; }
  int corners(std::size_t k) const noexcept {
    const auto f = static_cast<std::size_t>(face(k));
    return static_cast<int>(input->face_begin(f + 1) - input->face_begin(f));
  }
  FaceView view(std::size_t k) const noexcept {
    const auto f = static_cast<std::size_t>(face(k));
    const std::int64_t first = input->face_begin(f);
    return {nullptr, static_cast<int>(input->face_begin(f + 1) - first), (entries[k] & 1) != 0, &input->face_nodes, first};
  }
};


// The base face of a shape seen from outside gives the bottom nodes in VTK order by walking it
// backwards (the bottom facets of side_regions' tables, listed outward, are (0, m-1, ..., 1)).
template <class View> void bottom_from_base(const View& base, std::int64_t* nodes) noexcept {
  nodes[0] = base.at(0);
  for (int i = 1; i < base.count; ++i) nodes[i] = base.at(base.count - i);
}

// Derives a standard shape from its faces: the `base` face (m = 3 or 4 corners) gives the
// bottom nodes; every other face but one (the top of a prism) must hold exactly two bottom
// nodes along one bottom edge (p, p+1), which makes it side facet p — side_regions' tables number
// the side facets of all four shapes that way, the base is facet m and a prism's top facet m+1.
// A prism's side quad also names the top partner of its two bottom nodes (its other two nodes,
// in order); an apex shape's side triangle names the apex. Accepted only when every facet is
// found once, the partners agree and are distinct, and the top face holds exactly them, so a
// cell that does not close into the shape is left to be a polyhedron. Fills `nodes` (VTK order)
// and `facet_of_face` (per face of the cell, its local facet). About a hundred comparisons a
// cell: a million cells take milliseconds.
template <class Faces>
bool derive_standard(const Faces& faces, std::size_t base, int m, bool prism, std::int64_t* nodes,
                     std::int64_t* facet_of_face) noexcept {
  bottom_from_base(faces.view(base), nodes);
  std::int64_t* top = nodes + m;  // a prism's partners, or the apex in top[0]
  std::fill(top, top + (prism ? m : 1), -1);
  unsigned found = 1u << m;
  facet_of_face[base] = m;
  std::size_t top_face = faces.size();
  for (std::size_t k = 0; k < faces.size(); ++k) {
    if (k == base) continue;
    const auto view = faces.view(k);
    const int corners = view.count;
    int position[4];
    int bottom = 0;
    for (int i = 0; i < corners; ++i) {
      position[i] = static_cast<int>(std::find(nodes, nodes + m, view.node(i)) - nodes);
      if (position[i] == m) {
        position[i] = -1;
      } else {
        ++bottom;
      }
    }
    if (bottom == 0) {
      if (!prism || corners != m || top_face != faces.size()) return false;
      top_face = k;
      continue;
    }
    if (bottom != 2 || corners != (prism ? 4 : 3)) return false;
    int first = 0;  // the face's bottom edge runs from its node `first` to `first + 1`
    while (first < corners && !(position[first] >= 0 && position[(first + 1) % corners] >= 0)) ++first;
    if (first == corners) return false;
    const int a = position[first], b = position[(first + 1) % corners];
    const int edge = (a + 1) % m == b ? a : (b + 1) % m == a ? b : -1;
    if (edge < 0 || (found & (1u << edge)) != 0) return false;
    found |= 1u << edge;
    facet_of_face[k] = edge;
    auto claim = [](std::int64_t& slot, std::int64_t node) {
      if (slot != -1 && slot != node) return false;
      slot = node;
      return true;
    };
    if (prism) {
      if (!claim(top[a], view.node((first + 3) % 4)) || !claim(top[b], view.node((first + 2) % 4))) return false;
    } else if (!claim(top[0], view.node((first + 2) % 3))) {
      return false;
    }
  }
  if (found != (1u << (m + 1)) - 1) return false;
  if (!prism) return true;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < i; ++j)
      if (top[i] == top[j]) return false;
  if (top_face == faces.size()) return false;
  const auto view = faces.view(top_face);
  for (int i = 0; i < m; ++i)
    if (std::find(top, top + m, view.node(i)) == top + m) return false;
  facet_of_face[top_face] = m + 1;
  return true;
}

// The standard shape a 3-D cell's face corner counts allow (4 triangles a tetra, a quad and 4
// triangles a pyramid, 2 triangles and 3 quads a wedge, 6 quads a hexahedron), else a
// polyhedron, from the cell's face count and its triangles and quads (pass 1 tallies them);
// derive_shape() confirms it from the nodes.
Shape3 shape_by_counts(std::size_t count, std::uint32_t triangles, std::uint32_t quads) noexcept {
  if (count < 4 || count > 6) return kPolyhedron;
  if (triangles + quads != count) return kPolyhedron;
  if (count == 4 && triangles == 4) return kTetra;
  if (count == 5 && quads == 1) return kPyramid;
  if (count == 5 && triangles == 2) return kWedge;
  if (count == 6) return kHexahedron;
  return kPolyhedron;
}

// The nodes (room for 8) and each face's local facet (room for 6) of a cell shape_by_counts()
// named; false when its faces do not close into that shape.
template <class Faces>
bool derive_shape(Shape3 shape, const Faces& faces, std::int64_t* nodes, std::int64_t* facet_of_face) noexcept {
  auto first_with = [&](int corners) {
    std::size_t k = 0;
    while (k + 1 < faces.size() && faces.corners(k) != corners) ++k;
    return k;
  };
  switch (shape) {
    case kTetra: return derive_standard(faces, 0, 3, false, nodes, facet_of_face);
    case kPyramid: return derive_standard(faces, first_with(4), 4, false, nodes, facet_of_face);
    case kWedge: return derive_standard(faces, first_with(3), 3, true, nodes, facet_of_face);
    case kHexahedron: return derive_standard(faces, 0, 4, true, nodes, facet_of_face);
    default: return false;
  }
}

// Pass 3 walks cells in order, but each cell's faces sit wherever the file put them (a cell's
// faces as neighbour lie far back in face order): reading them is a chain of two cache misses
// (its faces' offsets, then their nodes) that derive_standard's first comparison waits for, and
// software prefetch a few cells ahead did not hide it. So pass 3 goes in batches: first the
// faces of a batch's standard cells are copied (kBatch cells, up to 6 faces of up to 4 nodes
// each, a few kB) by a short loop whose loads do not depend on one another across cells and so
// are in flight together; then each cell derives from its copy, in L1.
constexpr std::size_t kBatch = 32;
struct GatheredCell {
  std::int64_t nodes[6][4];
  int counts[6];
  bool reversed[6];
  std::size_t faces = 0;
  std::size_t size() const noexcept { return faces; }
  int corners(std::size_t k) const noexcept { return counts[k]; }
  // A view of the copy (no branch on where the nodes are: derive_standard's inner loop).
  struct View {
    const std::int64_t* nodes;
    int count;
    bool reversed;
    std::int64_t node(int i) const noexcept { return nodes[i]; }
    std::int64_t at(int i) const noexcept { return reversed ? nodes[count - 1 - i] : nodes[i]; }
  };
  View view(std::size_t k) const noexcept { return {nodes[k], counts[k], reversed[k]}; }
};
// The faces of the batch's standard cells (shape_by_counts() named them: 4 to 6 faces of 3 or 4
// corners) in two sweeps, each of loads independent of one another: every face's offsets (its
// node range) first, then its nodes.
void gather_batch(const FaceCellInput& input, const std::uint8_t* shape, std::span<const std::uint32_t> entries,
                  const std::uint32_t* cell_first, std::size_t first, std::size_t last, GatheredCell* out) noexcept {
  for (std::size_t c = first; c < last; ++c) {
    if (shape[c] == kPolyhedron) continue;
    GatheredCell& cell = out[c - first];
    const auto begin = static_cast<std::size_t>(cell_first[c]);
    cell.faces = static_cast<std::size_t>(cell_first[c + 1]) - begin;
    for (std::size_t k = 0; k < cell.faces; ++k) {
      const auto f = static_cast<std::size_t>(entries[begin + k] >> 1);
      cell.nodes[k][0] = input.face_begin(f);  // the node range, until the second sweep
      cell.counts[k] = static_cast<int>(input.face_begin(f + 1) - cell.nodes[k][0]);
      cell.reversed[k] = (entries[begin + k] & 1) != 0;
    }
  }
  const Labels& nodes = input.face_nodes;
  for (std::size_t c = first; c < last; ++c) {
    if (shape[c] == kPolyhedron) continue;
    GatheredCell& cell = out[c - first];
    for (std::size_t k = 0; k < cell.faces; ++k) {
      const auto from = static_cast<std::size_t>(cell.nodes[k][0]);
      cell.nodes[k][0] = nodes[from];
      cell.nodes[k][1] = nodes[from + 1];
      cell.nodes[k][2] = nodes[from + 2];
      if (cell.counts[k] == 4) cell.nodes[k][3] = nodes[from + 3];
    }
  }
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
  if (num_faces >= (std::size_t{1} << 31)) fail("cells from faces: 2^31 faces or more");
  if (input.face_offsets.empty()) {
    if (num_faces > 0 && (input.face_size < 1 || static_cast<std::uint64_t>(input.face_size) * num_faces > input.face_nodes.size()))
      fail("cells from faces: no face offsets and no face size that the face nodes hold");
  } else {
    if (input.face_offsets.size() != num_faces + 1) fail("cells from faces: face offsets and owner lengths differ");
    if (input.face_offsets[0] != 0) fail("cells from faces: face offsets must start at 0");
  }
  if (input.neighbour.size() > num_faces) fail("cells from faces: more neighbours than faces");
  // The checks run on every core; the first face that fails one (in face order, offsets before
  // cells, as one loop over the faces would find it) is then named by the sequential check.
  const auto check_offsets = [&](std::size_t f) {
    const std::int64_t corners = input.face_begin(f + 1) - input.face_begin(f);
    if (corners < 0 || input.face_begin(f + 1) > static_cast<std::int64_t>(input.face_nodes.size()))
      fail("cells from faces: face " + std::to_string(f) + " has bad offsets");
    if (input.dimension == 3 ? corners < 3 : corners != 2)
      fail("cells from faces: face " + std::to_string(f) + " has " + std::to_string(corners) +
           (input.dimension == 3 ? " nodes (at least 3 needed)" : " nodes (a 2-D face is an edge of 2)"));
  };
  const auto bad_offsets = [&](std::size_t f) {
    const std::int64_t corners = input.face_begin(f + 1) - input.face_begin(f);
    return corners < 0 || input.face_begin(f + 1) > static_cast<std::int64_t>(input.face_nodes.size()) ||
           (input.dimension == 3 ? corners < 3 : corners != 2);
  };
  if (const std::size_t f = find_first_in_parallel(0, num_faces, bad_offsets); f < num_faces) check_offsets(f);
  const auto outside = [&](std::int64_t cell) { return cell < -1 || cell >= num_cells; };
  const auto bad_cells = [&](std::size_t f) {
    return outside(input.owner[f]) || (f < input.neighbour.size() && outside(input.neighbour[f]));
  };
  if (const std::size_t f = find_first_in_parallel(0, num_faces, bad_cells); f < num_faces) {
    const bool owner_bad = outside(input.owner[f]);
    const std::int64_t cell = owner_bad ? input.owner[f] : input.neighbour[f];
    fail("cells from faces: face " + std::to_string(f) + " names " + (owner_bad ? "owner" : "neighbour") + " cell " +
         std::to_string(cell) + " outside the " + std::to_string(num_cells) + " cells");
  }

  // 1. cell -> faces. In 3-D each cell's triangles and quads are counted on the way (16 bits
  // each: a count that wraps belongs to a cell of far more than 6 faces, a polyhedron anyway),
  // so that pass 2 reads no face offsets.
  const bool three_d = input.dimension == 3;
  // The large temporaries are ScratchVectors (given back to the system when freed) and 32-bit.
  ScratchVector<std::uint32_t> cell_first(static_cast<std::size_t>(num_cells) + 1, 0);
  ScratchVector<std::uint32_t> corner_tally(three_d ? static_cast<std::size_t>(num_cells) : 0, 0);
  const bool one_face_size = input.face_offsets.empty();  // corners = face_size: no offsets to read
  for (std::size_t f = 0; f < num_faces; ++f) {
    const std::int64_t corners = one_face_size ? input.face_size : input.face_offsets[f + 1] - input.face_offsets[f];
    const std::uint32_t tally = corners == 3 ? 1u : corners == 4 ? 1u << 16 : 0u;
    const std::int64_t owner = input.owner[f];
    const std::int64_t neighbour = f < input.neighbour.size() ? input.neighbour[f] : -1;
    if (owner >= 0) {
      ++cell_first[static_cast<std::size_t>(owner) + 1];
      if (three_d) corner_tally[static_cast<std::size_t>(owner)] += tally;
    }
    if (neighbour >= 0) {
      ++cell_first[static_cast<std::size_t>(neighbour) + 1];
      if (three_d) corner_tally[static_cast<std::size_t>(neighbour)] += tally;
    }
  }
  for (std::int64_t c = 0; c < num_cells; ++c) {
    if (cell_first[static_cast<std::size_t>(c) + 1] == 0) fail("cells from faces: cell " + std::to_string(c) + " has no faces");
    cell_first[static_cast<std::size_t>(c) + 1] += cell_first[static_cast<std::size_t>(c)];
  }
  ScratchVector<std::uint32_t> entries(static_cast<std::size_t>(cell_first.back()));
  {
    // cell_first[c] serves as cell c's fill position, which ends at cell c + 1's start; one
    // shift then gives every cell its start back (no second array of num_cells positions).
    for (std::size_t f = 0; f < num_faces; ++f) {
      const auto face = static_cast<std::uint32_t>(f);
      if (input.owner[f] >= 0) entries[static_cast<std::size_t>(cell_first[static_cast<std::size_t>(input.owner[f])]++)] = 2 * face;
      if (f < input.neighbour.size() && input.neighbour[f] >= 0)
        entries[static_cast<std::size_t>(cell_first[static_cast<std::size_t>(input.neighbour[f])]++)] = 2 * face + 1;
    }
    std::copy_backward(cell_first.begin(), cell_first.begin() + num_cells, cell_first.begin() + num_cells + 1);
    cell_first[0] = 0;
  }
  if (input.cells_listed) input.cells_listed();  // owner and neighbour are not read again
  auto faces_of = [&](std::int64_t cell) {
    const auto c = static_cast<std::size_t>(cell);
    return CellFaces{std::span<const std::uint32_t>(entries).subspan(static_cast<std::size_t>(cell_first[c]),
                                                                     static_cast<std::size_t>(cell_first[c + 1] - cell_first[c])),
                     &input};
  };

  // 2. shapes: 3-D cells by their faces' corner counts only (pass 1's tallies), the nodes
  // derived once, in pass 3, straight into their block rows; 2-D cells by their edge loops.
  ScratchVector<std::uint8_t> shape(static_cast<std::size_t>(num_cells));
  parallel_ranges(static_cast<std::size_t>(num_cells), kCellGrain, [&](std::size_t first, std::size_t last) {
    std::vector<std::int64_t> loop;
    std::vector<std::size_t> edge_of;
    std::vector<char> used;
    for (std::size_t c = first; c < last; ++c) {
      const CellFaces faces = faces_of(static_cast<std::int64_t>(c));
      if (three_d) {
        const std::uint32_t tally = corner_tally[c];
        shape[c] = input.recognise_shapes ? shape_by_counts(faces.size(), tally & 0xffffu, tally >> 16) : kPolyhedron;
      } else {
        if (!chain_edges(faces, loop, edge_of, used))
          fail("cells from faces: the " + std::to_string(faces.size()) + " edges of cell " + std::to_string(c) +
               " do not form one closed loop");
        shape[c] = !input.recognise_shapes || faces.size() > 4 ? kPolygon : faces.size() == 3 ? kTriangle : kQuad;
      }
    }
  });

  // 3. blocks, rows by a running count per shape in cell order, then every cell into its row.
  // A cell whose face counts promised a standard shape but whose faces do not close into it is
  // found only while filling: it becomes a polyhedron and the blocks are planned again (rare:
  // a broken or unusual mesh pays for a second pass, a sound one never does).
  const std::size_t num_shapes = three_d ? kShapeNames3.size() : kShapeNames2.size();
  const std::uint8_t ragged_shape = three_d ? std::uint8_t{kPolyhedron} : std::uint8_t{kPolygon};
  free_now(corner_tally);  // pass 2 was its last reader
  FaceCells result;
  for (;;) {
    std::vector<std::int64_t> shape_count(num_shapes, 0);
    std::vector<int> block_of_shape(num_shapes, -1);
    std::vector<std::uint8_t> shape_of_block;
    // Cells all of one shape make one block in file order: no maps (FaceCells says so).
    const bool one_shape =
        num_cells == 0 || find_first_in_parallel(0, static_cast<std::size_t>(num_cells), [&](std::size_t c) {
                            return shape[c] != shape[0];
                          }) == static_cast<std::size_t>(num_cells);
    // Each cell's row in its block until pass 3 adds the block's base (no array of its own).
    NDArray block_major_of_cell = one_shape ? NDArray() : NDArray::allocate_scratch(DType::int64, {num_cells});
    std::int64_t* row = one_shape ? nullptr : block_major_of_cell.data_as<std::int64_t>();
    std::vector<std::int64_t> ragged_faces_before, ragged_nodes_before;  // per ragged cell: prefix sums
    ragged_faces_before.push_back(0);
    ragged_nodes_before.push_back(0);
    for (std::int64_t c = 0; c < num_cells; ++c) {
      const std::uint8_t s = shape[static_cast<std::size_t>(c)];
      if (block_of_shape[s] < 0) {
        block_of_shape[s] = static_cast<int>(shape_of_block.size());
        shape_of_block.push_back(s);
      }
      if (one_shape) ++shape_count[s];
      else row[c] = shape_count[s]++;
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

    result = FaceCells{};
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
    result.num_cells = num_cells;
    result.block_major_of_cell = std::move(block_major_of_cell);
    if (!one_shape) result.cell_of_block_major = NDArray::allocate_scratch(DType::int64, {num_cells});
    std::int64_t* block_major = one_shape ? nullptr : result.block_major_of_cell.data_as<std::int64_t>();
    std::int64_t* cell_of = one_shape ? nullptr : result.cell_of_block_major.data_as<std::int64_t>();

    std::atomic<bool> shapes_changed{false};
    parallel_ranges(static_cast<std::size_t>(num_cells), kCellGrain, [&](std::size_t first, std::size_t last) {
      std::int64_t nodes[8], facets[6];
      std::vector<GatheredCell> batch(three_d ? kBatch : 0);
      std::vector<std::int64_t> loop;
      std::vector<std::uint32_t> in_facet_order;
      std::vector<std::size_t> edge_of;
      std::vector<char> used;
      for (std::size_t c = first; c < last; ++c) {
        if (three_d && (c - first) % kBatch == 0)
          gather_batch(input, shape.data(), entries, cell_first.data(), c, std::min(last, c + kBatch), batch.data());
        const std::uint8_t s = shape[c];
        const auto b = static_cast<std::size_t>(block_of_shape[s]);
        const std::int64_t r = one_shape ? static_cast<std::int64_t>(c) : block_major[c];  // the row, from the planning loop
        if (!one_shape) {
          const std::int64_t global = block_base[b] + r;
          block_major[c] = global;
          cell_of[global] = static_cast<std::int64_t>(c);
        }
        CellBlock& block = result.blocks[b];
        const CellFaces faces = faces_of(static_cast<std::int64_t>(c));
        std::uint32_t* own_entries = entries.data() + cell_first[c];  // only this range touches them
        if (three_d && s != kPolyhedron) {
          if (derive_shape(static_cast<Shape3>(s), batch[(c - first) % kBatch], nodes, facets)) {
            const int width = kShapeNodes3[s];
            std::copy(nodes, nodes + width, block.connectivity.data_as<std::int64_t>() + r * width);
            std::uint32_t by_facet[6];  // derive_shape found every facet once: a permutation
            for (std::size_t k = 0; k < faces.size(); ++k) by_facet[facets[k]] = own_entries[k];
            std::copy(by_facet, by_facet + faces.size(), own_entries);
          } else {
            shape[c] = kPolyhedron;  // only this range touches cell c
            shapes_changed.store(true, std::memory_order_relaxed);
          }
        } else if (three_d) {
          std::int64_t* offsets = block.face_offsets.data_as<std::int64_t>();
          std::int64_t face_slot = block.offsets.data_as<std::int64_t>()[r];
          std::int64_t node_slot = ragged_nodes_before[static_cast<std::size_t>(r)];
          std::int64_t* out = block.connectivity.data_as<std::int64_t>();
          for (std::size_t k = 0; k < faces.size(); ++k) {
            const FaceView view = faces.view(k);
            offsets[face_slot++] = node_slot;
            for (int i = 0; i < view.count; ++i) out[node_slot++] = view.at(i);
          }
          if (r + 1 == shape_count[kPolyhedron]) offsets[face_slot] = node_slot;
        } else {
          chain_edges(faces, loop, edge_of, used);
          std::int64_t* out = s == kPolygon ? block.connectivity.data_as<std::int64_t>() + block.offsets.data_as<std::int64_t>()[r]
                                            : block.connectivity.data_as<std::int64_t>() + r * (s == kTriangle ? 3 : 4);
          std::copy(loop.begin(), loop.end(), out);
          in_facet_order.clear();
          for (const std::size_t k : edge_of) in_facet_order.push_back(own_entries[k]);
          std::copy(in_facet_order.begin(), in_facet_order.end(), own_entries);
        }
      }
    });
    if (!shapes_changed.load()) {
      result.cell_first = std::move(cell_first);
      result.facet_entries = std::move(entries);
      return result;
    }
    // The cells filled so far put their faces in facet order; the next pass derives every cell
    // again from its faces in file order (the base face is chosen by position), as the first did.
    parallel_ranges(static_cast<std::size_t>(num_cells), kCellGrain, [&](std::size_t first, std::size_t last) {
      for (std::size_t c = first; c < last; ++c)
        std::sort(entries.begin() + cell_first[c], entries.begin() + cell_first[c + 1]);
    });
  }
}

std::array<std::int64_t, 2> FaceCells::side(std::int64_t face, std::int64_t cell, bool as_neighbour) const noexcept {
  if (cell < 0 || static_cast<std::size_t>(cell) + 1 >= cell_first.size()) return {-1, -1};
  if (face < 0 || face >= (std::int64_t{1} << 31)) return {-1, -1};
  const auto wanted = static_cast<std::uint32_t>(2 * face + (as_neighbour ? 1 : 0));
  const auto first = static_cast<std::size_t>(cell_first[static_cast<std::size_t>(cell)]);
  const auto last = static_cast<std::size_t>(cell_first[static_cast<std::size_t>(cell) + 1]);
  for (std::size_t i = first; i < last; ++i)
    if (facet_entries[i] == wanted)
      return {block_major(cell), static_cast<std::int64_t>(i - first)};
  return {-1, -1};
}

void FaceCells::forget_sides() noexcept {
  free_now(cell_first);
  free_now(facet_entries);
}

std::vector<NDArray> cell_values_by_block(const FaceCells& cells, const NDArray& values) {
  const std::int64_t num_cells = cells.num_cells;
  if (values.rows() != num_cells) fail("cell values: " + std::to_string(values.rows()) + " rows for " + std::to_string(num_cells) + " cells");
  const std::size_t row_bytes = values.rows() > 0 ? values.nbytes() / static_cast<std::size_t>(values.rows()) : 0;
  std::vector<NDArray> out;
  Shape shape = values.shape();
  if (cells.in_file_order()) {  // already in block order
    out.push_back(values);
    return out;
  }
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
