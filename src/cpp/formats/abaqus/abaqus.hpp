// Abaqus input files (.inp): the mesh part of the keyword language.
//
// What a read produces:
//   points   (n, dim) float64, dim = the most coordinates any *NODE line gives (missing
//            ones are 0), in order of definition. Node labels become dense 0-based indices.
//   cells    one block per *ELEMENT section (per instance of a part), rows in file order;
//            element types map to meshio's names (abaqus_element_types.cpp). Node orders are
//            Abaqus's, which are meshio's, except the 3-node beams and trusses (B22, B32,
//            T3D3 …): Abaqus numbers their middle node second, meshio's line3 last.
//            Sections of element types with no meshio counterpart (MASS, SPRING*, connectors …)
//            are skipped; sets that name their elements simply do not list them.
//   regions  *NSET and NSET= → Point regions; *ELSET and ELSET= → Cell regions (block-major
//            cell indices); *SURFACE, TYPE=ELEMENT → Side regions of (cell, local facet)
//            pairs, the Abaqus face label Sn turned into the project's facet numbering
//            (Exodus order, side_regions.hpp) for solids and plane elements; other labels
//            (SPOS, E1 …) and line cells are skipped. Entries
//            are sorted and unique; sets of the same name (in several instances, or defined
//            twice) are merged, as Abaqus adds to a set that already exists. GENERATE, set
//            names inside sets, INSTANCE= and "instance.label" references are resolved.
// Structure: *PART … *END PART bodies are read when an *INSTANCE of them is met, once per
// instance, with the instance's translation and rotation applied (translation first);
// nodes, elements and sets inside *INSTANCE … *END INSTANCE belong to that instance. Each
// instance (and the model/assembly level) has its own label space. A file with parts but
// no *ASSEMBLY gets each part once, untransformed. *INCLUDE, INPUT= is read in place (a
// relative path is looked up next to the including file first); INPUT= on *NODE, *ELEMENT,
// *NSET and *ELSET reads their data lines from that file. Keywords and parameters are
// case-insensitive; keyword lines ending in a comma continue on the next line; "**" lines
// are comments; all other keywords are skipped with their data lines.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::abaqus {

Mesh read(const std::string& path);

// Writes *HEADING, one *NODE section (labels 1…n), one *ELEMENT section per block (labels
// continue from block to block), then *NSET / *ELSET for the Point / Cell regions and, for
// each Side region, one *ELSET "<name>_S<n>" per face label plus a *SURFACE, TYPE=ELEMENT
// (pairs on cells without Abaqus faces, such as lines, are left out). Coordinates are
// the shortest text that reads back to the same double.
// Options: translate_cell_names ("true"): write Abaqus element names (C3D8, S4, CPS3 … — plane
// elements when the points are 2-D, shells and 3-D trusses otherwise); "false" writes
// meshio's type names, as meshio does. Cell types without an Abaqus element (vertex,
// polygon …) are refused (std::invalid_argument).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::abaqus
