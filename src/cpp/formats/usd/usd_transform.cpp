// USD's xformOps as io::Affine matrices (formats/usd/usd_transform.hpp).
#include "formats/usd/usd_transform.hpp"

#include <cmath>
#include <numbers>
#include <string>

namespace meshioplusplus::usd {
namespace {

io::Affine rotation_about(int axis, double degrees) {
  const double radians = degrees * std::numbers::pi / 180.0;
  const double c = std::cos(radians), s = std::sin(radians);
  const int a = (axis + 1) % 3, b = (axis + 2) % 3;  // the plane turned: y-z for x, z-x for y, x-y for z
  io::Affine r;
  r.at(a, a) = c;
  r.at(a, b) = -s;
  r.at(b, a) = s;
  r.at(b, b) = c;
  return r;
}

// The inverse of an affine transform (its linear part by cofactors); a singular one stays as it is.
io::Affine inverse(const io::Affine& a) {
  const double det = a.linear_determinant();
  if (det == 0 || !std::isfinite(det)) return a;
  io::Affine inv;
  const auto m = [&](int r, int c) { return a.at(r, c); };
  inv.at(0, 0) = (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) / det;
  inv.at(0, 1) = (m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2)) / det;
  inv.at(0, 2) = (m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1)) / det;
  inv.at(1, 0) = (m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2)) / det;
  inv.at(1, 1) = (m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0)) / det;
  inv.at(1, 2) = (m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2)) / det;
  inv.at(2, 0) = (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0)) / det;
  inv.at(2, 1) = (m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1)) / det;
  inv.at(2, 2) = (m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0)) / det;
  for (int r = 0; r < 3; ++r) inv.at(r, 3) = -(inv.at(r, 0) * m(0, 3) + inv.at(r, 1) * m(1, 3) + inv.at(r, 2) * m(2, 3));
  return inv;
}

// One op from its kind ("translate", "rotateXYZ" …) and its numbers; nullopt for unknown kinds.
std::optional<io::Affine> op_matrix(std::string_view kind, const std::vector<double>& v) {
  io::Affine op;
  if (kind == "transform") {
    if (v.size() != 16) return std::nullopt;
    // USD writes GfMatrix4d rows for row vectors (translation in the last row): as a flat
    // list that is the column-major storage of the column-vector matrix Affine keeps.
    for (std::size_t i = 0; i < 16; ++i) op.m[i] = v[i];
    return op;
  }
  if (kind == "translate" && v.size() == 3) {
    for (int r = 0; r < 3; ++r) op.at(r, 3) = v[static_cast<std::size_t>(r)];
    return op;
  }
  if (kind == "scale" && v.size() == 3) {
    for (int r = 0; r < 3; ++r) op.at(r, r) = v[static_cast<std::size_t>(r)];
    return op;
  }
  if (kind == "orient" && v.size() == 4)  // GfQuat text: (real, i, j, k)
    return io::Affine::from_trs({0, 0, 0}, {v[1], v[2], v[3], v[0]}, {1, 1, 1});
  if (kind.size() == 7 && kind.starts_with("rotate") && v.size() == 1) {
    const char axis = kind[6];
    if (axis < 'X' || axis > 'Z') return std::nullopt;
    return rotation_about(axis - 'X', v[0]);
  }
  if (kind.size() == 9 && kind.starts_with("rotate") && v.size() == 3) {
    // rotateXYZ: X first, then Y, then Z (column vectors: Rz * Ry * Rx).
    for (int k = 0; k < 3; ++k) {
      const char axis = kind[static_cast<std::size_t>(6 + k)];
      if (axis < 'X' || axis > 'Z') return std::nullopt;
      op = rotation_about(axis - 'X', v[static_cast<std::size_t>(axis - 'X')]) * op;
    }
    return op;
  }
  return std::nullopt;
}

}  // namespace

LocalTransform local_transform(const Prim& prim) {
  LocalTransform local;
  const Attribute* order = prim.find("xformOpOrder");
  if (order == nullptr || !order->has_value) return local;
  for (const std::string& entry : order->strings) {
    if (entry == "!resetXformStack!") {
      local.resets_parent = true;
      local.matrix = io::Affine{};
      continue;
    }
    std::string_view name = entry;
    const bool invert = name.starts_with("!invert!");
    if (invert) name.remove_prefix(8);
    const Attribute* op = prim.find(name);
    if (op == nullptr || op->kind != ValueKind::real || !op->has_value) continue;  // as Usd: warned, skipped
    std::string_view kind = name.substr(std::min(name.size(), std::string_view("xformOp:").size()));
    kind = kind.substr(0, kind.find(':'));
    std::optional<io::Affine> matrix = op_matrix(kind, op->reals);
    if (!matrix) continue;
    local.matrix = local.matrix * (invert ? inverse(*matrix) : *matrix);
  }
  return local;
}

}  // namespace meshioplusplus::usd
