// UGRID writer; the variant comes from the file name as in meshio (see ugrid_variant.hpp).
//
// Cells must be triangle, quad, tetra, pyramid, wedge or hexahedron; other types are a
// WriteError (meshio skips them with a warning). Several blocks of one type are written one
// after the other (meshio refuses them). Pyramids go back to UGRID's node order. 2-D points
// get z = 0. The 4-byte-real variants store points as float32 (lossy for float64 input).
//
// Surface ids, first rule that gives any: cell data "ugrid:ref"; Cell regions of surface
// cells (the region's tag when positive, else its position among the regions + 1; cells in
// no region get 0); the first integer cell data (meshio's pick); 1 for every surface cell
// (as meshio). Point data, other cell data, field data and Point/Side regions have no place
// in UGRID and are not written.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "formats/ugrid/ugrid.hpp"
#include "formats/ugrid/ugrid_variant.hpp"
#include "io/atomic_file.hpp"
#include "io/integer_cell_data.hpp"
#include "io/byte_order.hpp"

namespace meshioplusplus::ugrid {
namespace {

using detail::Encoding;
using detail::kSections;
using detail::Variant;
constexpr std::string_view kFormat = "ugrid";

// Surface id per cell, block-major over all blocks (volume cells' entries unused).
std::vector<std::int64_t> surface_ids(const Mesh& mesh) {
  const NDArray bases = block_bases(mesh.cells);
  const std::int64_t* base = bases.data_as<std::int64_t>();
  std::vector<std::int64_t> ids(static_cast<std::size_t>(base[mesh.cells.size()]), 1);
  const auto from_arrays = [&](const std::vector<NDArray>& arrays) {
    for (std::size_t b = 0; b < mesh.cells.size(); ++b)
      for (std::int64_t row = 0; row < mesh.cells[b].num_cells(); ++row)
        ids[static_cast<std::size_t>(base[b] + row)] = io::integer_at(arrays[b], row);
  };
  if (const auto* refs = mesh.cell_data.find("ugrid:ref"); refs && io::holds_one_integer_per_cell(mesh, *refs)) {
    from_arrays(*refs);
    return ids;
  }
  std::vector<std::int64_t> from_regions(ids.size(), 0);
  bool any = false;
  std::int64_t ordinal = 0;
  for (const Region& region : mesh.regions) {
    if (region.kind != RegionKind::Cell) continue;
    ++ordinal;
    const std::int64_t id = region.tag > 0 ? region.tag : ordinal;
    // Regions listed first win where they overlap, so walk them and fill only unset cells.
    for (std::int64_t cell : region.entries.values<std::int64_t>()) {
      if (cell < 0 || cell >= static_cast<std::int64_t>(ids.size())) continue;
      const auto block = static_cast<std::size_t>(std::upper_bound(base, base + mesh.cells.size() + 1, cell) - base - 1);
      const std::string& type = mesh.cells[block].type;
      if (type != "triangle" && type != "quad") continue;
      if (from_regions[static_cast<std::size_t>(cell)] == 0) from_regions[static_cast<std::size_t>(cell)] = id;
      any = true;
    }
  }
  if (any) return from_regions;
  for (const auto& [name, arrays] : mesh.cell_data)
    if (io::holds_one_integer_per_cell(mesh, arrays)) {
      from_arrays(arrays);
      return ids;
    }
  return ids;
}

class Output {
 public:
  Output(io::OutputBuffer& out, const Variant& variant) : out_(out), variant_(variant) {}

  void integer(std::int64_t value) {
    if (variant_.encoding == Encoding::ascii) {
      separator();
      out_.number(value);
    } else if (variant_.int_size == 8) {
      binary(value);
    } else {
      if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max())
        throw std::invalid_argument("value " + std::to_string(value) + " does not fit the 4-byte integers of this UGRID variant");
      binary(static_cast<std::int32_t>(value));
    }
  }
  template <class T> void real(T value) {
    if (variant_.encoding == Encoding::ascii) {
      separator();
      out_.number(value);
    } else if (variant_.real_size == 8) {
      binary(static_cast<double>(value));
    } else {
      binary(static_cast<float>(value));
    }
  }
  // Ends a row in ASCII (one record per line, as UG_IO writes them).
  void end_row() {
    if (variant_.encoding != Encoding::ascii) return;
    out_.put('\n');
    row_started_ = false;
  }
  // Fortran record length markers are always 4-byte integers.
  void marker(std::int64_t length) {
    if (length > std::numeric_limits<std::int32_t>::max())
      throw std::invalid_argument("the mesh is too large for a Fortran record (over 2 GiB)");
    binary(static_cast<std::int32_t>(length));
  }

 private:
  void separator() {
    if (row_started_) out_.put(' ');
    row_started_ = true;
  }
  template <class T> void binary(T value) {
    if (variant_.little_endian != io::kHostIsLittleEndian) io::swap_bytes_in_place(&value, sizeof(T), 1);
    out_.bytes(&value, sizeof(T));
  }

  io::OutputBuffer& out_;
  Variant variant_;
  bool row_started_ = false;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  if (mesh.points.ndim() != 2 || (mesh.points.dim(1) != 2 && mesh.points.dim(1) != 3))
    throw std::invalid_argument("UGRID needs 2-D or 3-D points");
  const Variant variant = detail::variant_for_path(path);
  std::array<std::vector<std::size_t>, 6> blocks_of_section;
  std::array<std::int64_t, 6> counts{};
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const auto section = std::find_if(kSections.begin(), kSections.end(),
                                      [&](const detail::Section& s) { return s.type == mesh.cells[b].type; });
    if (section == kSections.end())
      throw std::invalid_argument("UGRID holds triangle, quad, tetra, pyramid, wedge and hexahedron cells, not '" +
                                  mesh.cells[b].type + "'");
    const auto s = static_cast<std::size_t>(section - kSections.begin());
    blocks_of_section[s].push_back(b);
    counts[s] += mesh.cells[b].num_cells();
  }
  const std::vector<std::int64_t> ids = surface_ids(mesh);
  const NDArray bases = block_bases(mesh.cells);

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer buffer(file);
  Output out(buffer, variant);
  const bool fortran = variant.encoding == Encoding::fortran;

  if (fortran) out.marker(static_cast<std::int64_t>(7 * variant.int_size));
  out.integer(mesh.num_points());
  for (std::int64_t count : counts) out.integer(count);
  out.end_row();
  std::int64_t body = 0;
  if (fortran) {
    body += mesh.num_points() * 3 * static_cast<std::int64_t>(variant.real_size);
    for (std::size_t s = 0; s < kSections.size(); ++s)
      body += counts[s] * (kSections[s].nodes + (s < 2 ? 1 : 0)) * static_cast<std::int64_t>(variant.int_size);
    out.marker(7 * static_cast<std::int64_t>(variant.int_size));
    out.marker(body);
  }

  const bool flat = mesh.points.dim(1) == 2;
  visit_dtype(mesh.points.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* points = mesh.points.data_as<T>();
    const std::int64_t width = mesh.points.dim(1);
    for (std::int64_t i = 0; i < mesh.num_points(); ++i) {
      for (std::int64_t k = 0; k < width; ++k) out.real(points[i * width + k]);
      if (flat) out.real(T{0});
      out.end_row();
    }
  });

  const auto write_section = [&](std::size_t s) {
    const int nodes = kSections[s].nodes;
    const bool pyramid = kSections[s].type == "pyramid";
    for (std::size_t b : blocks_of_section[s]) {
      const std::int64_t* cells = mesh.cells[b].connectivity.data_as<std::int64_t>();
      for (std::int64_t row = 0; row < mesh.cells[b].num_cells(); ++row) {
        for (int k = 0; k < nodes; ++k) out.integer(cells[row * nodes + (pyramid ? detail::kPyramidToFile[k] : k)] + 1);
        out.end_row();
      }
    }
  };
  write_section(0);
  write_section(1);
  for (std::size_t s = 0; s < 2; ++s)
    for (std::size_t b : blocks_of_section[s])
      for (std::int64_t row = 0; row < mesh.cells[b].num_cells(); ++row) {
        out.integer(ids[static_cast<std::size_t>(bases.data_as<std::int64_t>()[b] + row)]);
        out.end_row();
      }
  for (std::size_t s = 2; s < kSections.size(); ++s) write_section(s);
  if (fortran) out.marker(body);
  buffer.flush();
  file.commit();
}

}  // namespace meshioplusplus::ugrid
