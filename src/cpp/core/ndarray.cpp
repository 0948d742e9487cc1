#include "meshioplusplus/ndarray.hpp"

#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

namespace meshioplusplus {

std::size_t dtype_size(DType dtype) noexcept {
  switch (dtype) {
    case DType::int8: case DType::uint8: return 1;
    case DType::int16: case DType::uint16: return 2;
    case DType::int32: case DType::uint32: case DType::float32: return 4;
    case DType::int64: case DType::uint64: case DType::float64: return 8;
  }
  return 8;
}

std::string_view dtype_name(DType dtype) noexcept {
  switch (dtype) {
    case DType::int8: return "int8";
    case DType::int16: return "int16";
    case DType::int32: return "int32";
    case DType::int64: return "int64";
    case DType::uint8: return "uint8";
    case DType::uint16: return "uint16";
    case DType::uint32: return "uint32";
    case DType::uint64: return "uint64";
    case DType::float32: return "float32";
    case DType::float64: return "float64";
  }
  return "float64";
}

bool dtype_is_float(DType dtype) noexcept {
  return dtype == DType::float32 || dtype == DType::float64;
}
bool dtype_is_signed_int(DType dtype) noexcept {
  return dtype == DType::int8 || dtype == DType::int16 || dtype == DType::int32 ||
         dtype == DType::int64;
}
bool dtype_is_unsigned_int(DType dtype) noexcept {
  return !dtype_is_float(dtype) && !dtype_is_signed_int(dtype);
}

namespace {

std::mutex& allocator_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::shared_ptr<const BufferAllocator>& installed_allocator() {
  static std::shared_ptr<const BufferAllocator> allocator;
  return allocator;
}

// Cache-line alignment keeps SIMD loads and DMA engines happy on the default heap.
constexpr std::align_val_t kHeapAlignment{64};

}  // namespace

void set_buffer_allocator(const BufferAllocator* allocator) {
  std::shared_ptr<const BufferAllocator> next;
  if (allocator != nullptr) {
    if (allocator->alloc == nullptr || allocator->free == nullptr)
      throw std::invalid_argument("BufferAllocator needs both alloc and free callbacks");
    next = std::make_shared<const BufferAllocator>(*allocator);
  }
  std::lock_guard lock(allocator_mutex());
  installed_allocator() = std::move(next);
}

std::shared_ptr<const BufferAllocator> current_buffer_allocator() {
  std::lock_guard lock(allocator_mutex());
  return installed_allocator();
}

Buffer::Buffer(std::size_t nbytes) : nbytes_(nbytes), allocator_(current_buffer_allocator()) {
  // A zero-byte request still yields a distinct pointer, so empty arrays stay valid handles.
  const std::size_t request = nbytes == 0 ? 1 : nbytes;
  if (allocator_) {
    data_ = allocator_->alloc(request, allocator_->user);
    if (data_ == nullptr) throw std::bad_alloc();
  } else {
    data_ = ::operator new(request, kHeapAlignment);
  }
}

Buffer::Buffer(std::size_t nbytes, DefaultHeap) : nbytes_(nbytes) {
  data_ = ::operator new(nbytes == 0 ? 1 : nbytes, kHeapAlignment);
}

Buffer::~Buffer() {
  const std::size_t request = nbytes_ == 0 ? 1 : nbytes_;
  if (allocator_) {
    allocator_->free(data_, request, allocator_->user);
  } else {
    ::operator delete(data_, kHeapAlignment);
  }
}

namespace {
std::size_t element_count(const Shape& shape) {
  std::size_t count = 1;
  for (std::int64_t extent : shape) {
    if (extent < 0) throw std::invalid_argument("negative array extent");
    count *= static_cast<std::size_t>(extent);
  }
  return count;
}
}  // namespace

NDArray NDArray::allocate(DType dtype, Shape shape) {
  NDArray array;
  array.dtype_ = dtype;
  const std::size_t bytes = element_count(shape) * dtype_size(dtype);
  array.shape_ = std::move(shape);
  array.buffer_ = std::make_shared<Buffer>(bytes);
  array.data_ = array.buffer_->data();
  return array;
}

NDArray NDArray::allocate_scratch(DType dtype, Shape shape) {
  NDArray array;
  array.dtype_ = dtype;
  const std::size_t bytes = element_count(shape) * dtype_size(dtype);
  array.shape_ = std::move(shape);
  array.buffer_ = std::make_shared<Buffer>(bytes, Buffer::DefaultHeap{});
  array.data_ = array.buffer_->data();
  return array;
}

NDArray NDArray::zeros(DType dtype, Shape shape) {
  NDArray array = allocate(dtype, std::move(shape));
  std::memset(array.data_, 0, array.nbytes());
  return array;
}

NDArray NDArray::view(void* data, DType dtype, Shape shape) {
  NDArray array;
  array.dtype_ = dtype;
  array.shape_ = std::move(shape);
  element_count(array.shape_);  // validates extents
  array.data_ = data;
  return array;
}

NDArray NDArray::copy() const {
  NDArray result = allocate(dtype_, shape_);
  if (nbytes() != 0) std::memcpy(result.data_, data_, nbytes());
  return result;
}

NDArray NDArray::astype(DType dtype) const {
  if (dtype == dtype_) return copy();
  NDArray result = allocate(dtype, shape_);
  const std::size_t count = size();
  visit_dtype(dtype_, [&](auto source_tag) {
    using Source = decltype(source_tag);
    const Source* source = static_cast<const Source*>(data_);
    visit_dtype(dtype, [&](auto target_tag) {
      using Target = decltype(target_tag);
      Target* target = static_cast<Target*>(result.data_);
      for (std::size_t i = 0; i < count; ++i) target[i] = static_cast<Target>(source[i]);
    });
  });
  return result;
}

std::int64_t NDArray::row_width() const noexcept {
  std::int64_t width = 1;
  for (std::size_t axis = 1; axis < shape_.size(); ++axis) width *= shape_[axis];
  return width;
}

std::size_t NDArray::size() const noexcept {
  if (shape_.empty()) return data_ ? 1 : 0;
  std::size_t count = 1;
  for (std::int64_t extent : shape_) count *= static_cast<std::size_t>(extent);
  return count;
}

NDArray NDArray::reshaped(Shape shape) const {
  if (element_count(shape) != size())
    throw std::invalid_argument("reshape changes the element count");
  NDArray result = *this;
  result.shape_ = std::move(shape);
  return result;
}

void NDArray::throw_type_mismatch(DType requested) const {
  throw std::logic_error("NDArray holds " + std::string(dtype_name(dtype_)) + ", accessed as " +
                         std::string(dtype_name(requested)));
}

}  // namespace meshioplusplus
