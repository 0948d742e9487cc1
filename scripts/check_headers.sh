#!/usr/bin/env bash
# Every public header compiles on its own (includes what it uses, nothing from src/cpp/) and
# cleanly under -Wall -Wextra -Wpedantic -Werror, with GCC and with Clang: what a C++ user's
# strict build sees. Usage:
#   scripts/check_headers.sh                    the headers, with every compiler found (g++, clang++)
#   scripts/check_headers.sh --clang-build DIR  also the whole project built with clang++ in DIR
#                                               (slow: a full build; reports pass/fail per step)
set -uo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
flags=(-std=c++20 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$repo_root/include")
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

compilers=()
for cxx in g++ clang++; do command -v "$cxx" >/dev/null && compilers+=("$cxx"); done
[ "${#compilers[@]}" -gt 0 ] || { echo "no C++ compiler found" >&2; exit 1; }

for header in "$repo_root"/include/meshioplusplus/*.hpp; do
  name="meshioplusplus/$(basename "$header")"
  if grep -n '#include "\(io\|core\|formats\)/' "$header"; then
    echo "FAIL $name includes a private src/cpp header"; failures=$((failures + 1))
  fi
  printf '#include <%s>\n' "$name" >"$work/unit.cpp"
  for cxx in "${compilers[@]}"; do
    if "$cxx" "${flags[@]}" "$work/unit.cpp" 2>"$work/log"; then
      echo "ok   $cxx $name"
    else
      echo "FAIL $cxx $name"; sed 's/^/     /' "$work/log" | head -20; failures=$((failures + 1))
    fi
  done
done

if [ "${1:-}" = "--clang-build" ]; then
  build_dir="$(realpath -m "${2:-$repo_root/build/clang-check}")"
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  echo "== whole project with clang++ in $build_dir"
  if cmake -S "$repo_root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
       -DMESHIOPLUSPLUS_BUILD_TESTS=ON "${launcher[@]}" >"$work/configure.log" 2>&1 \
     && cmake --build "$build_dir" -j "${JOBS:-2}" >"$work/build.log" 2>&1; then
    echo "ok   whole build with clang++ (core, shared core, meshioplusplus-cli, tests)"
  else
    echo "FAIL whole build with clang++:"; grep -E 'error|FAILED' "$work/build.log" "$work/configure.log" | head -30
    failures=$((failures + 1))
  fi
fi

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "public headers: all clean"
