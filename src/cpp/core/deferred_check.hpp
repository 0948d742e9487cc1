// Floor 1: a check of the mesh being written that runs on another core while its writer
// writes, and must pass before the file is published.
//
// Why: a write of an uncompressed mesh is mostly the kernel copying bytes into the page cache
// on one core; the node-index check every write makes (validate) is a pass over the largest
// array, 1.5-3 ms per 33 MB. Run beside the write, it costs nothing but that core. Only the
// registry starts one, for formats that copy node indices into the file as values and never
// use one to address memory (FormatInfo::index_check_beside_write): an index the check has
// not yet seen must not be able to make the writer read out of bounds.
//
// The check lives in a slot of the thread that writes. io's commit functions (AtomicFile::
// commit, replace_with_temporary) call finish_deferred_check() before they move a finished
// file into place, so a failing check leaves no file and any existing one intact.
#pragma once

#include <exception>
#include <functional>
#include <thread>

namespace meshioplusplus {

class DeferredCheck {
 public:
  // Starts `check` on a helper thread (or runs it here when no thread can be had) and makes
  // it this thread's pending check.
  explicit DeferredCheck(std::function<void()> check);
  DeferredCheck(const DeferredCheck&) = delete;
  DeferredCheck& operator=(const DeferredCheck&) = delete;
  // Waits for the check (a failure not yet reported is dropped: the write failed first).
  ~DeferredCheck();

 private:
  friend void finish_deferred_check();
  void finish();

  std::thread thread_;
  std::exception_ptr error_;
  DeferredCheck* previous_ = nullptr;
  bool finished_ = false;
};

// Waits for this thread's pending check and rethrows its failure; nothing when none is pending
// or it has been finished already.
void finish_deferred_check();

}  // namespace meshioplusplus
