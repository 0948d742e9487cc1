"""The house rules that keep the code base the shape docs/architecture.md describes, checked on
the source tree (no build needed):

- the Python package has no import circle: no module imports a module that imports it back,
  counting every import, at module level and inside functions;
- every import goes down the package's floors (format modules never reach the read/write
  dispatch, the dispatch never reaches MPI, the bottom table imports nothing of the package);
- no source file in src/ is over 1,000 lines.
"""

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE_ROOT = REPO / "src" / "python"
PACKAGE = "meshioplusplus"

# The floors of src/python/meshioplusplus, bottom first (docs/architecture.md, "Python floors").
# A module imports modules of lower floors only.
FLOORS = {
    0: ["_core", "_exceptions", "_version", "_capabilities"],
    1: ["_cell_types", "_allocation", "profiling", "_regions", "_format_tables", "_gmsh", "_options", "__about__"],
    2: ["_mesh", "_meshio_names.common", "_meshio_names.files"],
    3: ["_conversion", "_common", "_files"],
    4: ["_format_extras._time_series", "_format_extras._partitioned", "_format_extras._cad", "_meshio_names._tables", "_read_less"],
    5: ["_format_extras.abaqus_fil", "_format_extras.binout", "_format_extras.ansys_rst", "_format_extras.d3plot", "_format_extras.ensight", "_format_extras.exodus", "_format_extras.frd", "_format_extras.gltf", "_format_extras.gmsh", "_format_extras.iges", "_format_extras.mdpa", "_format_extras.med", "_format_extras.nastran_h5", "_format_extras.op2", "_format_extras.openfoam", "_format_extras.pvd",
        "_format_extras.pvtp", "_format_extras.pvtu", "_format_extras.step", "_format_extras.tecplot_binary", "_format_extras.unv", "_format_extras.usd", "_format_extras.vtkhdf", "_format_extras.vtm",
        "_format_extras.xdmf", "_format_extras.xplt", "_format_extras.xyz", "_meshio_names.vtk_common", "_meshio_names.gmsh_common", "_meshio_names.gmsh_main",
        "_meshio_names.xdmf_common", "_meshio_names.abaqus", "_sequence"],
    6: ["_format_extras", "_vtk_common", "_meshio_names.vtk_42", "_meshio_names.vtk_51", "_meshio_names.xdmf_main",
        "_meshio_names.xdmf_time_series"],
    7: ["_dispatch", "_operations", "_gpu", "_meshio_names"],
    8: ["_parallel", "_interop_frameworks", "_interop_meshes", "_mirror", "_isolation"],
    9: ["_helpers"],
    10: ["_formats", "_cli"],
    11: ["__init__", "__main__", "testing", "testing.fake_cupy"],
}


def _module_names():
    """Dotted names (relative to the package) of every module of the package, '__init__' for the
    package itself and 'sub' for a sub-package's __init__."""
    base = PACKAGE_ROOT / PACKAGE
    names = {}
    for path in sorted(base.rglob("*.py")):
        parts = path.relative_to(base).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1] or ("__init__",)
        names[".".join(parts)] = path
    names["_core"] = base / "_core.pyi"  # the extension module (its stub describes it)
    return names


def _package_of(name, path):
    """The package a module's relative imports start from (as a dotted list)."""
    parts = [] if name == "__init__" else name.split(".")
    return parts if path.name == "__init__.py" else parts[:-1]


def _imports(name, path, modules):
    """Every package module ``name`` imports (module level and inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = _package_of(name, path)
    found = set()

    def resolve(dotted):
        dotted = ".".join(p for p in dotted if p)
        return dotted if dotted in modules else ("__init__" if dotted == "" else None)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                    target = resolve(alias.name.split(".")[1:])
                    if target:
                        found.add(target)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                start = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                base = start + (node.module.split(".") if node.module else [])
            elif node.module and (node.module == PACKAGE or node.module.startswith(PACKAGE + ".")):
                base = node.module.split(".")[1:]
            else:
                continue
            for alias in node.names:
                target = resolve(base + [alias.name])  # "from . import X": the module X
                if target is None:
                    target = resolve(base)  # "from .X import name": the module X
                if target:
                    found.add(target)
    found.discard(name)
    return found


def _graph():
    modules = _module_names()
    return {name: _imports(name, path, modules) for name, path in modules.items() if path.suffix == ".py"}


def _cycle(graph):
    """One import circle as a list of modules, or None (depth-first search)."""
    state = {}
    stack = []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_import_parser_sees_imports_inside_functions_and_relative_levels():
    graph = _graph()
    # module-level relative imports of the floors below
    assert "_conversion" in graph["_dispatch"] and "_capabilities" in graph["_dispatch"]
    # two-dot relative imports out of the sub-package
    assert "_conversion" in graph["_format_extras.vtkhdf"]
    assert "_format_extras._time_series" in graph["_format_extras.xdmf"]
    # "from . import X" of a module, and the package's own __init__
    assert "_format_extras" in graph["__init__"] and "_core" in graph["_cell_types"]


def test_the_cycle_finder_finds_a_circle_through_a_function_level_import(tmp_path):
    module = tmp_path / "pkg_a.py"
    module.write_text("def f():\n    from meshioplusplus import _helpers\n")
    imports = _imports("_mesh", module, _module_names())
    graph = _graph()
    graph["_mesh"] = graph["_mesh"] | imports  # what _mesh.write used to do
    assert _cycle(graph) is not None


def test_the_package_has_no_import_circle():
    graph = _graph()
    assert _cycle(graph) is None, f"import circle: {' -> '.join(_cycle(graph))}"


def test_every_import_goes_down_the_floors():
    graph = _graph()
    floor_of = {module: floor for floor, modules in FLOORS.items() for module in modules}
    unplaced = sorted(set(graph) - set(floor_of))
    assert not unplaced, f"modules not placed on a floor in this test and docs/architecture.md: {unplaced}"
    upward = []
    for module, targets in graph.items():
        for target in targets:
            if floor_of[target] >= floor_of[module]:
                upward.append(f"{module} (floor {floor_of[module]}) imports {target} (floor {floor_of[target]})")
    assert not upward, "imports that do not go down:\n" + "\n".join(sorted(upward))


def test_the_capability_table_imports_nothing_of_the_package():
    assert _graph()["_capabilities"] == set()


SOURCE_LIMIT = 1000


@pytest.mark.parametrize("suffixes", [(".cpp", ".hpp", ".h", ".py", ".pyi")])
def test_no_source_file_in_src_is_over_1000_lines(suffixes):
    long_files = []
    for path in sorted((REPO / "src").rglob("*")):
        if path.suffix in suffixes and path.is_file():
            count = len(path.read_text(encoding="utf-8", errors="replace").splitlines())
            if count > SOURCE_LIMIT:
                long_files.append(f"{path.relative_to(REPO)}: {count} lines")
    assert not long_files, "split these along their seams (docs/architecture.md):\n" + "\n".join(long_files)
