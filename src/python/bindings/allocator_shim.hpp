// Floor 4: lets Python code (CuPy's pinned pool, torch, a counting allocator in tests)
// serve the core's NDArray allocations, so readers can land arrays directly in memory the
// caller chose — e.g. page-locked memory that a GPU can DMA from without a staging copy.
#pragma once

#include <nanobind/nanobind.h>

namespace meshioplusplus::bindings {

// Installs an allocator backed by the Python callables `alloc(nbytes) -> obj` (obj exposes a
// writable buffer of >= nbytes through the buffer protocol) and optional `free(obj)`.
// Returns a token; passing it to restore_allocator() reinstates whatever was current before.
nanobind::object install_python_allocator(nanobind::object alloc, nanobind::object free);
void restore_allocator(nanobind::handle token);

// The object `alloc` returned for the buffer containing `address`, or None when that memory
// did not come from a Python allocator.
nanobind::object python_allocation_owner(std::uintptr_t address);

// Counters for tests: live buffers and bytes held through Python allocators.
nanobind::dict python_allocator_stats();

void bind_allocator_shim(nanobind::module_& module);

}  // namespace meshioplusplus::bindings
