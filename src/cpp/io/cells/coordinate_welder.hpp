// Points given only as coordinates (STL corners, WKT rings) become indexed points: corners
// at the same position are one point. "Same" is exact floating-point equality per value, as
// meshio decides it: -0 and 0 are one point, a NaN coordinate never matches anything.
//
// The table holds ids only (open addressing, linear probing, at most half full); the caller
// keeps the coordinates and says where an id's are, so nothing is copied here and a table
// can grow without knowing the final count.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace meshioplusplus::io {

template <class T> class CoordinateWelder {
  static_assert(std::is_floating_point_v<T>);

 public:
  // `width` values per point; `expected_points` sizes the table (it grows past that).
  CoordinateWelder(std::size_t width, std::size_t expected_points)
      : width_(width), slots_(std::bit_ceil(std::max<std::size_t>(16, 2 * expected_points)), kEmpty) {}

  // The id whose coordinates equal `values`, among those added so far; otherwise `id` is
  // added and returned. `coordinates_of(id)` gives the values of an id added by an earlier
  // call (indexable: a pointer or a std::array), read when probing and when the table grows.
  template <class CoordinatesOf>
  std::int64_t find_or_add(const T* values, std::int64_t id, const CoordinatesOf& coordinates_of) {
    // Grown before probing, never after adding: `id`'s coordinates need not exist yet
    // (the caller stores them once it knows the point is new).
    if ((used_ + 1) * 2 > slots_.size()) grow(coordinates_of);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t slot = hash(values) & mask;; slot = (slot + 1) & mask) {
      const std::int64_t seen = slots_[slot];
      if (seen == kEmpty) {
        slots_[slot] = id;
        ++used_;
        return id;
      }
      if (equal(values, coordinates_of(seen))) return seen;
    }
  }

 private:
  static constexpr std::int64_t kEmpty = -1;

  template <class Values> std::size_t hash(const Values& values) const noexcept {
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    std::uint64_t h = 0x243F6A8885A308D3ull;
    for (std::size_t i = 0; i < width_; ++i) {
      const T value = values[i] == T(0) ? T(0) : values[i];  // -0 equals 0, so it must hash like it
      h = (h ^ std::bit_cast<Bits>(value)) * 0x9E3779B97F4A7C15ull;
      h ^= h >> 29;
    }
    return static_cast<std::size_t>(h);
  }

  template <class Stored> bool equal(const T* values, const Stored& stored) const noexcept {
    for (std::size_t i = 0; i < width_; ++i)
      if (!(values[i] == stored[i])) return false;
    return true;
  }

  template <class CoordinatesOf> void grow(const CoordinatesOf& coordinates_of) {
    std::vector<std::int64_t> old(slots_.size() * 2, kEmpty);
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const std::int64_t id : old) {
      if (id == kEmpty) continue;
      std::size_t slot = hash(coordinates_of(id)) & mask;
      while (slots_[slot] != kEmpty) slot = (slot + 1) & mask;
      slots_[slot] = id;
    }
  }

  std::size_t width_;
  std::vector<std::int64_t> slots_;
  std::size_t used_ = 0;
};

}  // namespace meshioplusplus::io
