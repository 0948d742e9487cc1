// FEBio plot file reader (.xplt; FEBio's FEBioPlot/FEBioPlotFile.h names the tags).
//
// The file: the word "FEB\0", then chunks (tag u32, size u32, payload; chunks nest). The root
// chunk holds the header (version, compression, software) and the dictionary: the global,
// nodal, domain, surface and edge variables, each with a type (FLOAT, VEC3F, MAT3FS, MAT3FD,
// TENS4FS, MAT3F, ARRAY, ARRAY_VEC3F), a storage format (per node, per item, per item node,
// per region) and a name. Then a mesh chunk (nodes, domains with an element type and the
// elements' 0-based node indices, surfaces, node sets, element sets, parts) and one state
// chunk per output time (time, then per variable its values for each region).
//
// What becomes what: nodes → points float64 (n, 3); each domain → one cell block in its
// element type (FEBio's type numbers as io/cells/febio_element_types.hpp names them: hex27's face nodes
// reordered to VTK's) and a Cell region named by the domain's name, else its part's name,
// else "domain <k>"; node sets → Point regions. Per state: nodal variables → point data,
// float32 (n, components) as stored ((n,) for FLOAT); domain variables → cell data per block
// (NaN on blocks where the variable is not written): per item as stored, per region broadcast
// to the block's cells, per node and per element node (integration-point-like data) averaged
// over each element's nodes; global variables → field data (components,). Names as in the
// dictionary (FEBio Studio's names). Surfaces and their data, edges, plot objects and the
// eroded-element states are skipped (Side regions would need the facet-to-element map, which
// the file does not store). A later mesh chunk (FEBio writes one when the mesh changes) is
// the mesh of the states after it (mesh_follows_step). meshioplusplus.read gives the first
// state. Compressed plot files (header compression != 0) and FEBio 2 files are refused.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/cells/febio_element_types.hpp"
#include "formats/xplt/xplt.hpp"
#include "io/source/binary_cursor.hpp"
#include "io/source/byte_order.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::xplt {
namespace {

constexpr std::string_view kFormat = "xplt";
constexpr std::uint32_t kMagic = 0x00464542;  // "FEB\0" little-endian

enum Tag : std::uint32_t {
  kRoot = 0x01000000, kHeader = 0x01010000, kVersion = 0x01010001, kCompression = 0x01010004,
  kDictionary = 0x01020000, kDicItem = 0x01020001, kDicItemType = 0x01020002, kDicItemFormat = 0x01020003,
  kDicItemName = 0x01020004, kDicItemArraySize = 0x01020005, kDicGlobal = 0x01021000, kDicNodal = 0x01023000,
  kDicDomain = 0x01024000, kDicSurface = 0x01025000, kDicEdge = 0x01026000,
  kMesh = 0x01040000, kNodeSection = 0x01041000, kNodeHeader = 0x01041100, kNodeSize = 0x01041101,
  kNodeDim = 0x01041102, kNodeCoords = 0x01041200, kDomainSection = 0x01042000, kDomain = 0x01042100,
  kDomainHeader = 0x01042101, kDomainElemType = 0x01042102, kDomainPartId = 0x01042103, kDomainElems = 0x01032104,
  kDomainName = 0x01032105, kDomainElemList = 0x01042200, kElement = 0x01042201, kNodeSetSection = 0x01044000,
  kNodeSet = 0x01044100, kNodeSetHeader = 0x01044101, kNodeSetId = 0x01044102, kNodeSetName = 0x01044103,
  kNodeSetList = 0x01044200, kPartsSection = 0x01045000, kPart = 0x01045100, kPartId = 0x01045101,
  kPartName = 0x01045102,
  kState = 0x02000000, kStateHeader = 0x02010000, kStateTime = 0x02010002, kStateData = 0x02020000,
  kStateVariable = 0x02020001, kStateVarId = 0x02020002, kStateVarData = 0x02020003, kGlobalData = 0x02020100,
  kNodeData = 0x02020300, kElementData = 0x02020400,
};

// Element types by FEBio's number (FEBioPlotFile::Elem_Type), as io/cells/febio_element_types.hpp names them.
constexpr std::string_view kElementTypes[] = {"hex8",  "penta6", "tet4",    "quad4", "tri3",  "line2", "hex20",
                                              "tet10", "tet15",  "hex27",   "tri6",  "quad8", "quad9", "penta15",
                                              "tet20", "tri10",  "pyra5",   "tet5",  "pyra13", "line3"};

enum StorageFormat : std::uint32_t { kPerNode = 0, kPerItem = 1, kPerItemNode = 2, kPerRegion = 3 };

struct Chunk {
  std::uint32_t tag;
  std::size_t begin, end;  // payload
};

struct Variable {
  std::string name;
  std::uint32_t type = 0, format = 0, array_size = 0;
  std::int64_t components() const {
    switch (type) {
      case 0: return 1;    // FLOAT
      case 1: return 3;    // VEC3F
      case 2: return 6;    // MAT3FS
      case 3: return 3;    // MAT3FD
      case 4: return 21;   // TENS4FS
      case 5: return 9;    // MAT3F
      case 6: return array_size;          // ARRAY
      case 7: return 3 * std::int64_t(array_size);  // ARRAY_VEC3F
      default: return 0;
    }
  }
};

struct Domain {
  std::int64_t cells = 0;
  int nodes_per_cell = 0;
  // Sorted: FEBio's order for per-node domain data; made on first use (few variables need it).
  mutable std::vector<std::int64_t> unique_nodes;
  mutable bool have_unique_nodes = false;
};

struct MeshState {
  Mesh mesh;
  std::vector<Domain> domains;
};

struct StateEntry {
  double time = 0.0;
  std::size_t begin = 0, end = 0;
  std::size_t mesh = 0;  // index into meshes_
};

class PlotFile final : public TimeSeriesReader {
 public:
  explicit PlotFile(const std::string& path) : path_(path), file_(path, kFormat), cursor_(file_.bytes(), path_, kFormat) {
    if (cursor_.left() < 4) cursor_.fail("the file is too short for an FEBio plot file");
    if (cursor_.u32("the file tag") != kMagic) {
      cursor_.seek(0);
      cursor_.set_little_endian(false);
      if (cursor_.u32("the file tag") != kMagic) cursor_.fail_at(0, "not an FEBio plot file (no FEB tag)");
    }
    bool have_root = false;
    for (const Chunk& chunk : children(4, file_.bytes().size())) {
      if (chunk.tag == kRoot) {
        read_root(chunk);
        have_root = true;
      } else if (chunk.tag == kMesh) {
        if (!have_root) cursor_.fail_at(chunk.begin - 8, "the mesh comes before the root chunk");
        mesh_chunks_.push_back(chunk);
      } else if (chunk.tag == kState) {
        if (mesh_chunks_.empty()) cursor_.fail_at(chunk.begin - 8, "a state comes before any mesh");
        states_.push_back({read_state_time(chunk), chunk.begin, chunk.end, mesh_chunks_.size() - 1});
      }
    }
    if (!have_root) cursor_.fail_at(4, "the file has no root chunk");
    if (mesh_chunks_.empty()) cursor_.fail("the file has no mesh");
    if (states_.empty()) cursor_.fail("the file has no state (no results)");
    meshes_.resize(mesh_chunks_.size());
  }

  std::size_t num_steps() const override { return states_.size(); }
  double time(std::size_t step) const override { return states_.at(step).time; }

  Mesh read_mesh() override {
    const MeshState& state = mesh_of(states_[current_].mesh);
    Mesh out;
    out.points = state.mesh.points;
    out.cells = state.mesh.cells;
    out.regions = state.mesh.regions;
    return out;
  }

  TimeStep read_step(std::size_t step) override {
    if (step >= states_.size())
      throw ReadError(path_, std::string(kFormat), "state " + std::to_string(step) + " is out of range (the file has " +
                                                       std::to_string(states_.size()) + ")");
    current_ = step;
    const StateEntry& entry = states_[step];
    const MeshState& mesh = mesh_of(entry.mesh);
    TimeStep out;
    out.time = entry.time;
    for (const Chunk& chunk : children(entry.begin, entry.end)) {
      if (chunk.tag != kStateData) continue;
      for (const Chunk& group : children(chunk.begin, chunk.end)) {
        if (group.tag == kNodeData) read_variables(group, nodal_, [&](const Variable& v, const Chunk& data) { read_nodal(v, data, mesh, out); });
        if (group.tag == kElementData) read_variables(group, domain_, [&](const Variable& v, const Chunk& data) { read_domain(v, data, mesh, out); });
        if (group.tag == kGlobalData) read_variables(group, global_, [&](const Variable& v, const Chunk& data) { read_global(v, data, out); });
      }
    }
    return out;
  }

 private:
  // The chunks directly inside [begin, end); each must fit.
  std::vector<Chunk> children(std::size_t begin, std::size_t end) {
    std::vector<Chunk> out;
    cursor_.seek(begin);
    while (cursor_.position() < end) {
      const std::size_t at = cursor_.position();
      if (end - at < 8) cursor_.fail_at(at, "a chunk header is cut off");
      const std::uint32_t tag = cursor_.u32("a chunk tag");
      const std::uint32_t size = cursor_.u32("a chunk size");
      if (size > end - cursor_.position())
        cursor_.fail_at(at, "chunk 0x" + hex(tag) + " claims " + std::to_string(size) + " bytes, past the end of its parent");
      out.push_back({tag, cursor_.position(), cursor_.position() + size});
      cursor_.seek(cursor_.position() + size);
    }
    return out;
  }

  static std::string hex(std::uint32_t value) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out(8, '0');
    for (int k = 7; k >= 0; --k, value >>= 4) out[static_cast<std::size_t>(k)] = kDigits[value & 15];
    return out;
  }

  std::uint32_t u32_of(const Chunk& chunk) {
    if (chunk.end - chunk.begin < 4) cursor_.fail_at(chunk.begin, "chunk 0x" + hex(chunk.tag) + " is too short for its value");
    cursor_.seek(chunk.begin);
    return cursor_.u32();
  }

  // A name: a length-prefixed string or a fixed field ending with '\0'.
  std::string string_of(const Chunk& chunk) {
    const std::string_view bytes = file_.bytes().substr(chunk.begin, chunk.end - chunk.begin);
    if (bytes.size() >= 4) {
      cursor_.seek(chunk.begin);
      const std::uint32_t length = cursor_.u32();
      if (length + 4ull == bytes.size() || (length + 4ull < bytes.size() && length > 0 && bytes[4 + length] == '\0'))
        return std::string(bytes.substr(4, length));
    }
    return std::string(bytes.substr(0, std::min(bytes.find('\0'), bytes.size())));
  }

  void read_root(const Chunk& root) {
    for (const Chunk& chunk : children(root.begin, root.end)) {
      if (chunk.tag == kHeader) {
        for (const Chunk& item : children(chunk.begin, chunk.end)) {
          if (item.tag == kVersion) {
            version_ = u32_of(item);
            if (version_ < 0x30)
              cursor_.fail_at(item.begin, "plot file version 0x" + hex(version_) + " (FEBio 2) is not read; FEBio 3 and 4 files are");
          } else if (item.tag == kCompression && u32_of(item) != 0) {
            cursor_.fail_at(item.begin, "compressed plot files are not read (set plot compression to 0 in FEBio)");
          }
        }
      } else if (chunk.tag == kDictionary) {
        for (const Chunk& list : children(chunk.begin, chunk.end)) {
          if (list.tag == kDicGlobal) global_ = read_dictionary(list);
          if (list.tag == kDicNodal) nodal_ = read_dictionary(list);
          if (list.tag == kDicDomain) domain_ = read_dictionary(list);
        }
      }
    }
  }

  std::vector<Variable> read_dictionary(const Chunk& list) {
    std::vector<Variable> out;
    for (const Chunk& item : children(list.begin, list.end)) {
      if (item.tag != kDicItem) continue;
      Variable variable;
      for (const Chunk& field : children(item.begin, item.end)) {
        if (field.tag == kDicItemType) variable.type = u32_of(field);
        if (field.tag == kDicItemFormat) variable.format = u32_of(field);
        if (field.tag == kDicItemName) variable.name = string_of(field);
        if (field.tag == kDicItemArraySize) variable.array_size = u32_of(field);
      }
      if (variable.components() <= 0 || variable.components() > 1 << 16)
        cursor_.fail_at(item.begin, "variable '" + variable.name + "' has an unknown type " + std::to_string(variable.type));
      if (variable.format > kPerRegion)
        cursor_.fail_at(item.begin, "variable '" + variable.name + "' has an unknown storage format " + std::to_string(variable.format));
      out.push_back(std::move(variable));
    }
    return out;
  }

  double read_state_time(const Chunk& state) {
    for (const Chunk& chunk : children(state.begin, state.end)) {
      if (chunk.tag != kStateHeader) continue;
      for (const Chunk& item : children(chunk.begin, chunk.end))
        if (item.tag == kStateTime) {
          if (item.end - item.begin < 4) cursor_.fail_at(item.begin, "a state time is cut off");
          cursor_.seek(item.begin);
          return item.end - item.begin >= 8 ? cursor_.f64() : cursor_.f32();
        }
    }
    cursor_.fail_at(state.begin, "a state has no time");
  }

  const MeshState& mesh_of(std::size_t index) {
    if (!meshes_[index]) meshes_[index] = read_mesh_chunk(mesh_chunks_[index]);
    return *meshes_[index];
  }

  std::unique_ptr<MeshState> read_mesh_chunk(const Chunk& mesh_chunk);
  template <class Fn> void read_variables(const Chunk& group, const std::vector<Variable>& dictionary, Fn&& fn);
  void read_nodal(const Variable& variable, const Chunk& data, const MeshState& mesh, TimeStep& out);
  void read_domain(const Variable& variable, const Chunk& data, const MeshState& mesh, TimeStep& out);
  void read_global(const Variable& variable, const Chunk& data, TimeStep& out);

  std::string path_;
  io::MappedFile file_;
  io::BinaryCursor cursor_;
  std::uint32_t version_ = 0;
  std::vector<Variable> global_, nodal_, domain_;
  std::vector<Chunk> mesh_chunks_;
  std::vector<std::unique_ptr<MeshState>> meshes_;
  std::vector<StateEntry> states_;
  std::size_t current_ = 0;
};

std::unique_ptr<MeshState> PlotFile::read_mesh_chunk(const Chunk& mesh_chunk) {
  auto state = std::make_unique<MeshState>();
  Mesh& mesh = state->mesh;
  std::map<std::uint32_t, std::string> part_names;
  struct DomainChunk {
    Chunk chunk{};
    std::uint32_t type = 0, part = 0, elements = 0;
    std::string name;
    std::optional<Chunk> list;
  };
  std::vector<DomainChunk> domains;
  std::vector<Chunk> node_sets;
  for (const Chunk& section : children(mesh_chunk.begin, mesh_chunk.end)) {
    if (section.tag == kNodeSection) {
      std::int64_t count = -1, dim = 3;
      std::optional<Chunk> coords;
      for (const Chunk& item : children(section.begin, section.end)) {
        if (item.tag == kNodeHeader)
          for (const Chunk& field : children(item.begin, item.end)) {
            if (field.tag == kNodeSize) count = u32_of(field);
            if (field.tag == kNodeDim) dim = u32_of(field);
          }
        if (item.tag == kNodeCoords) coords = item;
      }
      if (!coords || count < 0) cursor_.fail_at(section.begin, "the node section has no size or no coordinates");
      if (dim < 1 || dim > 3) cursor_.fail_at(section.begin, "nodes of dimension " + std::to_string(dim));
      const std::uint64_t bytes = coords->end - coords->begin;
      const bool with_ids = bytes == static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(dim + 1) * 4;
      if (!with_ids && bytes != static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(dim) * 4)
        cursor_.fail_at(coords->begin, "the node coordinates hold " + std::to_string(bytes) + " bytes, not " +
                                           std::to_string(count) + " nodes of dimension " + std::to_string(dim));
      mesh.points = NDArray::allocate(DType::float64, {count, 3});
      double* points = mesh.points.data_as<double>();
      cursor_.seek(coords->begin);
      for (std::int64_t n = 0; n < count; ++n) {
        if (with_ids) cursor_.u32();
        for (std::int64_t axis = 0; axis < 3; ++axis) points[n * 3 + axis] = axis < dim ? cursor_.f32() : 0.0;
      }
    } else if (section.tag == kDomainSection) {
      for (const Chunk& domain : children(section.begin, section.end)) {
        if (domain.tag != kDomain) continue;
        DomainChunk entry;
        entry.chunk = domain;
        for (const Chunk& item : children(domain.begin, domain.end)) {
          if (item.tag == kDomainHeader)
            for (const Chunk& field : children(item.begin, item.end)) {
              if (field.tag == kDomainElemType) entry.type = u32_of(field);
              if (field.tag == kDomainPartId) entry.part = u32_of(field);
              if (field.tag == kDomainElems) entry.elements = u32_of(field);
              if (field.tag == kDomainName) entry.name = string_of(field);
            }
          if (item.tag == kDomainElemList) entry.list = item;
        }
        domains.push_back(std::move(entry));
      }
    } else if (section.tag == kNodeSetSection) {
      for (const Chunk& set : children(section.begin, section.end))
        if (set.tag == kNodeSet) node_sets.push_back(set);
    } else if (section.tag == kPartsSection) {
      for (const Chunk& part : children(section.begin, section.end)) {
        if (part.tag != kPart) continue;
        std::uint32_t id = 0;
        std::string name;
        for (const Chunk& field : children(part.begin, part.end)) {
          if (field.tag == kPartId) id = u32_of(field);
          if (field.tag == kPartName) name = string_of(field);
        }
        part_names[id] = name;
      }
    }
  }
  if (mesh.points.empty_handle()) cursor_.fail_at(mesh_chunk.begin, "the mesh has no node section");
  const std::int64_t num_points = mesh.num_points();

  std::int64_t first_cell = 0;
  for (std::size_t d = 0; d < domains.size(); ++d) {
    const DomainChunk& entry = domains[d];
    if (entry.type >= std::size(kElementTypes)) cursor_.fail_at(entry.chunk.begin, "unknown element type " + std::to_string(entry.type));
    const io::febio_elements::FebioType* type = io::febio_elements::find_by_febio_name(kElementTypes[entry.type]);
    if (type == nullptr)
      cursor_.fail_at(entry.chunk.begin, "element type " + std::string(kElementTypes[entry.type]) + " is not read");
    if (!entry.list) cursor_.fail_at(entry.chunk.begin, "a domain has no element list");
    const int nn = type->num_nodes;
    // Each element chunk: its id and nn node indices (at least 8 + 4 (1 + nn) bytes).
    io::check_claim(path_, kFormat, "elements", entry.elements, 8 + 4 * (1 + static_cast<std::uint64_t>(nn)),
                    entry.list->end - entry.list->begin, 8 * static_cast<std::uint64_t>(nn), {entry.list->begin, std::nullopt});
    CellBlock block;
    block.type = std::string(type->name);
    block.connectivity = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(entry.elements), nn});
    std::int64_t* out = block.connectivity.data_as<std::int64_t>();
    std::int64_t cell = 0;
    // Element chunks walked in place (one per element: a million here is common), each its id
    // and nn node indices.
    const char* bytes = file_.bytes().data();
    const bool swap = cursor_.little_endian() != io::kHostIsLittleEndian;
    auto load = [&](std::size_t at) {
      std::uint32_t value;
      std::memcpy(&value, bytes + at, 4);
      return swap ? __builtin_bswap32(value) : value;
    };
    const std::size_t element_bytes = 4 * (1 + static_cast<std::size_t>(nn));
    for (std::size_t at = entry.list->begin; at < entry.list->end;) {
      if (entry.list->end - at < 8) cursor_.fail_at(at, "a chunk header is cut off");
      const std::uint32_t tag = load(at), size = load(at + 4);
      if (size > entry.list->end - at - 8) cursor_.fail_at(at, "an element chunk runs past its list");
      const std::size_t element = at + 8;
      at = element + size;
      if (tag != kElement) continue;
      if (cell >= static_cast<std::int64_t>(entry.elements)) cursor_.fail_at(element, "a domain holds more elements than its header says");
      if (size != element_bytes)
        cursor_.fail_at(element, "an element of type " + std::string(kElementTypes[entry.type]) + " holds " +
                                     std::to_string(size) + " bytes");
      for (int k = 0; k < nn; ++k) {
        const std::size_t slot = static_cast<std::size_t>(type->order.empty() ? k : type->order[static_cast<std::size_t>(k)]);
        const std::int32_t node = static_cast<std::int32_t>(load(element + 4 + 4 * slot));
        if (node < 0 || node >= num_points)
          cursor_.fail_at(element + 4, "element node " + std::to_string(node) + " is out of range (the mesh has " +
                                           std::to_string(num_points) + " nodes, numbered from 0)");
        out[cell * nn + k] = node;
      }
      ++cell;
    }
    if (cell != static_cast<std::int64_t>(entry.elements))
      cursor_.fail_at(entry.list->begin, "a domain holds " + std::to_string(cell) + " elements, its header says " + std::to_string(entry.elements));
    Domain domain;
    domain.cells = cell;
    domain.nodes_per_cell = nn;
    state->domains.push_back(std::move(domain));
    Region region;
    const auto part = part_names.find(entry.part);
    region.name = !entry.name.empty() ? entry.name
                  : part != part_names.end() && !part->second.empty() ? part->second
                                                                       : "domain " + std::to_string(d + 1);
    region.kind = RegionKind::Cell;
    region.dim = type->dim;
    region.tag = entry.part;
    region.entries = NDArray::allocate(DType::int64, {cell});
    for (std::int64_t k = 0; k < cell; ++k) region.entries.data_as<std::int64_t>()[k] = first_cell + k;
    first_cell += cell;
    mesh.cells.push_back(std::move(block));
    mesh.regions.push_back(std::move(region));
  }
  for (const Chunk& set : node_sets) {
    Region region;
    region.kind = RegionKind::Point;
    std::optional<Chunk> list;
    for (const Chunk& item : children(set.begin, set.end)) {
      if (item.tag == kNodeSetHeader)
        for (const Chunk& field : children(item.begin, item.end)) {
          if (field.tag == kNodeSetId) region.tag = u32_of(field);
          if (field.tag == kNodeSetName) region.name = string_of(field);
        }
      if (item.tag == kNodeSetList) list = item;
    }
    if (!list) continue;
    const std::int64_t count = static_cast<std::int64_t>((list->end - list->begin) / 4);
    region.entries = NDArray::allocate(DType::int64, {count});
    std::vector<std::int32_t> nodes(static_cast<std::size_t>(count));
    cursor_.seek(list->begin);
    cursor_.copy(nodes.data(), 4, static_cast<std::uint64_t>(count), "a node set");
    for (std::int64_t k = 0; k < count; ++k) {
      if (nodes[static_cast<std::size_t>(k)] < 0 || nodes[static_cast<std::size_t>(k)] >= num_points)
        cursor_.fail_at(list->begin + 4 * static_cast<std::size_t>(k), "a node set names node " +
                                                                           std::to_string(nodes[static_cast<std::size_t>(k)]) + ", out of range");
      region.entries.data_as<std::int64_t>()[k] = nodes[static_cast<std::size_t>(k)];
    }
    if (region.name.empty()) region.name = "nodeset " + std::to_string(region.tag);
    mesh.regions.push_back(std::move(region));
  }
  return state;
}

// Calls fn(variable, data chunk) for each variable of a state's group (region by region
// inside the data chunk is left to fn).
template <class Fn> void PlotFile::read_variables(const Chunk& group, const std::vector<Variable>& dictionary, Fn&& fn) {
  for (const Chunk& variable : children(group.begin, group.end)) {
    if (variable.tag != kStateVariable) continue;
    std::optional<std::uint32_t> id;
    std::optional<Chunk> data;
    for (const Chunk& field : children(variable.begin, variable.end)) {
      if (field.tag == kStateVarId) id = u32_of(field);
      if (field.tag == kStateVarData) data = field;
    }
    if (!id || !data) cursor_.fail_at(variable.begin, "a state variable has no id or no data");
    if (*id < 1 || *id > dictionary.size())
      cursor_.fail_at(variable.begin, "state variable id " + std::to_string(*id) + " is not in the dictionary (" +
                                          std::to_string(dictionary.size()) + " entries)");
    fn(dictionary[*id - 1], *data);
  }
}

void PlotFile::read_nodal(const Variable& variable, const Chunk& data, const MeshState& mesh, TimeStep& out) {
  const std::int64_t components = variable.components();
  const std::int64_t n = mesh.mesh.num_points();
  io::check_claim_fits_limit(path_, kFormat, "nodal values", static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(components), 4,
                             {data.begin, std::nullopt});
  NDArray array = NDArray::allocate(DType::float32, components == 1 ? Shape{n} : Shape{n, components});
  std::fill_n(array.data_as<float>(), array.size(), std::numeric_limits<float>::quiet_NaN());
  cursor_.seek(data.begin);
  while (cursor_.position() < data.end) {
    cursor_.u32("a region id");
    const std::uint32_t bytes = cursor_.u32("a region size");
    const std::size_t begin = cursor_.position();
    if (bytes > data.end - begin) cursor_.fail_at(begin - 4, "a region's data runs past its variable");
    if (bytes != static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(components) * 4)
      cursor_.fail_at(begin - 4, "nodal variable '" + variable.name + "' holds " + std::to_string(bytes) + " bytes for " +
                                     std::to_string(n) + " nodes × " + std::to_string(components));
    cursor_.copy(array.data_as<float>(), 4, array.size(), "nodal values");
  }
  out.point_data.set(variable.name, std::move(array));
}

void PlotFile::read_domain(const Variable& variable, const Chunk& data, const MeshState& mesh, TimeStep& out) {
  const std::int64_t components = variable.components();
  std::vector<NDArray>* blocks_found = out.cell_data.find(variable.name);
  if (blocks_found == nullptr) {
    std::vector<NDArray> blocks;
    for (const Domain& domain : mesh.domains) {
      io::check_claim_fits_limit(path_, kFormat, "domain values",
                                 static_cast<std::uint64_t>(domain.cells) * static_cast<std::uint64_t>(components), 4,
                                 {data.begin, std::nullopt});
      NDArray array = NDArray::allocate(DType::float32, components == 1 ? Shape{domain.cells} : Shape{domain.cells, components});
      std::fill_n(array.data_as<float>(), array.size(), std::numeric_limits<float>::quiet_NaN());
      blocks.push_back(std::move(array));
    }
    blocks_found = &out.cell_data.set(variable.name, std::move(blocks));
  }
  std::vector<NDArray>& blocks = *blocks_found;
  // A name the dictionary lists twice with other sizes must not write into the first's arrays.
  for (std::size_t d = 0; d < mesh.domains.size(); ++d)
    if (d >= blocks.size() ||
        blocks[d].size() != static_cast<std::size_t>(mesh.domains[d].cells) * static_cast<std::size_t>(components))
      cursor_.fail_at(data.begin, "domain variable '" + variable.name + "' is listed twice with different sizes");
  cursor_.seek(data.begin);
  std::vector<float> values;
  while (cursor_.position() < data.end) {
    const std::size_t at = cursor_.position();
    const std::uint32_t region = cursor_.u32("a region id");
    const std::uint32_t bytes = cursor_.u32("a region size");
    const std::size_t begin = cursor_.position();
    if (bytes > data.end - begin || bytes % 4 != 0) cursor_.fail_at(at, "a region's data runs past its variable");
    if (region < 1 || region > mesh.domains.size())
      cursor_.fail_at(at, "domain variable '" + variable.name + "' names domain " + std::to_string(region) + " (the mesh has " +
                              std::to_string(mesh.domains.size()) + ")");
    const Domain& domain = mesh.domains[region - 1];
    const CellBlock& block = mesh.mesh.cells[region - 1];
    if (variable.format == kPerNode && !domain.have_unique_nodes) {
      const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
      domain.unique_nodes.assign(nodes, nodes + domain.cells * domain.nodes_per_cell);
      std::sort(domain.unique_nodes.begin(), domain.unique_nodes.end());
      domain.unique_nodes.erase(std::unique(domain.unique_nodes.begin(), domain.unique_nodes.end()), domain.unique_nodes.end());
      domain.have_unique_nodes = true;
    }
    std::uint64_t items = 0;
    switch (variable.format) {
      case kPerItem: items = static_cast<std::uint64_t>(domain.cells); break;
      case kPerRegion: items = 1; break;
      case kPerNode: items = domain.unique_nodes.size(); break;
      default: items = static_cast<std::uint64_t>(domain.cells) * static_cast<std::uint64_t>(domain.nodes_per_cell); break;
    }
    if (bytes != items * static_cast<std::uint64_t>(components) * 4)
      cursor_.fail_at(at, "domain variable '" + variable.name + "' holds " + std::to_string(bytes) + " bytes for domain " +
                              std::to_string(region) + ", not " + std::to_string(items) + " × " + std::to_string(components) + " values");
    values.resize(static_cast<std::size_t>(bytes / 4));
    cursor_.copy(values.data(), 4, values.size(), "domain values");
    float* target = blocks[region - 1].data_as<float>();
    const std::int64_t nn = domain.nodes_per_cell;
    const std::int64_t* connectivity = block.connectivity.data_as<std::int64_t>();
    for (std::int64_t cell = 0; cell < domain.cells; ++cell) {
      for (std::int64_t c = 0; c < components; ++c) {
        float value = 0.0f;
        if (variable.format == kPerItem) {
          value = values[static_cast<std::size_t>(cell * components + c)];
        } else if (variable.format == kPerRegion) {
          value = values[static_cast<std::size_t>(c)];
        } else {
          double sum = 0.0;
          for (std::int64_t k = 0; k < nn; ++k) {
            std::size_t item = static_cast<std::size_t>(cell * nn + k);
            if (variable.format == kPerNode)
              item = static_cast<std::size_t>(std::lower_bound(domain.unique_nodes.begin(), domain.unique_nodes.end(),
                                                               connectivity[cell * nn + k]) - domain.unique_nodes.begin());
            sum += values[item * static_cast<std::size_t>(components) + static_cast<std::size_t>(c)];
          }
          value = static_cast<float>(sum / static_cast<double>(nn));
        }
        target[cell * components + c] = value;
      }
    }
  }
}

void PlotFile::read_global(const Variable& variable, const Chunk& data, TimeStep& out) {
  const std::int64_t components = variable.components();
  cursor_.seek(data.begin);
  while (cursor_.position() < data.end) {
    const std::size_t at = cursor_.position();
    cursor_.u32("a region id");
    const std::uint32_t bytes = cursor_.u32("a region size");
    if (bytes != static_cast<std::uint64_t>(components) * 4 || bytes > data.end - cursor_.position())
      cursor_.fail_at(at, "global variable '" + variable.name + "' holds " + std::to_string(bytes) + " bytes");
    NDArray array = NDArray::allocate(DType::float32, {components});
    cursor_.copy(array.data_as<float>(), 4, static_cast<std::uint64_t>(components), "global values");
    out.field_data.set(variable.name, std::move(array));
  }
}

}  // namespace

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) { return std::make_unique<PlotFile>(path); }

Mesh read(const std::string& path) {
  return io::guarded_read([&] {
    PlotFile file(path);
    TimeStep step = file.read_step(0);
    Mesh mesh = file.read_mesh();
    mesh.point_data = std::move(step.point_data);
    mesh.cell_data = std::move(step.cell_data);
    mesh.field_data = std::move(step.field_data);
    return mesh;
  });
}

}  // namespace meshioplusplus::xplt
