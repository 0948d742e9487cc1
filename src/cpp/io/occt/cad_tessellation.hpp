// Floor 2: boundary-representation CAD files (STEP, IGES) as triangulated surfaces, through
// OpenCASCADE (an optional build feature, MESHIOPLUSPLUS_HAVE_OCCT; Debian's libocct-*-dev 7.x).
//
// The file is read with OCCT's XDE readers (STEPCAFControl_Reader / IGESCAFControl_Reader, so
// product, instance and face names come along where the file has them), every face is
// tessellated with BRepMesh_IncrementalMesh, and the faces' triangulations are joined into one
// surface mesh whose neighbouring faces share the nodes of their common edges (OCCT's polygons
// of each edge on each face, not a search by coordinates). What becomes what is in
// cad_surface_mesh.cpp. Without OCCT, reading throws a ReadError naming the Debian packages.
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::io::occt {

enum class CadFile { step, iges };

// The defaults of the format rows; the Python namespaces (meshioplusplus.step.read …) take them
// as keyword arguments.
struct TessellationOptions {
  // The largest distance between a triangle and the surface. <= 0: 0.001 × the diagonal of the
  // model's bounding box (absolute), or 0.001 in relative mode.
  double linear_deflection = 0.0;
  // The largest angle (radians) between the normals of neighbouring triangles along a curve.
  double angular_deflection = 0.5;
  // OCCT's relative mode: linear_deflection is a fraction of each edge's/face's size.
  bool relative = false;
};

bool available() noexcept;

// The format's name as errors name it ("step", "iges").
std::string_view format_name(CadFile kind) noexcept;

// Throws ReadError naming the file (missing, not that CAD format, no surface, OCCT failure,
// bad options, or a build without OpenCASCADE).
Mesh read_surface(const std::string& path, CadFile kind, const TessellationOptions& options = {});

}  // namespace meshioplusplus::io::occt
