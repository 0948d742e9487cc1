// The format table: one row per format. Adding a format is a folder, a row here, its tests.
#include "meshioplusplus/registry.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/deferred_check.hpp"
#include "meshioplusplus/time_series.hpp"
#include "formats/abaqus/abaqus.hpp"
#include "formats/ansys/ansys.hpp"
#include "formats/ansys_cdb/ansys_cdb.hpp"
#include "formats/ansys_rst/ansys_rst.hpp"
#include "formats/avsucd/avsucd.hpp"
#include "formats/cgns/cgns.hpp"
#include "formats/code_aster/code_aster.hpp"
#include "formats/dolfin/dolfin.hpp"
#include "formats/elmer/elmer.hpp"
#include "formats/febio/febio.hpp"
#include "formats/libmesh/libmesh.hpp"
#include "formats/exodus/exodus.hpp"
#include "formats/flac3d/flac3d.hpp"
#include "formats/ensight/ensight.hpp"
#include "formats/fluent_cff/fluent_cff.hpp"
#include "formats/femap/femap.hpp"
#include "formats/frd/frd.hpp"
#include "formats/gltf/gltf.hpp"
#include "formats/freefem/freefem.hpp"
#include "formats/gmsh/gmsh.hpp"
#include "formats/gmsh/gmsh_sniff.hpp"
#include "formats/h5m/h5m.hpp"
#include "formats/hmf/hmf.hpp"
#include "formats/iges/iges.hpp"
#include "formats/mdpa/mdpa.hpp"
#include "formats/med/med.hpp"
#include "formats/medit/medit.hpp"
#include "formats/mfem/mfem.hpp"
#include "formats/mphtxt/mphtxt.hpp"
#include "formats/nastran/nastran.hpp"
#include "formats/nastran_h5/nastran_h5.hpp"
#include "formats/netgen/netgen.hpp"
#include "formats/neuroglancer/neuroglancer.hpp"
#include "formats/obj/obj.hpp"
#include "formats/off/off.hpp"
#include "formats/op2/op2.hpp"
#include "formats/openfoam/openfoam.hpp"
#include "formats/lsdyna/lsdyna.hpp"
#include "formats/permas/permas.hpp"
#include "formats/pcd/pcd.hpp"
#include "formats/ply/ply.hpp"
#include "formats/step/step.hpp"
#include "formats/stl/stl.hpp"
#include "formats/su2/su2.hpp"
#include "formats/svg/svg.hpp"
#include "formats/tecplot/tecplot.hpp"
#include "formats/tecplot/tecplot_binary.hpp"
#include "formats/xplt/xplt.hpp"
#include "formats/tetgen/tetgen.hpp"
#include "formats/triangle/triangle.hpp"
#include "formats/ugrid/ugrid.hpp"
#include "formats/patran/patran.hpp"
#include "formats/unv/unv.hpp"
#include "formats/usd/usd.hpp"
#include "formats/vtk/vtk.hpp"
#include "formats/vtkhdf/vtkhdf.hpp"
#include "formats/vtk_xml/vtk_xml.hpp"
#include "formats/vtu/vtu.hpp"
#include "formats/wkt/wkt.hpp"
#include "formats/xdmf/xdmf.hpp"
#include "formats/z88/z88.hpp"
#include "formats/d3plot/d3plot.hpp"
#include "formats/abaqus_fil/abaqus_fil.hpp"
#include "formats/binout/binout.hpp"
#include "formats/xyz/xyz.hpp"
#include "io/source/mapped_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus {
namespace {


// meshio's float_fmt, in the rows of every format whose meshio writer takes it (Abaqus, FLAC3D,
// Gmsh, MDPA, Medit, Netgen, TetGen, SVG): io/output/float_format.hpp.
constexpr WriteOptionSpec kFloatFormatSpec{
    "float_fmt", "", "floats as a Python format spec ('.16e', '.6g', '.3f'); default: shortest exact form"};

constexpr std::array<std::string_view, 1> kVtuExtensions{".vtu"};
constexpr std::array kVtuOptions{
    WriteOptionSpec{"binary", "true", "base64 or raw binary data instead of ascii"},
    WriteOptionSpec{"compression", "zlib", "zlib, lzma, lz4 or none (binary only; lzma/lz4 need liblzma/liblz4 in the build)"},
    WriteOptionSpec{"header_type", "", "UInt32 or UInt64 block headers (default UInt32)"},
    WriteOptionSpec{"appended", "false", "binary data as one raw <AppendedData> section"},
};

constexpr std::array<std::string_view, 1> kVtkExtensions{".vtk"};
constexpr std::array kVtkOptions{
    WriteOptionSpec{"binary", "true", "big-endian binary instead of ascii"},
    WriteOptionSpec{"fmt_version", "5.1", "legacy file version: 4.2 or 5.1"},
};

// The rest of VTK's XML family (formats/vtk_xml): the .vtu options, plus pieces/time.
constexpr std::array<std::string_view, 1> kVtpExtensions{".vtp"};
constexpr std::array<std::string_view, 1> kVtsExtensions{".vts"};
constexpr std::array<std::string_view, 1> kVtrExtensions{".vtr"};
constexpr std::array<std::string_view, 1> kVtiExtensions{".vti"};
constexpr std::array<std::string_view, 1> kPvtuExtensions{".pvtu"};
constexpr std::array<std::string_view, 1> kPvtpExtensions{".pvtp"};
constexpr std::array<std::string_view, 1> kVtmExtensions{".vtm"};
constexpr std::array<std::string_view, 1> kPvdExtensions{".pvd"};
constexpr std::array kVtkXmlOptions{
    WriteOptionSpec{"binary", "true", "base64 or raw binary data instead of ascii"},
    WriteOptionSpec{"compression", "zlib", "zlib, lzma, lz4 or none (binary only; lzma/lz4 need liblzma/liblz4 in the build)"},
    WriteOptionSpec{"header_type", "", "UInt32 or UInt64 block headers (default UInt32)"},
    WriteOptionSpec{"appended", "false", "binary data as one raw <AppendedData> section"},
};
constexpr std::array kParallelOptions{
    WriteOptionSpec{"pieces", "1", "number of piece files (contiguous cell ranges)"},
    WriteOptionSpec{"binary", "true", "base64 or raw binary data instead of ascii"},
    WriteOptionSpec{"compression", "zlib", "zlib, lzma, lz4 or none (binary only)"},
    WriteOptionSpec{"header_type", "", "UInt32 or UInt64 block headers (default UInt32)"},
    WriteOptionSpec{"appended", "false", "binary data as one raw <AppendedData> section"},
};
constexpr std::array kPvdOptions{
    WriteOptionSpec{"time", "0", "the timestep value of the one step written"},
    WriteOptionSpec{"binary", "true", "base64 or raw binary data instead of ascii"},
    WriteOptionSpec{"compression", "zlib", "zlib, lzma, lz4 or none (binary only)"},
    WriteOptionSpec{"header_type", "", "UInt32 or UInt64 block headers (default UInt32)"},
    WriteOptionSpec{"appended", "false", "binary data as one raw <AppendedData> section"},
};

constexpr std::array<std::string_view, 1> kGmshExtensions{".msh"};
constexpr std::array kGmshOptions{
    WriteOptionSpec{"fmt_version", "4.1", "MSH version: 2.2, 4.0 or 4.1"},
    WriteOptionSpec{"binary", "true", "binary instead of ascii"},
    kFloatFormatSpec,
};

constexpr std::array<std::string_view, 2> kMeditExtensions{".mesh", ".meshb"};
constexpr std::array kMeditOptions{
    WriteOptionSpec{"version", "", "1-4: float32/float64 reals, 32/64-bit integers and positions (default by data)"},
    WriteOptionSpec{"big_endian", "false", "big-endian .meshb (binary only)"},
    kFloatFormatSpec,
};

constexpr std::array<std::string_view, 1> kMfemExtensions{".mesh"};
constexpr std::array<std::string_view, 1> kAbaqusExtensions{".inp"};
constexpr std::array kAbaqusOptions{
    WriteOptionSpec{"translate_cell_names", "true", "Abaqus element names (C3D8 …) instead of meshio's"},
    kFloatFormatSpec,
};

constexpr std::array<std::string_view, 3> kNastranExtensions{".bdf", ".fem", ".nas"};
constexpr std::array kNastranOptions{
    WriteOptionSpec{"point_format", "fixed-large", "GRID cards: free, fixed-small or fixed-large"},
    WriteOptionSpec{"cell_format", "fixed-small", "element cards: free, fixed-small or fixed-large"},
};

constexpr std::array<std::string_view, 1> kStlExtensions{".stl"};
constexpr std::array kStlOptions{
    WriteOptionSpec{"binary", "false", "binary (float32) instead of ascii"},
};

constexpr std::array<std::string_view, 2> kGltfExtensions{".gltf", ".glb"};
constexpr std::array kGltfOptions{
    WriteOptionSpec{"embed_buffers", "false", ".gltf: the buffer as a base64 data URI instead of a .bin beside it"},
    WriteOptionSpec{"mesh_per_block", "false", "one glTF mesh and node per cell block instead of one primitive per block"},
};

constexpr std::array<std::string_view, 1> kPlyExtensions{".ply"};
constexpr std::array kPlyOptions{
    WriteOptionSpec{"binary", "true", "binary_little_endian instead of ascii"},
};

constexpr std::array<std::string_view, 1> kPcdExtensions{".pcd"};
constexpr std::array kPcdOptions{
    WriteOptionSpec{"binary", "true", "binary instead of ascii (when data is not given)"},
    WriteOptionSpec{"data", "", "ascii, binary or binary_compressed (LZF, as PCL); default: from binary"},
};
constexpr std::array<std::string_view, 5> kXyzExtensions{".xyz", ".xyzn", ".xyzrgb", ".pts", ".asc"};
constexpr std::array kXyzOptions{kFloatFormatSpec};
// USD: text layers in C++; .usdc/.usdz are claimed so the reader can point at usd-core.
constexpr std::array<std::string_view, 4> kUsdExtensions{".usda", ".usd", ".usdc", ".usdz"};

constexpr std::array<std::string_view, 1> kObjExtensions{".obj"};
constexpr std::array<std::string_view, 1> kOffExtensions{".off"};
constexpr std::array<std::string_view, 1> kSu2Extensions{".su2"};
constexpr std::array<std::string_view, 1> kUgridExtensions{".ugrid"};
constexpr std::array<std::string_view, 2> kTetgenExtensions{".node", ".ele"};
constexpr std::array<std::string_view, 4> kTriangleExtensions{".node", ".ele", ".poly", ".edge"};
constexpr std::array<std::string_view, 1> kAvsucdExtensions{".avs"};
constexpr std::array<std::string_view, 2> kTecplotExtensions{".dat", ".tec"};
constexpr std::array<std::string_view, 1> kDolfinExtensions{".xml"};
constexpr std::array<std::string_view, 1> kWktExtensions{".wkt"};
constexpr std::array<std::string_view, 2> kLibmeshExtensions{".xda", ".xdr"};
constexpr std::array kLibmeshOptions{
    WriteOptionSpec{"binary", "", "XDR binary instead of ascii (default: binary for .xdr)"},
};
constexpr std::array<std::string_view, 1> kFebioExtensions{".feb"};
constexpr std::array kFebioOptions{
    WriteOptionSpec{"spec", "4.0", "febio_spec version written: 3.0 or 4.0"},
};

constexpr std::array<std::string_view, 1> kFlac3dExtensions{".f3grid"};
constexpr std::array kFlac3dOptions{
    WriteOptionSpec{"binary", "false", "binary grid (meshio's layout) instead of ascii"},
    kFloatFormatSpec,
};

constexpr std::array<std::string_view, 1> kMdpaExtensions{".mdpa"};
constexpr std::array<std::string_view, 4> kPermasExtensions{".post", ".post.gz", ".dato", ".dato.gz"};
constexpr std::array<std::string_view, 3> kLsdynaExtensions{".k", ".key", ".dyn"};
constexpr std::array<std::string_view, 2> kUnvExtensions{".unv", ".uff"};
constexpr std::array<std::string_view, 2> kNetgenExtensions{".vol", ".vol.gz"};

constexpr std::array<std::string_view, 4> kAnsysExtensions{".msh", ".msh.gz", ".cas", ".cas.gz"};
constexpr std::array<std::string_view, 1> kFreefemExtensions{".msh"};
constexpr std::array<std::string_view, 1> kCodeAsterExtensions{".mail"};
constexpr std::array<std::string_view, 1> kMphtxtExtensions{".mphtxt"};
constexpr std::array<std::string_view, 1> kAnsysCdbExtensions{".cdb"};
constexpr std::array<std::string_view, 3> kAnsysRstExtensions{".rst", ".rth", ".rmg"};
constexpr std::array<std::string_view, 1> kFrdExtensions{".frd"};
constexpr std::array<std::string_view, 2> kTecplotBinaryExtensions{".plt", ".szplt"};
constexpr std::array<WriteOptionSpec, 1> kTecplotBinaryOptions{
    WriteOptionSpec{"float32", "false", "write values as float32 (Tecplot's single precision) instead of float64"},
};
constexpr std::array<std::string_view, 1> kXpltExtensions{".xplt"};
constexpr std::array<std::string_view, 1> kOp2Extensions{".op2"};
// MSC Nastran HDF5 results: the only claimant of a plain .h5 (others use .cas.h5, .h5m …).
constexpr std::array<std::string_view, 1> kNastranH5Extensions{".h5"};
constexpr std::array<std::string_view, 1> kFemapExtensions{".neu"};
constexpr std::array<std::string_view, 2> kPatranExtensions{".pat", ".out"};
// OpenFOAM cases are directories: the .foam marker file ParaView opens, and any directory
// openfoam::is_case_directory accepts (format_for_path below).
constexpr std::array<std::string_view, 1> kOpenfoamExtensions{".foam"};
constexpr std::array kOpenfoamOptions{
    WriteOptionSpec{"binary", "false", "binary lists (arch \"LSB;label=32;scalar=64\") instead of ascii"},
};
constexpr std::array kAnsysOptions{
    WriteOptionSpec{"binary", "true", "binary (3010/3012/3013) sections instead of ascii"},
    WriteOptionSpec{"layout", "meshio", "meshio (cells list their nodes; meshio reads them back node for node) or fluent (cells by their faces, as Fluent and VTK read)"},
};
// Elmer meshes are directories (a directory holding mesh.header, or its mesh.header named):
// format_for_path below; a write to a new directory names the format.
constexpr std::array<std::string_view, 0> kElmerExtensions{};
// Z88 names its structure file z88i1.txt (z88structure.txt in Z88Aurora): those names are
// z88's in format_for_path below (.txt alone says nothing); .z88 for files named freely.
constexpr std::array<std::string_view, 1> kZ88Extensions{".z88"};
// meshio registers neuroglancer without an extension: it is always named.
constexpr std::array<std::string_view, 0> kNeuroglancerExtensions{};

constexpr std::array<std::string_view, 3> kExodusExtensions{".e", ".exo", ".ex2"};
constexpr std::array kExodusOptions{
    WriteOptionSpec{"netcdf_format", "NETCDF4",
                    "NETCDF4, NETCDF3_64BIT_OFFSET, NETCDF3_64BIT_DATA or NETCDF3_CLASSIC (needs netCDF in the build)"},
};

// The HDF5 family (XDMF's inline/binary heavy data works without HDF5; the rest needs it).
constexpr std::array<std::string_view, 2> kXdmfExtensions{".xdmf", ".xmf"};
constexpr std::array kXdmfOptions{
    WriteOptionSpec{"data_format", "HDF", "heavy data: HDF (an .h5 beside the file), XML (inline) or Binary (.bin files)"},
    WriteOptionSpec{"compression", "gzip", "gzip or None (HDF heavy data)"},
    WriteOptionSpec{"compression_opts", "4", "gzip level 0-9"},
    WriteOptionSpec{"layout", "meshio", "meshio (one grid, every cell) or dolfinx (what DOLFINx's read_mesh/read_meshtags take: top-dimension cells here, facets in <stem>_facets.xdmf)"},
    WriteOptionSpec{"tags", "gmsh:physical", "layout=dolfinx: the cell data holding the tags, regions (Cell regions) or none"},
    WriteOptionSpec{"prune_z", "auto", "layout=dolfinx: auto (drop z when all 0), true or false"},
    WriteOptionSpec{"attribute_name", "name_to_read", "layout=dolfinx: the tags' Attribute name"},
};
constexpr std::array<std::string_view, 1> kHmfExtensions{".hmf"};
constexpr std::array kHmfOptions{
    WriteOptionSpec{"compression", "gzip", "gzip or None"},
    WriteOptionSpec{"compression_opts", "4", "gzip level 0-9"},
};
constexpr std::array<std::string_view, 1> kH5mExtensions{".h5m"};
constexpr std::array kH5mOptions{
    WriteOptionSpec{"add_global_ids", "true", "add a GLOBAL_ID node tag (1..n) as MOAB's tools do"},
    WriteOptionSpec{"compression", "gzip", "gzip or None"},
    WriteOptionSpec{"compression_opts", "4", "gzip level 0-9"},
};

constexpr std::array<std::string_view, 1> kCgnsExtensions{".cgns"};
constexpr std::array kCgnsOptions{
    WriteOptionSpec{"backend", "hdf5", "hdf5 or adf (needs the CGNS library in the build)"},
};

constexpr std::array<std::string_view, 1> kMedExtensions{".med"};
constexpr std::array<std::string_view, 2> kStepExtensions{".step", ".stp"};
constexpr std::array<std::string_view, 2> kIgesExtensions{".iges", ".igs"};
// Fluent CFF: case, data (read with its case) and Fluent Meshing mesh; nothing else claims .h5.
constexpr std::array<std::string_view, 3> kFluentCffExtensions{".cas.h5", ".dat.h5", ".msh.h5"};
constexpr std::array<std::string_view, 2> kEnsightExtensions{".case", ".encas"};
// LS-DYNA names its results d3plot, d3plot01, … (no extension): format_for_path below.
constexpr std::array<std::string_view, 1> kD3plotExtensions{".d3plot"};
constexpr std::array<std::string_view, 1> kAbaqusFilExtensions{".fil"};
// LS-DYNA names its binout files binout, binout0000, … (no extension): format_for_path below.
constexpr std::array<std::string_view, 1> kBinoutExtensions{".binout"};
constexpr std::array kEnsightOptions{
    WriteOptionSpec{"binary", "true", "C Binary (float32) instead of ASCII (%12.5e, six digits)"},
};

constexpr std::array<std::string_view, 2> kVtkhdfExtensions{".vtkhdf", ".hdf"};
// The text formats whose meshio writers take float_fmt and have no other option.
constexpr std::array kFloatFormatOnlyOptions{
    kFloatFormatSpec,
};

constexpr std::array kVtkhdfOptions{
    WriteOptionSpec{"compression", "none", "gzip or None"},
    WriteOptionSpec{"compression_opts", "4", "gzip level 0-9"},
};

constexpr std::array<std::string_view, 1> kSvgExtensions{".svg"};
constexpr std::array kSvgOptions{
    WriteOptionSpec{"stroke_width", "", "CSS stroke width (default: drawing width / 100)"},
    WriteOptionSpec{"image_width", "100", "scale the drawing to this width; None keeps mesh coordinates"},
    WriteOptionSpec{"fill", "#c8c5bd", "CSS fill colour"},
    WriteOptionSpec{"stroke", "#000080", "CSS stroke colour"},
    kFloatFormatSpec,
};

const std::array kFormats{
    FormatInfo{"vtu", kVtuExtensions, "VTK XML unstructured grid", vtu::read, vtu::write_validated, kVtuOptions, nullptr, false, /*index_check_beside_write=*/true,
               vtu::read_selected, vtu::read_metadata},
    FormatInfo{"vtk", kVtkExtensions, "VTK legacy", vtk::read, vtk::write, kVtkOptions, nullptr, false, false,
               vtk::read_selected, vtk::read_metadata},
    FormatInfo{"vtp", kVtpExtensions, "VTK XML polydata", vtp::read, vtp::write_validated, kVtkXmlOptions},
    FormatInfo{"vts", kVtsExtensions, "VTK XML structured grid", vts::read, vts::write, kVtkXmlOptions, nullptr, /*cells_implied=*/true},
    FormatInfo{"vtr", kVtrExtensions, "VTK XML rectilinear grid", vtr::read, vtr::write, kVtkXmlOptions, nullptr, /*cells_implied=*/true},
    FormatInfo{"vti", kVtiExtensions, "VTK XML image data", vti::read, vti::write, kVtkXmlOptions, nullptr, /*cells_implied=*/true},
    FormatInfo{"pvtu", kPvtuExtensions, "VTK XML partitioned unstructured grid", pvtu::read, pvtu::write_validated, kParallelOptions},
    FormatInfo{"pvtp", kPvtpExtensions, "VTK XML partitioned polydata", pvtp::read, pvtp::write_validated, kParallelOptions},
    FormatInfo{"vtm", kVtmExtensions, "VTK XML multiblock (one mesh, a Cell region per dataset)", vtm::read, vtm::write, kVtkXmlOptions},
    FormatInfo{"pvd", kPvdExtensions, "ParaView time series (first step)", pvd::read, pvd::write, kPvdOptions},
    FormatInfo{"gmsh", kGmshExtensions, "Gmsh MSH", gmsh::read, gmsh::write, kGmshOptions, gmsh::looks_like, false, false,
               gmsh::read_selected, gmsh::read_metadata},
    FormatInfo{"medit", kMeditExtensions, "Medit / Gamma Mesh Format", medit::read, medit::write, kMeditOptions, medit::looks_like},
    FormatInfo{"mfem", kMfemExtensions, "MFEM mesh v1.0-v1.3", mfem::read, mfem::write, kFloatFormatOnlyOptions, mfem::looks_like},
    FormatInfo{"abaqus", kAbaqusExtensions, "Abaqus input", abaqus::read, abaqus::write, kAbaqusOptions},
    FormatInfo{"nastran", kNastranExtensions, "Nastran bulk data", nastran::read, nastran::write, kNastranOptions},
    FormatInfo{"stl", kStlExtensions, "STL (stereolithography)", stl::read, stl::write, kStlOptions},
    FormatInfo{"ply", kPlyExtensions, "Stanford PLY", ply::read, ply::write, kPlyOptions},
    FormatInfo{"pcd", kPcdExtensions, "Point Cloud Library PCD (ascii, binary, binary_compressed)", pcd::read, pcd::write, kPcdOptions},
    FormatInfo{"xyz", kXyzExtensions, "ASCII point cloud (.xyz .xyzn .xyzrgb .pts .asc)", xyz::read, xyz::write, kXyzOptions},
    FormatInfo{"usd", kUsdExtensions, "Pixar USD text layer (.usda; .usdc/.usdz through usd-core in Python)", usd::read, usd::write, {}},
    FormatInfo{"obj", kObjExtensions, "Wavefront OBJ", obj::read, obj::write, {}},
    FormatInfo{"gltf", kGltfExtensions, "glTF 2.0 (.gltf, .glb)", gltf::read, gltf::write, kGltfOptions},
    FormatInfo{"off", kOffExtensions, "Geomview OFF", off::read, off::write, {}},
    FormatInfo{"su2", kSu2Extensions, "SU2 native mesh", su2::read, su2::write, {}},
    FormatInfo{"ugrid", kUgridExtensions, "AFLR3 UGRID (variant from the file name)", ugrid::read, ugrid::write, {}},
    FormatInfo{"tetgen", kTetgenExtensions, "TetGen .node/.ele pair", tetgen::read, tetgen::write, kFloatFormatOnlyOptions, tetgen::looks_like},
    FormatInfo{"triangle", kTriangleExtensions, "Triangle .node/.ele/.poly/.edge (2-D)", triangle::read, triangle::write, kFloatFormatOnlyOptions, triangle::looks_like},
    FormatInfo{"avsucd", kAvsucdExtensions, "AVS-UCD", avsucd::read, avsucd::write, {}},
    FormatInfo{"tecplot", kTecplotExtensions, "Tecplot ASCII (finite-element zones)", tecplot::read, tecplot::write, {}},
    FormatInfo{"tecplot_binary", kTecplotBinaryExtensions, "Tecplot binary .plt (#!TDV112; first solution time; every time as a time series)", tecplot_binary::read, tecplot_binary::write, kTecplotBinaryOptions},
    FormatInfo{"dolfin", kDolfinExtensions, "DOLFIN XML", dolfin::read, dolfin::write, {}},
    FormatInfo{"libmesh", kLibmeshExtensions, "libMesh XdrIO mesh (.xda ascii, .xdr binary)", libmesh::read, libmesh::write, kLibmeshOptions},
    FormatInfo{"febio", kFebioExtensions, "FEBio input file (febio_spec 2.5, 3.0, 4.0)", febio::read, febio::write, kFebioOptions},
    FormatInfo{"wkt", kWktExtensions, "Well-Known Text TIN", wkt::read, wkt::write, {}},
    FormatInfo{"flac3d", kFlac3dExtensions, "FLAC3D grid", flac3d::read, flac3d::write, kFlac3dOptions},
    FormatInfo{"mdpa", kMdpaExtensions, "Kratos Multiphysics model part", mdpa::read, mdpa::write, kFloatFormatOnlyOptions},
    FormatInfo{"permas", kPermasExtensions, "PERMAS", permas::read, permas::write, {}},
    FormatInfo{"lsdyna", kLsdynaExtensions, "LS-DYNA keyword deck", lsdyna::read, lsdyna::write, {}, nullptr, false, /*index_check_beside_write=*/true},
    FormatInfo{"unv", kUnvExtensions, "I-deas Universal File (nodes, elements, groups, units)", unv::read, unv::write, {}},
    FormatInfo{"netgen", kNetgenExtensions, "Netgen mesh", netgen::read, netgen::write, kFloatFormatOnlyOptions},
    FormatInfo{"ansys", kAnsysExtensions, "ANSYS Fluent mesh", ansys::read, ansys::write, kAnsysOptions, ansys::looks_like},
    FormatInfo{"freefem", kFreefemExtensions, "FreeFEM 2-D mesh", freefem::read, freefem::write, {}, freefem::looks_like},
    FormatInfo{"code_aster", kCodeAsterExtensions, "code_aster native mesh (.mail)", code_aster::read, code_aster::write, {}},
    FormatInfo{"mphtxt", kMphtxtExtensions, "COMSOL Multiphysics text mesh", mphtxt::read, mphtxt::write, {}},
    FormatInfo{"ansys_cdb", kAnsysCdbExtensions, "ANSYS MAPDL archive (CDB)", ansys_cdb::read, ansys_cdb::write, {}, nullptr, false, /*index_check_beside_write=*/true},
    FormatInfo{"ansys_rst", kAnsysRstExtensions, "ANSYS MAPDL results (first set; every set as a time series)", ansys_rst::read, nullptr, {}},
    FormatInfo{"frd", kFrdExtensions, "CalculiX results (last step; every step as a time series)", frd::read, nullptr, {}},
    FormatInfo{"xplt", kXpltExtensions, "FEBio plot file (first state; every state as a time series)", xplt::read, nullptr, {}},
    FormatInfo{"op2", kOp2Extensions, "Nastran OP2 results (first step; every step as a time series)", op2::read, nullptr, {}},
    FormatInfo{"nastran_h5", kNastranH5Extensions, "MSC Nastran HDF5 results (first step; every step as a time series; needs HDF5)", nastran_h5::read, nullptr, {}},
    FormatInfo{"femap", kFemapExtensions, "Femap neutral file (nodes, elements, properties, first output set)", femap::read, femap::write, {}, femap::looks_like},
    FormatInfo{"patran", kPatranExtensions, "MSC Patran neutral file (nodes, elements, named components)", patran::read, patran::write, {}, patran::looks_like},
    FormatInfo{"openfoam", kOpenfoamExtensions, "OpenFOAM polyMesh case (directory, .foam file or polyMesh; latest time; every time as a time series)",
               openfoam::read, openfoam::write, kOpenfoamOptions, nullptr, false, false, openfoam::read_selected},
    FormatInfo{"elmer", kElmerExtensions, "Elmer mesh directory (mesh.header, .nodes, .elements, .boundary, .names)",
               elmer::read, elmer::write, {}, nullptr, false, /*index_check_beside_write=*/true},
    FormatInfo{"z88", kZ88Extensions, "Z88 structure file (z88i1.txt)", z88::read, z88::write, {}},
    FormatInfo{"neuroglancer", kNeuroglancerExtensions, "Neuroglancer precomputed mesh", neuroglancer::read,
               neuroglancer::write, {}},
    FormatInfo{"exodus", kExodusExtensions, "Exodus II (netCDF)", exodus::read, exodus::write, kExodusOptions, nullptr, false, true,
               exodus::read_selected, exodus::read_metadata},
    FormatInfo{"xdmf", kXdmfExtensions, "XDMF 2/3 (heavy data inline, binary or HDF5)", xdmf::read, xdmf::write, kXdmfOptions, nullptr, false, true,
               xdmf::read_selected, xdmf::read_metadata},
    FormatInfo{"hmf", kHmfExtensions, "meshio's HDF5 mesh format (needs HDF5)", hmf::read, hmf::write, kHmfOptions, nullptr, false, true},
    FormatInfo{"h5m", kH5mExtensions, "MOAB H5M (needs HDF5)", h5m::read, h5m::write, kH5mOptions, nullptr, false, true},
    FormatInfo{"cgns", kCgnsExtensions, "CGNS (ADF or HDF5)", cgns::read, cgns::write, kCgnsOptions},
    FormatInfo{"med", kMedExtensions, "MED (Salome, HDF5)", med::read, med::write, {}, nullptr, false, true,
               med::read_selected, med::read_metadata},
    FormatInfo{"vtkhdf", kVtkhdfExtensions, "VTKHDF (VTK's HDF5 format; needs HDF5)", vtkhdf::read, vtkhdf::write, kVtkhdfOptions, nullptr, false, true,
               vtkhdf::read_selected, vtkhdf::read_metadata},
    FormatInfo{"fluent_cff", kFluentCffExtensions, "ANSYS Fluent CFF case/data (.cas.h5 + .dat.h5; read only, needs HDF5)", fluent_cff::read, nullptr, {}},
    FormatInfo{"ensight", kEnsightExtensions, "EnSight Gold case (first step; every step as a time series)", ensight::read, ensight::write, kEnsightOptions,
               nullptr, false, false, ensight::read_selected, ensight::read_metadata},
    FormatInfo{"d3plot", kD3plotExtensions, "LS-DYNA d3plot results family (read only; first state; every state as a time series)", d3plot::read, nullptr, {}},
    FormatInfo{"abaqus_fil", kAbaqusFilExtensions, "Abaqus results file .fil, ASCII or binary (read only; last increment; every increment as a time series)", abaqus_fil::read, nullptr, {}},
    FormatInfo{"binout", kBinoutExtensions, "LS-DYNA binout time histories (read only; no mesh: field data per time step)", binout::read, nullptr, {}},
    FormatInfo{"svg", kSvgExtensions, "SVG drawing (write only)", nullptr, svg::write, kSvgOptions},
    FormatInfo{"step", kStepExtensions, "STEP CAD B-rep, tessellated to triangles (read only, needs OpenCASCADE)", step::read, nullptr, {}},
    FormatInfo{"iges", kIgesExtensions, "IGES CAD surfaces, tessellated to triangles (read only, needs OpenCASCADE)", iges::read, nullptr, {}},
};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string known_names() {
  std::string names;
  for (const FormatInfo& format : kFormats) {
    if (!names.empty()) names += ", ";
    names += format.name;
  }
  return names;
}

}  // namespace

// WriteOptions is defined in src/cpp/core/write_options.cpp.

std::span<const FormatInfo> registered_formats() noexcept { return kFormats; }

const FormatInfo& format_by_name(std::string_view name) {
  const std::string wanted = lower(name);
  for (const FormatInfo& format : kFormats)
    if (format.name == wanted) return format;
  throw std::invalid_argument("unknown file format '" + std::string(name) + "' (known: " + known_names() + ")");
}

const FormatInfo* format_for_path(std::string_view path) noexcept {
  // A directory has no extension: an OpenFOAM case (or polyMesh) directory is openfoam's.
  if (openfoam::is_case_directory(std::string(path)))
    for (const FormatInfo& format : kFormats)
      if (format.name == "openfoam") return &format;
  // An Elmer mesh directory (or its mesh.header), and Z88's fixed structure file names.
  const auto named = [](std::string_view wanted) -> const FormatInfo* {
    for (const FormatInfo& format : kFormats)
      if (format.name == wanted) return &format;
    return nullptr;
  };
  if (elmer::is_mesh_directory(std::string(path)) || lower(path).ends_with("/mesh.header") || lower(path) == "mesh.header")
    return named("elmer");
  if (z88::is_structure_file_name(path)) return named("z88");
  if (d3plot::is_family_file_name(path)) return named("d3plot");
  if (binout::is_file_name(path)) return named("binout");
  const std::string name = lower(path);
  const FormatInfo* best = nullptr;
  std::size_t best_length = 0;
  for (const FormatInfo& format : kFormats)
    for (std::string_view extension : format.extensions)
      if (extension.size() > best_length && name.ends_with(extension)) {
        best = &format;
        best_length = extension.size();
      }
  return best;
}

namespace {

// The format of `path` when its extension is claimed by several formats: the first whose
// sniff accepts the file's first bytes. One claimant, or a file that cannot be opened (its
// reader then says why): the extension's first format.
const FormatInfo* format_for_file(const std::string& path) {
  const FormatInfo* by_name = format_for_path(path);
  if (by_name == nullptr) return nullptr;
  std::string_view extension;
  const std::string name = lower(path);
  for (std::string_view candidate : by_name->extensions)
    if (candidate.size() > extension.size() && name.ends_with(candidate)) extension = candidate;
  std::vector<const FormatInfo*> claimants;
  for (const FormatInfo& format : kFormats)
    if (std::find(format.extensions.begin(), format.extensions.end(), extension) != format.extensions.end())
      claimants.push_back(&format);
  if (claimants.size() < 2) return by_name;
  // Only a regular file is sniffed: opening a FIFO would wait for a writer. Anything else goes
  // to the reader, which refuses what is not a regular file with a ReadError.
  std::error_code status_error;
  if (!std::filesystem::is_regular_file(path, status_error)) return by_name;
  std::ifstream file(path, std::ios::binary);
  if (!file) return by_name;
  std::string head(kSniffBytes, '\0');
  file.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(file.gcount()));
  std::string names;
  for (const FormatInfo* format : claimants) {
    if (format->sniff != nullptr && format->sniff(head)) return format;
    names += (names.empty() ? "" : ", ") + std::string(format->name);
  }
  throw ReadError(path, "", "the content matches none of the formats using " + std::string(extension) + " (" + names +
                               "); name one with file_format", 0);
}

}  // namespace

namespace {

const FormatInfo& readable_format(const std::string& path, std::string_view format_name) {
  const FormatInfo* format = nullptr;
  try {
    format = format_name.empty() ? format_for_file(path) : &format_by_name(format_name);
  } catch (const std::invalid_argument& error) {
    throw ReadError(path, "", error.what());
  }
  if (format == nullptr)
    throw ReadError(path, "", "cannot tell the format from the file name; name one (known: " + known_names() + ")");
  if (format->read == nullptr) throw ReadError(path, std::string(format->name), "this format is write-only");
  return *format;
}

// The last line of defence: readers check each header claim before allocating
// (io/source/read_limits.hpp), but an allocation that still fails must name the file.
template <class Read> auto guarded(const std::string& path, const FormatInfo& format, Read&& read) -> decltype(read()) {
  try {
    // A file truncated by another process while mapped reads as a ReadError, not SIGBUS or garbage.
    return io::guarded_read(read);
  } catch (const std::bad_alloc&) {
    throw ReadError(path, std::string(format.name),
                    "out of memory while reading (a claim larger than this machine can hold; see max_array_bytes)");
  } catch (const std::length_error& error) {
    throw ReadError(path, std::string(format.name), std::string("an array too large to hold: ") + error.what());
  }
}

// The file's mesh with step `step`'s data (negative: from the end). A format without steps
// holds one.
Mesh read_time_step(const std::string& path, const FormatInfo& format, std::int64_t step, const ReadRequest& request) {
  const auto one_step = [&](std::string_view what) {
    if (step != 0 && step != -1)
      throw std::invalid_argument(escape_invalid_utf8(path + ": time_step=" + std::to_string(step) +
                                                      " is out of range: " + std::string(what) + " one step (0 or -1)"));
    return format.read_selected ? guarded(path, format, [&] { return format.read_selected(path, request); })
                                : guarded(path, format, [&] { return format.read(path); });
  };
  if (!has_time_series_reader(format.name)) return one_step(std::string(format.name) + " files hold");
  return guarded(path, format, [&] {
    std::unique_ptr<TimeSeriesReader> series;
    try {
      series = open_time_series(path, format.name);
    } catch (const ReadError&) {
      // A file of such a format that is no series (an XDMF mesh without a temporal collection)
      // holds one step; anything else asked of it keeps the series' own words.
      if (step != 0 && step != -1) throw;
      return one_step("the file holds");
    }
    const auto count = static_cast<std::int64_t>(series->num_steps());
    if (count == 0) return one_step("the file has no steps of data: it holds");
    const std::int64_t index = step < 0 ? step + count : step;
    if (index < 0 || index >= count)
      throw std::invalid_argument(escape_invalid_utf8(path + ": time_step=" + std::to_string(step) +
                                                      " is out of range: the file holds " + std::to_string(count) +
                                                      " steps (0.." + std::to_string(count - 1) + ", or -" +
                                                      std::to_string(count) + "..-1)"));
    Mesh mesh = series->read_mesh();
    TimeStep data = series->read_step(static_cast<std::size_t>(index));
    for (auto& [name, array] : data.point_data) mesh.point_data.set(name, std::move(array));
    for (auto& [name, arrays] : data.cell_data) mesh.cell_data.set(name, std::move(arrays));
    for (auto& [name, array] : data.field_data) mesh.field_data.set(name, std::move(array));
    return mesh;
  });
}

}  // namespace

Mesh read(const std::string& path, std::string_view format_name) {
  const FormatInfo& format = readable_format(path, format_name);
  return guarded(path, format, [&] { return format.read(path); });
}

Mesh read(const std::string& path, std::string_view format_name, const ReadRequest& request) {
  const FormatInfo& format = readable_format(path, format_name);
  if (request.reads_everything()) return guarded(path, format, [&] { return format.read(path); });
  Mesh mesh = request.time_step ? read_time_step(path, format, *request.time_step, request)
              : format.read_selected ? guarded(path, format, [&] { return format.read_selected(path, request); })
                                     : guarded(path, format, [&] { return format.read(path); });
  apply_read_request(mesh, request, path);
  return mesh;
}

MeshMetadata read_metadata(const std::string& path, std::string_view format_name) {
  const FormatInfo& format = readable_format(path, format_name);
  MeshMetadata metadata = format.read_metadata
                              ? guarded(path, format, [&] { return format.read_metadata(path); })
                              : summarize(guarded(path, format, [&] { return format.read(path); }), format.name);
  metadata.format = std::string(format.name);
  // The steps' times come from the series' structure, which its readers open without the arrays.
  // A file of such a format without steps (a Gmsh mesh without $NodeData) has no times.
  // A header-only answer has the times the header states (its reader fills them).
  if (metadata.times.empty() && !metadata.header_only && has_time_series_reader(format.name)) {
    try {
      const std::unique_ptr<TimeSeriesReader> series = open_time_series(path, format.name);
      for (std::size_t step = 0; step < series->num_steps(); ++step) metadata.times.push_back(series->time(step));
    } catch (const ReadError&) {
    }
  }
  return metadata;
}

void write(const std::string& path, const Mesh& mesh, std::string_view format_name,
           const WriteOptions& options) {
  const FormatInfo* format = nullptr;
  try {
    format = format_name.empty() ? format_for_path(path) : &format_by_name(format_name);
  } catch (const std::invalid_argument& error) {
    throw WriteError(path, "", error.what());
  }
  if (format == nullptr)
    throw WriteError(path, "", "cannot tell the format from the file name; name one (known: " + known_names() + ")");
  if (format->write == nullptr) throw WriteError(path, std::string(format->name), "this format is read-only");
  for (const auto& option : options.items()) {
    // A named reference, not a structured binding: C++20 lambdas may not capture those (Clang 14 refuses).
    const std::string& name = option.first;
    const bool known = std::any_of(format->write_options.begin(), format->write_options.end(),
                                   [&](const WriteOptionSpec& spec) { return spec.name == name; });
    if (!known) throw WriteError(path, std::string(format->name), "unknown write option '" + name + "'");
  }
  // The node indices are checked here before the write, or beside it (see
  // FormatInfo::index_check_beside_write) when there is a second core to do it.
  const bool beside = format->index_check_beside_write && !format->cells_implied && thread_count() > 1;
  try {
    validate(mesh, format->cells_implied || beside ? CellCheck::shapes_only : CellCheck::node_indices);
  } catch (const std::invalid_argument& error) {
    throw WriteError(path, std::string(format->name), error.what());
  }
  try {
    std::optional<DeferredCheck> index_check;
    if (beside) index_check.emplace([&mesh] { validate_node_indices(mesh); });
    format->write(path, mesh, options);
    finish_deferred_check();  // published files have waited for it; this reports it for any other
  } catch (const std::invalid_argument& error) {
    throw WriteError(path, std::string(format->name), error.what());
  }
}

}  // namespace meshioplusplus
