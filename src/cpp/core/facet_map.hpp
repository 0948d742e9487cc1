// Floor 1, private to src/cpp/core: a facet's key (its sorted corner nodes) and a hash map of
// facet keys. derive_side_regions matches boundary elements to cell facets with it; the
// clean-up operations (mesh_ops.cpp) compare facet keys to find the boundary.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus::detail {

// Sorted corner nodes, padded with -1: equal for the same facet seen from any cell.
using FacetKey = std::array<std::int64_t, 4>;

inline FacetKey make_key(const std::int64_t* nodes, const FacetCorners& facet) noexcept {
  FacetKey key{-1, -1, -1, -1};
  for (int i = 0; i < facet.count; ++i) key[static_cast<std::size_t>(i)] = nodes[facet.corners[static_cast<std::size_t>(i)]];
  std::sort(key.begin(), key.end());
  return key;
}

inline FacetKey make_key(const std::int64_t* nodes, int count) noexcept {
  FacetKey key{-1, -1, -1, -1};
  std::copy_n(nodes, count, key.begin());
  std::sort(key.begin(), key.end());
  return key;
}

inline std::uint64_t mix(std::uint64_t x) noexcept {  // splitmix64 finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Open-addressing map from a key to the last slot inserted with it; earlier slots with the same
// key are chained through `next` (the caller's array, one entry per slot).
class FacetMap {
 public:
  explicit FacetMap(std::size_t expected)
      : capacity_(std::bit_ceil(2 * expected + 16)), keys_(capacity_), heads_(capacity_, -1) {}

  // Links `slot` in front of the chain of `key`.
  void insert(const FacetKey& key, std::int64_t slot, std::vector<std::int64_t>& next) {
    std::size_t bucket = locate(key);
    if (heads_[bucket] < 0) keys_[bucket] = key;
    next[static_cast<std::size_t>(slot)] = heads_[bucket];
    heads_[bucket] = slot;
  }
  // The first slot with `key`, or -1.
  std::int64_t find(const FacetKey& key) const noexcept { return heads_[locate(key)]; }

 private:
  std::size_t locate(const FacetKey& key) const noexcept {
    std::uint64_t h = 0;
    for (const std::int64_t node : key) h = mix(h ^ static_cast<std::uint64_t>(node));
    std::size_t bucket = static_cast<std::size_t>(h) & (capacity_ - 1);
    while (heads_[bucket] >= 0 && keys_[bucket] != key) bucket = (bucket + 1) & (capacity_ - 1);
    return bucket;
  }

  std::size_t capacity_;
  std::vector<FacetKey> keys_;
  std::vector<std::int64_t> heads_;
};

}  // namespace meshioplusplus::detail
