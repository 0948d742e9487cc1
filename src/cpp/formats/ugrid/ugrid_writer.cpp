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
#include <utility>
#include <vector>

#include "formats/ugrid/ugrid.hpp"
#include "formats/ugrid/ugrid_variant.hpp"
#include "io/output/atomic_file.hpp"
#include "io/cells/integer_cell_data.hpp"
#include "io/source/byte_order.hpp"

namespace meshioplusplus::ugrid {
namespace {

using detail::Encoding;
using detail::kSections;
using detail::Variant;
constexpr std::string_view kFormat = "ugrid";

bool is_surface(const CellBlock& block) { return block.type == "triangle" || block.type == "quad"; }

// Surface ids per block: one per cell of each triangle/quad block, empty for volume blocks.
std::vector<std::vector<std::int64_t>> surface_ids(const Mesh& mesh) {
  std::vector<std::vector<std::int64_t>> ids(mesh.cells.size());
  const auto sized = [&](std::int64_t fill) {
    for (std::size_t b = 0; b < mesh.cells.size(); ++b)
      if (is_surface(mesh.cells[b])) ids[b].assign(static_cast<std::size_t>(mesh.cells[b].num_cells()), fill);
  };
  const auto from_arrays = [&](const std::vector<NDArray>& arrays) {
    sized(0);
    for (std::size_t b = 0; b < mesh.cells.size(); ++b)
      for (std::size_t row = 0; row < ids[b].size(); ++row) ids[b][row] = io::integer_at(arrays[b], static_cast<std::int64_t>(row));
    return ids;
  };
  if (const auto* refs = mesh.cell_data.find("ugrid:ref"); refs && io::holds_one_integer_per_cell(mesh, *refs))
    return from_arrays(*refs);
  const NDArray bases = block_bases(mesh.cells);
  const std::int64_t* base = bases.data_as<std::int64_t>();
  const std::int64_t num_cells = base[mesh.cells.size()];
  sized(0);
  bool any = false;
  std::int64_t ordinal = 0;
  for (const Region& region : mesh.regions) {
    if (region.kind != RegionKind::Cell) continue;
    ++ordinal;
    const std::int64_t id = region.tag > 0 ? region.tag : ordinal;
    // Regions listed first win where they overlap, so walk them and fill only unset cells.
    for (std::int64_t cell : region.entries.values<std::int64_t>()) {
      if (cell < 0 || cell >= num_cells) continue;
      const auto block = static_cast<std::size_t>(std::upper_bound(base, base + mesh.cells.size() + 1, cell) - base - 1);
      if (!is_surface(mesh.cells[block])) continue;
      std::int64_t& entry = ids[block][static_cast<std::size_t>(cell - base[block])];
      if (entry == 0) entry = id;
      any = true;
    }
  }
  if (any) return ids;
  for (const auto& [name, arrays] : mesh.cell_data)
    if (io::holds_one_integer_per_cell(mesh, arrays)) return from_arrays(arrays);
  sized(1);  // meshio's default
  return ids;
}

class Output {
 public:
  Output(io::OutputBuffer& out, const Variant& variant) : out_(out), variant_(variant) {}

  // The binary cases are the hot path (one call per value) and stay small enough to inline;
  // the ASCII ones go through to_chars anyway.
  void integer(std::int64_t value) {
    if (variant_.encoding == Encoding::ascii) return ascii(value);
    if (variant_.int_size == 8) return binary(value);
    if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max())
      too_large_for_int32(value);
    binary(static_cast<std::int32_t>(value));
  }
  template <class T> void real(T value) {
    if (variant_.encoding == Encoding::ascii) return ascii(value);
    if (variant_.real_size == 8) return binary(static_cast<double>(value));
    binary(static_cast<float>(value));
  }
  // Ends a row in ASCII (one record per line, as UG_IO writes them).
  void end_row() {
    if (variant_.encoding != Encoding::ascii) return;
    out_.put('\n');
    row_started_ = false;
  }
  bool is_binary() const noexcept { return variant_.encoding != Encoding::ascii; }
  // Binary only: `count` values, each plus `shift`, in the file's integer or real width and
  // byte order, converted a chunk at a time (a tight loop instead of a call per value).
  template <class T> void binary_values(const T* values, std::size_t count, T shift) {
    if constexpr (std::is_integral_v<T>) {
      if (variant_.int_size == 8) return chunked<std::int64_t>(values, count, shift);
      return chunked<std::int32_t>(values, count, shift);
    } else {
      if (variant_.real_size == 8) return chunked<double>(values, count, shift);
      return chunked<float>(values, count, shift);
    }
  }
  // Fortran record length markers are always 4-byte integers.
  void marker(std::int64_t length) {
    if (length > std::numeric_limits<std::int32_t>::max())
      throw std::invalid_argument("the mesh is too large for a Fortran record (over 2 GiB)");
    binary(static_cast<std::int32_t>(length));
  }

 private:
  template <class T> [[gnu::noinline]] void ascii(T value) {
    if (row_started_) out_.put(' ');
    row_started_ = true;
    out_.number(value);
  }
  [[noreturn, gnu::noinline]] static void too_large_for_int32(std::int64_t value) {
    throw std::invalid_argument("value " + std::to_string(value) + " does not fit the 4-byte integers of this UGRID variant");
  }
  template <class FileT, class T> void chunked(const T* values, std::size_t count, T shift) {
    std::array<FileT, 4096> chunk;
    for (std::size_t first = 0; first < count; first += chunk.size()) {
      const std::size_t n = std::min(chunk.size(), count - first);
      bool outside = false;
      for (std::size_t i = 0; i < n; ++i) {
        const T value = values[first + i] + shift;
        if constexpr (std::is_same_v<FileT, std::int32_t>)
          outside |= !std::in_range<std::int32_t>(value);
        chunk[i] = static_cast<FileT>(value);
      }
      if (outside)
        for (std::size_t i = 0; i < n; ++i) integer(values[first + i] + shift);  // throws for the first too large
      if (variant_.little_endian != io::kHostIsLittleEndian) io::swap_bytes_in_place(chunk.data(), sizeof(FileT), n);
      out_.bytes(chunk.data(), n * sizeof(FileT));
    }
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
  const std::vector<std::vector<std::int64_t>> ids = surface_ids(mesh);

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
    if (out.is_binary() && !flat) return out.binary_values(points, static_cast<std::size_t>(3 * mesh.num_points()), T{0});
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
      if (out.is_binary() && !pyramid) {
        out.binary_values(cells, static_cast<std::size_t>(mesh.cells[b].num_cells() * nodes), std::int64_t{1});
        continue;
      }
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
        out.integer(ids[b][static_cast<std::size_t>(row)]);
        out.end_row();
      }
  for (std::size_t s = 2; s < kSections.size(); ++s) write_section(s);
  if (fortran) out.marker(body);
  buffer.flush();
  file.commit();
}

}  // namespace meshioplusplus::ugrid
