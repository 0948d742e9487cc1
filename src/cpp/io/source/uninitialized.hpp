// Vectors whose resize() leaves the new numbers uninitialized, for arrays a parser fills
// completely right after sizing them (often on several cores, io::parse_lines_in_parallel):
// std::vector's resize value-initializes, a memset of the whole array on one thread, whose
// page faults the fill would otherwise share between its threads. Anything but resize (push_back,
// insert, assign with a value) behaves as std::vector's.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace meshioplusplus::io {

template <class T, class Base = std::allocator<T>>
class DefaultInitAllocator : public Base {
  using Traits = std::allocator_traits<Base>;

 public:
  template <class U> struct rebind {
    using other = DefaultInitAllocator<U, typename Traits::template rebind_alloc<U>>;
  };
  using Base::Base;
  DefaultInitAllocator() noexcept = default;
  template <class U, class B> DefaultInitAllocator(const DefaultInitAllocator<U, B>& other) noexcept : Base(other) {}

  // Default-initialization: no value for numbers.
  template <class U> void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) { ::new (static_cast<void*>(p)) U; }
  template <class U, class... Args> void construct(U* p, Args&&... args) {
    Traits::construct(static_cast<Base&>(*this), p, std::forward<Args>(args)...);
  }
};

template <class T> using UninitializedVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace meshioplusplus::io
