// Nastran coordinate systems: grid positions given in a local system (a GRID's CP field) turned
// into the basic system, as Nastran places them (MSC/NX Quick Reference Guide, CORD1x/CORD2x).
//
// CORD2R/C/S: three points in the reference system RID (in its own kind of coordinates): A the
// origin, B on the z axis, C in the xz-plane; z = B - A, y = z × (C - A), x = y × z. CORD1R/C/S:
// the same three points given as grids (their basic positions). A position in a system is
// (x1, x2, x3) in rectangular, (r, θ°, z) in cylindrical and (r, θ°, φ°) in spherical systems
// (x = r sinθ cosφ, y = r sinθ sinφ, z = r cosθ). Systems may build on systems and on grids
// given in other systems: they are resolved in whatever order their references allow.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace meshioplusplus::io {

enum class NastranCoordinateKind { rectangular, cylindrical, spherical };

struct NastranCoordinateSystem {
  std::int64_t id = 0;
  NastranCoordinateKind kind = NastranCoordinateKind::rectangular;
  bool by_grids = false;                // CORD1x: `grids`; CORD2x: `reference` and `points`
  std::int64_t reference = 0;           // RID (0: basic)
  std::array<double, 9> points{};       // A, B, C in the reference system's coordinates
  std::array<std::int64_t, 3> grids{};  // G1 (origin), G2 (z axis), G3 (xz-plane)
};

// Moves every grid's position (xyz, n × 3, given in the system cp[i]; 0: basic) into the basic
// system, in place. Returns an empty string, or why it cannot (a cp or RID naming no system, a
// CORD1 naming a missing grid, references in a circle, three points that span no frame); xyz
// is then unchanged. grid_ids: the grids' ids, for CORD1x.
std::string nastran_positions_to_basic(std::span<const NastranCoordinateSystem> systems,
                                       std::span<const std::int64_t> grid_ids, std::span<const std::int64_t> cp,
                                       std::span<double> xyz);

}  // namespace meshioplusplus::io
