// libMesh XdrIO writer: .xda (ASCII) or .xdr (XDR binary), in the layout of "libMesh-1.3.0"
// (xdr_io.C): 8-byte header counts and ids, subdomain and boundary ids stored inline, no
// unique ids, processor ids or p levels, no extra integers (1.8.0's additions), so every
// libMesh since 1.3.0 reads it.
//
// - every block must be of a type libMesh has (libmesh_types.hpp; node orders converted
//   back); polygons, polyhedra and other types are refused (std::invalid_argument);
// - points are written as x y z (2-D points get z = 0);
// - subdomain ids: the integer cell data "libmesh:subdomain" where present, else 0; names from
//   the Cell regions whose tag is a subdomain id (a "subdomain_<id>" name is not written);
// - Side regions → side boundary conditions (our local facets turned into libMesh side
//   numbers), Point regions → nodesets; the boundary id is the region's tag, or the next
//   unused id when it has none; names as for subdomains ("boundary_<id>" not written).
// Cell regions otherwise, other data and field data are not written: XdrIO has no place.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/libmesh/libmesh.hpp"
#include "formats/libmesh/libmesh_types.hpp"
#include "io/output/atomic_file.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus::libmesh {
namespace {

using detail::ElemType;

class AsciiEncoder {
 public:
  explicit AsciiEncoder(io::OutputBuffer& out) : out_(out) {}
  void header(std::uint64_t value, std::string_view comment) {
    out_.number(value);
    comment_line(comment);
  }
  void string(std::string_view text, std::string_view comment) {
    out_.text(text);
    comment_line(comment);
  }
  void item(std::uint64_t value) {
    out_.number(value);
    out_.put(' ');
  }
  void real(double value) {
    out_.number(value);
    out_.put(' ');
  }
  void end_record() { out_.put('\n'); }
  void flag(std::uint32_t value, std::string_view comment) { header(value, comment); }
  void ids(const std::vector<std::uint64_t>& values) {
    header(values.size(), "# vector length");
    for (const std::uint64_t value : values) {
      out_.number(value);
      out_.text("\t ");
    }
    out_.put('\n');
  }
  void names(const std::vector<std::string>& values) {
    header(values.size(), "# vector length");
    for (const std::string& value : values) {
      out_.text(value);
      out_.text("\t ");
    }
    out_.put('\n');
  }

 private:
  void comment_line(std::string_view comment) {
    out_.text("\t ");
    out_.text(comment);
    out_.put('\n');
  }
  io::OutputBuffer& out_;
};

class XdrEncoder {
 public:
  explicit XdrEncoder(io::OutputBuffer& out) : out_(out) {}
  void header(std::uint64_t value, std::string_view) { item(value); }
  void string(std::string_view text, std::string_view) {
    u32(static_cast<std::uint32_t>(text.size()));
    out_.bytes(text.data(), text.size());
    static constexpr char kPad[4] = {};
    out_.bytes(kPad, (4 - text.size() % 4) % 4);
  }
  void item(std::uint64_t value) {
    if constexpr (std::endian::native == std::endian::little) value = __builtin_bswap64(value);
    out_.bytes(&value, 8);
  }
  void real(double value) { item(std::bit_cast<std::uint64_t>(value)); }
  void end_record() {}
  // An unsigned short: XDR's smallest unit is 4 bytes.
  void flag(std::uint32_t value, std::string_view) { u32(value); }
  void ids(const std::vector<std::uint64_t>& values) {
    u32(static_cast<std::uint32_t>(values.size()));
    for (const std::uint64_t value : values) item(value);
  }
  void names(const std::vector<std::string>& values) {
    u32(static_cast<std::uint32_t>(values.size()));
    for (const std::string& value : values) string(value, {});
  }

 private:
  void u32(std::uint32_t value) {
    if constexpr (std::endian::native == std::endian::little) value = __builtin_bswap32(value);
    out_.bytes(&value, 4);
  }
  io::OutputBuffer& out_;
};

// A boundary condition set of the file: its id, name (empty: none written) and entries.
struct Boundary {
  std::int64_t id;
  std::string name;
  const Region* region;
};

std::vector<Boundary> boundaries_of(const Mesh& mesh, RegionKind kind) {
  std::vector<Boundary> result;
  std::int64_t next_id = 0;
  for (const Region& region : mesh.regions)
    if (region.kind == kind) next_id = std::max(next_id, region.tag + 1);
  for (const Region& region : mesh.regions) {
    if (region.kind != kind) continue;
    const std::int64_t id = region.tag >= 0 ? region.tag : next_id++;
    result.push_back({id, region.name == "boundary_" + std::to_string(id) ? std::string() : region.name, &region});
  }
  return result;
}

template <class Encoder> void write_names(Encoder& out, const std::map<std::int64_t, std::string>& names, std::string_view comment) {
  out.header(names.size(), comment);
  if (names.empty()) return;
  std::vector<std::uint64_t> ids;
  std::vector<std::string> texts;
  for (const auto& [id, name] : names) {
    ids.push_back(static_cast<std::uint64_t>(id));
    texts.push_back(name);
  }
  out.ids(ids);
  out.names(texts);
}

std::map<std::int64_t, std::string> names_of(const std::vector<Boundary>& boundaries) {
  std::map<std::int64_t, std::string> names;
  for (const Boundary& boundary : boundaries)
    if (!boundary.name.empty()) names.emplace(boundary.id, boundary.name);
  return names;
}

template <class Encoder>
void write_file(Encoder& out, const Mesh& mesh, const std::vector<const ElemType*>& types) {
  const NDArray* subdomains = nullptr;
  if (const auto* data = mesh.cell_data.find("libmesh:subdomain"))
    if (data->size() == mesh.cells.size() && std::all_of(data->begin(), data->end(), [](const NDArray& a) {
          return !dtype_is_float(a.dtype()) && a.row_width() == 1;
        }))
      subdomains = data->data();
  std::map<std::int64_t, std::string> subdomain_names;
  for (const Region& region : mesh.regions)
    if (region.kind == RegionKind::Cell && region.tag >= 0 && region.name != "subdomain_" + std::to_string(region.tag))
      subdomain_names.emplace(region.tag, region.name);
  const std::vector<Boundary> sides = boundaries_of(mesh, RegionKind::Side);
  const std::vector<Boundary> nodesets = boundaries_of(mesh, RegionKind::Point);

  out.string("libMesh-1.3.0", "");
  out.header(static_cast<std::uint64_t>(mesh.num_cells()), "# number of elements");
  out.header(static_cast<std::uint64_t>(mesh.num_points()), "# number of nodes");
  out.string(".", "# boundary condition specification file");
  out.string(".", "# subdomain id specification file");
  out.string("n/a", "# processor id specification file");
  out.string("n/a", "# p-level specification file");
  static constexpr std::string_view kSizes[] = {"# type size", "# uid size", "# pid size", "# sid size",
                                                "# p-level size", "# eid size", "# side size", "# bid size"};
  static constexpr std::uint64_t kSizeValues[] = {8, 0, 0, 8, 0, 8, 8, 8};
  for (int i = 0; i < 8; ++i) out.header(kSizeValues[i], kSizes[i]);
  write_names(out, subdomain_names, "# subdomain id to name map");

  out.header(static_cast<std::uint64_t>(mesh.num_cells()), "# n_elem at level 0, [ type sid (n0 ... nN-1) ]");
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    const ElemType& type = *types[b];
    const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
    std::int64_t file_order[27];
    for (std::int64_t c = 0; c < block.num_cells(); ++c) {
      const std::int64_t* cell = nodes + c * type.num_nodes;
      for (int k = 0; k < type.num_nodes; ++k) file_order[type.order.empty() ? k : type.order[static_cast<std::size_t>(k)]] = cell[k];
      out.item(static_cast<std::uint64_t>(type.id));
      std::int64_t subdomain = 0;
      if (subdomains != nullptr)
        visit_dtype(subdomains[b].dtype(), [&](auto zero) { subdomain = static_cast<std::int64_t>(static_cast<const decltype(zero)*>(subdomains[b].data())[c]); });
      out.item(static_cast<std::uint64_t>(subdomain));
      for (int k = 0; k < type.num_nodes; ++k) out.item(static_cast<std::uint64_t>(file_order[k]));
      out.end_record();
    }
  }
  const std::int64_t dim = mesh.points.ndim() == 2 ? mesh.points.dim(1) : 0;
  for (std::int64_t i = 0; i < mesh.num_points(); ++i) {
    visit_dtype(mesh.points.dtype(), [&](auto zero) {
      const auto* xyz = static_cast<const decltype(zero)*>(mesh.points.data()) + i * dim;
      for (std::int64_t axis = 0; axis < 3; ++axis) out.real(axis < dim ? static_cast<double>(xyz[axis]) : 0.0);
    });
    out.end_record();
  }
  out.flag(0, "# presence of unique ids");

  // Side boundary conditions: our facets back to libMesh's side numbers.
  const NDArray bases = block_bases(mesh.cells);
  const std::int64_t* base = bases.data_as<std::int64_t>();
  const auto side_names = names_of(sides);
  std::uint64_t n_sides = 0;
  for (const Boundary& boundary : sides) n_sides += static_cast<std::uint64_t>(boundary.region->entries.rows());
  write_names(out, side_names, "# sideset id to name map");
  out.header(n_sides, "# number of side boundary conditions");
  for (const Boundary& boundary : sides) {
    const std::int64_t* pairs = boundary.region->entries.data_as<std::int64_t>();
    for (std::int64_t i = 0; i < boundary.region->entries.rows(); ++i) {
      const std::int64_t cell = pairs[2 * i], facet = pairs[2 * i + 1];
      const std::size_t b = static_cast<std::size_t>(std::upper_bound(base, base + mesh.cells.size() + 1, cell) - base - 1);
      const ElemType& type = *types[b];
      std::int64_t side = facet;
      for (std::size_t s = 0; s < type.side_map.size(); ++s)
        if (type.side_map[s] == facet) side = static_cast<std::int64_t>(s);
      out.item(static_cast<std::uint64_t>(cell));
      out.item(static_cast<std::uint64_t>(side));
      out.item(static_cast<std::uint64_t>(boundary.id));
      out.end_record();
    }
  }
  std::uint64_t n_nodes = 0;
  for (const Boundary& boundary : nodesets) n_nodes += static_cast<std::uint64_t>(boundary.region->entries.rows());
  write_names(out, names_of(nodesets), "# nodeset id to name map");
  out.header(n_nodes, "# number of nodesets");
  for (const Boundary& boundary : nodesets) {
    const std::int64_t* nodes = boundary.region->entries.data_as<std::int64_t>();
    for (std::int64_t i = 0; i < boundary.region->entries.rows(); ++i) {
      out.item(static_cast<std::uint64_t>(nodes[i]));
      out.item(static_cast<std::uint64_t>(boundary.id));
      out.end_record();
    }
  }
  // Edge and shell-face boundary conditions (from 1.1.0): each after the sideset names again.
  write_names(out, side_names, "# sideset id to name map");
  out.header(0, "# number of edge boundary conditions");
  write_names(out, side_names, "# sideset id to name map");
  out.header(0, "# number of shellface boundary conditions");
}

void check_regions(const Mesh& mesh) {
  const NDArray bases = block_bases(mesh.cells);
  for (const Region& region : mesh.regions) {
    if (region.kind == RegionKind::Side) {
      if (region.entries.ndim() != 2 || region.entries.dim(1) != 2 || region.entries.dtype() != DType::int64)
        throw std::invalid_argument("Side region '" + region.name + "' needs int64 (n, 2) entries");
      const std::int64_t* pairs = region.entries.data_as<std::int64_t>();
      for (std::int64_t i = 0; i < region.entries.rows(); ++i)
        if (pairs[2 * i] < 0 || pairs[2 * i] >= mesh.num_cells() || pairs[2 * i + 1] < 0)
          throw std::invalid_argument("Side region '" + region.name + "' names cell " + std::to_string(pairs[2 * i]) +
                                      " facet " + std::to_string(pairs[2 * i + 1]));
    } else if (region.kind == RegionKind::Point) {
      if (region.entries.dtype() != DType::int64) throw std::invalid_argument("Point region '" + region.name + "' needs int64 entries");
    }
  }
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  std::vector<const ElemType*> types;
  for (const CellBlock& block : mesh.cells) {
    const ElemType* type = detail::find_by_name(block.type);
    if (type == nullptr || block.is_ragged())
      throw std::invalid_argument("libMesh XdrIO has no element for cell type '" + block.type + "'");
    types.push_back(type);
  }
  if (mesh.points.ndim() != 2 || mesh.points.dim(1) < 1 || mesh.points.dim(1) > 3)
    throw std::invalid_argument("libMesh XdrIO needs 1-, 2- or 3-D points");
  check_regions(mesh);
  const std::string_view binary_option = options.get("binary", "");
  const bool binary = binary_option.empty() ? path.ends_with(".xdr") : options.get_bool("binary", false);
  io::AtomicFile file(path, detail::kFormat);
  io::OutputBuffer out(file);
  if (binary) {
    XdrEncoder encoder(out);
    write_file(encoder, mesh, types);
  } else {
    AsciiEncoder encoder(out);
    write_file(encoder, mesh, types);
  }
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::libmesh
