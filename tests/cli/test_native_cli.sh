#!/usr/bin/env bash
# The native command line (src/cli): convert and info on small files from tests/data/corpus,
# and the Python CLI's error texts and exit statuses. Usage: test_native_cli.sh PATH/TO/meshioplusplus-cli
# Run by ctest (MESHIOPLUSPLUS_BUILD_TESTS=ON) and by scripts/test_cpp_package.sh on the installed tool.
set -uo pipefail
cli="${1:?usage: test_native_cli.sh PATH/TO/meshioplusplus-cli}"
data="$(cd "$(dirname "${BASH_SOURCE[0]}")/../data/corpus" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# expect STATUS STDERR-SUBSTRING -- ARGS...: runs the tool, checks the exit status and stderr.
expect() {
  local status="$1" text="$2"; shift 3
  "$cli" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  [ "$got" -eq "$status" ] || fail "$* exited $got, want $status ($(cat "$work/err"))"
  grep -qF -- "$text" "$work/err" || fail "$* stderr lacks '$text': $(cat "$work/err")"
}

# convert: VTU -> Gmsh with --ascii, then back to VTU with -b.
"$cli" convert "$data/vtu/tetra.vtu" "$work/tetra.msh" --ascii || fail "convert vtu -> msh"
head -c 200 "$work/tetra.msh" | grep -q '\$MeshFormat' || fail "tetra.msh is not a Gmsh file"
grep -qE '^[0-9.]+ 0 8' "$work/tetra.msh" || fail "--ascii did not write ascii Gmsh"
"$cli" c "$work/tetra.msh" "$work/back.vtu" -b || fail "convert msh -> vtu --binary"
"$cli" convert -i gmsh "$work/tetra.msh" "$work/noext" -o vtk --binary || fail "convert with -i/-o"
head -c 100 "$work/noext" | grep -q 'vtk DataFile' || fail "-o vtk did not write legacy VTK"

# info: same lines as the Python CLI (point count, blocks) and the same counts as the source.
"$cli" info "$data/vtu/tetra.vtu" >"$work/info1" || fail "info tetra.vtu"
"$cli" i "$work/back.vtu" >"$work/info2" || fail "info back.vtu"
grep -q '^  points: ' "$work/info1" || fail "info prints no point count"
grep -q '^  cell blocks: ' "$work/info1" || fail "info prints no block count"
# (Gmsh stores points as float64: compare counts, not dtypes.)
counts() { grep -E '^  points:|^    (tetra|triangle)' "$1" | sed 's/ (dim.*//'; }
diff <(counts "$work/info1") <(counts "$work/info2") >/dev/null \
  || fail "the converted file has other points/cells: $(cat "$work/info1" "$work/info2")"
"$cli" --version | grep -q '^meshioplusplus [0-9]' || fail "--version"
# The help is captured first: grep -q stops reading at its match, and the rest of a long
# format list would then meet a closed pipe (pipefail).
help_text="$("$cli" --help)" || fail "--help exits non-zero"
grep -q '^  vtu ' <<<"$help_text" || fail "--help lists no formats"

# Errors: the Python CLI's words and exit statuses.
mkdir "$work/folder"
expect 1 "meshioplusplus: error: $work/folder is a directory" -- info "$work/folder"
expect 1 "meshioplusplus: error: $work/missing.vtu: no such file" -- convert "$work/missing.vtu" "$work/x.vtk"
expect 1 "meshioplusplus: error: cannot tell the format of $work/out.unknownext from its name; pass -o/--output-format" \
  -- convert "$data/vtu/tetra.vtu" "$work/out.unknownext"
expect 1 "meshioplusplus: error: Could not deduce file format from path" -- info "$work/info1"
expect 2 "argument --output-format/-o: invalid choice: 'nosuchformat'" -- convert "$data/vtu/tetra.vtu" "$work/a.vtu" -o nosuchformat
expect 2 "argument --input-format/-i: invalid choice: 'nosuchformat'" -- info "$data/vtu/tetra.vtu" -i nosuchformat
expect 2 "argument --binary/-b: not allowed with argument --ascii/-a" -- convert "$data/vtu/tetra.vtu" "$work/a.vtu" -a -b
expect 2 "the following arguments are required: outfile" -- convert "$data/vtu/tetra.vtu"
expect 1 "has no binary variant (--binary)" -- convert "$data/vtu/tetra.vtu" "$work/a.obj" --binary
printf 'garbage that is no VTU\n' >"$work/bad.vtu"
expect 1 "meshioplusplus: error: " -- info "$work/bad.vtu"
grep -qF "bad.vtu" "$work/err" || fail "a read error does not name the file: $(cat "$work/err")"

if [ "$failures" -ne 0 ]; then echo "native CLI: $failures failure(s)" >&2; exit 1; fi
echo "native CLI: all checks passed"
