// io/occt, the one file that sees OpenCASCADE's headers: read a STEP/IGES file into an XDE
// document, list its part instances (the document's leaves, placed where the assembly puts
// them), tessellate every face once with BRepMesh_IncrementalMesh, and walk the faces'
// triangulations into one CadSurface.
//
// Nodes: a face's triangulation has its own nodes; the nodes on an edge are shared with the
// other faces of that edge through OCCT's polygon of the edge on each face (the same edge
// discretisation, so the same points), the end nodes of every edge through its vertices. A
// seam (the closing edge of a cylinder) is one edge met twice, so the surface closes there
// too. Interior nodes of a degenerated edge (a sphere's pole) stay per face: merging them would
// collapse OCCT's triangles there.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "io/occt/cad_surface.hpp"
#include "meshioplusplus/errors.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_OCCT
// OCC_CATCH_SIGNALS below turns a fault inside OCCT into a Standard_Failure (see FaultScope).
#define OCC_CONVERT_SIGNALS 1
#include <csignal>

#include <BRepBndLib.hxx>
#include <BRepMesh_IncrementalMesh.hxx>
#include <BRep_Builder.hxx>
#include <BRep_Tool.hxx>
#include <Bnd_Box.hxx>
#include <IFSelect_ReturnStatus.hxx>
#include <IGESCAFControl_Reader.hxx>
#include <Message.hxx>
#include <Message_Messenger.hxx>
#include <Message_Printer.hxx>
#include <Message_PrinterOStream.hxx>
#include <OSD.hxx>
#include <Poly_PolygonOnTriangulation.hxx>
#include <Poly_Triangulation.hxx>
#include <STEPCAFControl_Reader.hxx>
#include <Standard_ErrorHandler.hxx>
#include <Standard_Failure.hxx>
#include <TDataStd_Name.hxx>
#include <TDocStd_Document.hxx>
#include <TopExp.hxx>
#include <TopExp_Explorer.hxx>
#include <TopTools_IndexedMapOfShape.hxx>
#include <TopoDS.hxx>
#include <TopoDS_Compound.hxx>
#include <TopoDS_Edge.hxx>
#include <TopoDS_Face.hxx>
#include <TopoDS_Vertex.hxx>
#include <XCAFApp_Application.hxx>
#include <XCAFDoc_ShapeTool.hxx>
#include <XCAFPrs_DocumentExplorer.hxx>
#endif

namespace meshioplusplus::io::occt {

#ifndef MESHIOPLUSPLUS_HAVE_OCCT

bool available() noexcept { return false; }

CadSurface tessellate(const std::string& path, CadFile kind, const TessellationOptions&) {
  throw ReadError(path, std::string(format_name(kind)),
                  "reading STEP and IGES needs OpenCASCADE, which this build of meshio++ lacks (Debian: "
                  "libocct-data-exchange-dev libocct-modeling-algorithms-dev libocct-modeling-data-dev "
                  "libocct-foundation-dev; then rebuild with MESHIOPLUSPLUS_WITH_OCCT=ON)");
}

#else

bool available() noexcept { return true; }

namespace {

[[noreturn]] void fail(const std::string& path, CadFile kind, const std::string& message,
                       std::optional<std::uint64_t> line = std::nullopt) {
  throw ReadError(path, std::string(format_name(kind)), message, std::nullopt, line);
}

// The line OCCT's STEP parser names ("… Line 683: Incorrect syntax …"), if any.
std::optional<std::uint64_t> line_in(std::string_view message) {
  const std::size_t at = message.find("Line ");
  if (at == std::string_view::npos) return std::nullopt;
  std::uint64_t line = 0;
  const char* first = message.data() + at + 5;
  const auto [end, error] = std::from_chars(first, message.data() + message.size(), line);
  if (error != std::errc() || end == first) return std::nullopt;
  return line;
}

// XSControl's settings and the XCAF application are process-wide and unlocked: one reader at a
// time. Tessellation and the walk work on this read's own shapes and run outside the lock.
std::mutex& reader_mutex() {
  static std::mutex mutex;
  return mutex;
}

// OCCT's default printer writes every complaint about a file to stdout; a library must not.
// Its messages go here instead, and the last failure (a STEP syntax error with its line, …)
// becomes the ReadError's message. Locked: BRepMesh may report from its worker threads.
class FailureRecorder : public Message_Printer {
 public:
  std::string take() {
    const std::lock_guard lock(mutex_);
    return std::exchange(last_failure_, std::string());
  }

 protected:
  void send(const TCollection_AsciiString& text, const Message_Gravity gravity) const override {
    if (gravity < Message_Fail) return;
    const std::lock_guard lock(mutex_);
    last_failure_ = text.ToCString();
  }

 private:
  mutable std::mutex mutex_;
  mutable std::string last_failure_;
};

FailureRecorder& failure_recorder() {
  static const Handle(FailureRecorder) recorder = [] {
    Handle(FailureRecorder) made = new FailureRecorder();
    const Handle(Message_Messenger)& messenger = Message::DefaultMessenger();
    messenger->RemovePrinters(STANDARD_TYPE(Message_PrinterOStream));
    messenger->AddPrinter(made);
    return made;
  }();
  return *recorder;
}

// " (OpenCASCADE: <its last failure message>)", or "" when it reported none.
std::string reported_failure() {
  std::string text = failure_recorder().take();
  while (!text.empty() && (text.back() == ' ' || text.back() == '*' || text.back() == '\n')) text.pop_back();
  std::size_t start = text.find_first_not_of("* ");
  if (start == std::string::npos) return {};
  return " (OpenCASCADE: " + text.substr(start) + ")";
}

// OCCT dereferences null handles on some malformed files (a STEP curve whose points are
// entities of another type, an IGES curve on a missing surface: found by mutating the test
// files). For one read, under reader_mutex(), OCCT's own handler takes SIGSEGV and SIGBUS: a
// fault inside the reader then jumps to the OCC_CATCH_SIGNALS point in read_into and becomes a
// Standard_Failure, hence a ReadError. Every other signal keeps the caller's handler (Ctrl-C
// stays Python's), and the caller's SIGSEGV/SIGBUS handlers (faulthandler …) come back after.
class FaultScope {
 public:
  FaultScope() {
    for (int signal = 1; signal < NSIG; ++signal)
      saved_[signal].valid = sigaction(signal, nullptr, &saved_[signal].action) == 0;
    OSD::SetSignal(OSD_SignalMode_Set, /*theFloatingSignal=*/false);
    for (int signal = 1; signal < NSIG; ++signal)
      if (signal != SIGSEGV && signal != SIGBUS) restore(signal);
  }
  ~FaultScope() {
    restore(SIGSEGV);
    restore(SIGBUS);
  }
  FaultScope(const FaultScope&) = delete;
  FaultScope& operator=(const FaultScope&) = delete;

 private:
  void restore(int signal) {
    if (saved_[signal].valid) sigaction(signal, &saved_[signal].action, nullptr);
  }
  struct Saved {
    struct sigaction action {};
    bool valid = false;
  };
  std::array<Saved, NSIG> saved_{};
};

std::string utf8(const TCollection_ExtendedString& text) {
  std::string out(static_cast<std::size_t>(text.LengthOfCString()) + 1, '\0');
  Standard_PCharacter data = out.data();
  out.resize(static_cast<std::size_t>(std::max(0, text.ToUTF8CString(data))));
  return out;
}

std::string label_name(const TDF_Label& label) {
  Handle(TDataStd_Name) name;
  if (label.IsNull() || !label.FindAttribute(TDataStd_Name::GetID(), name)) return {};
  return utf8(name->Get());
}

struct Part {
  TopoDS_Shape shape;  // placed where the assembly puts this instance
  std::string name;    // the product's name, else the instance's
};

struct Document {
  std::vector<Part> parts;
  // Names the file gives to faces and solids of a part (XCAF sub-shape labels), by the shape
  // they name (every instance of the part shares it); the shape is kept so its address stays its.
  std::unordered_map<const void*, std::pair<TopoDS_Shape, std::string>> sub_shape_names;
};

std::string_view status_text(IFSelect_ReturnStatus status) {
  switch (status) {
    case IFSelect_RetVoid: return "nothing to read";
    case IFSelect_RetError: return "a syntax error";
    case IFSelect_RetFail: return "a failure";
    case IFSelect_RetStop: return "an abort";
    default: return "an unknown status";
  }
}

template <class Reader> void read_into(Reader& reader, const std::string& path, CadFile kind,
                                       Handle(TDocStd_Document)& document) {
  reader.SetNameMode(true);
  reader.SetColorMode(false);
  reader.SetLayerMode(false);
  const std::string what = kind == CadFile::step ? "STEP (ISO 10303-21)" : "IGES";
  IFSelect_ReturnStatus status = IFSelect_RetVoid;
  bool transferred = false;
  {
    const FaultScope faults;
    OCC_CATCH_SIGNALS
    status = reader.ReadFile(path.c_str());
    transferred = status == IFSelect_RetDone && reader.Transfer(document);
  }
  if (status != IFSelect_RetDone) {
    const std::string reported = reported_failure();
    fail(path, kind, "not a readable " + what + " file: OpenCASCADE's reader reports " + std::string(status_text(status)) + reported,
         line_in(reported));
  }
  if (!transferred) fail(path, kind, "OpenCASCADE transferred no shape from this " + what + " file" + reported_failure());
}

Document read_document(const std::string& path, CadFile kind) {
  const std::lock_guard lock(reader_mutex());
  failure_recorder().take();
  Handle(XCAFApp_Application) application = XCAFApp_Application::GetApplication();
  Handle(TDocStd_Document) document;
  application->NewDocument("MDTV-XCAF", document);
  struct Closer {
    Handle(XCAFApp_Application) application;
    Handle(TDocStd_Document) document;
    ~Closer() {
      if (!document.IsNull() && document->IsOpened()) application->Close(document);
    }
  } closer{application, document};

  if (kind == CadFile::step) {
    STEPCAFControl_Reader reader;
    // Only names are used: validation properties, tolerances (GD&T), materials, saved views
    // and SHUO styles are not read (GD&T alone costs a pass over every entity).
    reader.SetPropsMode(false);
    reader.SetGDTMode(false);
    reader.SetMatMode(false);
    reader.SetViewMode(false);
    reader.SetSHUOMode(false);
    read_into(reader, path, kind, document);
  } else {
    IGESCAFControl_Reader reader;
    read_into(reader, path, kind, document);
  }

  Document result;
  const auto flags = XCAFPrs_DocumentExplorerFlags_OnlyLeafNodes | XCAFPrs_DocumentExplorerFlags_NoStyle;
  for (XCAFPrs_DocumentExplorer explorer(document, flags); explorer.More(); explorer.Next()) {
    const XCAFPrs_DocumentNode& node = explorer.Current();
    TopoDS_Shape shape;
    if (!XCAFDoc_ShapeTool::GetShape(node.RefLabel, shape) || shape.IsNull()) continue;
    shape.Location(node.Location, false);  // as OCCT's own exporters place an instance
    std::string name = label_name(node.RefLabel);
    if (name.empty()) name = label_name(node.Label);
    TDF_LabelSequence sub_shapes;
    XCAFDoc_ShapeTool::GetSubShapes(node.RefLabel, sub_shapes);
    for (TDF_LabelSequence::Iterator it(sub_shapes); it.More(); it.Next()) {
      TopoDS_Shape sub_shape;
      std::string sub_name = label_name(it.Value());
      if (sub_name.empty() || !XCAFDoc_ShapeTool::GetShape(it.Value(), sub_shape) || sub_shape.IsNull()) continue;
      const void* key = sub_shape.TShape().get();
      result.sub_shape_names.emplace(key, std::pair{std::move(sub_shape), std::move(sub_name)});
    }
    result.parts.push_back(Part{std::move(shape), std::move(name)});
  }
  if (result.parts.empty()) fail(path, kind, "the file holds no shape");
  return result;
}

// Faces numbered once each (a face two solids share belongs to the first), with their solid.
struct FaceTable {
  TopTools_IndexedMapOfShape faces;
  std::vector<std::int32_t> solid_of_face;
};

std::string sub_shape_name(const Document& document, const TopoDS_Shape& shape) {
  const auto it = document.sub_shape_names.find(shape.TShape().get());
  return it == document.sub_shape_names.end() ? std::string() : it->second.second;
}

FaceTable number_faces(const Document& document, CadSurface& surface) {
  FaceTable table;
  auto add_faces = [&](const TopoDS_Shape& owner, TopAbs_ShapeEnum avoid, std::int32_t solid) {
    for (TopExp_Explorer faces(owner, TopAbs_FACE, avoid); faces.More(); faces.Next()) {
      if (table.faces.Contains(faces.Current())) continue;
      table.faces.Add(faces.Current());
      table.solid_of_face.push_back(solid);
    }
  };
  for (const Part& part : document.parts) {
    int solids = 0;
    for (TopExp_Explorer it(part.shape, TopAbs_SOLID); it.More(); it.Next()) ++solids;
    int k = 0;
    for (TopExp_Explorer it(part.shape, TopAbs_SOLID); it.More(); it.Next()) {
      std::string name = sub_shape_name(document, it.Current());
      if (name.empty() && !part.name.empty()) name = solids == 1 ? part.name : part.name + " " + decimal(++k);
      surface.solid_names.push_back(std::move(name));
      add_faces(it.Current(), TopAbs_SHAPE, static_cast<std::int32_t>(surface.solid_names.size() - 1));
    }
    // Faces outside any solid (shells, trimmed surfaces of an IGES file): one group per part.
    TopExp_Explorer free_faces(part.shape, TopAbs_FACE, TopAbs_SOLID);
    if (free_faces.More()) {
      surface.solid_names.push_back(solids == 0 ? part.name : std::string());
      add_faces(part.shape, TopAbs_SOLID, static_cast<std::int32_t>(surface.solid_names.size() - 1));
    }
  }
  return table;
}

double squared_distance(const gp_Pnt& a, const double* b) {
  const double dx = a.X() - b[0], dy = a.Y() - b[1], dz = a.Z() - b[2];
  return dx * dx + dy * dy + dz * dz;
}

// Joins the faces' triangulations, sharing the nodes of common edges and vertices.
class SurfaceWalk {
 public:
  explicit SurfaceWalk(CadSurface& surface) : surface_(surface) {}

  void add_face(const TopoDS_Face& face, std::int32_t face_index, std::int32_t solid) {
    TopLoc_Location location;
    const Handle(Poly_Triangulation)& triangulation = BRep_Tool::Triangulation(face, location);
    if (triangulation.IsNull() || triangulation->NbTriangles() == 0) return;
    triangulation_ = triangulation;
    transform_ = location.Transformation();
    identity_ = location.IsIdentity();
    const int nodes = triangulation->NbNodes();
    local_.assign(static_cast<std::size_t>(nodes) + 1, -1);

    for (TopExp_Explorer it(face, TopAbs_EDGE); it.More(); it.Next()) {
      const TopoDS_Edge& edge = TopoDS::Edge(it.Current());
      const Handle(Poly_PolygonOnTriangulation)& polygon = BRep_Tool::PolygonOnTriangulation(edge, triangulation, location);
      if (!polygon.IsNull()) share_edge(edge, *polygon);
    }
    for (int i = 1; i <= nodes; ++i)
      if (local_[i] < 0) local_[i] = new_node(i);

    const bool reversed = face.Orientation() == TopAbs_REVERSED;
    for (int t = 1; t <= triangulation->NbTriangles(); ++t) {
      int a = 0, b = 0, c = 0;
      triangulation->Triangle(t).Get(a, b, c);
      if (a < 1 || b < 1 || c < 1 || a > nodes || b > nodes || c > nodes) continue;
      if (reversed) std::swap(b, c);
      const std::int64_t ga = local_[a], gb = local_[b], gc = local_[c];
      if (ga == gb || gb == gc || ga == gc) continue;  // collapsed by sharing: no area
      surface_.triangles.insert(surface_.triangles.end(), {ga, gb, gc});
      surface_.face_of_triangle.push_back(face_index);
      surface_.solid_of_triangle.push_back(solid);
    }
  }

 private:
  gp_Pnt point(int local) const {
    gp_Pnt p = triangulation_->Node(local);
    if (!identity_) p.Transform(transform_);
    return p;
  }

  std::int64_t new_node(int local) {
    const gp_Pnt p = point(local);
    surface_.points.insert(surface_.points.end(), {p.X(), p.Y(), p.Z()});
    return static_cast<std::int64_t>(surface_.points.size() / 3 - 1);
  }

  const double* coordinates(std::int64_t node) const { return surface_.points.data() + 3 * node; }

  // The node of a vertex: the first face that reaches it makes it.
  void share_vertex(const TopoDS_Vertex& vertex, int local) {
    const int index = vertices_.Add(vertex);
    if (static_cast<std::size_t>(index) > vertex_nodes_.size()) vertex_nodes_.resize(index, -1);
    std::int64_t& node = vertex_nodes_[index - 1];
    if (local_[local] >= 0) {
      if (node < 0) node = local_[local];
      return;
    }
    if (node < 0) node = new_node(local);
    local_[local] = node;
  }

  void share_edge(const TopoDS_Edge& edge, const Poly_PolygonOnTriangulation& polygon) {
    const TColStd_Array1OfInteger& nodes = polygon.Nodes();
    const int count = nodes.Length(), lower = nodes.Lower();
    const int limit = triangulation_->NbNodes();
    for (int j = 0; j < count; ++j)
      if (nodes(lower + j) < 1 || nodes(lower + j) > limit) return;  // not this triangulation's
    if (count < 2) return;
    const int first = nodes(lower), last = nodes(lower + count - 1);

    TopoDS_Vertex v1, v2;
    TopExp::Vertices(edge, v1, v2);
    if (!v1.IsNull() && !v2.IsNull()) {
      // The polygon runs along the edge's parameter: its first node is the first vertex.
      // Checked by distance, so a reversed polygon cannot swap two vertices.
      const gp_Pnt p1 = BRep_Tool::Pnt(v1), p2 = BRep_Tool::Pnt(v2);
      const gp_Pnt a = point(first), b = point(last);
      const bool straight = a.SquareDistance(p1) + b.SquareDistance(p2) <= a.SquareDistance(p2) + b.SquareDistance(p1);
      share_vertex(straight ? v1 : v2, first);
      share_vertex(straight ? v2 : v1, last);
    }
    if (count == 2 || BRep_Tool::Degenerated(edge)) return;

    const int index = edges_.Add(edge);
    if (static_cast<std::size_t>(index) > edge_nodes_.size()) edge_nodes_.resize(index);
    EdgeNodes& shared = edge_nodes_[index - 1];
    if (!shared.made) {
      shared.made = true;
      for (int j = 1; j + 1 < count; ++j) {
        const int local = nodes(lower + j);
        if (local_[local] < 0) local_[local] = new_node(local);
        shared.interior.push_back(local_[local]);
      }
      return;
    }
    // Another face of the edge (or the other side of a seam): the same discretisation, in the
    // edge's direction or against it.
    if (shared.interior.size() != static_cast<std::size_t>(count - 2)) return;  // not the same: kept apart
    const gp_Pnt second = point(nodes(lower + 1));
    const bool forward = squared_distance(second, coordinates(shared.interior.front())) <=
                         squared_distance(second, coordinates(shared.interior.back()));
    for (int j = 1; j + 1 < count; ++j) {
      const int local = nodes(lower + j);
      const std::size_t k = forward ? static_cast<std::size_t>(j - 1) : static_cast<std::size_t>(count - 2 - j);
      if (local_[local] < 0) local_[local] = shared.interior[k];
    }
  }

  struct EdgeNodes {
    bool made = false;
    std::vector<std::int64_t> interior;  // in the order of the polygon that made them
  };

  CadSurface& surface_;
  TopTools_IndexedMapOfShape vertices_, edges_;
  std::vector<std::int64_t> vertex_nodes_;
  std::vector<EdgeNodes> edge_nodes_;
  Handle(Poly_Triangulation) triangulation_;
  gp_Trsf transform_;
  bool identity_ = true;
  std::vector<std::int64_t> local_;  // triangulation node (1-based) -> surface node
};

CadSurface tessellate_document(const std::string& path, CadFile kind, const TessellationOptions& options) {
  const Document document = read_document(path, kind);
  CadSurface surface;
  const FaceTable table = number_faces(document, surface);
  if (table.faces.IsEmpty()) fail(path, kind, "the file holds no face (only points, curves or empty shapes)");

  TopoDS_Compound all;
  BRep_Builder builder;
  builder.MakeCompound(all);
  for (const Part& part : document.parts) builder.Add(all, part.shape);

  double deflection = options.linear_deflection;
  if (!(deflection > 0)) {
    deflection = 0.001;
    if (!options.relative) {
      Bnd_Box box;
      BRepBndLib::Add(all, box);
      if (box.IsVoid()) fail(path, kind, "the file's shapes have no extent");
      deflection *= std::sqrt(box.SquareExtent());
      if (!(deflection > 0) || !std::isfinite(deflection)) fail(path, kind, "the file's shapes have no extent");
    }
  }
  BRepMesh_IncrementalMesh mesher(all, deflection, options.relative, options.angular_deflection, /*isInParallel=*/true);

  surface.face_names.resize(static_cast<std::size_t>(table.faces.Extent()));
  SurfaceWalk walk(surface);
  for (int f = 1; f <= table.faces.Extent(); ++f) {
    const TopoDS_Face& face = TopoDS::Face(table.faces(f));
    surface.face_names[f - 1] = sub_shape_name(document, face);
    walk.add_face(face, f - 1, table.solid_of_face[f - 1]);
  }
  if (surface.triangles.empty()) fail(path, kind, "OpenCASCADE made no triangle of the file's faces");
  return surface;
}

}  // namespace

CadSurface tessellate(const std::string& path, CadFile kind, const TessellationOptions& options) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) fail(path, kind, "no such file");
  try {
    return tessellate_document(path, kind, options);
  } catch (const Standard_Failure& failure) {
    fail(path, kind, std::string("OpenCASCADE failed: ") + failure.GetMessageString());
  }
}

#endif

}  // namespace meshioplusplus::io::occt
