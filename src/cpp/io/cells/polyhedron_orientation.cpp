// See polyhedron_orientation.hpp.
#include "io/cells/polyhedron_orientation.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/parallel_ranges.hpp"

namespace meshioplusplus::io {

namespace {

using Point = std::array<double, 3>;

Point minus(const Point& a, const Point& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Point cross(const Point& a, const Point& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Point& a, const Point& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// One side of an edge of a face: the edge's nodes low < high, and whether the face walks it
// from low to high.
struct HalfEdge {
  std::int64_t low, high;
  std::int32_t face;
  bool forward;
};

struct Link {
  std::int32_t other;
  bool same_direction;  // both faces walk the edge the same way: exactly one must turn
};

template <class T> class CellOrienter {
 public:
  CellOrienter(const T* coordinates, std::int64_t width, const std::int64_t* face_offsets, std::int64_t* nodes)
      : coordinates_(coordinates), width_(width), face_offsets_(face_offsets), nodes_(nodes) {}

  // Orients faces [first, last) (one cell's) outward; returns how many were turned.
  std::int64_t orient(std::int64_t first, std::int64_t last) {
    const auto count = static_cast<std::size_t>(last - first);
    first_ = first;
    turn_.assign(count, false);
    centre_ = cell_centre(first, last);
    if (!orient_by_edges(count)) {
      for (std::size_t f = 0; f < count; ++f) turn_[f] = dot(normal(f), minus(face_centre(f), centre_)) < 0;
    }
    std::int64_t turned = 0;
    for (std::size_t f = 0; f < count; ++f) {
      if (!turn_[f]) continue;
      std::int64_t* begin = nodes_ + face_offsets_[first_ + static_cast<std::int64_t>(f)];
      std::int64_t* end = nodes_ + face_offsets_[first_ + static_cast<std::int64_t>(f) + 1];
      if (end - begin > 2) std::reverse(begin + 1, end);
      ++turned;
    }
    return turned;
  }

 private:
  Point point(std::int64_t node) const {
    Point p{0.0, 0.0, 0.0};
    for (std::int64_t axis = 0; axis < std::min<std::int64_t>(width_, 3); ++axis)
      p[static_cast<std::size_t>(axis)] = static_cast<double>(coordinates_[node * width_ + axis]);
    return p;
  }

  std::pair<const std::int64_t*, const std::int64_t*> face(std::size_t f) const {
    const std::int64_t index = first_ + static_cast<std::int64_t>(f);
    return {nodes_ + face_offsets_[index], nodes_ + face_offsets_[index + 1]};
  }

  Point cell_centre(std::int64_t first, std::int64_t last) const {
    Point sum{0.0, 0.0, 0.0};
    std::int64_t n = 0;
    for (std::int64_t k = face_offsets_[first]; k < face_offsets_[last]; ++k, ++n) {
      const Point p = point(nodes_[k]);
      for (std::size_t a = 0; a < 3; ++a) sum[a] += p[a];
    }
    if (n > 0)
      for (double& value : sum) value /= static_cast<double>(n);
    return sum;
  }

  Point face_centre(std::size_t f) const {
    const auto [begin, end] = face(f);
    Point sum{0.0, 0.0, 0.0};
    for (const std::int64_t* node = begin; node != end; ++node) {
      const Point p = point(*node);
      for (std::size_t a = 0; a < 3; ++a) sum[a] += p[a];
    }
    if (end > begin)
      for (double& value : sum) value /= static_cast<double>(end - begin);
    return sum;
  }

  // Newell's normal (twice the area vector), relative to the cell centre for precision.
  Point normal(std::size_t f) const {
    const auto [begin, end] = face(f);
    Point sum{0.0, 0.0, 0.0};
    const std::ptrdiff_t n = end - begin;
    for (std::ptrdiff_t k = 0; k < n; ++k) {
      const Point c = cross(minus(point(begin[k]), centre_), minus(point(begin[(k + 1) % n]), centre_));
      for (std::size_t a = 0; a < 3; ++a) sum[a] += c[a];
    }
    return sum;
  }

  // Six times the signed volume the faces in `members` enclose with their current turns.
  double signed_volume(const std::vector<std::int32_t>& members) const {
    double volume = 0.0;
    for (std::int32_t f : members) {
      const auto [begin, end] = face(static_cast<std::size_t>(f));
      const std::ptrdiff_t n = end - begin;
      const Point anchor = minus(point(begin[0]), centre_);
      double face_volume = 0.0;
      for (std::ptrdiff_t k = 1; k + 1 < n; ++k)
        face_volume += dot(anchor, cross(minus(point(begin[k]), centre_), minus(point(begin[k + 1]), centre_)));
      volume += turn_[static_cast<std::size_t>(f)] ? -face_volume : face_volume;
    }
    return volume;
  }

  // Consistent turns through shared edges, then each closed component turned to a positive
  // volume; false when the faces do not form closed oriented surfaces.
  bool orient_by_edges(std::size_t count) {
    half_edges_.clear();
    for (std::size_t f = 0; f < count; ++f) {
      const auto [begin, end] = face(f);
      const std::ptrdiff_t n = end - begin;
      if (n < 3) return false;
      for (std::ptrdiff_t k = 0; k < n; ++k) {
        const std::int64_t a = begin[k], b = begin[(k + 1) % n];
        if (a == b) return false;
        half_edges_.push_back({std::min(a, b), std::max(a, b), static_cast<std::int32_t>(f), a < b});
      }
    }
    std::sort(half_edges_.begin(), half_edges_.end(), [](const HalfEdge& x, const HalfEdge& y) {
      return x.low != y.low ? x.low < y.low : x.high != y.high ? x.high < y.high : x.face < y.face;
    });
    links_.assign(count, {});
    for (std::size_t i = 0; i < half_edges_.size(); i += 2) {
      if (i + 1 >= half_edges_.size()) return false;
      const HalfEdge& a = half_edges_[i];
      const HalfEdge& b = half_edges_[i + 1];
      const bool paired = a.low == b.low && a.high == b.high;
      const bool third = i + 2 < half_edges_.size() && half_edges_[i + 2].low == a.low && half_edges_[i + 2].high == a.high;
      if (!paired || third || a.face == b.face) return false;
      links_[static_cast<std::size_t>(a.face)].push_back({b.face, a.forward == b.forward});
      links_[static_cast<std::size_t>(b.face)].push_back({a.face, a.forward == b.forward});
    }
    visited_.assign(count, false);
    for (std::size_t start = 0; start < count; ++start) {
      if (visited_[start]) continue;
      component_.assign(1, static_cast<std::int32_t>(start));
      visited_[start] = true;
      for (std::size_t next = 0; next < component_.size(); ++next) {
        const auto f = static_cast<std::size_t>(component_[next]);
        for (const Link& link : links_[f]) {
          const auto g = static_cast<std::size_t>(link.other);
          const bool wanted = turn_[f] != link.same_direction;
          if (!visited_[g]) {
            visited_[g] = true;
            turn_[g] = wanted;
            component_.push_back(link.other);
          } else if (turn_[g] != wanted) {
            return false;  // a one-sided (Moebius-like) surface: no consistent orientation
          }
        }
      }
      if (signed_volume(component_) < 0)
        for (std::int32_t f : component_) turn_[static_cast<std::size_t>(f)] = !turn_[static_cast<std::size_t>(f)];
    }
    return true;
  }

  const T* coordinates_;
  std::int64_t width_;
  const std::int64_t* face_offsets_;
  std::int64_t* nodes_;
  std::int64_t first_ = 0;
  Point centre_{};
  std::vector<bool> turn_, visited_;
  std::vector<HalfEdge> half_edges_;
  std::vector<std::vector<Link>> links_;
  std::vector<std::int32_t> component_;
};

template <class T> std::int64_t orient_all(const T* coordinates, std::int64_t width, CellBlock& cells) {
  const std::int64_t* offsets = cells.offsets.data_as<std::int64_t>();
  const std::int64_t* face_offsets = cells.face_offsets.data_as<std::int64_t>();
  std::int64_t* nodes = cells.connectivity.data_as<std::int64_t>();
  std::atomic<std::int64_t> turned{0};
  parallel_ranges(static_cast<std::size_t>(cells.num_cells()), std::size_t{1} << 12, [&](std::size_t first, std::size_t last) {
    CellOrienter<T> orienter(coordinates, width, face_offsets, nodes);
    std::int64_t local = 0;
    for (std::size_t cell = first; cell < last; ++cell)
      local += orienter.orient(offsets[cell], offsets[cell + 1]);
    turned.fetch_add(local, std::memory_order_relaxed);
  });
  return turned.load();
}

}  // namespace

std::int64_t orient_polyhedron_faces_outward(const NDArray& points, CellBlock& cells) {
  if (cells.num_cells() == 0 || points.size() == 0) return 0;
  const std::int64_t width = points.ndim() == 2 ? points.dim(1) : 1;
  if (points.dtype() == DType::float32) return orient_all(points.data_as<float>(), width, cells);
  if (points.dtype() == DType::float64) return orient_all(points.data_as<double>(), width, cells);
  const NDArray converted = points.astype(DType::float64);
  return orient_all(converted.data_as<double>(), width, cells);
}

}  // namespace meshioplusplus::io
