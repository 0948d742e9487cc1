// The fuzz targets (fuzz/fuzz_reader.cpp, one executable per entry) and how a fuzz input
// becomes the file(s) a reader opens. Shared with the regression replay
// (tests/io/test_fuzz_regressions.cpp), so a saved input replays exactly as it was fuzzed:
// tests/data/fuzz-regressions/<target name>/<any file name>.
#pragma once

#include <array>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace meshioplusplus::fuzzing {

struct FuzzTarget {
  std::string_view name;       // executable fuzz_<name>, seed and regression folder name
  std::string_view format;     // registry name
  std::string_view extension;  // file name ending (it selects variants inside a reader)
};

// Every format in the registry that can read, plus the variants a file name selects. The
// HDF5, netCDF and CGNS formats read the input as a file through their library, like any other.
inline constexpr std::array<FuzzTarget, 37> kFuzzTargets{{
    {"vtu", "vtu", ".vtu"},
    {"vtk", "vtk", ".vtk"},
    {"gmsh", "gmsh", ".msh"},
    {"medit", "medit", ".mesh"},
    {"medit_meshb", "medit", ".meshb"},
    {"abaqus", "abaqus", ".inp"},
    {"nastran", "nastran", ".bdf"},
    {"stl", "stl", ".stl"},
    {"ply", "ply", ".ply"},
    {"obj", "obj", ".obj"},
    {"off", "off", ".off"},
    {"su2", "su2", ".su2"},
    {"ugrid", "ugrid", ".ugrid"},
    {"ugrid_lb8", "ugrid", ".lb8.ugrid"},
    {"ugrid_r8", "ugrid", ".r8.ugrid"},
    {"tetgen", "tetgen", ".node"},
    {"avsucd", "avsucd", ".avs"},
    {"tecplot", "tecplot", ".dat"},
    {"dolfin", "dolfin", ".xml"},
    {"wkt", "wkt", ".wkt"},
    {"flac3d", "flac3d", ".f3grid"},
    {"mdpa", "mdpa", ".mdpa"},
    {"permas", "permas", ".post"},
    {"netgen", "netgen", ".vol"},
    {"ansys", "ansys", ".msh"},
    {"neuroglancer", "neuroglancer", ""},  // no file name ending: the format is named
    {"vtp", "vtp", ".vtp"},
    {"vts", "vts", ".vts"},
    {"vtr", "vtr", ".vtr"},
    {"vti", "vti", ".vti"},
    {"xdmf", "xdmf", ".xdmf"},  // heavy data inline (XML or binary); HDF5 references name other files
    {"hmf", "hmf", ".hmf"},
    {"h5m", "h5m", ".h5m"},
    {"vtkhdf", "vtkhdf", ".vtkhdf"},
    {"med", "med", ".med"},
    {"cgns", "cgns", ".cgns"},  // ADF or HDF5, as the file's first bytes say
    {"exodus", "exodus", ".exo"},
}};

inline const FuzzTarget* find_fuzz_target(std::string_view name) {
  for (const FuzzTarget& target : kFuzzTargets)
    if (target.name == name) return &target;
  return nullptr;
}

// TetGen reads a pair: the input splits at the first marker into X.node and X.ele.
inline constexpr std::string_view kTetgenSplit = "\n%%ele%%\n";

inline void write_whole_file(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

// Writes `input` as the file(s) `target` reads, named `stem` + extension; returns the path
// to hand to meshioplusplus::read.
inline std::string materialize_fuzz_input(const FuzzTarget& target, const std::string& stem, std::string_view input) {
  if (target.format == "tetgen") {
    const std::size_t split = input.find(kTetgenSplit);
    write_whole_file(stem + ".node", input.substr(0, split));
    write_whole_file(stem + ".ele", split == std::string_view::npos ? std::string_view()
                                                                    : input.substr(split + kTetgenSplit.size()));
    return stem + ".node";
  }
  const std::string path = stem + std::string(target.extension);
  write_whole_file(path, input);
  return path;
}

}  // namespace meshioplusplus::fuzzing
