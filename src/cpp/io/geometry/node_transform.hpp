// Floor 2: scene-graph node transforms, for formats that place instances of geometry with
// transforms composed down a hierarchy (glTF nodes, USD xforms).
//
// An Affine is a 4x4 matrix with last row (0 0 0 1), stored column-major as glTF and USD's
// GfMatrix4d-as-array (element (row r, column c) at [c * 4 + r]). Points are columns:
// world = parent * local. from_trs builds T * R * S (glTF's order; the rotation a unit
// quaternion x, y, z, w). The normal matrix is the inverse transpose of the linear part; a
// negative determinant mirrors, so triangles placed by it have to flip their winding to keep
// facing outwards (mirrors_orientation()).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace meshioplusplus::io {

struct Affine {
  std::array<double, 16> m{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

  static Affine identity() noexcept { return {}; }
  double at(int row, int column) const noexcept { return m[static_cast<std::size_t>(column * 4 + row)]; }
  double& at(int row, int column) noexcept { return m[static_cast<std::size_t>(column * 4 + row)]; }

  bool is_identity() const noexcept {
    const Affine one;
    return m == one.m;
  }

  // translation, rotation quaternion (x, y, z, w; normalised here), scale.
  static Affine from_trs(const std::array<double, 3>& t, const std::array<double, 4>& q,
                         const std::array<double, 3>& s) noexcept {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    const double norm = std::sqrt(x * x + y * y + z * z + w * w);
    if (norm > 0) {
      x /= norm, y /= norm, z /= norm, w /= norm;
    } else {
      x = y = z = 0, w = 1;
    }
    const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    Affine a;
    for (int row = 0; row < 3; ++row) {
      for (int column = 0; column < 3; ++column) a.at(row, column) = r[row][column] * s[static_cast<std::size_t>(column)];
      a.at(row, 3) = t[static_cast<std::size_t>(row)];
    }
    return a;
  }

  // this * other: `other` applied first (a child's local transform under its parent's).
  Affine operator*(const Affine& other) const noexcept {
    Affine product;
    for (int row = 0; row < 4; ++row)
      for (int column = 0; column < 4; ++column) {
        double sum = 0;
        for (int k = 0; k < 4; ++k) sum += at(row, k) * other.at(k, column);
        product.at(row, column) = sum;
      }
    return product;
  }

  void apply_to_point(const double in[3], double out[3]) const noexcept {
    for (int row = 0; row < 3; ++row)
      out[row] = at(row, 0) * in[0] + at(row, 1) * in[1] + at(row, 2) * in[2] + at(row, 3);
  }
  // The linear part only (tangents, directions).
  void apply_to_vector(const double in[3], double out[3]) const noexcept {
    for (int row = 0; row < 3; ++row) out[row] = at(row, 0) * in[0] + at(row, 1) * in[1] + at(row, 2) * in[2];
  }

  double linear_determinant() const noexcept {
    return at(0, 0) * (at(1, 1) * at(2, 2) - at(1, 2) * at(2, 1)) -
           at(0, 1) * (at(1, 0) * at(2, 2) - at(1, 2) * at(2, 0)) +
           at(0, 2) * (at(1, 0) * at(2, 1) - at(1, 1) * at(2, 0));
  }
  bool mirrors_orientation() const noexcept { return linear_determinant() < 0; }

  // Inverse transpose of the linear part, row-major 3x3 (normals: n' = N n, then renormalise).
  // A singular transform (a zero scale) gives the cofactor matrix, which still maps normals
  // of the surviving directions correctly up to length.
  std::array<double, 9> normal_matrix() const noexcept {
    // cofactor(A) = det(A) * inverse(A)^T: the inverse transpose up to a positive or negative
    // factor, which the renormalisation after it removes (the sign is fixed below).
    std::array<double, 9> c{};
    const auto a = [&](int r, int col) { return at(r, col); };
    c[0] = a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1);
    c[1] = a(1, 2) * a(2, 0) - a(1, 0) * a(2, 2);
    c[2] = a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0);
    c[3] = a(0, 2) * a(2, 1) - a(0, 1) * a(2, 2);
    c[4] = a(0, 0) * a(2, 2) - a(0, 2) * a(2, 0);
    c[5] = a(0, 1) * a(2, 0) - a(0, 0) * a(2, 1);
    c[6] = a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1);
    c[7] = a(0, 2) * a(1, 0) - a(0, 0) * a(1, 2);
    c[8] = a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
    if (linear_determinant() < 0)
      for (double& v : c) v = -v;
    return c;
  }
};

// n' = N n renormalised (left as it is when N n is zero).
inline void transform_normal(const std::array<double, 9>& normal_matrix, const double in[3], double out[3]) noexcept {
  for (int row = 0; row < 3; ++row)
    out[row] = normal_matrix[static_cast<std::size_t>(row * 3)] * in[0] +
               normal_matrix[static_cast<std::size_t>(row * 3 + 1)] * in[1] +
               normal_matrix[static_cast<std::size_t>(row * 3 + 2)] * in[2];
  const double length = std::sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
  if (length > 0)
    for (int k = 0; k < 3; ++k) out[k] /= length;
}

}  // namespace meshioplusplus::io
