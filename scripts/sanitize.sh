#!/usr/bin/env bash
# CI lane "hostile input": the whole C++ test suite built with AddressSanitizer + UBSan
# (MESHIOPLUSPLUS_SANITIZE, Clang) and run by ctest, then a time-boxed fuzz smoke of every
# reader (fuzz/run_fuzz.sh; the fuzz targets are built in the same folder, each from its
# reader's sources with libFuzzer instrumentation). Exits non-zero on any test failure,
# sanitizer report or fuzz finding; prints a summary with the time of each step.
# Usage: scripts/sanitize.sh [fuzz-seconds-per-target (default 20)]
# Environment: SANITIZE_BUILD_DIR (build/sanitize), BUILD_JOBS (2), CTEST_JOBS (2), FUZZ_JOBS (2),
#              PYTHON (an interpreter that imports meshioplusplus, for generated fuzz seeds).
set -uo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
fuzz_seconds="${1:-20}"
build_dir="$(realpath -m "${SANITIZE_BUILD_DIR:-build/sanitize}")"
jobs="${BUILD_JOBS:-2}"
lane_start=$SECONDS
summary=()
status=0
step() {  # step <name> <command...>: runs, times and records one step
  local name="$1" start=$SECONDS
  shift
  echo "== sanitize: $name"
  if "$@"; then
    summary+=("$(printf '%-28s ok     %5ds' "$name" $((SECONDS - start)))")
  else
    summary+=("$(printf '%-28s FAILED %5ds' "$name" $((SECONDS - start)))")
    status=1
  fi
}

command -v clang++ >/dev/null || { echo "sanitize: clang++ is needed (Debian: apt-get install clang)" >&2; exit 2; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

configure() {
  # -O1 with asserts on (no NDEBUG): sanitizer builds run the suite several times slower anyway.
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" \
    -DCMAKE_CXX_COMPILER=clang++ -DMESHIOPLUSPLUS_SANITIZE=ON -DMESHIOPLUSPLUS_FUZZ=ON \
    -DMESHIOPLUSPLUS_BUILD_TESTS=ON "${launcher[@]}" >/dev/null
}
build() { cmake --build "$build_dir" -j "$jobs"; }
run_ctest() {
  # Tests that need more than a sanitized build can give (benchmark-sized data) keep their own
  # skips; everything else runs.
  (cd "$build_dir" && ctest -j "${CTEST_JOBS:-2}" --output-on-failure --timeout 600)
}
fuzz_smoke() {
  rm -rf build/fuzz-seeds  # fresh seeds: the saved regressions and public files of this checkout
  # Two targets side by side on CI's two cores.
  FUZZ_JOBS="${FUZZ_JOBS:-2}" FUZZ_BUILD_DIR="$build_dir" FUZZ_SKIP_BUILD=1 bash fuzz/run_fuzz.sh "$fuzz_seconds"
}

step "configure (clang, ASan+UBSan)" configure
[ $status = 0 ] && step "build core, tests, fuzzers" build
if [ $status = 0 ]; then
  step "ctest under ASan+UBSan" run_ctest
  step "fuzz smoke (${fuzz_seconds}s/reader)" fuzz_smoke
fi

echo
echo "== sanitize summary"
printf '  %s\n' "${summary[@]}"
printf '  %-28s        %5ds\n' "total" $((SECONDS - lane_start))
if [ $status != 0 ]; then echo "sanitize: FAILED"; else echo "sanitize: all green"; fi
exit $status
