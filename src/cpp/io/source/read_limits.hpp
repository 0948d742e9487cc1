// Floor 2: checks readers make on a header's claims before they allocate (see
// include/meshioplusplus/limits.hpp for the rule and the limit), and the other shared
// guards against hostile files: empty files, id and count arithmetic that would overflow.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "meshioplusplus/limits.hpp"

namespace meshioplusplus::io {

// count * each, or nullopt when the product does not fit in 64 bits.
inline std::optional<std::uint64_t> checked_product(std::uint64_t count, std::uint64_t each) noexcept {
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(count, each, &product)) return std::nullopt;
  return product;
}

// a + b for signed ids and counts, or nullopt on overflow.
inline std::optional<std::int64_t> checked_sum(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

// `id - first` for an id read from a file, without signed overflow for ids at the int64 limits:
// the difference is taken modulo 2^64, so an id below `first` or past the run comes out
// negative or huge, never wrapped into range by UB. Check the result with `id_within` (one
// unsigned compare, so a loop over a connectivity array stays a vector loop).
constexpr std::int64_t id_offset(std::int64_t id, std::int64_t first) noexcept {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(id) - static_cast<std::uint64_t>(first));
}

// True when a position from `id_offset`/`zero_based` is one of 0..count-1 (count >= 0).
constexpr bool id_within(std::int64_t position, std::int64_t count) noexcept {
  return static_cast<std::uint64_t>(position) < static_cast<std::uint64_t>(count);
}

// A 1-based file id as a 0-based index without signed overflow: INT64_MIN wraps to
// INT64_MAX, which the range check every reader makes afterwards refuses. one_based() is
// the inverse, for messages that quote the id as written.
constexpr std::int64_t zero_based(std::int64_t id) noexcept { return id_offset(id, 1); }
constexpr std::int64_t one_based(std::int64_t index) noexcept {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(index) + 1);
}

// Where a claim stands in the file: what a ReadError about it names.
struct ClaimSite {
  std::optional<std::uint64_t> byte_offset;
  std::optional<std::uint64_t> line;
};

// Explicit data: `count` items the file spells out, each taking at least `min_file_bytes_each`
// bytes of it (a binary element's size; 2 for a number in text, digit and separator), must
// fit in the `bytes_left` bytes after the claim. Throws ReadError(path, format) otherwise.
void check_claim_fits_file(const std::string& path, std::string_view format, std::string_view what,
                           std::uint64_t count, std::uint64_t min_file_bytes_each, std::uint64_t bytes_left,
                           ClaimSite site = {});

// Implicit data (or any allocation a claim decides): `count` items of `bytes_each` bytes in
// memory must stay within max_array_bytes(). Throws ReadError(path, format) otherwise.
void check_claim_fits_limit(const std::string& path, std::string_view format, std::string_view what,
                            std::uint64_t count, std::uint64_t bytes_each, ClaimSite site = {});

// Both: the usual check for an array read from the file.
inline void check_claim(const std::string& path, std::string_view format, std::string_view what,
                        std::uint64_t count, std::uint64_t min_file_bytes_each, std::uint64_t bytes_left,
                        std::uint64_t bytes_each_in_memory, ClaimSite site = {}) {
  check_claim_fits_file(path, format, what, count, min_file_bytes_each, bytes_left, site);
  check_claim_fits_limit(path, format, what, count, bytes_each_in_memory, site);
}

// A file with nothing but white space in it is no mesh for formats that need a header or
// at least one record: ReadError "the file is empty". Stops at the first other byte.
void reject_empty_file(std::string_view bytes, const std::string& path, std::string_view format);

}  // namespace meshioplusplus::io
