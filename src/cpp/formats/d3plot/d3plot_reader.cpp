// d3plot states: the time-series reader and read() (d3plot.hpp says what becomes what).
//
// A state, in words (LS-DYNA manual; lasso-python's D3plot._read_states_* read it the same
// way): time, NGLBV global values, the nodal sections (d3plot_structure.cpp's node_words_of),
// NT3D thermal words per solid, NV3D per solid, NV3DT per thick shell, NV1D per beam, NV2D per
// shell of a deformable part, the deletion flags (MDLOPT: NUMNP node words, or one word per
// solid, thick shell, shell and beam), the SPH values. Solids hold NV3D / ip words per
// integration point (1 or 8 of them): stress 6 (IOSHL1 999/1000), effective plastic strain
// (IOSHL2 999/1000), NEIPH history; shells and thick shells MAXINT points of stress 6 (IOSHL1
// 1000), plastic strain (IOSHL2 1000) and NEIPS history, then forces, thickness, strains.
// read_step(k) reads only state k's bytes (MappedFile::copy_out, a chunk at a time, straight into
// the output arrays).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "formats/d3plot/d3plot.hpp"
#include "formats/d3plot/d3plot_internal.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::d3plot {
namespace {

using detail::BlockSource;
using detail::kFormat;
using detail::Kind;
using detail::Layout;
using detail::Structure;

NDArray gather_ids(const std::vector<std::int64_t>& values, const std::vector<std::int64_t>& elements) {
  NDArray out = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(elements.size())});
  std::int64_t* o = out.data_as<std::int64_t>();
  for (std::size_t k = 0; k < elements.size(); ++k) o[k] = values[elements[k]];
  return out;
}

// One state's words, read from the file a chunk at a time into a small reused buffer (no
// state-sized buffer whose fresh pages the kernel would have to zero) and handed to the
// caller, which writes them straight into the output arrays. Every request is checked
// against the state's size: a layout mismatch is a ReadError, never a read past the state.
class StateWords {
 public:
  static constexpr std::int64_t kChunkWords = std::int64_t{1} << 15;

  StateWords(const io::MappedFile& file, const std::string& path, std::uint64_t offset, std::uint64_t words, int word_size, std::size_t step)
      : file_(file), path_(path), offset_(offset), words_(words), size_(word_size), step_(step) {
    const std::uint64_t file_size = file.bytes().size();
    if (offset > file_size || words > (file_size - offset) / word_size) fail(offset);
  }
  // `count` words from word `first` into `out` (W: the file's word type).
  void read(std::uint64_t first, void* out, std::uint64_t count) const {
    check(first, count);
    if (!file_.copy_out(offset_ + first * size_, out, count * size_)) fail(offset_ + first * size_);
  }
  // `count` rows of `width` words from word `first`: visit(values, first_row, rows) a chunk
  // of whole rows at a time.
  template <class W, class Visit>
  void rows(std::uint64_t first, std::int64_t count, std::int64_t width, Visit&& visit) const {
    if (count <= 0 || width <= 0) return;
    check(first, static_cast<std::uint64_t>(count) * width);
    const std::int64_t per_chunk = std::max<std::int64_t>(1, kChunkWords / width);
    std::vector<W> buffer(static_cast<std::size_t>(std::min(count, per_chunk) * width));
    for (std::int64_t done = 0; done < count;) {
      const std::int64_t n = std::min(per_chunk, count - done);
      read(first + done * width, buffer.data(), n * width);
      visit(static_cast<const W*>(buffer.data()), done, n);
      done += n;
    }
  }

 private:
  void check(std::uint64_t first, std::uint64_t count) const {
    if (first > words_ || count > words_ - first)
      throw ReadError(path_, std::string(kFormat), "state " + std::to_string(step_) + ": a section runs past the state's " + std::to_string(words_) + " words", offset_ + first * size_);
  }
  [[noreturn]] void fail(std::uint64_t byte) const {
    throw ReadError(path_, std::string(kFormat), "state " + std::to_string(step_) + " runs past the end of the file", byte);
  }
  const io::MappedFile& file_;
  const std::string& path_;
  std::uint64_t offset_, words_;
  int size_;
  std::size_t step_;
};

// A copy of the structure's array for a time series' mesh, on all cores when large.
NDArray copied(const NDArray& source) {
  NDArray out = NDArray::allocate(source.dtype(), source.shape());
  io::copy_in_parallel(out.data(), source.data(), source.nbytes());
  return out;
}

// A block that holds its whole family in file order shares the family's arrays.
bool whole_family(const BlockSource& block, std::int64_t family_count) {
  return static_cast<std::int64_t>(block.elements.size()) == family_count;
}

class Series final : public TimeSeriesReader {
 public:
  // `one_shot`: read() reads the mesh once and drops the structure, so the mesh may share the
  // structure's arrays instead of copying them; a time series keeps them for every read_mesh().
  explicit Series(std::shared_ptr<const Structure> s, bool one_shot = false)
      : s_(std::move(s)), files_(s_->files.size()), one_shot_(one_shot) {}

  std::size_t num_steps() const override { return s_->states.size(); }
  double time(std::size_t step) const override {
    check_step(step);
    return s_->states[step].time;
  }

  Mesh read_mesh() override {
    const Structure& s = *s_;
    Mesh mesh;
    mesh.points = one_shot_ ? s.points : copied(s.points);
    std::vector<NDArray> parts, ids;
    for (const BlockSource& block : s.blocks) {
      const NDArray& source = s.connectivity[block.kind];
      const int width = block.type == "quad" ? 4 : block.type == "triangle" ? 3 : block.type == "line" ? 2 : block.type == "vertex" ? 1 : 8;
      const std::int64_t stride = source.dim(1);
      const std::int64_t m = static_cast<std::int64_t>(block.elements.size());
      NDArray conn;
      if (width == stride && whole_family(block, source.dim(0))) {
        conn = one_shot_ ? source : copied(source);  // one copy, not a row at a time
      } else {
        conn = NDArray::allocate(DType::int64, {m, width});
        std::int64_t* out = conn.data_as<std::int64_t>();
        const std::int64_t* in = source.data_as<std::int64_t>();
        for (std::int64_t k = 0; k < m; ++k) std::memcpy(out + k * width, in + block.elements[k] * stride, width * sizeof(std::int64_t));
      }
      mesh.cells.push_back({block.type, std::move(conn), {}, {}});
      NDArray part = NDArray::allocate(DType::int64, {m});
      std::int64_t* part_out = part.data_as<std::int64_t>();
      const std::vector<std::int64_t>& material = s.material[block.kind];
      for (std::int64_t k = 0; k < m; ++k) part_out[k] = s.part_ids[material[block.elements[k]]];
      parts.push_back(std::move(part));
      ids.push_back(gather_ids(s.element_ids[block.kind], block.elements));
    }
    if (!s.blocks.empty()) {
      mesh.cell_data.append_new("d3plot:part", std::move(parts));
      mesh.cell_data.append_new("d3plot:id", std::move(ids));
    }
    mesh.point_data.append_new("d3plot:node_id", one_shot_ ? s.node_ids : copied(s.node_ids));
    // One Cell region per material (part), block-major cell indices.
    std::vector<std::int64_t> sizes(s.part_ids.size(), 0);
    std::vector<int> dims(s.part_ids.size(), 0);
    for (const BlockSource& block : s.blocks)
      for (const std::int64_t e : block.elements) ++sizes[s.material[block.kind][e]];
    std::vector<Region> regions(s.part_ids.size());
    std::vector<std::int64_t*> next(s.part_ids.size(), nullptr);
    for (std::size_t p = 0; p < regions.size(); ++p) {
      regions[p].entries = NDArray::allocate(DType::int64, {sizes[p]});
      next[p] = regions[p].entries.data_as<std::int64_t>();
    }
    std::int64_t base = 0;
    for (const BlockSource& block : s.blocks) {
      const int dim = block.kind == detail::kSolid || block.kind == detail::kThickShell ? 3 : block.kind == detail::kShell ? 2 : block.kind == detail::kBeam ? 1 : 0;
      const std::vector<std::int64_t>& material = s.material[block.kind];
      for (std::size_t k = 0; k < block.elements.size(); ++k) {
        const std::int64_t p = material[block.elements[k]];
        *next[p]++ = base + static_cast<std::int64_t>(k);
        dims[p] = std::max(dims[p], dim);
      }
      base += static_cast<std::int64_t>(block.elements.size());
    }
    for (std::size_t p = 0; p < regions.size(); ++p) {
      if (sizes[p] == 0) continue;
      Region& region = regions[p];
      region.name = s.part_titles[p].empty() ? "part " + std::to_string(s.part_ids[p]) : s.part_titles[p];
      region.kind = RegionKind::Cell;
      region.dim = dims[p];
      region.tag = s.part_ids[p];
      mesh.regions.push_back(std::move(region));
    }
    return mesh;
  }

  TimeStep read_step(std::size_t step) override {
    check_step(step);
    const Structure& s = *s_;
    const Layout& l = s.layout;
    const detail::StateLocation& where = s.states[step];
    if (!files_[where.file]) files_[where.file] = std::make_unique<io::MappedFile>(s.files[where.file], kFormat);
    io::check_claim_fits_limit(s.files[where.file], kFormat, "state words", l.state_words, l.word_size);
    const StateWords words(*files_[where.file], s.files[where.file], where.offset, l.state_words, l.word_size, step);
    return l.word_size == 4 ? read_state<float>(words) : read_state<double>(words);
  }

 private:
  // State words of type W (float or double, the file's word size); the points are W too.
  template <class W>
  TimeStep read_state(const StateWords& w) const {
    const Structure& s = *s_;
    const Layout& l = s.layout;
    TimeStep out;
    // The time, then the global values: kinetic, internal, total energy, velocity, per-part values.
    std::vector<W> head(static_cast<std::size_t>(1 + l.nglbv));
    w.read(0, head.data(), head.size());
    out.time = head[0];
    std::uint64_t at = 1;
    NDArray globals = NDArray::allocate(DType::float64, {l.nglbv});
    for (std::int64_t k = 0; k < l.nglbv; ++k) globals.data_as<double>()[k] = head[1 + k];
    const char* names[] = {"global_kinetic_energy", "global_internal_energy", "global_total_energy"};
    for (std::int64_t k = 0; k < std::min<std::int64_t>(3, l.nglbv); ++k) out.field_data.append_new(names[k], NDArray::from_values<double>({double(head[1 + k])}));
    if (l.nglbv >= 6) out.field_data.append_new("global_velocity", NDArray::from_values<double>({double(head[4]), double(head[5]), double(head[6])}));
    out.field_data.append_new("d3plot:global_variables", std::move(globals));
    at += l.nglbv;

    // Nodes: each section is NUMNP values of its width, one section after the other.
    const std::int64_t n = l.numnp;
    const int dims = l.dimensions;
    auto vectors = [&](std::uint64_t first, bool minus_initial) {
      NDArray a = NDArray::allocate(s.points.dtype(), {n, 3});
      W* o = a.data_as<W>();
      if (dims == 3 && !minus_initial) {  // stored as the output holds it: one read
        w.read(first, o, static_cast<std::uint64_t>(n) * 3);
        return a;
      }
      const W* p0 = s.points.data_as<W>();
      w.rows<W>(first, n, dims, [&](const W* v, std::int64_t row0, std::int64_t rows) {
        for (std::int64_t i = 0; i < rows; ++i)
          for (int d = 0; d < 3; ++d) {
            const std::int64_t node = row0 + i;
            const W value = d < dims ? v[i * dims + d] : W(0);
            o[3 * node + d] = minus_initial ? static_cast<W>(value - p0[3 * node + d]) : value;
          }
      });
      return a;
    };
    auto doubles = [&](std::uint64_t first, std::int64_t count, double* target) {
      w.rows<W>(first, count, 1, [&](const W* v, std::int64_t row0, std::int64_t rows) { std::copy_n(v, rows, target + row0); });
    };
    if (l.iu) {
      out.point_data.append_new("displacement", vectors(at, true));
      at += n * dims;
    }
    const int temperature = l.it % 10;
    if (temperature >= 1) {
      const int width = temperature >= 3 ? 3 : 1;
      NDArray t = NDArray::allocate(DType::float64, width == 1 ? Shape{n} : Shape{n, 3});
      doubles(at, n * width, t.data_as<double>());
      out.point_data.append_new("temperature", std::move(t));
      at += n * width;
    }
    const std::int64_t between = l.node_words - (l.iu + l.iv + l.ia) * dims - (temperature >= 1 ? (temperature >= 3 ? 3 : 1) : 0);
    at += n * between;  // heat flux, mass scaling, gradients, residuals: skipped
    if (l.iv) {
      out.point_data.append_new("velocity", vectors(at, false));
      at += n * dims;
    }
    if (l.ia) {
      out.point_data.append_new("acceleration", vectors(at, false));
      at += n * dims;
    }
    at += l.nt3d * l.nel8;

    // Elements: per family, the mean stress (n, 6) and plastic strain (n,) over its integration points.
    NDArray stress[5], strain[5];
    auto integration_points = [&](Kind kind, std::uint64_t first, std::int64_t count, std::int64_t vars, int points, bool has_stress, bool has_strain) {
      if (count == 0 || vars == 0 || points == 0) return;
      const std::int64_t per_point = (has_stress ? 6 : 0) + (has_strain ? 1 : 0);
      const std::int64_t stride = kind == detail::kSolid ? vars / points : (has_stress ? 6 : 0) + (has_strain ? 1 : 0) + l.neips;
      if (per_point == 0 || stride * points > vars) return;
      if (has_stress) stress[kind] = NDArray::allocate(DType::float64, {count, 6});
      if (has_strain) strain[kind] = NDArray::allocate(DType::float64, {count});
      double* stress_out = has_stress ? stress[kind].data_as<double>() : nullptr;
      double* strain_out = has_strain ? strain[kind].data_as<double>() : nullptr;
      w.rows<W>(first, count, vars, [&](const W* v, std::int64_t row0, std::int64_t rows) {
        for (std::int64_t i = 0; i < rows; ++i) {
          double sums[7] = {0, 0, 0, 0, 0, 0, 0};
          for (int p = 0; p < points; ++p) {
            const W* word = v + i * vars + p * stride;
            if (has_stress)
              for (int c = 0; c < 6; ++c) sums[c] += static_cast<double>(word[c]) / points;
            if (has_strain) sums[6] += static_cast<double>(word[has_stress ? 6 : 0]) / points;
          }
          const std::int64_t e = row0 + i;
          if (has_stress) std::copy_n(sums, 6, stress_out + 6 * e);
          if (has_strain) strain_out[e] = sums[6];
        }
      });
    };
    const std::int64_t solid_base = (l.ioshl1 == 999 || l.ioshl1 == 1000 ? 6 : 0) + (l.ioshl2 == 999 || l.ioshl2 == 1000 ? 1 : 0) + l.neiph;
    const int solid_points = solid_base > 0 && l.nv3d / solid_base >= 8 ? 8 : 1;
    integration_points(detail::kSolid, at, l.nel8, l.nv3d, solid_points, l.ioshl1 == 999 || l.ioshl1 == 1000, l.ioshl2 == 999 || l.ioshl2 == 1000);
    at += l.nel8 * l.nv3d;
    const int layers = static_cast<int>(l.maxint > 0 ? l.maxint : l.maxint <= -10000 ? -l.maxint - 10000 : -l.maxint);
    integration_points(detail::kThickShell, at, l.nelt, l.nv3dt, layers, l.ioshl1 == 1000, l.ioshl2 == 1000);
    at += l.nelt * l.nv3dt + l.nel2 * l.nv1d;
    if (l.rigid_shells == 0) integration_points(detail::kShell, at, l.nel4, l.nv2d, layers, l.ioshl1 == 1000, l.ioshl2 == 1000);
    at += (l.nel4 - l.rigid_shells) * l.nv2d;

    // Deletion flags.
    std::vector<double> alive[5];
    if (l.node_deletion) {
      NDArray flags = NDArray::allocate(DType::float64, {n});
      doubles(at, n, flags.data_as<double>());
      out.point_data.append_new("d3plot:node_is_alive", std::move(flags));
      at += n;
    } else if (l.element_deletion) {
      const std::pair<Kind, std::int64_t> order[] = {{detail::kSolid, l.nel8}, {detail::kThickShell, l.nelt}, {detail::kShell, l.nel4}, {detail::kBeam, l.nel2}};
      for (const auto& [kind, count] : order) {
        alive[kind].resize(count);
        doubles(at, count, alive[kind].data());
        at += count;
      }
    }

    // Per block: the family's arrays themselves when the block holds the whole family, else
    // its elements' rows; NaN where the family has no such values.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto per_block = [&](const NDArray& family, const BlockSource& block, int width) {
      const std::int64_t m = static_cast<std::int64_t>(block.elements.size());
      if (!family.empty_handle() && whole_family(block, family.dim(0))) return family;
      NDArray a = NDArray::allocate(DType::float64, width == 1 ? Shape{m} : Shape{m, width});
      double* o = a.data_as<double>();
      if (family.empty_handle()) {
        std::fill_n(o, m * width, nan);
        return a;
      }
      const double* in = family.data_as<double>();
      for (std::int64_t k = 0; k < m; ++k) std::copy_n(in + block.elements[k] * width, width, o + k * width);
      return a;
    };
    std::vector<NDArray> stresses, strains, alives;
    bool any_stress = false, any_strain = false;
    for (const BlockSource& block : s.blocks) {
      stresses.push_back(per_block(stress[block.kind], block, 6));
      strains.push_back(per_block(strain[block.kind], block, 1));
      any_stress |= !stress[block.kind].empty_handle();
      any_strain |= !strain[block.kind].empty_handle();
      if (l.element_deletion) {
        const std::int64_t m = static_cast<std::int64_t>(block.elements.size());
        NDArray c = NDArray::allocate(DType::float64, {m});
        for (std::int64_t k = 0; k < m; ++k) c.data_as<double>()[k] = alive[block.kind].empty() ? 1.0 : alive[block.kind][block.elements[k]];
        alives.push_back(std::move(c));
      }
    }
    if (any_stress) out.cell_data.append_new("stress", std::move(stresses));
    if (any_strain) out.cell_data.append_new("effective_plastic_strain", std::move(strains));
    if (l.element_deletion && !s.blocks.empty()) out.cell_data.append_new("d3plot:is_alive", std::move(alives));
    return out;
  }

  void check_step(std::size_t step) const {
    if (step >= s_->states.size())
      throw ReadError(s_->files.front(), std::string(kFormat), "time step " + std::to_string(step) + " out of range (the family has " + std::to_string(s_->states.size()) + ")");
  }

  std::shared_ptr<const Structure> s_;
  std::vector<std::unique_ptr<io::MappedFile>> files_;
  bool one_shot_ = false;
};

}  // namespace

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) { return std::make_unique<Series>(detail::open_structure(path)); }

Mesh read(const std::string& path) {
  Series series(detail::open_structure(path), /*one_shot=*/true);
  Mesh mesh = series.read_mesh();
  if (series.num_steps() == 0) return mesh;
  TimeStep step = series.read_step(0);
  for (auto& [name, array] : step.point_data) mesh.point_data.set(name, std::move(array));
  for (auto& [name, arrays] : step.cell_data) mesh.cell_data.set(name, std::move(arrays));
  mesh.field_data = std::move(step.field_data);
  mesh.field_data.append_new("time", NDArray::from_values<double>({step.time}));
  return mesh;
}

}  // namespace meshioplusplus::d3plot
