// Allocator-hook semantics: every owning buffer goes through the hook current at its
// allocation, remembers it, and is freed into it, whenever it dies.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/ndarray.hpp"

namespace mpp = meshioplusplus;

namespace {

struct CountingPool {
  std::atomic<long> allocations{0};
  std::atomic<long> frees{0};
  std::atomic<long> bytes_live{0};
};

void* counting_alloc(std::size_t bytes, void* user) {
  auto* pool = static_cast<CountingPool*>(user);
  ++pool->allocations;
  pool->bytes_live += static_cast<long>(bytes);
  return std::malloc(bytes);
}

void counting_free(void* pointer, std::size_t bytes, void* user) {
  auto* pool = static_cast<CountingPool*>(user);
  ++pool->frees;
  pool->bytes_live -= static_cast<long>(bytes);
  std::free(pointer);
}

mpp::BufferAllocator allocator_for(CountingPool& pool) { return {counting_alloc, counting_free, &pool}; }

// Restores the default heap even when a test fails half-way.
struct HookGuard {
  ~HookGuard() { mpp::set_buffer_allocator(nullptr); }
};

}  // namespace

TEST(NDArrayAllocator, OwningAllocationsGoThroughTheHook) {
  HookGuard guard;
  CountingPool pool;
  const mpp::BufferAllocator hook = allocator_for(pool);
  mpp::set_buffer_allocator(&hook);
  {
    mpp::NDArray array = mpp::NDArray::allocate(mpp::DType::float64, {10, 3});
    EXPECT_EQ(pool.allocations, 1);
    EXPECT_EQ(pool.bytes_live, 240);
    EXPECT_TRUE(array.owns_data());
    ASSERT_TRUE(array.buffer()->allocator());
    EXPECT_EQ(array.buffer()->allocator()->user, &pool);
  }
  EXPECT_EQ(pool.frees, 1);
  EXPECT_EQ(pool.bytes_live, 0);
}

TEST(NDArrayAllocator, ViewsAllocateNothing) {
  HookGuard guard;
  CountingPool pool;
  const mpp::BufferAllocator hook = allocator_for(pool);
  mpp::set_buffer_allocator(&hook);
  std::vector<double> storage(12, 1.5);
  mpp::NDArray view = mpp::NDArray::view(storage.data(), mpp::DType::float64, {4, 3});
  EXPECT_FALSE(view.owns_data());
  EXPECT_EQ(view.size(), 12u);
  EXPECT_EQ(view.values<double>()[11], 1.5);
  mpp::NDArray reshaped = view.reshaped({12});
  EXPECT_EQ(reshaped.data(), storage.data());
  EXPECT_EQ(pool.allocations, 0);
}

TEST(NDArrayAllocator, BufferFreedAfterUninstallGoesToItsOwnAllocator) {
  HookGuard guard;
  CountingPool pool;
  mpp::NDArray survivor;
  {
    const mpp::BufferAllocator hook = allocator_for(pool);
    mpp::set_buffer_allocator(&hook);
    survivor = mpp::NDArray::allocate(mpp::DType::int64, {100});
    mpp::set_buffer_allocator(nullptr);  // the hook struct itself goes out of scope too
  }
  mpp::NDArray on_heap = mpp::NDArray::allocate(mpp::DType::int64, {100});
  EXPECT_FALSE(on_heap.buffer()->allocator());
  EXPECT_EQ(pool.allocations, 1);
  survivor = mpp::NDArray();
  EXPECT_EQ(pool.frees, 1);
  EXPECT_EQ(pool.bytes_live, 0);
}

TEST(NDArrayAllocator, CopiesUseTheAllocatorCurrentAtCopyTime) {
  HookGuard guard;
  CountingPool first, second;
  const mpp::BufferAllocator first_hook = allocator_for(first);
  const mpp::BufferAllocator second_hook = allocator_for(second);
  mpp::set_buffer_allocator(&first_hook);
  mpp::NDArray original = mpp::NDArray::from_values<std::int32_t>({1, 2, 3});
  mpp::set_buffer_allocator(&second_hook);
  mpp::NDArray copy = original.copy();
  mpp::NDArray widened = original.astype(mpp::DType::int64);
  EXPECT_EQ(first.allocations, 1);
  EXPECT_EQ(second.allocations, 2);
  EXPECT_EQ(copy.values<std::int32_t>()[2], 3);
  EXPECT_EQ(widened.values<std::int64_t>()[1], 2);
  EXPECT_NE(copy.data(), original.data());
}

TEST(NDArrayAllocator, SharedHandlesFreeOnceAndAllocsBalanceFrees) {
  HookGuard guard;
  CountingPool pool;
  const mpp::BufferAllocator hook = allocator_for(pool);
  mpp::set_buffer_allocator(&hook);
  {
    std::vector<mpp::NDArray> arrays;
    for (int i = 0; i < 50; ++i) arrays.push_back(mpp::NDArray::zeros(mpp::DType::uint8, {i}));
    std::vector<mpp::NDArray> aliases = arrays;  // sharing, not copying
    EXPECT_EQ(pool.allocations, 50);
  }
  EXPECT_EQ(pool.frees, 50);
  EXPECT_EQ(pool.bytes_live, 0);
}

TEST(NDArrayAllocator, InstallingIsThreadSafe) {
  HookGuard guard;
  CountingPool pool;
  const mpp::BufferAllocator hook = allocator_for(pool);
  std::vector<std::thread> threads;
  std::atomic<long> allocated{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        if (t == 0) mpp::set_buffer_allocator(i % 2 ? &hook : nullptr);
        mpp::NDArray array = mpp::NDArray::allocate(mpp::DType::float32, {16});
        ++allocated;
      }
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(allocated, 2000);
  EXPECT_EQ(pool.allocations, pool.frees);
  EXPECT_EQ(pool.bytes_live, 0);
}

TEST(NDArrayAllocator, RejectsIncompleteAllocator) {
  const mpp::BufferAllocator broken{nullptr, counting_free, nullptr};
  EXPECT_THROW(mpp::set_buffer_allocator(&broken), std::invalid_argument);
}

TEST(NDArray, TypeCheckedAccessAndShapes) {
  mpp::NDArray array = mpp::NDArray::zeros(mpp::DType::float32, {2, 3, 4});
  EXPECT_EQ(array.ndim(), 3u);
  EXPECT_EQ(array.row_width(), 12);
  EXPECT_EQ(array.nbytes(), 96u);
  EXPECT_THROW(array.data_as<double>(), std::logic_error);
  EXPECT_THROW(array.reshaped({5}), std::invalid_argument);
  EXPECT_EQ(mpp::dtype_name(mpp::DType::uint16), "uint16");
  EXPECT_EQ(mpp::dtype_size(mpp::DType::int64), 8u);
}

TEST(BlockBases, CountsEveryBlockIncludingRaggedAndEmpty) {
  std::vector<mpp::CellBlock> blocks(3);
  blocks[0].type = "triangle";
  blocks[0].connectivity = mpp::NDArray::zeros(mpp::DType::int64, {5, 3});
  blocks[1].type = "tetra";
  blocks[1].connectivity = mpp::NDArray::zeros(mpp::DType::int64, {0, 4});
  blocks[2].type = "polygon";
  blocks[2].connectivity = mpp::NDArray::zeros(mpp::DType::int64, {7});
  blocks[2].offsets = mpp::NDArray::from_values<std::int64_t>({0, 3, 7});
  mpp::NDArray bases = mpp::block_bases(blocks);
  ASSERT_EQ(bases.size(), 4u);
  EXPECT_EQ(bases.values<std::int64_t>()[0], 0);
  EXPECT_EQ(bases.values<std::int64_t>()[1], 5);
  EXPECT_EQ(bases.values<std::int64_t>()[2], 5);
  EXPECT_EQ(bases.values<std::int64_t>()[3], 7);
}

TEST(NDArrayAllocator, ScratchBypassesTheHook) {
  HookGuard guard;
  CountingPool pool;
  const mpp::BufferAllocator hook = allocator_for(pool);
  mpp::set_buffer_allocator(&hook);
  mpp::NDArray scratch = mpp::NDArray::allocate_scratch(mpp::DType::int32, {1000});
  EXPECT_TRUE(scratch.owns_data());
  EXPECT_FALSE(scratch.buffer()->allocator());
  EXPECT_EQ(pool.allocations, 0);
}

// Without a hook, large arrays come from their own kernel mapping (huge-page aligned on
// Linux) and small ones from the heap; either way every byte is usable, a scratch copy
// follows the same rule, and freeing unmaps all of it (no leftover mappings pile up).
TEST(NDArrayAllocator, DefaultHeapServesEverySizeAroundTheMappingThreshold) {
  constexpr std::size_t kThreshold = std::size_t{1} << 20;  // kKernelMappedBytes
  const auto mapped_bytes = [] {  // the process's whole address space in use
    std::ifstream maps("/proc/self/maps");
    std::uint64_t total = 0;
    for (std::string line; std::getline(maps, line);) {
      const std::size_t dash = line.find('-');
      total += std::stoull(line.substr(dash + 1, line.find(' ') - dash - 1), nullptr, 16) -
               std::stoull(line.substr(0, dash), nullptr, 16);
    }
    return total;
  };
  const std::uint64_t mapped_before = mapped_bytes();
  for (int round = 0; round < 200; ++round) {
    for (std::size_t bytes : {std::size_t{0}, std::size_t{24}, kThreshold - 8, kThreshold, kThreshold + 8, 5 * kThreshold + 24}) {
      auto array = meshioplusplus::NDArray::allocate(meshioplusplus::DType::uint8, {static_cast<std::int64_t>(bytes)});
      auto* data = static_cast<unsigned char*>(array.data());
      ASSERT_NE(data, nullptr);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(data) % 64, 0u);
#if defined(__linux__)
      if (bytes >= kThreshold) EXPECT_EQ(reinterpret_cast<std::uintptr_t>(data) % (std::size_t{2} << 20), 0u);
#endif
      if (round == 0 && bytes > 0) {
        std::memset(data, 0xA5, bytes);
        EXPECT_EQ(data[bytes - 1], 0xA5);
        auto scratch = meshioplusplus::NDArray::allocate_scratch(meshioplusplus::DType::uint8, {static_cast<std::int64_t>(bytes)});
        std::memcpy(scratch.data(), data, bytes);
        EXPECT_EQ(static_cast<unsigned char*>(scratch.data())[bytes / 2], 0xA5);
      }
    }
  }
#if defined(__linux__)
  // Not under AddressSanitizer: its quarantine keeps freed blocks mapped, and its allocator
  // maps its own regions, so the address space says nothing about our mappings there.
#if defined(__SANITIZE_ADDRESS__)
#define MESHIOPLUSPLUS_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MESHIOPLUSPLUS_TEST_UNDER_ASAN 1
#endif
#endif
#ifndef MESHIOPLUSPLUS_TEST_UNDER_ASAN
  EXPECT_LE(mapped_bytes(), mapped_before + 64 * kThreshold);  // leaking would leave 200 x 36 MiB
#else
  (void)mapped_before;
#endif
#endif
}

#if defined(__linux__)
// A freed large mapping serves the next allocation of the same length (reading one mesh
// after another of the same size reuses memory already backed), and no other length.
TEST(NDArrayAllocator, FreedLargeMappingIsReusedForTheSameLength) {
  const std::int64_t bytes = std::int64_t{8} << 20;
  void* first_data = nullptr;
  {
    auto array = meshioplusplus::NDArray::allocate(meshioplusplus::DType::uint8, {bytes});
    first_data = array.data();
    std::memset(array.data(), 1, static_cast<std::size_t>(bytes));
  }
  {
    auto other_length = meshioplusplus::NDArray::allocate(meshioplusplus::DType::uint8, {bytes + (std::int64_t{2} << 20)});
    EXPECT_NE(other_length.data(), first_data);
  }
  auto again = meshioplusplus::NDArray::allocate(meshioplusplus::DType::uint8, {bytes});
  EXPECT_EQ(again.data(), first_data);
  EXPECT_EQ(static_cast<unsigned char*>(again.data())[bytes - 1], 1);  // the same pages, still mapped
}
#endif
