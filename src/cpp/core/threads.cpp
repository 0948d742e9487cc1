#include "meshioplusplus/threads.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace meshioplusplus {
namespace {

unsigned default_thread_count() noexcept {
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const char* text = std::getenv("MESHIOPLUSPLUS_NUM_THREADS");
  if (text == nullptr) return hardware;
  unsigned requested = 0;
  const char* end = text + std::strlen(text);
  const auto [stop, error] = std::from_chars(text, end, requested);
  if (error != std::errc{} || stop != end || requested == 0) return hardware;  // unset or unreadable: the default
  return requested;
}

std::atomic<unsigned> chosen_count{0};  // 0: not chosen by the program

}  // namespace

unsigned thread_count() noexcept {
  const unsigned chosen = chosen_count.load(std::memory_order_relaxed);
  if (chosen != 0) return chosen;
  static const unsigned from_environment = default_thread_count();
  return from_environment;
}

void set_thread_count(unsigned count) noexcept { chosen_count.store(count, std::memory_order_relaxed); }

}  // namespace meshioplusplus
