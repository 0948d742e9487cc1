// STEP reader (ISO 10303-21 exchange structure, read by OpenCASCADE's STEPCAFControl_Reader).
//
// A STEP file holds a product structure (products, their shapes, assemblies placing product
// instances) and boundary-representation geometry: solids bounded by shells of faces on
// analytic or B-spline surfaces, trimmed by edges. It holds no mesh: the faces are tessellated
// here (BRepMesh_IncrementalMesh, linear deflection 0.001 × the model's bounding-box diagonal,
// angular 0.5 rad unless the namespace read says otherwise), so the point and triangle counts
// depend on those options and on the OCCT version.
//
// What becomes what (details in io/occt/cad_surface_mesh.cpp): points (millimetres, OCCT's
// conversion of the file's length unit) shared along common edges; one triangle block;
// cell data cad:face_id / cad:solid_id; Cell regions per solid (named by the file's solid or
// product name, every instance of a product together) and per CAD face ("face <i>" or the
// file's face name). Ignored: colours, layers, PMI, validation properties, and wire-frame or
// point geometry (a file with no face is a ReadError). Any reader failure, a file that is not
// STEP, or a build without OpenCASCADE is a ReadError naming the file.
#include "formats/step/step.hpp"

namespace meshioplusplus::step {

Mesh read(const std::string& path) { return read(path, io::occt::TessellationOptions{}); }

Mesh read(const std::string& path, const io::occt::TessellationOptions& options) {
  return io::occt::read_surface(path, io::occt::CadFile::step, options);
}

}  // namespace meshioplusplus::step
