// Floor 2: ANSYS element routines -> our cell types, both ways. Shared by the .cdb reader and
// writer (formats/ansys_cdb) and the .rst/.rth results reader (formats/ansys_rst): both store
// elements as MAPDL does, a routine number per element type and a node list per element.
//
// An element routine (the number in ET,itype,186 or SOLID186) belongs to a family that says
// how its node list becomes a cell; the families and their members are pymapdl-reader's
// (ansys-mapdl-reader, MIT, elements.py ETYPE_MAP and vtk_support.c). Within a family the
// repeated nodes decide, as MAPDL's degenerate shapes are written:
//   brick (SOLID185/186, SOLID45/95, SOLSH190 …): I J K L M N O P [Q R S T U V W X Y Z A B]
//     O = P: wedge (K = L, O = P) unless N = O too: pyramid (M = N = O = P) unless K = L
//     too: tetrahedron. More than 8 nodes: the quadratic form (hexahedron20, wedge15,
//     pyramid13, tetra10), in ANSYS's order: a wedge is I J K / M N O, as VTK's (whose positive
//     wedge has its base I J K turning about the edge to the top, as a brick's I J K L does).
//     pymapdl-reader writes K J I / O N M, after vtkWedge's documentation; VTK 9's own volume
//     (vtkCellSizeFilter) is negative for that order, so we keep the file's (as 17.21 does).
//   tet (SOLID187/285, SOLID92 …): I J K L [M N O P Q R] as VTK's tetra / tetra10.
//   shell (SHELL181/281/63, PLANE182/183 …): I J K L [M N O P]; K = L: a triangle
//     (triangle6 from I J K, M N P). 6 nodes: a triangle6 (PLANE35). 5 or 10 nodes: the first
//     4 or 8 (an orientation node, TARGE170/SURF152). An 8-node list with O = P: a quad.
//   line (BEAM189, LINK180 …): I J [K]: K > 0 is a mid-side node (line3), else a line.
//   linear line (BEAM188 …): I J, the third node orients the section.
//   point (MASS21 …): I.
// MESH200's family comes from its KEYOPT(1) (0-3 line, 4-7 shell, 8-9 tet, 10-11 brick).
// A node number 0 in a mid-side slot is a missing mid-side node (the reader places one at
// the edge's midpoint, as pymapdl-reader does); ANSYS may also leave trailing zeros out.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace meshioplusplus::io::ansys_elements {

enum class Family : std::uint8_t { none, point, line, shell, brick, tet, linear_line };

// The family of element routine `routine` (1..300); none for routines without a cell.
Family routine_family(std::int64_t routine) noexcept;
// MESH200's family from its KEYOPT(1).
Family mesh200_family(std::int64_t keyopt1) noexcept;

// One element's cell: its type and, per node of ours, the slot of the ANSYS node list it
// comes from. `midside_from`: our node positions from there on are mid-side nodes (a 0 there
// is a missing one); corners before it.
struct Resolved {
  std::string_view type;  // empty: no cell
  std::span<const std::int8_t> slots;
  int midside_from = 0;
};

// `nodes` holds the element's node numbers as written (count = the record's own count);
// slots past it read as 0.
Resolved resolve(Family family, std::span<const std::int64_t> nodes) noexcept;

// The corners at both ends of our mid-side node `k` (k >= midside_from) of `type`.
std::array<std::int8_t, 2> midside_edge(std::string_view type, int k) noexcept;

// How the writer lays out a cell of `type` under a routine of `family`: file slot k holds our
// node file_order[k]. Empty when the family has no form for the type.
std::span<const std::int8_t> written_order(Family family, std::string_view type) noexcept;
// MESH200 (routine 200): the KEYOPT(1) whose shape `type` is (-1: none) and its node order
// (ours, unchanged).
int mesh200_keyopt(std::string_view type) noexcept;
std::span<const std::int8_t> mesh200_order(std::string_view type) noexcept;
// The routine written for cells of `type` when the mesh names none; 0 for a type ANSYS has
// no element for.
std::int64_t default_routine(std::string_view type) noexcept;

}  // namespace meshioplusplus::io::ansys_elements
