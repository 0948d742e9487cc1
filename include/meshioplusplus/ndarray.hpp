// Floor 0: typed, shaped, row-major buffers and the process-global allocator hook.
//
// Every owning buffer is allocated through the allocator installed with
// set_buffer_allocator() at the moment of allocation, and remembers that allocator
// (shared ownership) so it is freed into the pool it came from, whenever it dies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace meshioplusplus {

enum class DType : std::uint8_t {
  int8, int16, int32, int64,
  uint8, uint16, uint32, uint64,
  float32, float64,
};

std::size_t dtype_size(DType dtype) noexcept;
// numpy-style names: "int8" … "float64".
std::string_view dtype_name(DType dtype) noexcept;
bool dtype_is_float(DType dtype) noexcept;
bool dtype_is_signed_int(DType dtype) noexcept;
bool dtype_is_unsigned_int(DType dtype) noexcept;

template <class T> constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, std::int8_t>) return DType::int8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return DType::int16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return DType::int32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return DType::int64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return DType::uint8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return DType::uint16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return DType::uint32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return DType::uint64;
  else if constexpr (std::is_same_v<T, float>) return DType::float32;
  else if constexpr (std::is_same_v<T, double>) return DType::float64;
  else static_assert(sizeof(T) == 0, "unsupported element type");
}

// Calls `fn(T{})` with T the C++ type of `dtype` (dispatch from runtime dtype to templates).
template <class Fn> decltype(auto) visit_dtype(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::int8: return fn(std::int8_t{});
    case DType::int16: return fn(std::int16_t{});
    case DType::int32: return fn(std::int32_t{});
    case DType::int64: return fn(std::int64_t{});
    case DType::uint8: return fn(std::uint8_t{});
    case DType::uint16: return fn(std::uint16_t{});
    case DType::uint32: return fn(std::uint32_t{});
    case DType::uint64: return fn(std::uint64_t{});
    case DType::float32: return fn(float{});
    case DType::float64: break;
  }
  return fn(double{});
}

// Plain C callbacks so that any runtime (CUDA pinned pools, Python allocators) can plug in.
// `free` receives the same byte count that `alloc` was asked for.
struct BufferAllocator {
  void* (*alloc)(std::size_t bytes, void* user);
  void (*free)(void* ptr, std::size_t bytes, void* user);
  void* user;
};

// Installs `allocator` (copied) for all later owning allocations; nullptr restores the
// default heap. Thread-safe. Live buffers are unaffected.
void set_buffer_allocator(const BufferAllocator* allocator);
// The allocator new buffers get now; null means the default heap.
std::shared_ptr<const BufferAllocator> current_buffer_allocator();

// One owning allocation. Freed through the allocator it was born with.
class Buffer {
 public:
  // Allocates `nbytes` through the current allocator. Throws std::bad_alloc on failure.
  explicit Buffer(std::size_t nbytes);
  // Allocates `nbytes` on the default heap, bypassing the hook: a reader's temporary, whose
  // memory goes straight back to the system when freed (it dies within the read).
  struct DefaultHeap {};
  Buffer(std::size_t nbytes, DefaultHeap);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const noexcept { return data_; }
  std::size_t nbytes() const noexcept { return nbytes_; }
  // Null when the buffer came from the default heap.
  const std::shared_ptr<const BufferAllocator>& allocator() const noexcept { return allocator_; }

 private:
  void* data_ = nullptr;
  std::size_t nbytes_ = 0;
  std::shared_ptr<const BufferAllocator> allocator_;
  bool scratch_ = false;
};

using Shape = std::vector<std::int64_t>;

// A shape as numpy prints it, for messages: "(5,)", "(5, 3)", "()".
std::string shape_text(const Shape& shape);

// A runtime-typed row-major array: either owning (shares a Buffer) or a non-owning view
// over memory someone else keeps alive. Copying an NDArray object shares the buffer;
// use copy() for a deep copy.
class NDArray {
 public:
  NDArray() = default;

  // Owning, uninitialised, allocated once through the current allocator hook.
  static NDArray allocate(DType dtype, Shape shape);
  static NDArray zeros(DType dtype, Shape shape);
  // Owning scratch on the default heap, never through the hook: for temporaries a reader
  // needs while parsing (file-dtype staging, offsets) that are not returned to the caller.
  static NDArray allocate_scratch(DType dtype, Shape shape);
  // Non-owning: allocates nothing. The caller keeps `data` alive while the view is used.
  static NDArray view(void* data, DType dtype, Shape shape);
  template <class T> static NDArray from_values(std::initializer_list<T> values);

  // Deep copy through the allocator current at copy time.
  NDArray copy() const;
  // Deep copy converted to `dtype` (values static_cast element-wise).
  NDArray astype(DType dtype) const;

  bool empty_handle() const noexcept { return data_ == nullptr && shape_.empty(); }
  bool owns_data() const noexcept { return buffer_ != nullptr; }
  const std::shared_ptr<Buffer>& buffer() const noexcept { return buffer_; }

  DType dtype() const noexcept { return dtype_; }
  const Shape& shape() const noexcept { return shape_; }
  std::size_t ndim() const noexcept { return shape_.size(); }
  std::int64_t dim(std::size_t axis) const { return shape_.at(axis); }
  std::int64_t rows() const noexcept { return shape_.empty() ? 0 : shape_[0]; }
  // Elements per row: product of all dimensions after the first (1 for a 1-D array).
  std::int64_t row_width() const noexcept {
    std::int64_t width = 1;
    for (std::size_t axis = 1; axis < shape_.size(); ++axis) width *= shape_[axis];
    return width;
  }
  std::size_t size() const noexcept;  // element count
  std::size_t nbytes() const noexcept { return size() * dtype_size(dtype_); }

  void* data() noexcept { return data_; }
  const void* data() const noexcept { return data_; }

  template <class T> T* data_as() {
    check_type<T>();
    return static_cast<T*>(data_);
  }
  template <class T> const T* data_as() const {
    check_type<T>();
    return static_cast<const T*>(data_);
  }
  template <class T> std::span<T> values() { return {data_as<T>(), size()}; }
  template <class T> std::span<const T> values() const { return {data_as<T>(), size()}; }

  // Same buffer, new shape with the same element count.
  NDArray reshaped(Shape shape) const;

 private:
  template <class T> void check_type() const {
    if (dtype_of<T>() != dtype_) throw_type_mismatch(dtype_of<T>());
  }
  [[noreturn]] void throw_type_mismatch(DType requested) const;

  DType dtype_ = DType::float64;
  Shape shape_;
  void* data_ = nullptr;
  std::shared_ptr<Buffer> buffer_;
};

template <class T> NDArray NDArray::from_values(std::initializer_list<T> values) {
  NDArray array = allocate(dtype_of<T>(), {static_cast<std::int64_t>(values.size())});
  T* out = array.data_as<T>();
  for (const T& v : values) *out++ = v;
  return array;
}

}  // namespace meshioplusplus
