// Floor 1: how much memory a reader may commit on the word of a file's header.
//
// Headers claim counts ("DIMENSIONS 7 7 2147483648", "100000000 attributes", a gzip stream
// that inflates a thousandfold). Readers check every claim before allocating for it:
// data the file spells out (explicit data) must fit in the bytes the file has left, and
// data a claim generates (implicit data: STRUCTURED_POINTS points, inflated gzip text) must
// fit in max_array_bytes(). A claim beyond either is a ReadError naming the file and the
// place of the claim, never std::bad_alloc or an out-of-memory kill.
//
// The default is half of the machine's physical memory. The environment variable
// MESHIOPLUSPLUS_MAX_ARRAY_BYTES (a byte count, read once at the first check) or
// set_max_array_bytes() change it, e.g. to read a huge structured grid on purpose or to
// keep a service reading untrusted uploads within a small budget.
#pragma once

#include <cstdint>

namespace meshioplusplus {

// The largest array (in bytes) a reader may allocate from a header's claim, now.
std::uint64_t max_array_bytes() noexcept;

// 0 restores the default (environment variable, else half of physical memory).
void set_max_array_bytes(std::uint64_t bytes) noexcept;

// Half of physical memory (at least 1 GiB when the machine does not say): the default.
std::uint64_t default_max_array_bytes() noexcept;

}  // namespace meshioplusplus
