// The meshes of a MED file and the fields defined on each: which mesh a read takes and which
// /CHA fields come with it. Shared by med::read (med_reader.cpp) and the MED time series
// (med_time_series.cpp).
#pragma once

#include <string>
#include <vector>

#include "io/hdf5/hdf5_file.hpp"

namespace meshioplusplus::med {

// A MED name as stored: fixed-length, NUL- or space-padded; without the padding.
std::string trimmed(std::string text);

// The meshes of /ENS_MAA in the order the file lists them (HDF5's name order: the order meshio
// and the MED library number them); nothing is read but the group's member names. A file
// without /ENS_MAA is a ReadError ("not a MED file").
std::vector<std::string> mesh_names(const io::hdf5::File& file);

// The mesh a read takes: `requested`, or the first one where `requested` is empty. A file
// without meshes, or a name /ENS_MAA does not hold, is a ReadError naming the file and
// listing the meshes it has.
std::string chosen_mesh(const io::hdf5::File& file, const std::string& requested);

// The fields of /CHA defined on mesh `mesh`, in /CHA's order: a field names its mesh in its MAI
// attribute; a field without one, or naming no mesh of the file, is taken as the first mesh's
// (meshio reads every field with a file's one mesh, whatever MAI says).
std::vector<std::string> fields_on(const io::hdf5::File& file, const std::string& mesh);

}  // namespace meshioplusplus::med
