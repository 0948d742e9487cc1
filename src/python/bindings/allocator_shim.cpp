#include "allocator_shim.hpp"

#include <nanobind/stl/shared_ptr.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "meshioplusplus/ndarray.hpp"

namespace nb = nanobind;

namespace meshioplusplus::bindings {
namespace {

// One installed Python allocator. It must outlive every buffer it served, which can be
// long after its context manager exited, so it is destroyed by whichever comes last: the
// token going away or the last buffer being freed.
struct PythonAllocatorState {
  PyObject* alloc = nullptr;
  PyObject* free = nullptr;  // Py_None when the caller gave none
  std::size_t live_buffers = 0;
  bool token_alive = true;
};

struct Allocation {
  std::size_t size;
  PyObject* owner;
  PythonAllocatorState* state;
};

std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}

// start address -> allocation; ordered so an interior pointer finds its buffer.
std::map<std::uintptr_t, Allocation>& allocations() {
  static auto* map = new std::map<std::uintptr_t, Allocation>();  // never destroyed: used at exit
  return *map;
}

bool interpreter_is_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

// Called with the GIL held.
void destroy_if_unused(PythonAllocatorState* state) {
  if (state->token_alive || state->live_buffers != 0) return;
  Py_XDECREF(state->alloc);
  Py_XDECREF(state->free);
  delete state;
}

void* python_alloc(std::size_t bytes, void* user) {
  auto* state = static_cast<PythonAllocatorState*>(user);
  if (!Py_IsInitialized() || interpreter_is_finalizing()) return nullptr;
  nb::gil_scoped_acquire gil;
  PyObject* owner = PyObject_CallFunction(state->alloc, "n", static_cast<Py_ssize_t>(bytes));
  if (owner == nullptr) {
    PyErr_WriteUnraisable(state->alloc);
    return nullptr;  // the core turns this into std::bad_alloc -> MemoryError
  }
  Py_buffer view;
  if (PyObject_GetBuffer(owner, &view, PyBUF_WRITABLE) != 0) {
    PyErr_WriteUnraisable(owner);
    Py_DECREF(owner);
    return nullptr;
  }
  void* data = view.buf;
  const auto length = static_cast<std::size_t>(view.len);
  PyBuffer_Release(&view);
  if (length < bytes || data == nullptr) {
    Py_DECREF(owner);
    return nullptr;
  }
  std::lock_guard lock(registry_mutex());
  allocations()[reinterpret_cast<std::uintptr_t>(data)] = {bytes, owner, state};
  ++state->live_buffers;
  return data;
}

void python_free(void* pointer, std::size_t, void* user) {
  // Buffers that die while the interpreter shuts down are leaked on purpose: calling into
  // Python then can crash, and the process is about to return the memory anyway.
  if (!Py_IsInitialized() || interpreter_is_finalizing()) return;
  auto* state = static_cast<PythonAllocatorState*>(user);
  nb::gil_scoped_acquire gil;
  Allocation allocation{};
  {
    std::lock_guard lock(registry_mutex());
    auto found = allocations().find(reinterpret_cast<std::uintptr_t>(pointer));
    if (found == allocations().end()) return;
    allocation = found->second;
    allocations().erase(found);
  }
  if (state->free != Py_None) {
    PyObject* result = PyObject_CallOneArg(state->free, allocation.owner);
    if (result == nullptr) PyErr_WriteUnraisable(state->free);
    Py_XDECREF(result);
  }
  Py_DECREF(allocation.owner);
  --state->live_buffers;
  destroy_if_unused(state);
}

// Returned to Python by install_python_allocator(); remembers what to restore.
struct AllocatorToken {
  std::shared_ptr<const BufferAllocator> previous;
  PythonAllocatorState* state = nullptr;

  AllocatorToken() = default;
  AllocatorToken(const AllocatorToken&) = delete;
  AllocatorToken& operator=(const AllocatorToken&) = delete;
  ~AllocatorToken() {
    if (state == nullptr) return;
    state->token_alive = false;
    destroy_if_unused(state);  // runs during Python object destruction: GIL held
  }
};

}  // namespace

nb::object install_python_allocator(nb::object alloc, nb::object free) {
  if (!PyCallable_Check(alloc.ptr())) throw nb::type_error("alloc must be callable");
  if (!free.is_none() && !PyCallable_Check(free.ptr())) throw nb::type_error("free must be callable or None");
  auto* state = new PythonAllocatorState();
  state->alloc = alloc.inc_ref().ptr();
  state->free = free.inc_ref().ptr();
  nb::object token = nb::cast(new AllocatorToken(), nb::rv_policy::take_ownership);
  auto& stored = nb::cast<AllocatorToken&>(token);
  stored.previous = current_buffer_allocator();
  stored.state = state;
  const BufferAllocator hook{python_alloc, python_free, state};
  set_buffer_allocator(&hook);
  return token;
}

void restore_allocator(nb::handle token) {
  const auto& stored = nb::cast<const AllocatorToken&>(token);
  set_buffer_allocator(stored.previous.get());
}

nb::object python_allocation_owner(std::uintptr_t address) {
  std::lock_guard lock(registry_mutex());
  auto& map = allocations();
  auto after = map.upper_bound(address);
  if (after == map.begin()) return nb::none();
  const auto& [start, allocation] = *std::prev(after);
  if (address >= start + allocation.size) return nb::none();
  return nb::borrow(allocation.owner);
}

nb::dict python_allocator_stats() {
  std::lock_guard lock(registry_mutex());
  std::size_t bytes = 0;
  for (const auto& entry : allocations()) bytes += entry.second.size;
  nb::dict stats;
  stats["live_buffers"] = allocations().size();
  stats["live_bytes"] = bytes;
  return stats;
}

void bind_allocator_shim(nb::module_& module) {
  nb::class_<AllocatorToken>(module, "AllocatorToken");
  module.def("install_python_allocator", &install_python_allocator, nb::arg("alloc"),
             nb::arg("free").none() = nb::none());
  module.def("restore_allocator", &restore_allocator, nb::arg("token"));
  module.def("python_allocation_owner", &python_allocation_owner, nb::arg("address"));
  module.def("python_allocator_stats", &python_allocator_stats);
}

}  // namespace meshioplusplus::bindings
