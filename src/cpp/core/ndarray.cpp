#include "meshioplusplus/ndarray.hpp"

#include <cstdint>
#include <cstring>
#include <iterator>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

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

#if defined(__linux__)
// Arrays this large come straight from the kernel, aligned to and advised for transparent
// huge pages: a reader fills each array once, front to back, and with 4 KiB pages about a
// third of a large read's time went to page faults on fresh output memory and to
// unmapping it afterwards. One 2 MiB page replaces 512 of those faults; where THP is
// switched off the advice is ignored and the mapping behaves like malloc's own. From 1 MiB
// (was 4 MiB): a 4 MB cell-data array then went through glibc, whose heap grew and was
// trimmed between one read and the next, so each of a process's first reads faulted it in
// afresh; here it is kept by MappingCache like the larger ones (VTI/VTR reads of 12 MB of
// arrays, fresh process, best of 3: 1.7-2.4 -> 1.6-1.8 ms).
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
constexpr std::size_t kKernelMappedBytes = std::size_t{1} << 20;

constexpr std::size_t kPageBytes = 4096;

std::size_t mapped_length(std::size_t bytes) noexcept { return (bytes + kPageBytes - 1) & ~(kPageBytes - 1); }

void* map_huge_page_aligned(std::size_t length) {
  void* const mapped = ::mmap(nullptr, length + kHugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(mapped);
  const std::uintptr_t aligned = (start + kHugePageBytes - 1) & ~std::uintptr_t{kHugePageBytes - 1};
  if (aligned > start) ::munmap(mapped, aligned - start);
  const std::uintptr_t tail = start + length + kHugePageBytes - (aligned + length);
  if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + length), tail);
  // Only whole huge pages: a partly used last one would count 2 MiB against the process for
  // the few bytes it holds, so the tail keeps small pages.
  ::madvise(reinterpret_cast<void*>(aligned), length & ~(kHugePageBytes - 1), MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

// The last few freed mappings, kept for an allocation of the same length: reading one mesh
// after another of the same size (time steps, training batches) then reuses memory that is
// already mapped and backed, instead of faulting in and zeroing fresh pages every time — what
// malloc does for smaller blocks. Bounded (kCachedMappings, kCachedBytes), so a program
// keeps at most that much it no longer uses.
class MappingCache {
 public:
  void* take(std::size_t length) {
    const std::lock_guard lock(mutex_);
    for (auto it = free_.rbegin(); it != free_.rend(); ++it)
      if (it->second == length) {
        void* const data = it->first;
        free_.erase(std::next(it).base());
        bytes_ -= length;
        return data;
      }
    return nullptr;
  }
  void give(void* data, std::size_t length) noexcept {
    const std::lock_guard lock(mutex_);
    if (length > kCachedBytes) {
      ::munmap(data, length);
      return;
    }
    while (!free_.empty() && (bytes_ + length > kCachedBytes || free_.size() >= kCachedMappings)) {
      ::munmap(free_.front().first, free_.front().second);
      bytes_ -= free_.front().second;
      free_.erase(free_.begin());
    }
    free_.emplace_back(data, length);  // reserved: no allocation here
    bytes_ += length;
  }

 private:
  static constexpr std::size_t kCachedMappings = 8;
  static constexpr std::size_t kCachedBytes = std::size_t{256} << 20;
  std::mutex mutex_;
  std::vector<std::pair<void*, std::size_t>> free_ = [] {
    std::vector<std::pair<void*, std::size_t>> entries;
    entries.reserve(kCachedMappings);
    return entries;
  }();
  std::size_t bytes_ = 0;
};

// Never destroyed: arrays may be freed during static destruction (a numpy array alive at
// interpreter exit).
MappingCache& mapping_cache() {
  static MappingCache* const cache = new MappingCache;
  return *cache;
}
#endif

void* default_heap_allocate(std::size_t bytes) {
#if defined(__linux__)
  if (bytes >= kKernelMappedBytes) {
    const std::size_t length = mapped_length(bytes);
    if (void* const reused = mapping_cache().take(length)) return reused;
    return map_huge_page_aligned(length);
  }
#endif
  return ::operator new(bytes == 0 ? 1 : bytes, kHeapAlignment);
}

// `keep`: the mapping may serve a later allocation (scratch memory is released at once, so a
// read's peak memory does not grow by the temporaries it has finished with).
void default_heap_free(void* data, std::size_t bytes, bool keep) noexcept {
#if defined(__linux__)
  if (bytes >= kKernelMappedBytes) {
    if (keep) mapping_cache().give(data, mapped_length(bytes));
    else ::munmap(data, mapped_length(bytes));
    return;
  }
#endif
  ::operator delete(data, kHeapAlignment);
}

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
    data_ = default_heap_allocate(nbytes);
  }
}

Buffer::Buffer(std::size_t nbytes, DefaultHeap) : nbytes_(nbytes), scratch_(true) { data_ = default_heap_allocate(nbytes); }

Buffer::~Buffer() {
  const std::size_t request = nbytes_ == 0 ? 1 : nbytes_;
  if (allocator_) {
    allocator_->free(data_, request, allocator_->user);
  } else {
    default_heap_free(data_, nbytes_, !scratch_);
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

std::string shape_text(const Shape& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace meshioplusplus
