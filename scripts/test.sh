#!/usr/bin/env bash
# The README's test command (and what CI runs): sets itself up on a fresh machine, builds,
# then runs the C++ suite (ctest) and the Python suite (pytest). Any failure fails the run.
source "$(dirname "$0")/_env.sh"
install_system_packages
ensure_venv
echo "== installing test requirements"
python -m pip install -q -r requirements-test.txt

echo "== C++: configure, build, ctest"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build/cpp -G Ninja -DMESHIOPLUSPLUS_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}"
cmake --build build/cpp -j "$(nproc)"
ctest --test-dir build/cpp --output-on-failure

echo "== C++ package: install, find_package/pkg-config example, native CLI (scripts/test_cpp_package.sh)"
BUILD_TYPE=RelWithDebInfo bash scripts/test_cpp_package.sh build/cpp
echo "== public headers alone, -Wall -Wextra -Wpedantic -Werror, GCC and Clang (scripts/check_headers.sh)"
bash scripts/check_headers.sh

# The package the Python tests import is the repaired manylinux wheel a user would install
# (scripts/test_wheel.sh also runs a subset in a fresh venv without a compiler).
install_repaired_wheel

echo "== meshio 5.3.5's own test suite, against meshio and against us (tests/meshio_suite)"
suite_status=0
python tests/meshio_suite/run_meshio_suite.py --report build/meshio-suite/report.txt || suite_status=$?
echo "== meshio's clients (PyVista, pygmsh, scikit-fem, felupe): their meshio tests, against meshio and against us (tests/downstream)"
downstream_status=0
python tests/downstream/run_downstream.py --report build/downstream/report.txt || downstream_status=$?

echo "== Python: pytest"
# Run from the repository root against the installed package (src/ is not on sys.path).
python -m pytest tests -q "$@"

echo "== sanitizer lane and Clang build: library, C++ tests, _core and fuzz targets with ASan+UBSan;"
echo "   ctest, pytest against the sanitized extension, ${SANITIZE_FUZZ_SECONDS:-15} s of fuzzing per reader (scripts/sanitize.sh)"
bash scripts/sanitize.sh "${SANITIZE_FUZZ_SECONDS:-15}"
if [ "$suite_status" -ne 0 ]; then
  echo "== FAILED: meshio's own test suite has tests that pass for meshio and not for us (above)"
  exit "$suite_status"
fi
if [ "$downstream_status" -ne 0 ]; then
  echo "== FAILED: meshio's clients have tests that pass with meshio and not with us, or a run gave no results (above, build/downstream/report.txt)"
  exit "$downstream_status"
fi
