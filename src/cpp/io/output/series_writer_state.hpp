// Floor 2: what the time-series writers that stream into one temporary file (Gmsh, MED,
// Exodus) keep between calls. A writer is usable until close(), or until a write failed part
// way: the temporary is then incomplete, every later call is refused and close() never puts it
// in place of the target.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::io {

class SeriesWriterState {
 protected:
  // `invalid_argument_writes_nothing`: the writer throws std::invalid_argument only before
  // the first byte of a call (a mesh the format cannot hold), so that error does not break it.
  SeriesWriterState(std::string path, std::string_view format, bool invalid_argument_writes_nothing = false)
      : state_path_(std::move(path)), state_format_(format),
        invalid_argument_writes_nothing_(invalid_argument_writes_nothing) {}

  [[noreturn]] void fail(const std::string& message) const { throw WriteError(state_path_, state_format_, message); }

  // Throws a WriteError naming `call` unless the writer may still be used.
  void usable(const std::string& call) const {
    if (closed_) fail(call + " after close()");
    if (broken_) fail(call + " after a failed write (the file is not complete; nothing was written to the target)");
  }

  // Runs `write`; an exception from it marks the writer broken (then rethrown).
  template <class Write> void guarded(Write&& write) {
    try {
      write();
    } catch (const std::invalid_argument&) {
      if (!invalid_argument_writes_nothing_) broken_ = true;
      throw;
    } catch (...) {
      broken_ = true;
      throw;
    }
  }

  bool closed_ = false;
  bool broken_ = false;

 private:
  std::string state_path_;
  std::string state_format_;
  bool invalid_argument_writes_nothing_;
};

}  // namespace meshioplusplus::io
