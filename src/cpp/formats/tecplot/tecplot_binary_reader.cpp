// Tecplot binary reader (.plt, #!TDV100 … #!TDV112; tecplot_binary_scan.cpp reads the layout).
//
// The file: a header (title, variable names, one record per zone: name, strand, solution time,
// type, variable locations, sizes, auxiliary data; geometries, text, labels and auxiliary
// records are skipped) and one data section per zone: each variable's format (float, double,
// int32, int16, byte), passive and shared variables, min/max, the values (block packed; point
// packed before 112) and the FE connectivity (int32, 0-based).
//
// What becomes what: variables named X, Y and optionally Z (any case) become the points,
// float64 (n, 2|3); every other nodal variable point data and every cell-centred variable
// cell data, float64 (n,), named as written (as our ASCII reader: blanks become '_'). Each zone
// is one cell block: FELINESEG line, FETRIANGLE triangle, FEQUADRILATERAL quad, FETETRAHEDRON
// tetra, FEBRICK hexahedron (node order as VTK's), ORDERED zones hexahedra, quads or lines over
// their long directions (i fastest). Zones' nodes are concatenated, except that a zone sharing
// all its nodal variables with an earlier zone of the same step and size reuses that zone's
// nodes (what our writer writes: one FE zone per block over one set of nodes). Passive values
// are NaN. With several zones, each also becomes a Cell region named by its title.
//
// Time: zones with a strand (>= 0 in the file) and several solution times make a time series,
// one step per solution time in the order of the file; static zones (strand -1) belong to
// every step. meshioplusplus.read gives the first step (as ParaView's and VisIt's readers open
// the file at its first time). A step reads only its own zones' arrays (and those they share).
// Not read (ReadError): Tecplot 7 files, GRID/SOLUTION files, FEPOLYGON/FEPOLYHEDRON zones,
// bit-packed variables, SZL (.szplt) files.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/tecplot/tecplot_binary.hpp"
#include "formats/tecplot/tecplot_binary_internal.hpp"
#include "io/source/binary_cursor.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::tecplot_binary {
namespace {

using detail::kFormat;
using detail::Structure;
using detail::Zone;

constexpr const char* kFeCellTypes[] = {"", "line", "triangle", "quad", "tetra", "hexahedron"};
constexpr int kNodesPerElement[] = {0, 2, 3, 4, 4, 8};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string data_name(std::string name) {
  std::replace(name.begin(), name.end(), ' ', '_');
  return name;
}

int ordered_dim(const Zone& zone) {
  return (zone.imax > 1) + (zone.jmax > 1) + (zone.kmax > 1);
}

const char* cell_type_of(const Zone& zone) {
  if (!zone.ordered()) return kFeCellTypes[zone.type];
  switch (ordered_dim(zone)) {
    case 3: return "hexahedron";
    case 2: return "quad";
    case 1: return "line";
    default: return "vertex";
  }
}

class Series final : public TimeSeriesReader {
 public:
  explicit Series(const std::string& path) : path_(path), file_(path, kFormat) {
    structure_ = detail::scan(file_.bytes(), path_);
    find_coordinates();
    group_steps();
  }

  std::size_t num_steps() const override { return steps_.size(); }
  double time(std::size_t step) const override { return times_.at(step); }

  Mesh read_mesh() override {
    Mesh mesh;
    const std::vector<std::size_t>& zones = steps_[current_];
    const std::vector<std::int64_t> bases = node_bases(zones);
    mesh.points = NDArray::allocate(DType::float64, {total_nodes_, static_cast<std::int64_t>(coordinates_.size())});
    double* points = mesh.points.data_as<double>();
    const std::int64_t dim = static_cast<std::int64_t>(coordinates_.size());
    std::vector<double> values;
    for (std::size_t position = 0; position < zones.size(); ++position) {
      const Zone& zone = structure_.zones[zones[position]];
      if (reuses_nodes_[position]) continue;
      for (std::int64_t axis = 0; axis < dim; ++axis) {
        read_values(zones[position], coordinates_[static_cast<std::size_t>(axis)], values);
        for (std::int64_t n = 0; n < zone.num_points; ++n) points[(bases[position] + n) * dim + axis] = values[static_cast<std::size_t>(n)];
      }
    }
    std::vector<std::int64_t> cell_counts;
    for (std::size_t position = 0; position < zones.size(); ++position) {
      mesh.cells.push_back(read_block(zones[position], bases[position]));
      cell_counts.push_back(mesh.cells.back().num_cells());
    }
    if (zones.size() > 1) {
      const NDArray first = block_bases(cell_counts);
      for (std::size_t position = 0; position < zones.size(); ++position) {
        const Zone& zone = structure_.zones[zones[position]];
        Region region;
        region.name = zone.title.empty() ? "zone " + std::to_string(zones[position] + 1) : zone.title;
        region.kind = RegionKind::Cell;
        region.tag = static_cast<std::int64_t>(zones[position]) + 1;
        const std::string type = cell_type_of(zone);
        region.dim = type == "hexahedron" || type == "tetra" ? 3 : type == "line" ? 1 : type == "vertex" ? 0 : 2;
        const std::int64_t count = cell_counts[position], start = first.data_as<std::int64_t>()[position];
        region.entries = NDArray::allocate(DType::int64, {count});
        for (std::int64_t k = 0; k < count; ++k) region.entries.data_as<std::int64_t>()[k] = start + k;
        mesh.regions.push_back(std::move(region));
      }
    }
    return mesh;
  }

  TimeStep read_step(std::size_t step) override {
    if (step >= steps_.size())
      throw ReadError(path_, std::string(kFormat), "step " + std::to_string(step) + " is out of range (the file has " +
                                                       std::to_string(steps_.size()) + ")");
    current_ = step;
    TimeStep out;
    out.time = times_[step];
    const std::vector<std::size_t>& zones = steps_[step];
    const std::vector<std::int64_t> bases = node_bases(zones);
    const Zone& first = structure_.zones[zones.front()];
    std::vector<double> values;
    for (std::size_t v = 0; v < structure_.variables.size(); ++v) {
      if (std::find(coordinates_.begin(), coordinates_.end(), v) != coordinates_.end()) continue;
      const bool cell_centered = first.cell_centered[v] != 0;
      for (std::size_t zone : zones)
        if ((structure_.zones[zone].cell_centered[v] != 0) != cell_centered)
          throw ReadError(path_, std::string(kFormat), "variable '" + structure_.variables[v] +
                                                           "' is nodal in one zone and cell-centred in another",
                          structure_.zones[zone].header_offset);
      const std::string name = data_name(structure_.variables[v]);
      if (!cell_centered) {
        NDArray array = NDArray::allocate(DType::float64, {total_nodes_});
        double* target = array.data_as<double>();
        for (std::size_t position = 0; position < zones.size(); ++position) {
          if (reuses_nodes_[position]) continue;
          read_values(zones[position], v, values);
          std::copy(values.begin(), values.end(), target + bases[position]);
        }
        out.point_data.set(name, std::move(array));
      } else {
        std::vector<NDArray> blocks;
        for (std::size_t zone : zones) {
          read_values(zone, v, values);
          NDArray array = NDArray::allocate(DType::float64, {static_cast<std::int64_t>(values.size())});
          std::copy(values.begin(), values.end(), array.data_as<double>());
          blocks.push_back(std::move(array));
        }
        out.cell_data.set(name, std::move(blocks));
      }
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& message, std::optional<std::uint64_t> offset = std::nullopt) const {
    throw ReadError(path_, std::string(kFormat), message, offset);
  }

  void find_coordinates() {
    std::optional<std::size_t> axes[3];
    for (std::size_t v = 0; v < structure_.variables.size(); ++v) {
      const std::string name = lower(structure_.variables[v]);
      for (int axis = 0; axis < 3; ++axis)
        if (!axes[axis] && (name == std::string(1, "xyz"[axis]) || name == std::string("coordinate") + "xyz"[axis]))
          axes[axis] = v;
    }
    if (!axes[0] || !axes[1]) fail("the file has no X and Y variables (the points' coordinates)");
    coordinates_ = {*axes[0], *axes[1]};
    if (axes[2]) coordinates_.push_back(*axes[2]);
    for (std::size_t v : coordinates_)
      for (const Zone& zone : structure_.zones)
        if (zone.cell_centered[v]) fail("coordinate variable '" + structure_.variables[v] + "' is cell-centred", zone.header_offset);
  }

  void group_steps() {
    std::vector<std::size_t> statics;
    for (std::size_t z = 0; z < structure_.zones.size(); ++z) {
      const Zone& zone = structure_.zones[z];
      if (zone.strand < 0) {
        statics.push_back(z);
        continue;
      }
      auto found = std::find(times_.begin(), times_.end(), zone.time);
      if (found == times_.end()) {
        times_.push_back(zone.time);
        steps_.emplace_back();
        found = times_.end() - 1;
      }
      steps_[static_cast<std::size_t>(found - times_.begin())].push_back(z);
    }
    if (steps_.size() <= 1) {  // one time: every zone, in file order
      steps_.assign(1, {});
      for (std::size_t z = 0; z < structure_.zones.size(); ++z) steps_[0].push_back(z);
      times_.assign(1, structure_.zones.front().time);
      return;
    }
    for (std::vector<std::size_t>& zones : steps_) {
      zones.insert(zones.end(), statics.begin(), statics.end());
      std::sort(zones.begin(), zones.end());
    }
  }

  // The zone holding the values of variable `v` of `zone` (following shares to the owner);
  // nullopt for a passive variable.
  std::optional<std::size_t> owner_of(std::size_t zone, std::size_t v) const {
    while (true) {
      const Zone& z = structure_.zones[zone];
      if (z.passive[v]) return std::nullopt;
      if (z.shared_from[v] < 0) return zone;
      zone = static_cast<std::size_t>(z.shared_from[v]);  // always earlier: the chain ends
    }
  }

  // Where each zone's nodes start; sets reuses_nodes_ and total_nodes_.
  std::vector<std::int64_t> node_bases(const std::vector<std::size_t>& zones) {
    std::vector<std::int64_t> bases(zones.size(), 0);
    reuses_nodes_.assign(zones.size(), 0);
    std::int64_t total = 0;
    for (std::size_t position = 0; position < zones.size(); ++position) {
      const Zone& zone = structure_.zones[zones[position]];
      std::optional<std::size_t> same;
      bool all_shared = true;
      for (std::size_t v = 0; v < structure_.variables.size() && all_shared; ++v) {
        if (zone.cell_centered[v]) continue;
        if (zone.shared_from[v] < 0) {
          all_shared = false;
        } else if (!same) {
          same = static_cast<std::size_t>(zone.shared_from[v]);
        } else if (*same != static_cast<std::size_t>(zone.shared_from[v])) {
          all_shared = false;
        }
      }
      if (all_shared && same) {
        const auto found = std::find(zones.begin(), zones.begin() + static_cast<std::ptrdiff_t>(position), *same);
        if (found != zones.begin() + static_cast<std::ptrdiff_t>(position) &&
            structure_.zones[*same].num_points == zone.num_points) {
          const std::size_t other = static_cast<std::size_t>(found - zones.begin());
          bases[position] = bases[other];
          reuses_nodes_[position] = 1;
          continue;
        }
      }
      bases[position] = total;
      const auto sum = io::checked_sum(total, zone.num_points);
      if (!sum) fail("the zones' point counts overflow");
      total = *sum;
    }
    io::check_claim_fits_limit(path_, kFormat, "points", static_cast<std::uint64_t>(total), 8 * 3);
    total_nodes_ = total;
    return bases;
  }

  // Variable `v` of `zone` as float64, one value per node or cell (ordered cell-centred ghosts
  // dropped); NaN for a passive variable.
  void read_values(std::size_t zone_index, std::size_t v, std::vector<double>& out) const {
    const Zone& zone = structure_.zones[zone_index];
    const std::int64_t count = zone.cell_centered[v] ? zone.num_elements : zone.num_points;
    const std::optional<std::size_t> owner = owner_of(zone_index, v);
    io::check_claim_fits_limit(path_, kFormat, "the values of '" + structure_.variables[v] + "'",
                               static_cast<std::uint64_t>(count), 8);
    out.assign(static_cast<std::size_t>(count), std::numeric_limits<double>::quiet_NaN());
    if (!owner) return;
    const Zone& source = structure_.zones[*owner];
    if ((source.cell_centered[v] ? source.num_elements : source.num_points) != count)
      fail("zone " + std::to_string(zone_index + 1) + " shares '" + structure_.variables[v] + "' with a zone of another size",
           zone.header_offset);
    const std::int64_t stored = detail::stored_value_count(source, v, structure_.version);
    std::vector<double> raw(static_cast<std::size_t>(stored));
    const char* base = file_.bytes().data() + source.value_offset[v];
    const std::size_t stride = source.value_stride[v];
    const bool swap = structure_.little_endian != io::kHostIsLittleEndian;
    visit_format(source.formats[v], [&](auto zero) {
      using T = decltype(zero);
      for (std::int64_t k = 0; k < stored; ++k) {
        T value;
        std::memcpy(&value, base + static_cast<std::size_t>(k) * stride, sizeof(T));
        if (swap) io::swap_bytes_in_place(&value, sizeof(T), 1);
        raw[static_cast<std::size_t>(k)] = static_cast<double>(value);
      }
    });
    if (!(source.ordered() && source.cell_centered[v])) {
      out = std::move(raw);
      return;
    }
    // Ordered cell-centred: stored over node-sized dimensions (the last long one shortened).
    std::int64_t stored_dims[3] = {source.imax, source.jmax, source.kmax};
    if (structure_.version >= 104)
      for (int a = 2; a >= 0; --a)
        if (stored_dims[a] > 1) {
          --stored_dims[a];
          break;
        }
    const std::int64_t ci = std::max<std::int64_t>(source.imax - 1, 1), cj = std::max<std::int64_t>(source.jmax - 1, 1),
                       ck = std::max<std::int64_t>(source.kmax - 1, 1);
    std::size_t n = 0;
    for (std::int64_t c = 0; c < ck; ++c)
      for (std::int64_t b = 0; b < cj; ++b)
        for (std::int64_t a = 0; a < ci; ++a)
          out[n++] = raw[static_cast<std::size_t>(a + b * stored_dims[0] + c * stored_dims[0] * stored_dims[1])];
  }

  template <class Fn> static void visit_format(std::int32_t format, Fn&& fn) {
    switch (format) {
      case detail::kFloat: fn(float{}); break;
      case detail::kDouble: fn(double{}); break;
      case detail::kLongInt: fn(std::int32_t{}); break;
      case detail::kShortInt: fn(std::int16_t{}); break;
      default: fn(std::uint8_t{}); break;
    }
  }

  CellBlock read_block(std::size_t zone_index, std::int64_t base) const {
    const Zone& zone = structure_.zones[zone_index];
    CellBlock block;
    block.type = cell_type_of(zone);
    if (zone.ordered()) {
      const std::int64_t ni = zone.imax, nj = zone.jmax;
      std::vector<std::int64_t> steps;  // node-index steps along the long directions
      std::vector<std::int64_t> counts;
      if (zone.imax > 1) steps.push_back(1), counts.push_back(zone.imax - 1);
      if (zone.jmax > 1) steps.push_back(ni), counts.push_back(zone.jmax - 1);
      if (zone.kmax > 1) steps.push_back(ni * nj), counts.push_back(zone.kmax - 1);
      const int corners = 1 << steps.size();
      io::check_claim_fits_limit(path_, kFormat, "the cells of an ordered zone", static_cast<std::uint64_t>(zone.num_elements),
                                 8 * static_cast<std::uint64_t>(corners));
      block.connectivity = NDArray::allocate(DType::int64, {zone.num_elements, corners});
      std::int64_t* out = block.connectivity.data_as<std::int64_t>();
      if (steps.empty()) {
        for (std::int64_t k = 0; k < zone.num_elements; ++k) out[k] = base + k;
        return block;
      }
      // VTK's corner order: (0,0,0) (1,0,0) (1,1,0) (0,1,0), then the same one layer up.
      constexpr int kCornerA[] = {0, 1, 1, 0, 0, 1, 1, 0}, kCornerB[] = {0, 0, 1, 1, 0, 0, 1, 1},
                    kCornerC[] = {0, 0, 0, 0, 1, 1, 1, 1};
      std::int64_t cell = 0;
      const std::int64_t na = counts[0], nb = counts.size() > 1 ? counts[1] : 1, nc = counts.size() > 2 ? counts[2] : 1;
      for (std::int64_t c = 0; c < nc; ++c)
        for (std::int64_t b = 0; b < nb; ++b)
          for (std::int64_t a = 0; a < na; ++a, ++cell)
            for (int corner = 0; corner < corners; ++corner) {
              std::int64_t node = (a + kCornerA[corner]) * steps[0];
              if (steps.size() > 1) node += (b + kCornerB[corner]) * steps[1];
              if (steps.size() > 2) node += (c + kCornerC[corner]) * steps[2];
              out[cell * corners + corner] = base + node;
            }
      return block;
    }
    std::size_t owner = zone_index;
    while (structure_.zones[owner].connectivity_shared_from >= 0)
      owner = static_cast<std::size_t>(structure_.zones[owner].connectivity_shared_from);
    const int corners = kNodesPerElement[zone.type];
    const std::uint64_t count = static_cast<std::uint64_t>(zone.num_elements) * static_cast<std::uint64_t>(corners);
    io::check_claim_fits_limit(path_, kFormat, "the connectivity", count, 8);
    block.connectivity = NDArray::allocate(DType::int64, {zone.num_elements, corners});
    std::int64_t* out = block.connectivity.data_as<std::int64_t>();
    const std::size_t offset = structure_.zones[owner].connectivity_offset;
    const char* source = file_.bytes().data() + offset;
    const bool swap = structure_.little_endian != io::kHostIsLittleEndian;
    for (std::uint64_t k = 0; k < count; ++k) {
      std::int32_t node;
      std::memcpy(&node, source + 4 * k, 4);
      if (swap) io::swap_bytes_in_place(&node, 4, 1);
      if (node < 0 || node >= zone.num_points)
        fail("zone " + std::to_string(zone_index + 1) + ": node " + std::to_string(node) + " is out of range (the zone has " +
                 std::to_string(zone.num_points) + " points, numbered from 0)",
             offset + 4 * k);
      out[k] = base + node;
    }
    return block;
  }

  std::string path_;
  io::MappedFile file_;
  Structure structure_;
  std::vector<std::size_t> coordinates_;
  std::vector<std::vector<std::size_t>> steps_;  // zone indices per step
  std::vector<double> times_;
  std::size_t current_ = 0;
  std::vector<char> reuses_nodes_;
  std::int64_t total_nodes_ = 0;
};

}  // namespace

bool looks_like(std::string_view head) noexcept { return head.substr(0, 5) == "#!TDV" || head.substr(0, 4) == "#!SZ"; }

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) { return std::make_unique<Series>(path); }

Mesh read(const std::string& path) {
  return io::guarded_read([&] {
    Series series(path);
    TimeStep step = series.read_step(0);
    Mesh mesh = series.read_mesh();
    mesh.point_data = std::move(step.point_data);
    mesh.cell_data = std::move(step.cell_data);
    return mesh;
  });
}

}  // namespace meshioplusplus::tecplot_binary
