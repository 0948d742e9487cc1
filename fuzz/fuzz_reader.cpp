// libFuzzer target for one reader. A source generated per executable by fuzz/CMakeLists.txt
// names the target (an entry of tests/support/fuzz_targets.hpp: format + the file name ending
// that selects variants such as ".meshb" or ".lb8.ugrid") and calls that format's reader, so an
// executable holds one reader only.
//
// Readers take a path, so each input is written to a scratch file (in /dev/shm when it is
// writable: no disk I/O per execution) and read as meshioplusplus::read reads it (through
// io::guarded_read). The contract under test: a file either reads or raises ReadError. Any other
// exception escapes and libFuzzer reports it, as it reports crashes, sanitizer findings, leaks,
// timeouts and out-of-memory. tests/io/test_fuzz_regressions.cpp replays saved inputs the same way.
//
// The collection targets (pvtu, pvtp, vtm, pvd) read an index naming other files: the scratch
// folder then holds fixed piece files and hostile neighbours (a folder, FIFOs, symbolic links,
// other index files naming the input back), laid out once at start
// (fuzzing::prepare_fuzz_directory), and each input is written as idx/input<extension> there.
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "io/source/mapped_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/fuzz_targets.hpp"
#if __has_include("meshioplusplus/limits.hpp")
#include "meshioplusplus/limits.hpp"
#define MESHIOPLUSPLUS_FUZZ_HAVE_LIMITS 1
#endif

extern "C" const char meshioplusplus_fuzz_target_name[];
meshioplusplus::Mesh meshioplusplus_fuzz_read(const std::string& path);

namespace {

namespace fuzzing = meshioplusplus::fuzzing;

const fuzzing::FuzzTarget* g_target = nullptr;
std::string g_directory;
std::string g_stem;  // where each input is written (plus the target's file name ending)
// MESHIOPLUSPLUS_FUZZ_VERBOSE=1: say what each input read as (replaying saved inputs by hand).
bool g_verbose = false;

void remove_scratch() {
  std::error_code ignored;
  std::filesystem::remove_all(g_directory, ignored);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_target = fuzzing::find_fuzz_target(meshioplusplus_fuzz_target_name);
  if (g_target == nullptr) {
    std::fprintf(stderr, "unknown fuzz target %s\n", meshioplusplus_fuzz_target_name);
    std::abort();
  }
  const char* chosen = std::getenv("MESHIOPLUSPLUS_FUZZ_TMP");
  const std::string root = chosen != nullptr ? chosen : (::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
  std::string pattern = root + "/meshio-fuzz-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    std::perror("mkdtemp");
    std::abort();
  }
  g_directory = pattern;
  std::atexit(remove_scratch);
  g_stem = fuzzing::prepare_fuzz_directory(*g_target, g_directory);
  g_verbose = std::getenv("MESHIOPLUSPLUS_FUZZ_VERBOSE") != nullptr;
  // Fuzz inputs are small: one thread keeps executions cheap and reproducible.
  meshioplusplus::set_thread_count(1);
#ifdef MESHIOPLUSPLUS_FUZZ_HAVE_LIMITS
  // Header claims are checked against this limit: keep it well inside libFuzzer's
  // -rss_limit_mb so a claim that passes the check cannot exhaust memory (the default, half of
  // physical memory, would let a few bytes ask for gigabytes legitimately and drown real findings).
  meshioplusplus::set_max_array_bytes(std::uint64_t{256} << 20);
#endif
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzzing::materialize_fuzz_input(
      *g_target, g_stem, std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    const meshioplusplus::Mesh mesh = meshioplusplus::io::guarded_read([&] { return meshioplusplus_fuzz_read(path); });
    if (g_verbose) std::fprintf(stderr, "read: %lld points, %lld cells\n", static_cast<long long>(mesh.num_points()),
                                static_cast<long long>(mesh.num_cells()));
  } catch (const meshioplusplus::ReadError& error) {
    // The promised outcome for malformed input.
    if (g_verbose) std::fprintf(stderr, "ReadError: %s\n", error.what());
  }
  return 0;
}
