// Element routine families and the node orders of ANSYS's shapes (ansys_element_types.hpp).
#include "io/cells/ansys_element_types.hpp"

#include <string_view>

namespace meshioplusplus::io::ansys_elements {
namespace {

// Routine r's family is letter r of this table (pymapdl-reader's ETYPE_MAP, 0..300):
// N none, P point, L line, S shell, B brick, T tet, R linear line.
constexpr std::string_view kFamilies =
    "NLSLLBNPLNLLLSLNLLLNLPSLLSNNSSBLLLLSNLLLLSSSLBBNNNNSNSSSNSNLLLBSBBLSLBBPNNNSNSSSBSSSNNNTSBBSTSNBBBTS"
    "BBBBBBSBBNNNNNNSLBSTBSBTNNLNNLSSSNNNSNNNTNNSNNNNNNNLSLSSLSNNNLNSBNNNTNSLLSSPLLLNLSSSNBBTRLBNBNNNNNNN"
    "NNNNNNNNLLNNSSRBRRSSBTSSNNBTNNSBTSNNBTSBTNNNNNNNNNLLSNNNNNNNNBNNNNNNNNNNNNNNNNBBLSSSNTNNLLLTSSNNNNNNN";
static_assert(kFamilies.size() == 301);

Family family_of_letter(char c) noexcept {
  switch (c) {
    case 'P': return Family::point;
    case 'L': return Family::line;
    case 'S': return Family::shell;
    case 'B': return Family::brick;
    case 'T': return Family::tet;
    case 'R': return Family::linear_line;
    default: return Family::none;
  }
}

using Slots = std::span<const std::int8_t>;
constexpr std::int8_t kVertex[]{0};
constexpr std::int8_t kLine[]{0, 1};
constexpr std::int8_t kLine3[]{0, 1, 2};
constexpr std::int8_t kTriangle[]{0, 1, 2};
constexpr std::int8_t kTriangle6[]{0, 1, 2, 3, 4, 5};
constexpr std::int8_t kTriangle6FromQuad8[]{0, 1, 2, 4, 5, 7};
constexpr std::int8_t kQuad[]{0, 1, 2, 3};
constexpr std::int8_t kQuad8[]{0, 1, 2, 3, 4, 5, 6, 7};
constexpr std::int8_t kTetra[]{0, 1, 2, 3};
constexpr std::int8_t kTetra10[]{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
constexpr std::int8_t kHex[]{0, 1, 2, 3, 4, 5, 6, 7};
constexpr std::int8_t kHex20[]{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
constexpr std::int8_t kBrickWedge[]{0, 1, 2, 4, 5, 6};
constexpr std::int8_t kBrickWedge15[]{0, 1, 2, 4, 5, 6, 8, 9, 11, 12, 13, 15, 16, 17, 18};
constexpr std::int8_t kBrickPyramid[]{0, 1, 2, 3, 4};
constexpr std::int8_t kBrickPyramid13[]{0, 1, 2, 3, 4, 8, 9, 10, 11, 16, 17, 18, 19};
constexpr std::int8_t kBrickTetra[]{0, 1, 2, 4};
constexpr std::int8_t kBrickTetra10[]{0, 1, 2, 4, 8, 9, 11, 16, 17, 18};

// The writer's layouts: file slot k holds our node [k].
constexpr std::int8_t kWriteBrickWedge[]{0, 1, 2, 2, 3, 4, 5, 5};
constexpr std::int8_t kWriteBrickWedge15[]{0, 1, 2, 2, 3, 4, 5, 5, 6, 7, 2, 8, 9, 10, 5, 11, 12, 13, 14, 14};
constexpr std::int8_t kWriteBrickPyramid[]{0, 1, 2, 3, 4, 4, 4, 4};
constexpr std::int8_t kWriteBrickPyramid13[]{0, 1, 2, 3, 4, 4, 4, 4, 5, 6, 7, 8, 4, 4, 4, 4, 9, 10, 11, 12};
constexpr std::int8_t kWriteBrickTetra[]{0, 1, 2, 2, 3, 3, 3, 3};
constexpr std::int8_t kWriteBrickTetra10[]{0, 1, 2, 2, 3, 3, 3, 3, 4, 5, 2, 6, 3, 3, 3, 3, 7, 8, 9, 9};
constexpr std::int8_t kWriteShellTriangle[]{0, 1, 2, 2};
constexpr std::int8_t kWriteShellTriangle6[]{0, 1, 2, 2, 3, 4, 2, 5};

Resolved make(std::string_view type, Slots slots, int corners) noexcept { return {type, slots, corners}; }

}  // namespace

Family routine_family(std::int64_t routine) noexcept {
  if (routine < 0 || routine >= static_cast<std::int64_t>(kFamilies.size())) return Family::none;
  return family_of_letter(kFamilies[static_cast<std::size_t>(routine)]);
}

Family mesh200_family(std::int64_t keyopt1) noexcept {
  if (keyopt1 >= 0 && keyopt1 <= 3) return Family::line;
  if (keyopt1 >= 4 && keyopt1 <= 7) return Family::shell;
  if (keyopt1 == 8 || keyopt1 == 9) return Family::tet;
  if (keyopt1 == 10 || keyopt1 == 11) return Family::brick;
  return Family::none;
}

Resolved resolve(Family family, std::span<const std::int64_t> nodes) noexcept {
  const std::size_t n = nodes.size();
  const auto at = [&](std::size_t k) { return k < n ? nodes[k] : std::int64_t{0}; };
  switch (family) {
    case Family::none: break;
    case Family::point:
      if (n >= 1) return make("vertex", kVertex, 1);
      break;
    case Family::line:
      if (n > 2 && at(2) > 0) return make("line3", kLine3, 2);
      if (n >= 2) return make("line", kLine, 2);
      break;
    case Family::linear_line:
      if (n >= 2) return make("line", kLine, 2);
      break;
    case Family::shell:
      if (n == 3) return make("triangle", kTriangle, 3);
      if (n == 4 || n == 5) return at(2) == at(3) ? make("triangle", kTriangle, 3) : make("quad", kQuad, 4);
      if (n == 6) return make("triangle6", kTriangle6, 3);
      if (n == 8 && at(6) == at(7) && at(2) != at(3)) return make("quad", kQuad, 4);
      if (n >= 7) {  // 8, 10 (orientation nodes past the eighth), or trailing mid-sides left out
        if (at(2) == at(3)) return make("triangle6", kTriangle6FromQuad8, 3);
        return make("quad8", kQuad8, 4);
      }
      break;
    case Family::tet:
      if (n > 4) return make("tetra10", kTetra10, 4);
      if (n == 4) return make("tetra", kTetra, 4);
      break;
    case Family::brick: {
      if (n < 8) break;
      const bool quadratic = n > 8;
      if (at(6) != at(7)) return quadratic ? make("hexahedron20", kHex20, 8) : make("hexahedron", kHex, 8);
      if (at(5) != at(6)) return quadratic ? make("wedge15", kBrickWedge15, 6) : make("wedge", kBrickWedge, 6);
      if (at(2) != at(3)) return quadratic ? make("pyramid13", kBrickPyramid13, 5) : make("pyramid", kBrickPyramid, 5);
      return quadratic ? make("tetra10", kBrickTetra10, 4) : make("tetra", kBrickTetra, 4);
    }
  }
  return {};
}

std::array<std::int8_t, 2> midside_edge(std::string_view type, int k) noexcept {
  using Edge = std::array<std::int8_t, 2>;
  static constexpr Edge kLine3Edges[]{{0, 1}};
  static constexpr Edge kTriangleEdges[]{{0, 1}, {1, 2}, {2, 0}};
  static constexpr Edge kQuadEdges[]{{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  static constexpr Edge kTetraEdges[]{{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
  static constexpr Edge kPyramidEdges[]{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 4}, {1, 4}, {2, 4}, {3, 4}};
  static constexpr Edge kWedgeEdges[]{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}, {0, 3}, {1, 4}, {2, 5}};
  static constexpr Edge kHexEdges[]{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                    {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  std::span<const Edge> edges;
  int corners = 0;
  if (type == "line3") edges = kLine3Edges, corners = 2;
  else if (type == "triangle6") edges = kTriangleEdges, corners = 3;
  else if (type == "quad8") edges = kQuadEdges, corners = 4;
  else if (type == "tetra10") edges = kTetraEdges, corners = 4;
  else if (type == "pyramid13") edges = kPyramidEdges, corners = 5;
  else if (type == "wedge15") edges = kWedgeEdges, corners = 6;
  else if (type == "hexahedron20") edges = kHexEdges, corners = 8;
  const int index = k - corners;
  if (index < 0 || index >= static_cast<int>(edges.size())) return {0, 0};
  return edges[static_cast<std::size_t>(index)];
}

std::span<const std::int8_t> written_order(Family family, std::string_view type) noexcept {
  switch (family) {
    case Family::none: break;
    case Family::point:
      if (type == "vertex") return kVertex;
      break;
    case Family::line:
      if (type == "line3") return kLine3;
      [[fallthrough]];
    case Family::linear_line:
      if (type == "line") return kLine;
      break;
    case Family::shell:
      if (type == "triangle") return kWriteShellTriangle;
      if (type == "triangle6") return kWriteShellTriangle6;
      if (type == "quad") return kQuad;
      if (type == "quad8") return kQuad8;
      break;
    case Family::tet:
      if (type == "tetra") return kTetra;
      if (type == "tetra10") return kTetra10;
      break;
    case Family::brick:
      if (type == "hexahedron") return kHex;
      if (type == "hexahedron20") return kHex20;
      if (type == "wedge") return kWriteBrickWedge;
      if (type == "wedge15") return kWriteBrickWedge15;
      if (type == "pyramid") return kWriteBrickPyramid;
      if (type == "pyramid13") return kWriteBrickPyramid13;
      if (type == "tetra") return kWriteBrickTetra;
      if (type == "tetra10") return kWriteBrickTetra10;
      break;
  }
  return {};
}

int mesh200_keyopt(std::string_view type) noexcept {
  constexpr std::string_view kShapes[]{"line", "line3", "triangle", "triangle6", "quad", "quad8",
                                       "tetra", "tetra10", "hexahedron", "hexahedron20"};
  for (int k = 0; k < 10; ++k)
    if (kShapes[k] == type) return k + 2;  // 2/3: 3-D lines, 4-7: triangles and quads, 8-11: solids
  return -1;
}

std::span<const std::int8_t> mesh200_order(std::string_view type) noexcept {
  switch (mesh200_keyopt(type)) {
    case 2: return kLine;
    case 3: return kLine3;
    case 4: return kTriangle;
    case 5: return kTriangle6;
    case 6: return kQuad;
    case 7: return kQuad8;
    case 8: return kTetra;
    case 9: return kTetra10;
    case 10: return kHex;
    case 11: return kHex20;
    default: return {};
  }
}

std::int64_t default_routine(std::string_view type) noexcept {
  if (type == "vertex") return 21;          // MASS21
  if (type == "line") return 180;           // LINK180
  if (type == "line3") return 189;          // BEAM189
  if (type == "triangle" || type == "quad") return 181;     // SHELL181
  if (type == "triangle6" || type == "quad8") return 281;   // SHELL281
  if (type == "tetra" || type == "pyramid" || type == "wedge" || type == "hexahedron") return 185;  // SOLID185
  if (type == "tetra10") return 187;        // SOLID187
  if (type == "pyramid13" || type == "wedge15" || type == "hexahedron20") return 186;  // SOLID186
  return 0;
}

}  // namespace meshioplusplus::io::ansys_elements
