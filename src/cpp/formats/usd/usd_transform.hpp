// A prim's xformOps (translate, scale, rotateX/Y/Z, rotateXYZ and its five other orders,
// orient, transform; "!invert!" and "!resetXformStack!" in xformOpOrder) as one matrix. Ops
// apply in xformOpOrder's order from the outside in: [translate, rotate, scale] is T * R * S.
// Private to formats/usd/.
#pragma once

#include <optional>

#include "formats/usd/usd_internal.hpp"
#include "io/geometry/node_transform.hpp"

namespace meshioplusplus::usd {

struct LocalTransform {
  io::Affine matrix;
  bool resets_parent = false;  // "!resetXformStack!": the parents' transforms do not apply
};

// Ops that xformOpOrder names but the prim lacks, or of an unknown kind, are skipped (Usd warns
// and skips them too).
LocalTransform local_transform(const Prim& prim);

}  // namespace meshioplusplus::usd
