// Fluent CFF (Common Fluids Format): ANSYS Fluent's HDF5 case and data files, the default of
// current Fluent releases. `.cas.h5` holds the mesh (and solver settings), `.dat.h5` beside it the
// solution, `.msh.h5` a mesh written by Fluent Meshing. Read only. What becomes what: see the
// header of fluent_cff_reader.cpp.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::fluent_cff {

// `path` is a case (.cas.h5) or mesh (.msh.h5) file: its mesh, and when a data file with the
// same stem lies beside a case (x.cas.h5 -> x.dat.h5), its cell fields as cell data. `path` is
// a data file (.dat.h5): the case beside it (same stem, else the one its /settings/"Case File"
// names) with this data file's fields.
Mesh read(const std::string& path);

}  // namespace meshioplusplus::fluent_cff
