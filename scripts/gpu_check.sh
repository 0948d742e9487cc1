#!/usr/bin/env bash
# Everything that needs a CUDA device, in one run: builds and installs the package with this
# machine's Python, runs the real-device suite (tests/python/test_gpu.py), the GPU-side Python
# suites once more with a device present, and bench/gpu_handoff.py. Each step has its own time
# limit, so one slow step cannot take the others' time; every step's output also goes to
# LOG_DIR/<step>.log. Exits non-zero when any step failed.
#
# usage: bash scripts/gpu_check.sh [LOG_DIR]        (default: $OUT if set, else build/gpu-check)
# environment: PYTHON (default python3), BENCH_ARGS (extra bench/gpu_handoff.py arguments),
#              MESHIOPLUSPLUS_CORPUS (the corpus, for the tests that read real files).
# Installing needs no network: scikit-build-core, nanobind, cmake and ninja must be there.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=${1:-${OUT:-build/gpu-check}}
mkdir -p "$logs"
python=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
# JAX takes 75 % of the card at start-up by default; the suites share the card with CuPy/torch.
export XLA_PYTHON_CLIENT_PREALLOCATE=false
failed=()

step() {
  local name=$1 limit=$2
  shift 2
  echo "== $name: $(date +%T), limit ${limit} s: $*"
  timeout "$limit" "$@" 2>&1 | tee "$logs/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "== $name: exit $rc at $(date +%T)"
  [ "$rc" -eq 0 ] || failed+=("$name ($rc)")
}

step device 30 nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max --format=csv
step install 300 "$python" -m pip install --no-build-isolation --no-deps --no-index -q .
step gpu_suite 240 "$python" -m pytest tests/python/test_gpu.py -v -rs -p no:cacheprovider
step gpu_side_suites 240 "$python" -m pytest -q -rs -p no:cacheprovider tests/python/test_gpu_payload.py \
  tests/python/test_profiling.py tests/python/test_mirror.py tests/python/test_pinned_reads.py tests/python/test_frameworks.py
# shellcheck disable=SC2086  # BENCH_ARGS is a list of arguments
step gpu_handoff 420 "$python" bench/gpu_handoff.py ${BENCH_ARGS:-}

if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all device steps passed"
