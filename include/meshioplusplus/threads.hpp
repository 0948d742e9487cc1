// Floor 1: how many threads a read or write may use.
//
// Large text sections (VTU ascii, MSH, Medit, ...) and base64/zlib payloads are decoded on
// several threads. The default is the machine's hardware concurrency; the environment
// variable MESHIOPLUSPLUS_NUM_THREADS (read once, at the first parallel step) or
// set_thread_count() lower it — for MPI jobs that give each rank one core, and for
// measuring single-core throughput. Results and errors never depend on the count.
#pragma once

namespace meshioplusplus {

// Threads a parallel step uses now (at least 1).
unsigned thread_count() noexcept;

// 0 restores the default (environment variable, else hardware concurrency).
void set_thread_count(unsigned count) noexcept;

}  // namespace meshioplusplus
