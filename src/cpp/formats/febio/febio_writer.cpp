// FEBio .feb writer: the <Mesh> and <MeshDomains> sections of a febio_spec 4.0 file (option
// spec="3.0" for 3.0), the mesh only — no materials' parameters, loads or steps, which a
// model adds in FEBio Studio.
//
// - points: <Nodes name="Object1">, ids 1..n, three coordinates (2-D points get z = 0);
// - each cell block: one <Elements> section (node order back to FEBio's), element ids
//   counted on across sections; named after a Cell region covering exactly that block, else
//   "Part<k>"; its material: the block's "febio:material" cell data (first value) where
//   present, else 1, written as 3.0's mat="<id>" and, in both specs, as a <SolidDomain> or
//   <ShellDomain> (2-D cells) with mat="Material<id>";
// - Point regions → <NodeSet>, other Cell regions → <ElementSet> (4.0: comma lists; 3.0:
//   <node id="…"/> / <elem id="…"/> children);
// - Side regions → <Surface> with one tri3/quad4 facet per (cell, local facet), its corner
//   nodes as side_regions.hpp orders them (mid-side nodes of quadratic cells left out).
// Types FEBio has no element for (vertex, polygons, polyhedra, wedge18, pyramid14 …) are
// refused (std::invalid_argument). Other point and cell data and field data are not written.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/febio/febio.hpp"
#include "formats/febio/febio_types.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"
#include "io/text/xml_scanner.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus::febio {
namespace {

using detail::FebioType;

// The Cell region that holds exactly the cells of block `b` in order, or nullptr.
const Region* block_region(const Mesh& mesh, std::int64_t first, std::int64_t count) {
  for (const Region& region : mesh.regions) {
    if (region.kind != RegionKind::Cell || region.entries.rows() != count || region.entries.dtype() != DType::int64) continue;
    const std::int64_t* cells = region.entries.data_as<std::int64_t>();
    bool exact = true;
    for (std::int64_t i = 0; i < count && exact; ++i) exact = cells[i] == first + i;
    if (exact) return &region;
  }
  return nullptr;
}

std::int64_t block_material(const Mesh& mesh, std::size_t b) {
  const auto* data = mesh.cell_data.find("febio:material");
  if (data == nullptr || data->size() != mesh.cells.size()) return 1;
  const NDArray& values = (*data)[b];
  if (values.rows() == 0 || dtype_is_float(values.dtype())) return 1;
  std::int64_t material = 1;
  visit_dtype(values.dtype(), [&](auto zero) { material = static_cast<std::int64_t>(static_cast<const decltype(zero)*>(values.data())[0]); });
  return material >= 0 ? material : 1;
}

void id_list(io::OutputBuffer& out, const NDArray& entries, std::string_view child, bool as_text) {
  const std::int64_t* ids = entries.data_as<std::int64_t>();
  if (as_text) {
    for (std::int64_t i = 0; i < entries.rows(); ++i) {
      out.text(i == 0 ? "\n\t\t\t" : i % 16 == 0 ? ",\n\t\t\t" : ",");
      out.number(ids[i] + 1);
    }
    out.text("\n\t\t");
    return;
  }
  out.put('\n');
  for (std::int64_t i = 0; i < entries.rows(); ++i) {
    out.text("\t\t\t<");
    out.text(child);
    out.text(" id=\"");
    out.number(ids[i] + 1);
    out.text("\"/>\n");
  }
  out.text("\t\t");
}

void attribute(io::OutputBuffer& out, std::string_view name, std::string_view value) {
  out.put(' ');
  out.text(name);
  out.text("=\"");
  out.text(io::escape_xml_attribute(value));
  out.put('"');
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const std::string_view spec = options.get("spec", "4.0");
  if (spec != "4.0" && spec != "3.0") throw std::invalid_argument("FEBio spec '" + std::string(spec) + "': 3.0 or 4.0");
  const bool spec4 = spec == "4.0";
  std::vector<const FebioType*> types;
  for (const CellBlock& block : mesh.cells) {
    const FebioType* type = detail::find_by_name(block.type);
    if (type == nullptr || block.is_ragged()) throw std::invalid_argument("FEBio has no element for cell type '" + block.type + "'");
    types.push_back(type);
  }
  const std::int64_t dim = mesh.points.ndim() == 2 ? mesh.points.dim(1) : 0;
  if (dim < 1 || dim > 3) throw std::invalid_argument("FEBio needs 1-, 2- or 3-D points");
  const NDArray bases_array = block_bases(mesh.cells);
  const std::int64_t* bases = bases_array.data_as<std::int64_t>();
  for (const Region& region : mesh.regions) {
    if (region.entries.dtype() != DType::int64) throw std::invalid_argument("region '" + region.name + "' needs int64 entries");
    if (region.kind == RegionKind::Side && (region.entries.ndim() != 2 || region.entries.dim(1) != 2))
      throw std::invalid_argument("Side region '" + region.name + "' needs (n, 2) entries");
  }

  io::AtomicFile file(path, detail::kFormat);
  io::OutputBuffer out(file);
  out.text("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<febio_spec version=\"");
  out.text(spec);
  out.text("\">\n\t<Mesh>\n\t\t<Nodes name=\"Object1\">\n");
  static constexpr std::string_view kNodeOpen = "\t\t\t<node id=\"", kNodeClose = "</node>\n";
  visit_dtype(mesh.points.dtype(), [&](auto zero) {
    const auto* points = static_cast<const decltype(zero)*>(mesh.points.data());
    io::write_rows_in_parallel(out, file, mesh.num_points(), 4 * (io::kMaxNumberChars + 1) + 32, [&](char* p, std::int64_t i) {
      p = std::copy(kNodeOpen.begin(), kNodeOpen.end(), p);
      p = io::put_number(p, i + 1);
      *p++ = '"';
      *p++ = '>';
      const auto* xyz = points + i * dim;
      for (std::int64_t axis = 0; axis < 3; ++axis) {
        if (axis > 0) *p++ = ',';
        if (axis < dim) p = io::put_number(p, xyz[axis]);
        else *p++ = '0';
      }
      return std::copy(kNodeClose.begin(), kNodeClose.end(), p);
    });
  });
  out.text("\t\t</Nodes>\n");

  std::vector<std::string> part_names;
  std::vector<const Region*> part_regions;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    const FebioType& type = *types[b];
    const Region* region = block_region(mesh, bases[b], block.num_cells());
    part_regions.push_back(region);
    part_names.push_back(region != nullptr ? region->name : "Part" + std::to_string(b + 1));
    out.text("\t\t<Elements");
    attribute(out, "type", type.febio_name);
    if (!spec4) attribute(out, "mat", std::to_string(block_material(mesh, b)));
    attribute(out, "name", part_names.back());
    out.text(">\n");
    const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
    static constexpr std::string_view kElemOpen = "\t\t\t<elem id=\"", kElemClose = "</elem>\n";
    const std::int64_t base = bases[b];
    io::write_rows_in_parallel(
        out, file, block.num_cells(), static_cast<std::size_t>(type.num_nodes + 1) * (io::kMaxNumberChars + 1) + 32,
        [&](char* p, std::int64_t c) {
          const std::int64_t* cell = nodes + c * type.num_nodes;
          std::int64_t file_order[27];
          for (int k = 0; k < type.num_nodes; ++k) file_order[type.order.empty() ? k : type.order[static_cast<std::size_t>(k)]] = cell[k];
          p = std::copy(kElemOpen.begin(), kElemOpen.end(), p);
          p = io::put_number(p, base + c + 1);
          *p++ = '"';
          *p++ = '>';
          for (int k = 0; k < type.num_nodes; ++k) {
            if (k > 0) *p++ = ',';
            p = io::put_number(p, file_order[k] + 1);
          }
          return std::copy(kElemClose.begin(), kElemClose.end(), p);
        });
    out.text("\t\t</Elements>\n");
  }
  for (const Region& region : mesh.regions) {
    if (region.kind == RegionKind::Point) {
      out.text("\t\t<NodeSet");
      attribute(out, "name", region.name);
      out.put('>');
      id_list(out, region.entries, "node", spec4);
      out.text("</NodeSet>\n");
    } else if (region.kind == RegionKind::Cell && std::find(part_regions.begin(), part_regions.end(), &region) == part_regions.end()) {
      out.text("\t\t<ElementSet");
      attribute(out, "name", region.name);
      out.put('>');
      id_list(out, region.entries, "elem", spec4);
      out.text("</ElementSet>\n");
    } else if (region.kind == RegionKind::Side) {
      out.text("\t\t<Surface");
      attribute(out, "name", region.name);
      out.text(">\n");
      const std::int64_t* pairs = region.entries.data_as<std::int64_t>();
      for (std::int64_t i = 0; i < region.entries.rows(); ++i) {
        const std::int64_t cell = pairs[2 * i], facet = pairs[2 * i + 1];
        if (cell < 0 || cell >= mesh.num_cells()) throw std::invalid_argument("Side region '" + region.name + "' names cell " + std::to_string(cell));
        const std::size_t b = static_cast<std::size_t>(std::upper_bound(bases, bases + mesh.cells.size() + 1, cell) - bases - 1);
        const auto facets = cell_facets(mesh.cells[b].type);
        if (facet < 0 || static_cast<std::size_t>(facet) >= facets.size() || facets[static_cast<std::size_t>(facet)].count < 3)
          throw std::invalid_argument("Side region '" + region.name + "': facet " + std::to_string(facet) + " of a " +
                                      mesh.cells[b].type + " is no FEBio surface facet");
        const FacetCorners& corners = facets[static_cast<std::size_t>(facet)];
        const std::int64_t* cell_nodes = mesh.cells[b].connectivity.data_as<std::int64_t>() + (cell - bases[b]) * types[b]->num_nodes;
        out.text(corners.count == 3 ? "\t\t\t<tri3 id=\"" : "\t\t\t<quad4 id=\"");
        out.number(i + 1);
        out.text("\">");
        for (int k = 0; k < corners.count; ++k) {
          if (k > 0) out.put(',');
          out.number(cell_nodes[corners.corners[static_cast<std::size_t>(k)]] + 1);
        }
        out.text(corners.count == 3 ? "</tri3>\n" : "</quad4>\n");
      }
      out.text("\t\t</Surface>\n");
    }
  }
  out.text("\t</Mesh>\n\t<MeshDomains>\n");
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    out.text(types[b]->dim == 3 ? "\t\t<SolidDomain" : "\t\t<ShellDomain");
    attribute(out, "name", part_names[b]);
    attribute(out, "mat", "Material" + std::to_string(block_material(mesh, b)));
    out.text("/>\n");
  }
  out.text("\t</MeshDomains>\n</febio_spec>\n");
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::febio
