// LS-DYNA keyword decks (.k, .key, .dyn): the mesh part of the keyword language.
//
// What a read produces:
//   points   (n, 3) float64 from every *NODE card, in order of definition (the deck and the
//            files it includes, in reading order). Node ids become dense 0-based indices.
//            TC/RC (constraints) are not kept.
//   cells    one block per run of consecutive elements of one cell type and element family:
//              *ELEMENT_SOLID (also _ORTHO, _TET4TOTET10, _H8TOH20, read as the linear cells
//                they list — for _H8TOH20 the 8 corners as hexahedron: LS-DYNA generates
//                the mid-side nodes at run time, the deck does not hold them):
//                8-node cards with repeated nodes become the cells they degenerate to —
//                1 2 3 4 4 4 4 4 → tetra, 1 2 3 3 4 4 4 4 → tetra, 1 2 3 4 5 5 5 5 → pyramid,
//                1 2 3 4 5 5 6 6 and 1 2 3 3 4 5 6 6 → wedge (the manual's pentahedron
//                forms), else hexahedron; the two-line form (EID PID alone, then N1…N10)
//                gives tetra10 for 10 nodes, tetra for 4, the rules above for 8;
//              *ELEMENT_SOLID_H20 (EID PID, then N1…N10, N11…N20): hexahedron20, LS-DYNA's
//                node order being VTK's (corners, bottom, top, vertical mid-edges);
//              *ELEMENT_TSHELL (and _BETA): as 8-node solids (hexahedron, or wedge);
//              *ELEMENT_SHELL (and _THICKNESS, _BETA, _MCID, _OFFSET, _DOF): quad, triangle
//                when N4 is blank or repeats N3; with N5…N8: quad8, or triangle6 for the
//                1 2 3 3 5 6 7 7 form;
//              *ELEMENT_BEAM (any of its one-card options: _THICKNESS, _SCALAR, _SECTION,
//                _PID, _OFFSET, _ORIENTATION, _WARPAGE, _ELBOW): line N1 N2 (N3 orients);
//              *ELEMENT_DISCRETE (and _LCO): line; *ELEMENT_SPH, *ELEMENT_MASS: vertex.
//            Node orders are meshio's (LS-DYNA's tetra10 numbering is VTK's). Other element
//            keywords and options (_H27, _H64, _P21, _T15, _COMPOSITE, NURBS, …: the
//            order of their face and body nodes is not checked against VTK's) are skipped with their
//            cards; element ids are not kept, the writer numbers 1…n.
//   regions  *PART (and its _CONTACT, _PRINT, _INERTIA … options) → a Cell region per
//            part, named by its title (or "Part <pid>" when blank), tag = pid, dim = the
//            highest dimension of its elements' families (-1 when it has none);
//            *SET_NODE[_LIST][_GENERATE[_INCREMENT]][_TITLE] → Point regions;
//            *SET_SOLID / _SHELL / _BEAM / _TSHELL / _DISCRETE (same options) → Cell
//            regions of those elements; *SET_PART[_LIST][_GENERATE] → Cell regions of the
//            parts' cells. Sets are named by their title, else "<FAMILY> set <sid>"; tag =
//            sid, dim = -1; entries in the file's order, repeats dropped. A GENERATE range
//            takes the ids that exist in it; ids that name nothing this reader reads (parts
//            of *ICFD_PART, nodes of *NODE_SCALAR, elements of skipped sections, or nothing
//            at all) are left out. *SET_SEGMENT[_TITLE] (N1…N4 a card, a triangle
//            repeating N3) → one region, dim 2, tag = sid, named by title or "SEGMENT set
//            <sid>": a Side region (cell, local facet) when every segment is a face of a
//            solid (matched by sorted corners), else a Cell region of the shells when
//            every segment is a shell, else a Cell region of new triangle/quad cells (blocks
//            appended after the deck's). *SET_SEGMENT_GENERAL and other segment forms are
//            skipped and listed in string field data "lsdyna:skipped"; *SET_*_ADD and the
//            other set forms are skipped.
// Input: fixed fields (8-column ids, 16-column reals; *PART and *SET cards 10-column),
// the I10 format (ids 10 columns: "*KEYWORD I10=Y" or a '%' after a keyword), the long
// format (every field 20 columns: "*KEYWORD LONG=Y|S|K" or a '+' after a keyword; a '-'
// returns one keyword to the standard format), and free format (a data line holding a
// comma is split at commas), mixed freely. Keywords are case-insensitive; '$' lines are
// comments; a deck need not start with *KEYWORD; *END ends the file it is in. Reals may be
// Fortran style ("1.5-3", "1.D0"). *INCLUDE files are read in place, looked up beside the
// including file, then in the *INCLUDE_PATH(_RELATIVE) folders, then as written; a file
// that includes itself (directly or not) or nesting past 32 is an error.
// *INCLUDE_TRANSFORM and *PARAMETER values (&name) are not applied (their cards are errors
// where a number is needed, or skipped with their keyword).
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::lsdyna {

Mesh read(const std::string& path);

// Writes *KEYWORD, *NODE (ids 1…n), one *ELEMENT_* section per block (ids continue from
// block to block; tetra/pyramid/wedge as the manual's degenerate 8-node solids, triangles
// as N1 N2 N3 N3 shells, tetra10 in the two-line form, hexahedron20 as *ELEMENT_SOLID_H20, vertices as *ELEMENT_MASS), *PART
// cards, sets, *END. Parts: every Cell region with dim >= 0 whose cells are of one family
// and not yet in a part (pid = its tag when free); cells left over get one part per block,
// titled by the block's cell type (those read back as Cell regions too). Other Cell regions
// → *SET_<family>_LIST_TITLE (one per family they span), Point regions →
// *SET_NODE_LIST_TITLE (sid = the tag when free); Side regions are not written.
// Exactness: a node line is written in fixed columns (I8, 3E16) when each coordinate's
// shortest round-trip text fits 16 columns, else that one line in free format (commas), so
// every coordinate reads back to the same double. Ids past 8 digits switch a section to the
// I10 format ('%'), past 10 digits to the long format ('+'). 2-D points get z = 0. Cell
// types without an LS-DYNA element (line3, polygon, hexahedron27 …) are refused
// (std::invalid_argument).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::lsdyna
