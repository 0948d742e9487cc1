#include "formats/gmsh/gmsh_element_types.hpp"

#include <array>
#include <vector>

#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus::gmsh {
namespace {

// Node orders, read off the Gmsh manual's "Node ordering" figures and checked against the
// reference coordinates gmsh.model.mesh.getElementProperties() reports. Corner nodes agree
// everywhere; the types below differ in how edge (and face) nodes are numbered:
//   tetra10: meshio/VTK edges 8 = (1,3), 9 = (2,3); Gmsh numbers them 9 = (3,1), 8 = (3,2).
//   hexahedron20: VTK walks the bottom ring (0-1,1-2,2-3,3-0), the top ring, then the
//     verticals; Gmsh lists edges by their lowest corner: 8=(0,1) 9=(0,3) 10=(0,4) 11=(1,2)
//     12=(1,5) 13=(2,3) 14=(2,6) 15=(3,7) 16=(4,5) 17=(4,7) 18=(5,6) 19=(6,7).
//   hexahedron27: the same edges, then faces: VTK (-x, +x, -y, +y, -z, +z); Gmsh 20=-z
//     21=-y 22=-x 23=+x 24=+y 25=+z; the centre is 26 in both.
//   wedge15: VTK edges 6=(0,1) 7=(1,2) 8=(2,0) 9=(3,4) 10=(4,5) 11=(5,3) 12=(0,3) 13=(1,4)
//     14=(2,5); Gmsh 6=(0,1) 7=(0,2) 8=(0,3) 9=(1,2) 10=(1,4) 11=(2,5) 12=(3,4) 13=(3,5)
//     14=(4,5).
//   pyramid13: VTK edges 5=(0,1) 6=(1,2) 7=(2,3) 8=(3,0) 9..12=(0..3,4); Gmsh 5=(0,1)
//     6=(0,3) 7=(0,4) 8=(1,2) 9=(1,4) 10=(2,3) 11=(2,4) 12=(3,4).
// Like meshio, wedge18, pyramid14 and the third-and-higher-order types keep Gmsh's order.
constexpr std::array<std::uint16_t, 10> kTetra10{0, 1, 2, 3, 4, 5, 6, 7, 9, 8};
constexpr std::array<std::uint16_t, 20> kHexahedron20{0,  1,  2,  3,  4,  5,  6,  7,  8,  11,
                                                      13, 9,  16, 18, 19, 17, 10, 12, 14, 15};
constexpr std::array<std::uint16_t, 27> kHexahedron27{
    0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 13, 9, 16, 18, 19, 17, 10, 12, 14, 15, 22, 23, 21, 24, 20, 25, 26};
constexpr std::array<std::uint16_t, 15> kWedge15{0, 1, 2, 3, 4, 5, 6, 9, 7, 12, 14, 13, 8, 10, 11};
constexpr std::array<std::uint16_t, 13> kPyramid13{0, 1, 2, 3, 4, 5, 8, 10, 6, 7, 9, 11, 12};

struct TableRow {
  int gmsh_id;
  std::string_view name;
  std::span<const std::uint16_t> meshio_from_gmsh;
};

// Gmsh ids from GmshDefines.h (MSH_LIN_2 = 1 …), restricted to the types meshio names.
constexpr std::array kRows{
    TableRow{1, "line", {}},           TableRow{2, "triangle", {}},
    TableRow{3, "quad", {}},           TableRow{4, "tetra", {}},
    TableRow{5, "hexahedron", {}},     TableRow{6, "wedge", {}},
    TableRow{7, "pyramid", {}},        TableRow{8, "line3", {}},
    TableRow{9, "triangle6", {}},      TableRow{10, "quad9", {}},
    TableRow{11, "tetra10", kTetra10}, TableRow{12, "hexahedron27", kHexahedron27},
    TableRow{13, "wedge18", {}},       TableRow{14, "pyramid14", {}},
    TableRow{15, "vertex", {}},        TableRow{16, "quad8", {}},
    TableRow{17, "hexahedron20", kHexahedron20},
    TableRow{18, "wedge15", kWedge15}, TableRow{19, "pyramid13", kPyramid13},
    TableRow{21, "triangle10", {}},    TableRow{23, "triangle15", {}},
    TableRow{25, "triangle21", {}},    TableRow{26, "line4", {}},
    TableRow{27, "line5", {}},         TableRow{28, "line6", {}},
    TableRow{29, "tetra20", {}},       TableRow{30, "tetra35", {}},
    TableRow{31, "tetra56", {}},       TableRow{36, "quad16", {}},
    TableRow{37, "quad25", {}},        TableRow{38, "quad36", {}},
    TableRow{42, "triangle28", {}},    TableRow{43, "triangle36", {}},
    TableRow{44, "triangle45", {}},    TableRow{45, "triangle55", {}},
    TableRow{46, "triangle66", {}},    TableRow{47, "quad49", {}},
    TableRow{48, "quad64", {}},        TableRow{49, "quad81", {}},
    TableRow{50, "quad100", {}},       TableRow{51, "quad121", {}},
    TableRow{62, "line7", {}},         TableRow{63, "line8", {}},
    TableRow{64, "line9", {}},         TableRow{65, "line10", {}},
    TableRow{66, "line11", {}},        TableRow{71, "tetra84", {}},
    TableRow{72, "tetra120", {}},      TableRow{73, "tetra165", {}},
    TableRow{74, "tetra220", {}},      TableRow{75, "tetra286", {}},
    TableRow{90, "wedge40", {}},       TableRow{91, "wedge75", {}},
    TableRow{92, "hexahedron64", {}},  TableRow{93, "hexahedron125", {}},
    TableRow{94, "hexahedron216", {}}, TableRow{95, "hexahedron343", {}},
    TableRow{96, "hexahedron512", {}}, TableRow{97, "hexahedron729", {}},
    TableRow{98, "hexahedron1000", {}},
    TableRow{106, "wedge126", {}},     TableRow{107, "wedge196", {}},
    TableRow{108, "wedge288", {}},     TableRow{109, "wedge405", {}},
    TableRow{110, "wedge550", {}},
};

// The resolved table: node counts and dimensions come from the core cell-type table so
// they are defined once; inverse permutations are computed here.
class Table {
 public:
  Table() {
    types_.reserve(kRows.size());
    inverses_.reserve(kRows.size());
    for (const TableRow& row : kRows) {
      const CellTypeInfo& info = cell_type(row.name);
      GmshElementType type{row.gmsh_id, info.name, info.num_nodes, info.dimension, row.meshio_from_gmsh, {}};
      if (!row.meshio_from_gmsh.empty()) {
        std::vector<std::uint16_t>& inverse = inverses_.emplace_back(row.meshio_from_gmsh.size());
        for (std::size_t i = 0; i < row.meshio_from_gmsh.size(); ++i)
          inverse[row.meshio_from_gmsh[i]] = static_cast<std::uint16_t>(i);
        type.gmsh_from_meshio = inverse;
      }
      types_.push_back(type);
    }
    by_id_.fill(-1);
    for (std::size_t i = 0; i < types_.size(); ++i) by_id_[types_[i].gmsh_id] = static_cast<int>(i);
  }

  const GmshElementType* by_id(int gmsh_id) const noexcept {
    if (gmsh_id < 0 || gmsh_id > kMaxGmshElementId || by_id_[gmsh_id] < 0) return nullptr;
    return &types_[by_id_[gmsh_id]];
  }
  std::span<const GmshElementType> all() const noexcept { return types_; }
  const GmshElementType* by_name(std::string_view name) const noexcept {
    for (const GmshElementType& type : types_)
      if (type.name == name) return &type;
    return nullptr;
  }

 private:
  std::vector<GmshElementType> types_;
  std::vector<std::vector<std::uint16_t>> inverses_;  // reserved up front: spans stay valid
  std::array<int, kMaxGmshElementId + 1> by_id_{};
};

const Table& table() {
  static const Table instance;
  return instance;
}

}  // namespace

const GmshElementType* element_type_from_gmsh(int gmsh_id) noexcept { return table().by_id(gmsh_id); }

const GmshElementType* element_type_from_name(std::string_view name) noexcept {
  return table().by_name(name);
}

std::span<const GmshElementType> element_types() noexcept { return table().all(); }

}  // namespace meshioplusplus::gmsh
