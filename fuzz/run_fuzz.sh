#!/usr/bin/env bash
# Builds the libFuzzer targets (Clang, ASan + UBSan) and fuzzes each reader for a fixed time.
# Usage: fuzz/run_fuzz.sh [seconds-per-target (default 60)] [target ...]   (default: all)
# Environment: FUZZ_BUILD_DIR (build/fuzz-asan), FUZZ_JOBS (targets run side by side, 1),
#              FUZZ_RSS_MB (2048), FUZZ_TIMEOUT_S (per input, 10), FUZZ_MAX_LEN (input bytes,
#              8192: small inputs run fast; longer seeds are cut; at least 64 KiB for the HDF5,
#              netCDF and CGNS formats, whose smallest files are 8-40 KiB; at most 4 KiB for the
#              collection indexes), FUZZ_SKIP_BUILD=1, FUZZ_SEED (libFuzzer's -seed; unset: a
#              random one. The CI smoke sets one so that a red run replays the same way),
#              FUZZ_LIBRARY_FORK=1 (the HDF5/netCDF/CGNS targets run in libFuzzer's fork mode,
#              past the libraries' own findings; each saved input is then replayed, at most
#              FUZZ_REPLAY_MAX (20), and the origins listed in build/fuzz-logs/<target>.origins).
# Corpora grow in build/fuzz-corpus/<target>/ (kept between runs); findings (crashes, sanitizer
# reports, leaks, timeouts, out-of-memory, exceptions other than ReadError) are saved to
# build/fuzz-findings/<target>/ and make the script exit non-zero. Keep a finding as a
# regression: copy it to tests/data/fuzz-regressions/<target>/ (replayed by ctest).
# Per-target logs and a summary table (executions, coverage, corpus size) go to
# build/fuzz-logs/ and stdout.
set -uo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
seconds="${1:-60}"
shift || true
build_dir="$(realpath -m "${FUZZ_BUILD_DIR:-build/fuzz-asan}")"
jobs="${FUZZ_JOBS:-1}"
rss_mb="${FUZZ_RSS_MB:-2048}"
input_timeout="${FUZZ_TIMEOUT_S:-10}"
max_len="${FUZZ_MAX_LEN:-8192}"
fuzz_seed="${FUZZ_SEED:-}"

if [ "${FUZZ_SKIP_BUILD:-0}" != 1 ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Fuzz -DCMAKE_CXX_COMPILER=clang++ \
    -DMESHIOPLUSPLUS_FUZZ=ON -DMESHIOPLUSPLUS_BUILD_TESTS=OFF "${launcher[@]}" >/dev/null || exit 2
fi
if [ $# -gt 0 ]; then targets=("$@"); else mapfile -t targets < "$build_dir/fuzz_targets.txt"; fi
if [ "${FUZZ_SKIP_BUILD:-0}" != 1 ]; then
  # Only the fuzz targets (each is its format's reader plus the shared floors), not the library.
  cmake --build "$build_dir" -j "${BUILD_JOBS:-2}" --target "${targets[@]/#/fuzz_}" ||
    { echo "run_fuzz: build failed" >&2; exit 2; }
fi

seeds_root="$repo_root/build/fuzz-seeds"
[ -d "$seeds_root" ] || bash fuzz/make_seeds.sh "$seeds_root" || exit 2
corpus_root="$repo_root/build/fuzz-corpus"
findings_root="$repo_root/build/fuzz-findings"
logs_root="$repo_root/build/fuzz-logs"
mkdir -p "$corpus_root" "$findings_root" "$logs_root"

# ASan: no leak report from the exit path of libFuzzer itself is expected; keep symbolized traces.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:symbolize=1:allocator_may_return_null=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

run_one() {
  local target="$1"
  local binary="$build_dir/fuzz/fuzz_$target"
  [ -x "$binary" ] || binary="$build_dir/fuzz_$target"
  if [ ! -x "$binary" ]; then echo "$target missing-binary" > "$logs_root/$target.status"; return; fi
  local corpus="$corpus_root/$target" findings="$findings_root/$target"
  mkdir -p "$corpus" "$findings" "$seeds_root/$target"
  local dict=()
  [ -f "fuzz/dict/$target.dict" ] && dict=(-dict="fuzz/dict/$target.dict")
  [ -f "fuzz/dict/${target%%_*}.dict" ] && [ ${#dict[@]} -eq 0 ] && dict=(-dict="fuzz/dict/${target%%_*}.dict")
  case "$target" in
    vtp|vts|vtr|vti) dict=(-dict="fuzz/dict/vtk_xml.dict") ;;
    pvtu|pvtp|vtm|pvd) dict=(-dict="fuzz/dict/vtk_collection.dict") ;;
  esac
  local length="$max_len" extra_options=() asan_options="$ASAN_OPTIONS"
  # A collection index of 8 KiB lists hundreds of piece files, each read in full: 4 KiB (still
  # ~150 pieces) doubles the executions; tests/data/fuzz-regressions keeps the longer lists.
  case "$target" in pvtu|pvtp|vtm|pvd) [ "$length" -le 4096 ] || length=4096 ;; esac
  # OP2 result tables lie past the geometry tables: at 8 KiB the random-response and SORT2
  # records of the seeds (tests/data/op2, 19–270 KiB) are cut off before they are reached.
  case "$target" in op2) [ "$length" -ge 262144 ] || length=262144 ;; esac
  if is_library_target "$target"; then
    # A file cut at 8 KiB only exercises the library's refusal. HDF5 and CGNS leak on the error
    # paths of some corrupt files (their own allocations, freed by nothing): leak checks off
    # here, or every run would stop at the first such input.
    [ "$length" -ge 65536 ] || length=65536
    extra_options=(-detect_leaks=0)
    asan_options="$asan_options:detect_leaks=0"
    # libhdf5 mallocs sizes read from the file before our code sees a byte (H5C_protect asks
    # for 2^40-2^62 bytes given a forged metadata size) and handles a NULL as an error: sizes
    # past ASan's largest allocation return NULL (allocator_may_return_null=1) instead of
    # stopping the run. operator new (our code) still reports a failed allocation; libFuzzer's
    # malloc limit (= the RSS limit) still reports any malloc above 2 GiB, with its stack.
    asan_options="${asan_options//allocator_may_return_null=0/}:allocator_may_return_null=1"
    # FUZZ_LIBRARY_FORK=1: libFuzzer's fork mode goes on past findings (libhdf5 1.10's own
    # use-after-free and SEGV bugs otherwise end a run within seconds); the summary below then
    # replays every saved input to tell the library's findings from ours.
    [ "${FUZZ_LIBRARY_FORK:-0}" = 1 ] && extra_options+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  fi
  local start=$SECONDS rc cpu
  # bash's time keyword: the CPU seconds (user + system) the fuzzer used, the number recorded in
  # docs/reliability.md (wall time on shared cores says little).
  cpu="$( { TIMEFORMAT='%U %S'; time ASAN_OPTIONS="$asan_options" "$binary" "$corpus" "$seeds_root/$target" "${dict[@]}" \
    -max_total_time="$seconds" -timeout="$input_timeout" -rss_limit_mb="$rss_mb" -max_len="$length" \
    -print_final_stats=1 "${extra_options[@]}" ${fuzz_seed:+-seed="$fuzz_seed"} -artifact_prefix="$findings/$run_id-" > "$logs_root/$target.log" 2>&1; \
    echo "rc=$?" >&2; } 2>&1 )"
  rc="$(echo "$cpu" | grep -o 'rc=[0-9]*' | cut -d= -f2)"
  cpu="$(echo "$cpu" | grep -v 'rc=' | awk '{printf "%.0f", $1 + $2}')"
  echo "$target $rc $((SECONDS - start)) $cpu" > "$logs_root/$target.status"
}

# The formats read through HDF5, netCDF or CGNS: the libraries parse the file (they are not
# instrumented for coverage, and not hardened against hostile files: see docs/reliability.md).
# fluent_cff and xdmf were once missing here: a libhdf5 OOM inside H5Fopen failed the gate
# as if it were ours. fuzz/CMakeLists.txt's HDF5/netCDF/CGNS targets and this list go together.
is_library_target() {
  case "$1" in hmf|h5m|vtkhdf|med|nastran_h5|fluent_cff|xdmf|cgns|exodus) return 0 ;; *) return 1 ;; esac
}
# "library" when a target's report starts inside libhdf5/libnetcdf/libcgns (the first stack
# frame that is not the sanitizer's, libFuzzer's or an allocation function), else "ours".
finding_origin() {
  local frame
  # Frames of the sanitizers, libFuzzer and libc are skipped, and so are frames in the fuzz
  # binary without a source location: its ASan interceptors (strdup, memcpy …); our own code
  # is built with -g and shows as file:line.
  frame="$(grep -E '^ *#[0-9]+ 0x' "$1" | grep -vE ' in (malloc|calloc|realloc|free|operator new|__interceptor_|__asan|__sanitizer|__lsan|fuzzer::)|libclang_rt|/libc\.so|/sysdeps/|nptl/|assert/|stdlib/|signal/' |
    grep -vE '\(/[^ ]*/fuzz_[a-z0-9_]+\+0x[0-9a-f]+\)' | head -1)"
  case "$frame" in *libhdf5*|*libnetcdf*|*libcgns*) echo library ;; *) echo ours ;; esac
}

# Replays a saved input of a library target and prints where its report points: ours,
# library, or none when it does not reproduce. An out-of-memory report has no useful stack, so
# the replay's malloc limit is half the fuzzing RSS limit (1 GiB by default; our arrays are
# capped at 256 MiB here): the single allocation that filled the memory is reported with its
# stack (a 1.9 GB string libhdf5 allocated for a forged variable-length attribute was otherwise
# counted as ours). The replay's own RSS limit is 3x the fuzzing one: libFuzzer checks RSS
# once a second, and libhdf5 can touch 2.6 GB before the 21 GB H5C_protect malloc that the
# malloc limit reports — under the fuzzing limit the RSS check sometimes fired first, with no
# library frame, and the input was counted as ours.
replay_origin() {
  local target="$1" artifact="$2" binary="$build_dir/fuzz/fuzz_$1"
  [ -x "$binary" ] || binary="$build_dir/fuzz_$target"
  local replay_log="$logs_root/$target.replay.$(basename "$artifact").log"
  ASAN_OPTIONS="${ASAN_OPTIONS//allocator_may_return_null=0/}:detect_leaks=0:allocator_may_return_null=1" \
    timeout 300 "$binary" -timeout="$input_timeout" -rss_limit_mb="$((rss_mb * 3))" -malloc_limit_mb="$((rss_mb / 2))" \
    "$artifact" > "$replay_log" 2>&1
  if grep -qE 'ERROR: |runtime error:' "$replay_log"; then finding_origin "$replay_log"; else echo none; fi
}

run_id="$(date +%Y%m%d-%H%M%S)"
export -f run_one is_library_target
export max_len run_id build_dir seeds_root corpus_root findings_root logs_root seconds input_timeout rss_mb fuzz_seed
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {}

failed=0
library_findings=0
printf '\n%-12s %-7s %8s %8s %12s %7s %7s %7s  %s\n' target result wall_s cpu_s executions cov ft corpus findings
for target in "${targets[@]}"; do
  read -r _ rc wall cpu < "$logs_root/$target.status" || rc=missing
  log="$logs_root/$target.log"
  execs="$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" 2>/dev/null | grep -o '[0-9]*$' | tail -1)"
  status_line="$(grep -E '^#[0-9]+' "$log" 2>/dev/null | grep 'cov:' | tail -1)"
  # Fork mode prints no final stats: its last status line counts the executions.
  [ -n "$execs" ] || execs="$(echo "$status_line" | grep -oE '^#[0-9]+' | tr -d '#')"
  rm -f "$logs_root/$target.origins"
  cov="$(echo "$status_line" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*')"
  ft="$(echo "$status_line" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*')"
  corpus_size="$(find "$corpus_root/$target" -type f 2>/dev/null | wc -l)"
  findings="$(find "$findings_root/$target" -type f -name "$run_id-*" 2>/dev/null | wc -l)"
  result=ok
  if [ "$rc" != 0 ] || [ "$findings" != 0 ]; then
    result=FAIL
    # A finding inside HDF5/netCDF/CGNS themselves is listed (LIB) and its input kept, but
    # does not fail the run unless FUZZ_LIBRARY_FINDINGS_FAIL=1: no reader change can fix it.
    origin="$(finding_origin "$log")"
    artifact="$(find "$findings_root/$target" -type f -name "$run_id-*" | head -1)"
    if is_library_target "$target" && [ "${FUZZ_LIBRARY_FORK:-0}" = 1 ]; then
      # Fork mode (exits with the last finding's code): every saved input, up to
      # FUZZ_REPLAY_MAX, is replayed; one of ours, or a failed run with nothing saved, fails it.
      origin=library
      replays=0
      while read -r saved; do
        replayed="$(replay_origin "$target" "$saved")"
        replays=$((replays + 1))
        [ "$replayed" = ours ] && origin=ours
        echo "$replayed $saved" >> "$logs_root/$target.origins"
      done < <(find "$findings_root/$target" -type f -name "$run_id-*" | head -"${FUZZ_REPLAY_MAX:-20}")
      [ "$replays" = 0 ] && origin=ours
    elif is_library_target "$target" && [ "$origin" = ours ] && [ -n "$artifact" ]; then
      # A stack the symbolizer could not name (a timeout on a loaded machine): replay the
      # input once and look at that report instead.
      replayed="$(replay_origin "$target" "$artifact")"
      [ "$replayed" != none ] && origin="$replayed"
    fi
    if is_library_target "$target" && [ "$origin" = library ] &&
      [ "${FUZZ_LIBRARY_FINDINGS_FAIL:-0}" != 1 ]; then
      result=LIB
      library_findings=$((library_findings + 1))
    else
      failed=1
    fi
  fi
  printf '%-12s %-7s %8s %8s %12s %7s %7s %7s  %s\n' "$target" "$result" "${wall:-?}" "${cpu:-?}" "${execs:-?}" "${cov:-?}" \
    "${ft:-?}" "$corpus_size" "$findings"
  if [ "$result" != ok ]; then
    grep -E 'ERROR: |runtime error:|SUMMARY:|terminate called|what\(\)' "$log" | head -5 | sed 's/^/      /'
    find "$findings_root/$target" -type f -name "$run_id-*" | head -3 | sed 's/^/      saved: /'
  fi
done
if [ "$failed" != 0 ]; then
  echo "run_fuzz: FINDINGS (logs in $logs_root, inputs in $findings_root)"
  exit 1
fi
if [ "$library_findings" != 0 ]; then
  echo "run_fuzz: no findings in meshio++'s code; $library_findings target(s) stopped at a finding inside HDF5/netCDF/CGNS (LIB above)"
else
  echo "run_fuzz: no findings in ${#targets[@]} targets x ${seconds}s"
fi
