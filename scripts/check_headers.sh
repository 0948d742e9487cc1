#!/usr/bin/env bash
# Every public header compiles on its own (includes what it uses, nothing from src/cpp/) and
# cleanly under -Wall -Wextra -Wpedantic -Werror, with GCC and with Clang: what a C++ user's
# strict build sees. Usage:
#   scripts/check_headers.sh                    the headers, with every compiler found (g++, clang++)
#   scripts/check_headers.sh --clang-syntax DIR also every source of the project (core, CLI,
#                                               tests) checked by clang++ -fsyntax-only with the
#                                               flags CMake gives it (configures DIR; no build)
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

if [ "${1:-}" = "--clang-syntax" ]; then
  build_dir="$(realpath -m "${2:-$repo_root/build/clang-syntax}")"
  echo "== every translation unit through clang++ -fsyntax-only (flags from $build_dir/compile_commands.json)"
  cmake -S "$repo_root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
    -DMESHIOPLUSPLUS_BUILD_TESTS=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$work/configure.log" 2>&1 \
    || { cat "$work/configure.log"; exit 1; }
  # One NUL-separated command per unit: the recorded one, told to stop after semantic analysis.
  python3 - "$build_dir/compile_commands.json" >"$work/commands" <<'PY'
import json, shlex, sys
for entry in json.load(open(sys.argv[1])):
    words = shlex.split(entry["command"])
    if words[0].endswith("ccache"):
        words = words[1:]
    keep, skip = [], False
    for word in words:
        if skip:
            skip = False
            continue
        if word in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if word in ("-MD", "-MMD", "-c"):
            continue
        keep.append(word)
    sys.stdout.write("cd " + shlex.quote(entry["directory"]) + " && " + shlex.join(keep + ["-fsyntax-only"]) + "\0")
PY
  units=$(tr -cd '\0' <"$work/commands" | wc -c)
  if xargs -0 -P "${JOBS:-2}" -n 1 bash -c 'eval "$1" 2>&1 || echo "FAILED UNIT: $1"' _ <"$work/commands" >"$work/syntax.log"; \
     ! grep -q "FAILED UNIT" "$work/syntax.log"; then
    echo "ok   clang++ accepts all $units translation units (-fsyntax-only)"
  else
    echo "FAIL clang++ -fsyntax-only:"; grep -E 'error:' "$work/syntax.log" | sort -u | head -30
    failures=$((failures + 1))
  fi
  shift 2 || shift $#
fi

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
