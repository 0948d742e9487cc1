// IGES reader (fixed 80-column records: Start, Global, Directory Entry, Parameter Data and
// Terminate sections, read by OpenCASCADE's IGESCAFControl_Reader).
//
// An IGES file holds geometry entities: trimmed and bounded surfaces (entities 144, 143),
// manifold solids (186) with their shells and faces (510, 514), curves and points, and
// optionally entity labels and levels. It holds no mesh: the surfaces are tessellated here
// (BRepMesh_IncrementalMesh, linear deflection 0.001 × the model's bounding-box diagonal,
// angular 0.5 rad unless the namespace read says otherwise). OCCT transfers independent
// trimmed surfaces as separate faces that share no edge, so after tessellation nodes at exactly
// equal coordinates are merged (the corners and boundary points the surfaces share exactly);
// boundaries that meet only within a tolerance stay apart (the faces are not sewn).
//
// What becomes what (details in io/occt/cad_surface_mesh.cpp): points (millimetres, OCCT's
// conversion of the file's unit); one triangle block; cell data cad:face_id / cad:solid_id;
// Cell regions per solid (or one per transferred shape of free faces, named by the entity
// label where the file gives one) and per face ("face <i>" or its label). Ignored: curves,
// points, annotations, colours and levels. Any reader failure, a file that is not IGES, or a
// build without OpenCASCADE is a ReadError naming the file.
#include "formats/iges/iges.hpp"

namespace meshioplusplus::iges {

Mesh read(const std::string& path) { return read(path, io::occt::TessellationOptions{}); }

Mesh read(const std::string& path, const io::occt::TessellationOptions& options) {
  return io::occt::read_surface(path, io::occt::CadFile::iges, options);
}

}  // namespace meshioplusplus::iges
