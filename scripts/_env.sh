# Shared set-up for scripts/demo.sh and scripts/test.sh: a virtual environment in .venv
# with the build tools, and the system packages a fresh Debian machine lacks.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
# ccache (installed below) shares compiled objects between builds and clones of the repository:
# paths are taken relative to the repository root, so a fresh clone reuses a previous build's.
export CCACHE_BASEDIR="$repo_root" CCACHE_NOHASHDIR=1

# The optional format libraries (found by CMake, each compiled out when absent): zlib, liblzma
# and liblz4 (VTK XML compressors), libdeflate (compressed HDF5 chunks), ISA-L (inflating zlib
# streams: HDF5 chunks, VTK XML blocks), HDF5 (XDMF, VTKHDF,
# MED, HMF, H5M), netCDF (Exodus II),
# CGNS (ADF and HDF5 back ends), OpenCASCADE (STEP, IGES), METIS (mio.partition). Open MPI
# serves the MPI tests.
install_system_packages() {
  local missing=()
  [ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
  [ -f /usr/include/lzma.h ] || missing+=(liblzma-dev)
  [ -f /usr/include/lz4.h ] || missing+=(liblz4-dev)
  [ -f /usr/include/libdeflate.h ] || missing+=(libdeflate-dev)
  [ -f /usr/include/isa-l/igzip_lib.h ] || missing+=(libisal-dev)
  [ -d /usr/include/hdf5/serial ] || missing+=(libhdf5-dev)
  [ -f /usr/include/netcdf.h ] || missing+=(libnetcdf-dev)
  [ -f /usr/include/cgnslib.h ] || missing+=(libcgns-dev)
  [ -f /usr/include/opencascade/STEPCAFControl_Reader.hxx ] ||
    missing+=(libocct-data-exchange-dev libocct-modeling-algorithms-dev libocct-modeling-data-dev libocct-foundation-dev)
  [ -f /usr/include/metis.h ] || missing+=(libmetis-dev)
  command -v ninja >/dev/null || missing+=(ninja-build)
  command -v ccache >/dev/null || missing+=(ccache)
  if [ "${MESHIOPLUSPLUS_DEMO_ONLY:-0}" != 1 ]; then
    [ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
    command -v clang++ >/dev/null || missing+=(clang)
    command -v mpirun >/dev/null || missing+=(openmpi-bin libopenmpi-dev)
    # CGNS's own checker: the CGNS tests run it on the polyhedra we write.
    command -v cgnscheck >/dev/null || missing+=(cgns-convert)
  fi
  command -v g++ >/dev/null || missing+=(g++)
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "== installing system packages: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
  fi
}

ensure_venv() {
  mkdir -p build
  if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv"
    python3 -m venv .venv
  fi
  # shellcheck disable=SC1091
  source .venv/bin/activate
  python -m pip install -q --upgrade pip
}

# The test command's install: the wheel a user gets (scripts/test_wheel.sh builds the sdist and
# wheel, repairs it into a manylinux wheel and tests it in a fresh venv without a compiler),
# then that same repaired wheel installed into .venv, so every Python test runs against it.
install_repaired_wheel() {
  echo "== wheel: python -m build, auditwheel repair, fresh venv without a compiler (scripts/test_wheel.sh)"
  rm -rf dist
  NO_ISOLATION=1 bash scripts/test_wheel.sh dist
  local wheel
  wheel="$(ls dist/*manylinux*.whl)"
  echo "== installing $wheel into .venv"
  python -m pip install -q --force-reinstall --no-deps "$wheel"
}

install_package() {
  echo "== building and installing meshioplusplus (C++ build: a few minutes on 2 cores; progress below)"
  python -m pip install -q nanobind scikit-build-core cmake ninja numpy
  # ccache, when installed, makes rebuilds of unchanged sources instant.
  if command -v ccache >/dev/null; then export CMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
  # pip -v shows the build's "[n/total] Building ..." lines: print just those, as progress.
  set +o pipefail
  python -m pip install -v --no-build-isolation . 2>&1 | tee build/pip-install.log |
    grep --line-buffered -oE '^ *\[[0-9]+/[0-9]+\] [A-Za-z]+ [A-Z+]+ [a-z ]*[^ ]*' | sed -u 's/^ */   /'
  local status=${PIPESTATUS[0]}
  set -o pipefail
  if [ "$status" -ne 0 ]; then
    tail -40 build/pip-install.log
    echo "== pip install failed (full log: build/pip-install.log)"
    return "$status"
  fi
}
