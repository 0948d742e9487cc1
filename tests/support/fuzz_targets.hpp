// The fuzz targets (fuzz/fuzz_reader.cpp, one executable per entry) and how a fuzz input
// becomes the file(s) a reader opens. Shared with the regression replay
// (tests/io/test_fuzz_regressions.cpp), so a saved input replays exactly as it was fuzzed:
// tests/data/fuzz-regressions/<target name>/<any file name>.
#pragma once

#include <sys/stat.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace meshioplusplus::fuzzing {

struct FuzzTarget {
  std::string_view name;       // executable fuzz_<name>, seed and regression folder name
  std::string_view format;     // registry name
  std::string_view extension;  // file name ending (it selects variants inside a reader)
};

// Every format in the registry that can read, plus the variants a file name selects. The
// HDF5, netCDF and CGNS formats read the input as a file through their library, like any other.
inline constexpr std::array<FuzzTarget, 73> kFuzzTargets{{
    {"usd", "usd", ".usda"},
    {"vtu", "vtu", ".vtu"},
    {"vtk", "vtk", ".vtk"},
    {"gmsh", "gmsh", ".msh"},
    {"medit", "medit", ".mesh"},
    {"medit_meshb", "medit", ".meshb"},
    {"mfem", "mfem", ".mesh"},
    {"abaqus", "abaqus", ".inp"},
    {"nastran", "nastran", ".bdf"},
    {"stl", "stl", ".stl"},
    {"ply", "ply", ".ply"},
    {"obj", "obj", ".obj"},
    {"gltf", "gltf", ".gltf"},
    {"off", "off", ".off"},
    {"su2", "su2", ".su2"},
    {"ugrid", "ugrid", ".ugrid"},
    {"ugrid_lb8", "ugrid", ".lb8.ugrid"},
    {"ugrid_r8", "ugrid", ".r8.ugrid"},
    {"tetgen", "tetgen", ".node"},
    {"triangle", "triangle", ".poly"},  // the .poly: points, segments, holes, regions in one file
    {"avsucd", "avsucd", ".avs"},
    {"tecplot", "tecplot", ".dat"},
    {"tecplot_binary", "tecplot_binary", ".plt"},
    {"xplt", "xplt", ".xplt"},
    {"dolfin", "dolfin", ".xml"},
    {"wkt", "wkt", ".wkt"},
    {"libmesh", "libmesh", ".xda"},
    {"libmesh_xdr", "libmesh", ".xdr"},
    {"febio", "febio", ".feb"},
    {"flac3d", "flac3d", ".f3grid"},
    {"mdpa", "mdpa", ".mdpa"},
    {"permas", "permas", ".post"},
    {"lsdyna", "lsdyna", ".k"},
    {"netgen", "netgen", ".vol"},
    {"ansys", "ansys", ".msh"},
    {"ansys_cdb", "ansys_cdb", ".cdb"},
    {"ansys_rst", "ansys_rst", ".rst"},
    {"frd", "frd", ".frd"},
    {"op2", "op2", ".op2"},
    {"freefem", "freefem", ".msh"},
    {"code_aster", "code_aster", ".mail"},
    {"mphtxt", "mphtxt", ".mphtxt"},
    {"unv", "unv", ".unv"},
    {"femap", "femap", ".neu"},
    {"patran", "patran", ".pat"},
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
    {"fluent_cff", "fluent_cff", ".cas.h5"},  // a .dat.h5 beside it is never there: the case alone
    {"nastran_h5", "nastran_h5", ".h5"},
    {"cgns", "cgns", ".cgns"},  // ADF or HDF5, as the file's first bytes say
    {"exodus", "exodus", ".exo"},
    {"openfoam", "openfoam", ".foam"},  // a case folder: the input is one of its files (openfoam_fuzz_case below)
    {"elmer", "elmer", ""},  // a mesh directory: the input is one of its files (elmer_fuzz_mesh below)
    {"ensight", "ensight", ".case"},  // a case: the input is one of its files (ensight_fuzz_case below)
    {"z88", "z88", ".z88"},
    {"d3plot", "d3plot", ".d3plot"},
    {"abaqus_fil", "abaqus_fil", ".fil"},
    {"binout", "binout", ".binout"},
    {"pcd", "pcd", ".pcd"},
    {"xyz", "xyz", ".xyz"},
    {"xyz_pts", "xyz", ".pts"},
    // Collections: the input is the index, written into a folder of fixed piece files
    // (prepare_fuzz_directory below).
    {"pvtu", "pvtu", ".pvtu"},
    {"pvtp", "pvtp", ".pvtp"},
    {"vtm", "vtm", ".vtm"},
    {"pvd", "pvd", ".pvd"},
}};

inline const FuzzTarget* find_fuzz_target(std::string_view name) {
  for (const FuzzTarget& target : kFuzzTargets)
    if (target.name == name) return &target;
  return nullptr;
}

// The formats whose file is an index naming other files.
inline bool is_collection_target(const FuzzTarget& target) {
  return target.format == "pvtu" || target.format == "pvtp" || target.format == "vtm" || target.format == "pvd";
}

// TetGen reads a pair: the input splits at the first marker into X.node and X.ele.
inline constexpr std::string_view kTetgenSplit = "\n%%ele%%\n";

inline void write_whole_file(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

// OpenFOAM reads a case folder: one hexahedron (points, faces, owner, neighbour, boundary,
// cellZones and a field at time 1). The input's first byte picks the file it replaces (its
// value modulo the number of files; the rest of the input is that file's content), so the
// FoamFile grammar is fuzzed through every kind of file a case holds. Seeds: real files with
// their selector byte (fuzz/make_seeds.sh).
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kOpenfoamFuzzCase{{
    {"constant/polyMesh/faces",
     "FoamFile{format ascii;class faceList;}\n6(4(0 3 2 1) 4(4 5 6 7) 4(0 1 5 4) 4(3 7 6 2) 4(0 4 7 3) 4(1 2 6 5))\n"},
    {"constant/polyMesh/owner", "FoamFile{format ascii;class labelList;}\n6{0}\n"},
    {"constant/polyMesh/neighbour", "FoamFile{format ascii;class labelList;}\n0()\n"},
    {"constant/polyMesh/points",
     "FoamFile{format ascii;class vectorField;}\n8((0 0 0)(1 0 0)(1 1 0)(0 1 0)(0 0 1)(1 0 1)(1 1 1)(0 1 1))\n"},
    {"constant/polyMesh/boundary",
     "FoamFile{format ascii;class polyBoundaryMesh;}\n1(walls{type wall;inGroups 1(wall);nFaces 6;startFace 0;})\n"},
    {"constant/polyMesh/cellZones",
     "FoamFile{format ascii;class regIOobject;}\n1(zone{type cellZone;cellLabels List<label> 1(0);})\n"},
    {"1/p", "FoamFile{format ascii;class volScalarField;}\ninternalField uniform 1;\nboundaryField{walls{type zeroGradient;}}\n"},
}};

inline std::string openfoam_fuzz_case(const std::string& stem, std::string_view input) {
  const std::string root = stem + "_case";
  std::filesystem::create_directories(root + "/constant/polyMesh");
  std::filesystem::create_directories(root + "/1");
  const std::size_t chosen = input.empty() ? 0 : static_cast<unsigned char>(input[0]) % kOpenfoamFuzzCase.size();
  for (std::size_t k = 0; k < kOpenfoamFuzzCase.size(); ++k)
    write_whole_file(root + "/" + std::string(kOpenfoamFuzzCase[k].first),
                     k == chosen ? input.substr(input.empty() ? 0 : 1) : kOpenfoamFuzzCase[k].second);
  return root;
}

// Elmer reads a mesh directory: one tetrahedron with a named boundary triangle. The input's
// first byte picks the file it replaces, as for OpenFOAM above.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kElmerFuzzMesh{{
    {"mesh.header", "4 1 1\n2\n504 1\n303 1\n"},
    {"mesh.nodes", "1 -1 0 0 0\n2 -1 1 0 0\n3 -1 0 1 0\n4 -1 0 0 1\n"},
    {"mesh.elements", "1 1 504 1 2 3 4\n"},
    {"mesh.boundary", "1 2 1 0 303 1 3 2\n"},
    {"mesh.names", "! ----- names for bodies -----\n$ solid = 1\n! ----- names for boundaries -----\n$ base = 2\n"},
}};

inline std::string elmer_fuzz_mesh(const std::string& stem, std::string_view input) {
  const std::string root = stem + "_mesh";
  std::filesystem::create_directories(root);
  const std::size_t chosen = input.empty() ? 0 : static_cast<unsigned char>(input[0]) % kElmerFuzzMesh.size();
  for (std::size_t k = 0; k < kElmerFuzzMesh.size(); ++k)
    write_whole_file(root + "/" + std::string(kElmerFuzzMesh[k].first),
                     k == chosen ? input.substr(input.empty() ? 0 : 1) : kElmerFuzzMesh[k].second);
  return root;
}

// EnSight reads a case file naming a geometry and variable files: a tetrahedron part and a
// polyhedron part (ASCII), a node and an element variable over two steps of a time set. The
// input's first byte picks the file it replaces, as for OpenFOAM above (a binary geometry seed
// makes the whole case binary: variable files take their geometry's encoding).
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kEnsightFuzzCase{{
    {"f.case",
     "FORMAT\ntype: ensight gold\nGEOMETRY\nmodel: f.geo\nVARIABLE\nscalar per node: 1 t f.t****\n"
     "vector per element: v f.v\nconstant per case: g 9.8\nTIME\ntime set: 1\nnumber of steps: 2\n"
     "filename start number: 0\nfilename increment: 1\ntime values: 0 1\n"},
    {"f.geo",
     "g\ng\nnode id off\nelement id off\nextents\n0 1\n0 1\n0 1\npart\n1\ntet\ncoordinates\n4\n0\n1\n0\n0\n"
     "0\n0\n1\n0\n0\n0\n0\n1\ntetra4\n1\n1 2 3 4\nnfaced\n1\n4\n3\n3\n3\n3\n1 3 2\n1 2 4\n2 3 4\n3 1 4\n"
     "part\n2\nblock\nblock iblanked\n2 2 1\n0 1 0 1\n0 0 1 1\n0 0 0 0\n1 1 1 0\n"},
    {"f.t0000", "t\npart\n1\ncoordinates\n1\n2\n3\n4\npart\n2\nblock partial\n2\n1 4\n5\n6\n"},
    {"f.v", "v\npart\n1\ntetra4 undef\n-1\n1\n2\n3\nnfaced\n4\n5\n6\npart\n2\nblock\n7\n8\n9\n"},
}};

inline std::string ensight_fuzz_case(const std::string& stem, std::string_view input) {
  const std::string root = stem + "_ensight";
  std::filesystem::create_directories(root);
  const std::size_t chosen = input.empty() ? 0 : static_cast<unsigned char>(input[0]) % kEnsightFuzzCase.size();
  for (std::size_t k = 0; k < kEnsightFuzzCase.size(); ++k)
    write_whole_file(root + "/" + std::string(kEnsightFuzzCase[k].first),
                     k == chosen ? input.substr(input.empty() ? 0 : 1) : kEnsightFuzzCase[k].second);
  write_whole_file(root + "/f.t0001", kEnsightFuzzCase[2].second);
  return root + "/f.case";
}

// Writes `input` as the file(s) `target` reads, named `stem` + extension; returns the path
// to hand to meshioplusplus::read.
inline std::string materialize_fuzz_input(const FuzzTarget& target, const std::string& stem, std::string_view input) {
  if (target.format == "openfoam") return openfoam_fuzz_case(stem, input);
  if (target.format == "elmer") return elmer_fuzz_mesh(stem, input);
  if (target.format == "ensight") return ensight_fuzz_case(stem, input);
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

namespace meshioplusplus::fuzzing {

// ---- the folder a collection index is read in ------------------------------------------------
// Small valid piece files (ASCII: the binary encodings are the piece targets' business), other
// index files, and the things a hostile index may name instead of a piece: a folder, FIFOs (an
// open that waits for a writer would hang), symbolic links (one to itself), a hard link to the
// input, an empty and a malformed file, a file reached only through "..". Every index input is
// written as <root>/idx/input<extension>, so an index can name itself ("input.vtm"),
// back.vtm/back.pvd name it back (a cycle of two) and cross.vtm/cross.pvd make a cycle through
// both formats.

inline constexpr std::string_view kFixtureVtu = R"(<?xml version="1.0"?>
<VTKFile type="UnstructuredGrid" version="0.1" byte_order="LittleEndian">
  <UnstructuredGrid>
    <Piece NumberOfPoints="4" NumberOfCells="2">
      <PointData Scalars="t"><DataArray type="Float64" Name="t" format="ascii">1 2 3 4</DataArray></PointData>
      <CellData><DataArray type="Int32" Name="m" format="ascii">7 8</DataArray></CellData>
      <Points><DataArray type="Float64" NumberOfComponents="3" format="ascii">0 0 0 1 0 0 0 1 0 0 0 1</DataArray></Points>
      <Cells>
        <DataArray type="Int64" Name="connectivity" format="ascii">0 1 2 0 1 2 3</DataArray>
        <DataArray type="Int64" Name="offsets" format="ascii">3 7</DataArray>
        <DataArray type="UInt8" Name="types" format="ascii">5 10</DataArray>
      </Cells>
    </Piece>
  </UnstructuredGrid>
</VTKFile>
)";

// Other arrays than piece.vtu (float32 points, a two-component "t", no cell data): merging the
// two disagrees.
inline constexpr std::string_view kFixtureOtherVtu = R"(<?xml version="1.0"?>
<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">
  <UnstructuredGrid>
    <Piece NumberOfPoints="3" NumberOfCells="2">
      <PointData><DataArray type="Float32" Name="t" NumberOfComponents="2" format="ascii">1 1 2 2 3 3</DataArray></PointData>
      <Points><DataArray type="Float32" NumberOfComponents="3" format="ascii">0 0 0 2 0 0 2 2 0</DataArray></Points>
      <Cells>
        <DataArray type="Int32" Name="connectivity" format="ascii">0 1 1 2</DataArray>
        <DataArray type="Int32" Name="offsets" format="ascii">2 4</DataArray>
        <DataArray type="UInt8" Name="types" format="ascii">3 3</DataArray>
      </Cells>
    </Piece>
  </UnstructuredGrid>
</VTKFile>
)";

inline constexpr std::string_view kFixtureVtp = R"(<?xml version="1.0"?>
<VTKFile type="PolyData" version="0.1" byte_order="LittleEndian">
  <PolyData>
    <Piece NumberOfPoints="4" NumberOfVerts="1" NumberOfLines="1" NumberOfStrips="0" NumberOfPolys="1">
      <PointData><DataArray type="Float64" Name="t" format="ascii">1 2 3 4</DataArray></PointData>
      <CellData><DataArray type="Int32" Name="m" format="ascii">1 2 3</DataArray></CellData>
      <Points><DataArray type="Float32" NumberOfComponents="3" format="ascii">0 0 0 1 0 0 1 1 0 0 1 0</DataArray></Points>
      <Verts><DataArray type="Int64" Name="connectivity" format="ascii">3</DataArray><DataArray type="Int64" Name="offsets" format="ascii">1</DataArray></Verts>
      <Lines><DataArray type="Int32" Name="connectivity" format="ascii">0 2</DataArray><DataArray type="Int32" Name="offsets" format="ascii">2</DataArray></Lines>
      <Polys><DataArray type="Int32" Name="connectivity" format="ascii">0 1 2 3</DataArray><DataArray type="Int32" Name="offsets" format="ascii">4</DataArray></Polys>
    </Piece>
  </PolyData>
</VTKFile>
)";

inline constexpr std::string_view kFixtureVts = R"(<?xml version="1.0"?>
<VTKFile type="StructuredGrid" version="0.1" byte_order="BigEndian">
  <StructuredGrid WholeExtent="0 1 0 1 0 0">
    <Piece Extent="0 1 0 1 0 0">
      <PointData><DataArray type="Float64" Name="t" format="ascii">1 2 3 4</DataArray></PointData>
      <CellData><DataArray type="Int64" Name="id" format="ascii">7</DataArray></CellData>
      <Points><DataArray type="Float64" NumberOfComponents="3" format="ascii">0 0 0 1 0 0 0 1 0 1 1 0.5</DataArray></Points>
    </Piece>
  </StructuredGrid>
</VTKFile>
)";

inline constexpr std::string_view kFixtureVti = R"(<?xml version="1.0"?>
<VTKFile type="ImageData" version="1.0" byte_order="LittleEndian" header_type="UInt64">
  <ImageData WholeExtent="0 2 0 1 0 1" Origin="0 0 0" Spacing="1 0.5 2">
    <Piece Extent="0 2 0 1 0 1">
      <PointData><DataArray type="Float64" Name="t" format="ascii">0 1 2 3 4 5 6 7 8 9 10 11</DataArray></PointData>
    </Piece>
  </ImageData>
</VTKFile>
)";

inline constexpr std::string_view kFixturePvtu = R"(<?xml version="1.0"?>
<VTKFile type="PUnstructuredGrid" version="0.1" byte_order="LittleEndian">
  <PUnstructuredGrid GhostLevel="0">
    <PPointData><PDataArray type="Float64" Name="t"/></PPointData>
    <PCellData><PDataArray type="Int32" Name="m"/></PCellData>
    <PPoints><PDataArray type="Float64" NumberOfComponents="3"/></PPoints>
    <Piece Source="piece.vtu"/>
    <Piece Source="sub/piece.vtu"/>
  </PUnstructuredGrid>
</VTKFile>
)";

inline constexpr std::string_view kFixtureBackVtm = R"(<?xml version="1.0"?>
<VTKFile type="vtkMultiBlockDataSet" version="1.0" byte_order="LittleEndian">
  <vtkMultiBlockDataSet>
    <DataSet index="0" name="piece" file="piece.vtu"/>
    <Block index="1" name="back"><DataSet index="0" file="input.vtm"/></Block>
  </vtkMultiBlockDataSet>
</VTKFile>
)";

inline constexpr std::string_view kFixtureAllVtm = R"(<?xml version="1.0"?>
<VTKFile type="vtkMultiBlockDataSet" version="1.0" byte_order="LittleEndian">
  <vtkMultiBlockDataSet>
    <Block index="0" name="unstructured">
      <DataSet index="0" file="piece.vtu"/>
      <DataSet index="1" file="part.pvtu"/>
    </Block>
    <DataSet index="1" name="poly" file="piece.vtp"/>
    <DataSet index="2" name="grid" file="piece.vts"/>
    <DataSet index="3" name="image" file="piece.vti"/>
  </vtkMultiBlockDataSet>
</VTKFile>
)";

inline constexpr std::string_view kFixtureBackPvd = R"(<?xml version="1.0"?>
<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">
  <Collection>
    <DataSet timestep="0" group="" part="0" file="input.pvd"/>
    <DataSet timestep="1" group="" part="0" file="piece.vtu"/>
  </Collection>
</VTKFile>
)";

// A cycle through both collection formats: cross.vtm lists input.pvd, cross.pvd lists input.vtm.
inline constexpr std::string_view kFixtureCrossVtm = R"(<?xml version="1.0"?>
<VTKFile type="vtkMultiBlockDataSet" version="1.0" byte_order="LittleEndian">
  <vtkMultiBlockDataSet><DataSet index="0" name="series" file="input.pvd"/></vtkMultiBlockDataSet>
</VTKFile>
)";

inline constexpr std::string_view kFixtureCrossPvd = R"(<?xml version="1.0"?>
<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">
  <Collection><DataSet timestep="0" file="input.vtm"/></Collection>
</VTKFile>
)";

inline constexpr std::string_view kFixtureStepsPvd = R"(<?xml version="1.0"?>
<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">
  <Collection>
    <DataSet timestep="0" group="a" part="0" file="piece.vtu"/>
    <DataSet timestep="0" group="a" part="1" file="sub/piece.vtu"/>
    <DataSet timestep="0.5" group="a" part="0" file="all.vtm"/>
  </Collection>
</VTKFile>
)";

// Lays out the folder for `target`'s inputs under `root` (an existing, empty folder) and returns
// the stem to pass to materialize_fuzz_input: <root>/idx/input for a collection, <root>/input
// for any other target. Deterministic; a FIFO or link the file system refuses is left out.
inline std::string prepare_fuzz_directory(const FuzzTarget& target, const std::string& root) {
  if (!is_collection_target(target)) return root + "/input";
  namespace fs = std::filesystem;
  const fs::path base(root), index = base / "idx";
  fs::create_directories(index / "sub");
  fs::create_directories(index / "dir.vtu");
  const std::pair<const char*, std::string_view> files[] = {
      {"piece.vtu", kFixtureVtu},   {"other.vtu", kFixtureOtherVtu},
      {"piece.vtp", kFixtureVtp},   {"piece.vts", kFixtureVts},
      {"piece.vti", kFixtureVti},   {"sub/piece.vtu", kFixtureVtu},
      {"part.pvtu", kFixturePvtu},  {"back.vtm", kFixtureBackVtm},
      {"all.vtm", kFixtureAllVtm},  {"back.pvd", kFixtureBackPvd},
      {"steps.pvd", kFixtureStepsPvd},  {"cross.vtm", kFixtureCrossVtm},
      {"cross.pvd", kFixtureCrossPvd},
      {"empty.vtu", ""},            {"bad.vtu", kFixtureVtu.substr(0, kFixtureVtu.size() / 2)},
  };
  for (const auto& [name, bytes] : files) write_whole_file((index / name).string(), bytes);
  write_whole_file((base / "outside.vtu").string(), kFixtureVtu);  // "../outside.vtu"
  for (const char* fifo : {"fifo.vtu", "fifo.msh", "fifo.vtm", "fifo.pvd"})
    (void)::mkfifo((index / fifo).c_str(), 0600);
  std::error_code ignored;
  fs::create_symlink("piece.vtu", index / "link.vtu", ignored);
  fs::create_symlink("loop.vtu", index / "loop.vtu", ignored);
  fs::create_symlink("nowhere.vtu", index / "dangling.vtu", ignored);
  const std::string input = "input" + std::string(target.extension);
  fs::create_symlink(input, index / ("link" + std::string(target.extension)), ignored);
  // A hard link to the input: each input is written over the same inode (truncated, not
  // replaced), so hard.<ext> always holds the current input.
  write_whole_file((index / input).string(), "");
  fs::create_hard_link(index / input, index / ("hard" + std::string(target.extension)), ignored);
  return (index / "input").string();
}

}  // namespace meshioplusplus::fuzzing
