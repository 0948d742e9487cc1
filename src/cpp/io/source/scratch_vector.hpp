// Vectors for a read's large temporaries (a face list's cell lists, a builder's tallies) whose
// memory goes back to the system the moment they are freed. glibc raises its mmap threshold
// each time it frees a mapped block, so after a few large frees a process's next large vectors
// come from its heap, which it keeps when they are freed: a read's peak memory then counts
// temporaries it finished with long before. Here a block of 1 MiB or more is its own anonymous
// mapping (unmapped when freed); smaller ones come from operator new. Like UninitializedVector,
// resize() leaves new numbers uninitialized (the caller fills them); anything else behaves as
// std::vector's.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <vector>

#include "io/source/uninitialized.hpp"

namespace meshioplusplus::io {

template <class T>
struct ReleasingAllocator {
  using value_type = T;
  ReleasingAllocator() noexcept = default;
  template <class U> ReleasingAllocator(const ReleasingAllocator<U>&) noexcept {}

  static constexpr std::size_t kMappedBytes = std::size_t{1} << 20;

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes >= kMappedBytes) {
      void* mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (mapped == MAP_FAILED) throw std::bad_alloc();
      return static_cast<T*>(mapped);
    }
    return static_cast<T*>(::operator new(bytes));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes >= kMappedBytes) ::munmap(p, bytes);
    else ::operator delete(p);
  }
  template <class U> bool operator==(const ReleasingAllocator<U>&) const noexcept { return true; }
};

template <class T> using ScratchVector = std::vector<T, DefaultInitAllocator<T, ReleasingAllocator<T>>>;

// Frees a vector's memory now (`v = {}` or clear() keep its capacity).
template <class Vector> void free_now(Vector& v) noexcept { Vector().swap(v); }

}  // namespace meshioplusplus::io
