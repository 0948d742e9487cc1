#!/usr/bin/env bash
# Developer loop without reinstalling: builds the C++ core and the Python extension in
# BUILD_DIR (default build/dev) and lays out BUILD_DIR/python/meshioplusplus with links to the
# package sources plus the fresh _core module. Then:
#   PYTHONPATH=BUILD_DIR/python python -m pytest tests/python
# Several developers can use separate BUILD_DIRs at once; ccache is used when installed.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$(realpath -m "${1:-$repo_root/build/dev}")"
shift || true
cd "$repo_root"
[ -x .venv/bin/python ] && source .venv/bin/activate
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" \
  -DMESHIOPLUSPLUS_BUILD_PYTHON=ON -DPython_EXECUTABLE="$(command -v python)" "${launcher[@]}" "$@" >/dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}"
package="$build_dir/python/meshioplusplus"
mkdir -p "$package"
for source in src/python/meshioplusplus/*; do
  ln -sfn "$repo_root/$source" "$package/$(basename "$source")"
done
for module in "$build_dir"/_core*.so; do ln -sfn "$module" "$package/$(basename "$module")"; done
echo "PYTHONPATH=$build_dir/python"
