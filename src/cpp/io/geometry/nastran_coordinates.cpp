// Nastran coordinate systems → basic positions (nastran_coordinates.hpp says the rules).
#include "io/geometry/nastran_coordinates.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <unordered_map>
#include <vector>

namespace meshioplusplus::io {
namespace {

using Vec = std::array<double, 3>;

Vec minus(const Vec& a, const Vec& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec cross(const Vec& a, const Vec& b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
double norm(const Vec& a) { return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

// A resolved system: its origin and unit axes in basic.
struct Frame {
  NastranCoordinateKind kind = NastranCoordinateKind::rectangular;
  Vec origin{}, x{1, 0, 0}, y{0, 1, 0}, z{0, 0, 1};

  Vec to_basic(const Vec& local) const {
    constexpr double degree = std::numbers::pi / 180;
    Vec c = local;
    if (kind == NastranCoordinateKind::cylindrical) {
      c = {local[0] * std::cos(local[1] * degree), local[0] * std::sin(local[1] * degree), local[2]};
    } else if (kind == NastranCoordinateKind::spherical) {
      const double theta = local[1] * degree, phi = local[2] * degree;
      c = {local[0] * std::sin(theta) * std::cos(phi), local[0] * std::sin(theta) * std::sin(phi), local[0] * std::cos(theta)};
    }
    Vec out;
    for (int k = 0; k < 3; ++k) out[k] = origin[k] + c[0] * x[k] + c[1] * y[k] + c[2] * z[k];
    return out;
  }
};

std::optional<Frame> frame_from_points(NastranCoordinateKind kind, const Vec& a, const Vec& b, const Vec& c) {
  const Vec z = minus(b, a);
  const Vec y = cross(z, minus(c, a));
  const double nz = norm(z), ny = norm(y);
  const double scale = std::max({norm(a), norm(b), norm(c), 1.0});
  if (!(nz > 1e-12 * scale) || !(ny > 1e-12 * scale * nz)) return std::nullopt;
  Frame f;
  f.kind = kind;
  f.origin = a;
  for (int k = 0; k < 3; ++k) {
    f.z[k] = z[k] / nz;
    f.y[k] = y[k] / ny;
  }
  f.x = cross(f.y, f.z);
  return f;
}

}  // namespace

std::string nastran_positions_to_basic(std::span<const NastranCoordinateSystem> systems,
                                       std::span<const std::int64_t> grid_ids, std::span<const std::int64_t> cp,
                                       std::span<double> xyz) {
  const std::size_t n = cp.size();
  std::unordered_map<std::int64_t, std::size_t> system_of;
  for (std::size_t s = 0; s < systems.size(); ++s) system_of[systems[s].id] = s;  // a later card replaces
  std::unordered_map<std::int64_t, std::size_t> grid_of;
  bool any_cord1 = false;
  for (const NastranCoordinateSystem& system : systems) any_cord1 = any_cord1 || system.by_grids;
  if (any_cord1)
    for (std::size_t i = 0; i < grid_ids.size(); ++i) grid_of.emplace(grid_ids[i], i);

  for (std::size_t i = 0; i < n; ++i)
    if (cp[i] != 0 && !system_of.contains(cp[i]))
      return "grid " + std::to_string(grid_ids[i]) + " is given in coordinate system " + std::to_string(cp[i]) +
             ", which the file does not define";

  std::vector<std::optional<Frame>> frames(systems.size());
  std::vector<double> basic(xyz.begin(), xyz.end());
  std::vector<bool> placed(n);
  for (std::size_t i = 0; i < n; ++i) placed[i] = cp[i] == 0;
  auto frame_of = [&](std::int64_t id) -> const Frame* {
    static const Frame identity;
    if (id == 0) return &identity;
    const auto found = system_of.find(id);
    return found == system_of.end() || !frames[found->second] ? nullptr : &*frames[found->second];
  };
  // Each pass resolves what its references allow; a pass that resolves nothing ends the loop.
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t s = 0; s < systems.size(); ++s) {
      if (frames[s] || system_of[systems[s].id] != s) continue;
      const NastranCoordinateSystem& system = systems[s];
      Vec p[3];
      if (system.by_grids) {
        std::size_t rows[3];
        for (std::size_t k = 0; k < 3; ++k) {
          const auto grid = grid_of.find(system.grids[k]);
          if (grid == grid_of.end())
            return "coordinate system " + std::to_string(system.id) + " names grid " + std::to_string(system.grids[k]) +
                   ", which the file does not define";
          rows[k] = grid->second;
        }
        if (!placed[rows[0]] || !placed[rows[1]] || !placed[rows[2]]) continue;
        for (std::size_t k = 0; k < 3; ++k) p[k] = {basic[3 * rows[k]], basic[3 * rows[k] + 1], basic[3 * rows[k] + 2]};
      } else {
        if (system.reference != 0 && !system_of.contains(system.reference))
          return "coordinate system " + std::to_string(system.id) + " is given in system " +
                 std::to_string(system.reference) + ", which the file does not define";
        const Frame* reference = frame_of(system.reference);
        if (reference == nullptr) continue;
        for (int k = 0; k < 3; ++k)
          p[k] = reference->to_basic({system.points[3 * k], system.points[3 * k + 1], system.points[3 * k + 2]});
      }
      frames[s] = frame_from_points(system.kind, p[0], p[1], p[2]);
      if (!frames[s])
        return "coordinate system " + std::to_string(system.id) + ": its three points do not span a frame";
      progress = true;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (placed[i]) continue;
      const Frame* frame = frame_of(cp[i]);
      if (frame == nullptr) continue;
      const Vec at = frame->to_basic({xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]});
      std::copy(at.begin(), at.end(), basic.begin() + static_cast<std::ptrdiff_t>(3 * i));
      placed[i] = true;
      progress = true;
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!placed[i])
      return "grid " + std::to_string(grid_ids[i]) + " is given in coordinate system " + std::to_string(cp[i]) +
             ", whose definition refers back to itself through other systems or grids";
  std::copy(basic.begin(), basic.end(), xyz.begin());
  return {};
}

}  // namespace meshioplusplus::io
