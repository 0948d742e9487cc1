#!/usr/bin/env bash
# Assembles the seed corpora: build/fuzz-seeds/<target>/ gets
#   - small files every writer produces in each of its encodings (fuzz/make_seeds.py; skipped
#     with a note when meshioplusplus cannot be imported: set PYTHON / PYTHONPATH),
#   - the public sample files: ../shared/corpus/, tests/data/<format>/ and, when unpacked,
#     meshio's own test meshes (/tmp/meshio_sdist/meshio-*/tests/meshes), each up to 256 KiB
#     (larger seeds slow every execution down without adding layouts),
#   - the saved regression inputs (tests/data/fuzz-regressions/<target>/).
# Usage: fuzz/make_seeds.sh [seeds-dir]
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seeds_dir="$(realpath -m "${1:-$repo_root/build/fuzz-seeds}")"
python="${PYTHON:-$( [ -x "$repo_root/.venv/bin/python" ] && echo "$repo_root/.venv/bin/python" || echo python3)}"
max_bytes=$((256 * 1024))

rm -rf "$seeds_dir"
mkdir -p "$seeds_dir"
if "$python" -c "import meshioplusplus" 2>/dev/null; then
  "$python" "$repo_root/fuzz/make_seeds.py" "$seeds_dir"
else
  echo "make_seeds: meshioplusplus not importable by $python: no generated seeds (public files only)" >&2
fi

# Which target reads a file, from its name (lower case); empty: none.
target_for() {
  local name="${1,,}"
  case "$name" in
    *.lb8.ugrid) echo ugrid_lb8 ;;
    *.r8.ugrid) echo ugrid_r8 ;;
    *.b8.ugrid|*.b4.ugrid|*.lb4.ugrid|*.b8l.ugrid|*.lb8l.ugrid) echo ugrid_lb8 ;;
    *.r4.ugrid|*.lr8.ugrid|*.lr4.ugrid) echo ugrid_r8 ;;
    *.ugrid) echo ugrid ;;
    *.vtu) echo vtu ;;
    *.vtk) echo vtk ;;
    *.msh) echo gmsh ;;
    *.mesh) echo medit ;;
    *.meshb) echo medit_meshb ;;
    *.poly) echo triangle ;;
    *.inp) echo abaqus ;;
    *.bdf|*.fem|*.nas) echo nastran ;;
    *.stl) echo stl ;;
    *.ply) echo ply ;;
    *.obj) echo obj ;;
    *.off) echo off ;;
    *.su2) echo su2 ;;
    *.avs) echo avsucd ;;
    *.dat|*.tec) echo tecplot ;;
    *.xml) echo dolfin ;;
    *.wkt) echo wkt ;;
    *.f3grid) echo flac3d ;;
    *.mdpa) echo mdpa ;;
    *.post|*.dato) echo permas ;;
    *.k|*.key|*.dyn) echo lsdyna ;;
    *.cdb) echo ansys_cdb ;;
    *.frd) echo frd ;;
    *.mail) echo code_aster ;;
    *.mphtxt) echo mphtxt ;;
    *.unv|*.uff) echo unv ;;
    *.vol) echo netgen ;;
    *.vtp) echo vtp ;;
    *.vts) echo vts ;;
    *.vtr) echo vtr ;;
    *.vti) echo vti ;;
    *.pvtu) echo pvtu ;;
    *.pvtp) echo pvtp ;;
    *.vtm) echo vtm ;;
    *.pvd) echo pvd ;;
    *.xdmf|*.xmf) echo xdmf ;;
    *.cas.h5|*.dat.h5|*.msh.h5) echo fluent_cff ;;
    *.hmf) echo hmf ;;
    *.h5m) echo h5m ;;
    *.vtkhdf|*.hdf) echo vtkhdf ;;
    *.med) echo med ;;
    *.cgns) echo cgns ;;
    *.exo|*.e|*.ex2) echo exodus ;;
    *.gltf|*.glb) echo gltf ;;
    *.usda) echo usd ;;
    *.pcd) echo pcd ;;
    *.xyz|*.xyzn|*.xyzrgb|*.asc) echo xyz ;;
    *.pts) echo xyz_pts ;;
    *.xda) echo libmesh ;;
    *.xdr) echo libmesh_xdr ;;
    *.feb) echo febio ;;
    *.neu) echo femap ;;
    *.pat|*.out) echo patran ;;
    *.z88) echo z88 ;;
    *.plt) echo tecplot_binary ;;
    *.xplt) echo xplt ;;
    *.op2) echo op2 ;;
    *.rst|*.rth|*.rst.gz|*.rth.gz) echo ansys_rst ;;
    d3plot|d3plot[0-9][0-9]) echo d3plot ;;
    *) echo "" ;;
  esac
}

copied=0
add_public_files() {
  local root="$1"
  [ -d "$root" ] || return 0
  while IFS= read -r -d '' file; do
    local target
    case "$file" in  # formats a folder names better than an extension
      */ansys/*) target=ansys ;;
      */freefem/gmsh_*) target=gmsh ;;
      */freefem/*) target=freefem ;;
      */neuroglancer/*) target=neuroglancer ;;
      */nastran_h5/*.h5.gz) mkdir -p "$seeds_dir/nastran_h5"  # shipped compressed: seeded inflated
        gzip -dc "$file" > "$seeds_dir/nastran_h5/public-$(basename "${file%.gz}")"; copied=$((copied + 1)); continue ;;
      */mfem/*.mesh) target=mfem ;;
      *) target="$(target_for "$(basename "$file")")" ;;
    esac
    [ -n "$target" ] || continue
    [ "$(stat -c %s "$file")" -le "$max_bytes" ] || continue
    if [ "$target" = tetgen ]; then continue; fi  # pairs are assembled below
    mkdir -p "$seeds_dir/$target"
    cp "$file" "$seeds_dir/$target/public-$(echo "$file" | md5sum | cut -c1-12)-$(basename "$file")"
    copied=$((copied + 1))
  done < <(find "$root" -path '*/fuzz-regressions' -prune -o -type f -print0)  # those: below
  # TetGen pairs: X.node + marker + X.ele, as fuzz_targets.hpp splits them.
  while IFS= read -r -d '' node; do
    local ele="${node%.node}.ele"
    [ -f "$ele" ] || continue
    [ $(( $(stat -c %s "$node") + $(stat -c %s "$ele") )) -le "$max_bytes" ] || continue
    mkdir -p "$seeds_dir/tetgen"
    { cat "$node"; printf '\n%%%%ele%%%%\n'; cat "$ele"; } > "$seeds_dir/tetgen/public-$(basename "${node%.node}")-$(echo "$node" | md5sum | cut -c1-8)"
    copied=$((copied + 1))
  done < <(find "$root" -type f -name '*.node' -print0)
}

# OpenFOAM: the input is one file of a case, its first byte choosing which (fuzz_targets.hpp,
# kOpenfoamFuzzCase: 0 faces, 1 owner, 2 neighbour, 3 points, 4 boundary, 5 cellZones, 6 a field).
add_openfoam_seeds() {
  local root="$1" index name file
  [ -d "$root" ] || return 0
  mkdir -p "$seeds_dir/openfoam"
  for index in 0 1 2 3 4 5 6; do
    name=(faces owner neighbour points boundary cellZones p)
    while IFS= read -r -d '' file; do
      [ "$(stat -c %s "$file")" -le "$max_bytes" ] || continue
      { printf "\\$(printf '%03o' "$index")"; cat "$file"; } > "$seeds_dir/openfoam/public-${name[$index]}-$(echo "$file" | md5sum | cut -c1-12)"
      copied=$((copied + 1))
    done < <(find "$root" -type f \( -name "${name[$index]}" -o -name "${name[$index]}.gz" \) -print0)
  done
}

add_openfoam_seeds "$repo_root/tests/data/openfoam"

# EnSight: a case's files with the selector byte of the file they replace (case, geometry,
# node variable, element variable; tests/support/fuzz_targets.hpp, kEnsightFuzzCase).
add_ensight_seeds() {
  local root="$1" file index
  [ -d "$root" ] || return 0
  mkdir -p "$seeds_dir/ensight"
  while IFS= read -r -d '' file; do
    [ "$(stat -c %s "$file")" -le "$max_bytes" ] || continue
    case "$file" in
      *.case) index=0 ;;
      */geometry) index=1 ;;
      */p|*/U) index=3 ;;
      *) continue ;;
    esac
    { printf "\\$(printf '%03o' "$index")"; cat "$file"; } > "$seeds_dir/ensight/public-$index-$(echo "$file" | md5sum | cut -c1-12)"
    copied=$((copied + 1))
  done < <(find "$root" -type f -print0)
}
add_ensight_seeds "$repo_root/tests/data/ensight"
add_public_files "$repo_root/../shared/corpus"
add_public_files "$repo_root/tests/data"
for meshes in /tmp/meshio_sdist/meshio-*/tests/meshes; do add_public_files "$meshes"; done

# Every saved regression input seeds its own target again (tests/data is scanned above by
# extension; the regression folders are named by target, their files carry no extension).
if [ -d "$repo_root/tests/data/fuzz-regressions" ]; then
  for dir in "$repo_root"/tests/data/fuzz-regressions/*/; do
    target="$(basename "$dir")"
    mkdir -p "$seeds_dir/$target"
    find "$dir" -maxdepth 1 -type f ! -name '*.md' -exec cp {} "$seeds_dir/$target/" \;
  done
fi
echo "make_seeds: $copied public files added; per target:"
for dir in "$seeds_dir"/*/; do printf '  %-12s %4d files\n' "$(basename "$dir")" "$(find "$dir" -type f | wc -l)"; done
