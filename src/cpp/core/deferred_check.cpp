#include "core/deferred_check.hpp"

#include <system_error>
#include <utility>

#include "core/parallel_ranges.hpp"

namespace meshioplusplus {
namespace {

thread_local DeferredCheck* pending_check = nullptr;

}  // namespace

DeferredCheck::DeferredCheck(std::function<void()> check) : previous_(std::exchange(pending_check, this)) {
  auto run = [this, check = std::move(check)] {
    // The writer holds the other cores' share: the check's own passes stay on this thread.
    const bool was_running = std::exchange(running_parallel_range, true);
    try {
      check();
    } catch (...) {
      error_ = std::current_exception();
    }
    running_parallel_range = was_running;
  };
  try {
    thread_ = std::thread(run);
  } catch (const std::system_error&) {
    run();  // no thread to be had: check before the write instead
  }
}

DeferredCheck::~DeferredCheck() {
  if (thread_.joinable()) thread_.join();
  pending_check = previous_;
}

void DeferredCheck::finish() {
  if (finished_) return;
  finished_ = true;
  if (thread_.joinable()) thread_.join();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void finish_deferred_check() {
  if (pending_check != nullptr) pending_check->finish();
}

}  // namespace meshioplusplus
