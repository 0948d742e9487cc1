// PERMAS (INTES) model decks: .dato, .post, and their gzip-compressed .dato.gz / .post.gz.
//
// What a read produces:
//   points      float64 (n, 3) from $COOR (or $NODE) records "id x y z"; node ids are free
//               and are renumbered 0..n-1 in file order.
//   cells       one block per $ELEMENT TYPE = <class> section, in file order. The class maps to
//               meshio's cell type (PLOTL2/BECOS/… -> line, TRIA3/SHELL3/… -> triangle,
//               QUAD4/SHELL4/… -> quad, TET4, PENTA6, PYRA5, HEXE8 …, and the second-order
//               classes). TRIMS6/LOADA6, TET10, QUAMS9/PLOTA9/LOADA9 and PENTA15 list their
//               nodes around the edges; they are reordered to meshio's order (meshio writes
//               that order but does not undo it on read). Classes outside the table (springs,
//               masses, CONA8 …) are skipped, and so are their members in element sets.
//   regions     $NSET NAME = s / $COOR NSET = s -> Point region s; $ESET NAME = s /
//               $ELEMENT ESET = s -> Cell region s (block-major indices). Members are ids or
//               names of sets of the same kind; entries ascending, repeated names merged.
// Syntax: '!' starts a comment, a line whose first non-blank character is '&' continues the
// record before it (keyword or data), keywords and parameter names ignore case, parameters
// are KEY = VALUE with optional blanks or commas. Only the first $STRUCTURE … $END
// STRUCTURE is read (a .post file repeats it); other records ($SYSTEM, $MATERIAL, …) are
// passed over. Cylindrical/spherical $COOR blocks are refused. gzip input is recognised by
// its magic bytes, whatever the name.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::permas {

Mesh read(const std::string& path);

// No options; gzip-compressed when the name ends in ".gz". Writes one component DFLT_COMP
// with $COOR (2-D points get z = 0), one $ELEMENT section per block (the plain class of each
// type: PLOT1, PLOTL2, PLOTL3, TRIA3, TRIMS6, QUAD4, QUAMS8, QUAMS9, TET4, TET10, PYRA5,
// PENTA6, PENTA15, HEXE8, HEXE20, HEXE27) and Point/Cell regions as $NSET/$ESET (characters a
// name cannot hold — blanks, '=', '!', '$', '&', ',' — become '_'). Other cell types are
// refused (std::invalid_argument); point/cell/field data and Side regions have no place in
// the structure section and are not written.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::permas
