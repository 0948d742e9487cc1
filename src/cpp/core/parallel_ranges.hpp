// Floor 1: work split over the machine's cores (thread_count()) with results identical to a
// sequential run: the same output and, when something is wrong, the same error (that of the
// earliest failing part). The I/O floor builds its text and copy helpers on these.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "meshioplusplus/threads.hpp"

namespace meshioplusplus {

// True on a thread while it runs one range of a split parallel_ranges: a parallel step nested
// in it (a writer's copy inside one of several pieces written side by side) stays on that
// thread, since the outer split already uses every core it may.
inline thread_local bool running_parallel_range = false;

// Runs `work(begin, end)` over contiguous ranges covering [0, count): one range per
// thread (thread_count()) when each gets at least `grain` items, a single call otherwise
// (always a single call inside a range of an outer split). After
// every range has finished, the exception of the earliest failing range is rethrown, so
// errors come out exactly as a sequential run would report them.
template <class Work> void parallel_ranges(std::size_t count, std::size_t grain, Work&& work) {
  const std::size_t ranges = std::min<std::size_t>(thread_count(), count / std::max<std::size_t>(grain, 1));
  if (ranges <= 1 || running_parallel_range) {
    work(std::size_t{0}, count);
    return;
  }
  std::vector<std::exception_ptr> errors(ranges);
  auto run = [&](std::size_t range) {
    const bool was_running = std::exchange(running_parallel_range, true);
    try {
      work(count * range / ranges, count * (range + 1) / ranges);
    } catch (...) {
      errors[range] = std::current_exception();
    }
    running_parallel_range = was_running;
  };
  std::vector<std::thread> threads;
  threads.reserve(ranges - 1);
  for (std::size_t range = 1; range < ranges; ++range) {
    try {
      threads.emplace_back(run, range);
    } catch (const std::system_error&) {
      run(range);  // no thread to be had: do that share here
    }
  }
  run(0);
  for (std::thread& thread : threads) thread.join();
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

// Like parallel_ranges, for items of unequal cost (compressed chunks: a run of zeros inflates
// ten times faster than a mesh's connectivity): items are handed out one at a time. `work`
// runs once per thread as work(claim), where claim() returns the next item, in increasing
// order, or `count` when none is left; per-thread state lives in `work`. If an item throws,
// no item after it is handed out, every item before it still runs, and the exception of the
// earliest failing item is rethrown: the error a sequential run would give.
template <class Work> void parallel_claims(std::size_t count, std::size_t grain, Work&& work) {
  const std::size_t workers = std::min<std::size_t>(thread_count(), count / std::max<std::size_t>(grain, 1));
  if (workers <= 1 || running_parallel_range) {
    std::size_t next = 0;
    work([&] { return next < count ? next++ : count; });
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> earliest_failure{count};
  std::vector<std::exception_ptr> errors(workers);
  std::vector<std::size_t> failed_item(workers, count);
  auto run = [&](std::size_t worker) {
    const bool was_running = std::exchange(running_parallel_range, true);
    std::size_t claimed = count;
    try {
      work([&] {
        const std::size_t item = next.fetch_add(1, std::memory_order_relaxed);
        claimed = item < count && item < earliest_failure.load(std::memory_order_relaxed) ? item : count;
        return claimed;
      });
    } catch (...) {
      errors[worker] = std::current_exception();
      failed_item[worker] = claimed;
      std::size_t seen = earliest_failure.load();
      while (claimed < seen && !earliest_failure.compare_exchange_weak(seen, claimed)) {
      }
    }
    running_parallel_range = was_running;
  };
  std::vector<std::thread> threads;
  threads.reserve(workers - 1);
  for (std::size_t worker = 1; worker < workers; ++worker) {
    try {
      threads.emplace_back(run, worker);
    } catch (const std::system_error&) {
      run(worker);
    }
  }
  run(0);
  for (std::thread& thread : threads) thread.join();
  std::size_t first = workers;
  for (std::size_t worker = 0; worker < workers; ++worker)
    if (errors[worker] && (first == workers || failed_item[worker] < failed_item[first])) first = worker;
  if (first != workers) std::rethrow_exception(errors[first]);
}

// Whether any of [0, count) has `is_bad(i)`: a branch-free pass on all cores, for checks that
// almost always pass (the caller then looks for the offender sequentially, to report it).
template <class IsBad> bool any_in_parallel(std::size_t count, IsBad&& is_bad) {
  std::atomic<bool> found{false};
  parallel_ranges(count, std::size_t{1} << 20, [&](std::size_t first, std::size_t last) {
    bool bad = false;
    for (std::size_t i = first; i < last; ++i) bad |= is_bad(i);
    if (bad) found.store(true, std::memory_order_relaxed);
  });
  return found.load();
}

// The position of the first index outside [0, limit) in `indices`, or indices.size(): the
// check that every cell names a point of the mesh (readers and writers alike). The pass over
// all values is branch-free and vectorises with SSE2 alone: x is outside iff x's sign bit is
// set or that of x - limit is clear (a 64-bit compare would need SSE4.2); only when something
// is outside is the first offender searched for.
inline std::size_t first_index_outside(std::span<const std::int64_t> indices, std::int64_t limit) {
  const auto bound = static_cast<std::uint64_t>(std::max<std::int64_t>(limit, 0));
  const std::int64_t* data = indices.data();
  std::atomic<bool> found{false};
  parallel_ranges(indices.size(), std::size_t{1} << 20, [&](std::size_t first, std::size_t last) {
    std::uint64_t flags = 0;
    for (std::size_t i = first; i < last; ++i) {
      const auto x = static_cast<std::uint64_t>(data[i]);
      flags |= x | ~(x - bound);
    }
    if (flags >> 63) found.store(true, std::memory_order_relaxed);
  });
  if (!found.load()) return indices.size();
  for (std::size_t i = 0; i < indices.size(); ++i)
    if (static_cast<std::uint64_t>(data[i]) >= bound) return i;
  return indices.size();
}

}  // namespace meshioplusplus
