#!/usr/bin/env bash
# The C++ package as a user gets it (docs/cpp.md): builds the core, installs it into a
# temporary prefix, then against that prefix only
#   1. configures, builds and runs examples/cpp with find_package(meshioplusplus), linking the
#      shared library (meshioplusplus::core) and, in a second build, the static one
#      (meshioplusplus::core_static, whose optional libraries come through find_dependency);
#   2. compiles the same example with `pkg-config --cflags --libs meshioplusplus` and runs it;
#   3. runs tests/cli/test_native_cli.sh on the installed meshioplusplus-cli.
# Usage: scripts/test_cpp_package.sh [BUILD_DIR]   (default build/cpp-package; JOBS=2 by default;
#        BUILD_TYPE=RelWithDebInfo to reuse such a build folder without rebuilding it)
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$(realpath -m "${1:-$repo_root/build/cpp-package}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
step() { echo "== $* ($(date +%T))"; }

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
step "build the library and meshioplusplus-cli in $build_dir"
# BUILD_TYPE: reuse a build folder configured with another type (scripts/test.sh passes its own).
cmake -S "$repo_root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "${launcher[@]}" >/dev/null
cmake --build "$build_dir" -j "${JOBS:-2}" --target meshioplusplus_core meshioplusplus_shared meshioplusplus_cli \
  >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
step "install into a temporary prefix"
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
libdir="$(dirname "$(find "$prefix" -name meshioplusplus.pc -path '*/pkgconfig/*')")/.."
for file in include/meshioplusplus/mesh.hpp include/meshioplusplus/registry.hpp bin/meshioplusplus-cli; do
  [ -e "$prefix/$file" ] || { echo "not installed: $file" >&2; exit 1; }
done
for file in libmeshioplusplus.a libmeshioplusplus.so cmake/meshioplusplus/meshioplusplusConfig.cmake \
            cmake/meshioplusplus/meshioplusplusConfigVersion.cmake cmake/meshioplusplus/meshioplusplusTargets.cmake; do
  [ -e "$libdir/$file" ] || { echo "not installed: lib/$file" >&2; exit 1; }
done
if grep -rl '#include "\(io\|core\|formats\)/' "$prefix/include/meshioplusplus"; then
  echo "an installed header includes a private src/cpp header" >&2; exit 1
fi

# docs/cpp.md shows the example in full: it must be the file this script builds.
awk '/^```cpp$/ {inside = 1; next} inside && /^```$/ {exit} inside' "$repo_root/docs/cpp.md" \
  | diff -q - "$repo_root/examples/cpp/add_point_field.cpp" >/dev/null \
  || { echo "docs/cpp.md's example differs from examples/cpp/add_point_field.cpp" >&2; exit 1; }

input="$repo_root/tests/data/corpus/vtu/tetra.vtu"
check_output() {  # the written file holds the new field, as read back by the installed CLI
  "$prefix/bin/meshioplusplus-cli" info "$1" | grep -q 'distance_from_centroid: float64' \
    || { echo "$1 lacks the point field written by the example" >&2; exit 1; }
}
for variant in shared static; do
  step "examples/cpp with find_package, $variant library"
  static=OFF; [ "$variant" = static ] && static=ON
  cmake -S "$repo_root/examples/cpp" -B "$work/example-$variant" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DEXAMPLE_LINK_STATIC=$static "${launcher[@]}" | grep 'meshio++' || true
  cmake --build "$work/example-$variant" >/dev/null
  "$work/example-$variant/add_point_field" "$input" "$work/out-$variant.vtu"
  check_output "$work/out-$variant.vtu"
done
# ldd's output is captured first: grep -q stops at its match and, under pipefail, ldd's write
# to the closed pipe (a long list since OpenCASCADE) would fail the check at random.
static_libraries="$(ldd "$work/example-static/add_point_field")"
shared_libraries="$(ldd "$work/example-shared/add_point_field")"
if grep -q libmeshioplusplus <<<"$static_libraries"; then
  echo "the static example links libmeshioplusplus.so" >&2; exit 1
fi
grep -q "$prefix.*libmeshioplusplus.so" <<<"$shared_libraries" \
  || { echo "the shared example does not use the installed libmeshioplusplus.so" >&2; exit 1; }

step "examples/cpp with pkg-config"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
pkg-config --exists --print-errors meshioplusplus
# shellcheck disable=SC2046
${CXX:-c++} $(pkg-config --cflags meshioplusplus) "$repo_root/examples/cpp/add_point_field.cpp" \
  -o "$work/add_point_field_pc" $(pkg-config --libs meshioplusplus) -Wl,-rpath,"$(pkg-config --variable=libdir meshioplusplus)"
"$work/add_point_field_pc" "$input" "$work/out-pc.msh" --ascii
check_output "$work/out-pc.msh"

step "the installed meshioplusplus-cli"
bash "$repo_root/tests/cli/test_native_cli.sh" "$prefix/bin/meshioplusplus-cli"
step "C++ package: all checks passed"
