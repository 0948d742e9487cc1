// MED (.med): the Salome / code_aster mesh and results format, an HDF5 file in the MED 3
// layout, read and written through the HDF5 floor (io/hdf5/hdf5_file.hpp) as meshio does (no libmed).
//
// What the format holds: /ENS_MAA/<mesh> one or more meshes (Salome and code_aster files often
// hold several), each with its geometry in a mesh step; /FAS/<mesh> each mesh's families (node
// and cell groups); /CHA/<field> fields, each on the mesh its MAI attribute names, one group per
// computation step (NDT, NOR, time PDT); /PROFILS the profiles (subsets) fields are given on.
//
// One read gives one mesh: the one named (ReadOptions::mesh_name), else the first in the
// file's order (HDF5's name order, as meshio and the MED library number them) — the registry's
// read(path). Only the fields defined on that mesh come with it (a field without a MAI attribute,
// or naming no mesh of the file, is taken as the first mesh's); the other meshes and their
// fields are not read.
// mesh_names(path) lists the meshes without reading them. (meshio 5.3.5 refuses a file with
// several meshes; it reads every field of /CHA with its one mesh.)
//
// What becomes what (reading the chosen mesh of ENS_MAA, and its first mesh step):
//   NOE/COO (coordinates, Fortran order)     → points (n, ESP; DIM in MED 2.2 files, which lack ESP)
//   MAI/<type>/NOD                           → one cell block per MED type (PO1 → vertex, SE2 → line,
//                                              TR3 → triangle, QU4 → quad, TE4 → tetra, HE8 →
//                                              hexahedron, PY5, PE6 and their quadratic members),
//                                              nodes as stored (meshio does not reorder either)
//   MAI/POG (NOD, INN: per polygon, 1-based)  → one polygon block
//   MAI/POE (NOD, INN, IFN)                   → one polyhedron block: IFN indexes each polyhedron's
//                                              faces, INN each face's nodes (MED 3 and 4; MED 2
//                                              files name the two the other way round, told apart
//                                              by INFOS_GENERALES/MAJ). MED does not say which way
//                                              faces turn (Salome's SMESH writes them outward,
//                                              MEDMEM's test files inward): every face is turned
//                                              out of its polyhedron (io/cells/polyhedron_orientation)
//   NOE/FAM, MAI/<type>/FAM (family numbers)  → point_data "point_tags", cell_data "cell_tags"
//   FAS families (number → group names)       → string_field_data "med:point_tags" and
//                                              "med:cell_tags" ("<number>\t<group>\t<group>…" per
//                                              family; the Python layer turns them into meshio's
//                                              mesh.point_tags / mesh.cell_tags dicts), and one
//                                              Point or Cell region per group (tag = -1)
//   CHA fields at nodes (NOE)                 → point_data (n,) or (n, components)
//   CHA fields on cells (MAI.<type>, ELEM)    → cell_data (n,) or (n, components)
//   CHA fields at cell nodes (NOE.<type>, ELNO) and Gauss points (ELGA)
//                                             → cell_data (n, points per cell, components)
//   profiles (PROFILS)                        → values where the profile says, NaN elsewhere
// A field with several time steps gives one array per step named "<name>[<i>] - <time>",
// as meshio names them; a block a field does not cover gets NaN.
#pragma once

#include <string>
#include <vector>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/read_selection.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::med {

struct ReadOptions {
  std::string mesh_name;  // a mesh of /ENS_MAA; empty: the first one
};

// The registry's read: the first mesh.
Mesh read(const std::string& path);
// The mesh `options.mesh_name`: a name the file lacks is a ReadError naming the file and listing
// the meshes it has.
Mesh read(const std::string& path, const ReadOptions& options);
// read(path) narrowed on disk (read_selection.hpp): fields not asked for are not read; with
// points_only no connectivity. Family numbers are read (the group regions come from them).
Mesh read_selected(const std::string& path, const ReadRequest& request);
// What read(path) gives, from dataset shapes, attributes and family names: no coordinates,
// connectivity, family numbers or field values; group counts are unknown (-1).
MeshMetadata read_metadata(const std::string& path);
// The file's meshes, in file order (the names under /ENS_MAA; no array is read).
std::vector<std::string> mesh_names(const std::string& path);

// meshio's layout (MED 3.0.0, mesh "mesh"): coordinates, one MAI group per cell type (two
// blocks of one fixed-size type are a WriteError, as in meshio; blocks of one ragged type —
// meshio's Python view splits polygons and polyhedra by node count — are joined into one POG or
// POE group with their data; polyhedra as the MED library writes them, faces oriented outward), families from "point_tags"/"cell_tags"
// with "med:point_tags"/"med:cell_tags" or, without them, from the Point and Cell regions
// (one family per distinct set of groups), point data as NOE fields, cell data as ELEM (n,) /
// (n, k) or ELNO (n, nodes per cell, k) fields.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::med
