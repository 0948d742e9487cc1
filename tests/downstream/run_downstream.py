"""Real projects' meshio tests, run against meshio and against meshio++ posing as ``meshio``.

The drop-in promise seen from meshio's users: a client's tests that pass with meshio 5.3.5 must
pass with meshio++ standing in for it. For each client below (its version pinned), this script
fetches the client's PyPI sdist once (into ``--cache``), takes its ``tests/`` folder, fills in
what the sdist leaves out (``overlays/<project>/``: a conftest, mesh files), and runs the tests
that go through meshio twice with pytest — plain, and with ``tests/meshio_suite/shim`` first on
``sys.path`` so that ``import meshio`` (the client's own included) is meshio++ — each run in its
own copy of the tree, then compares the outcomes test by test. The client itself is the
installed package (pip-installed at the pinned version when the environment has another).

Exit status 1 when a test passes for meshio but not for us, unless ``pending.txt`` lists it (a
real gap of ours, with the reason); 2 when a run gives no results. Tests that fail for both
(e.g. a download the machine cannot reach) are counted, not judged.

    python tests/downstream/run_downstream.py [--cache DIR] [--report FILE] [--jobs 1|2] [PROJECT ...]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "meshio_suite"))
import run_meshio_suite as suite  # noqa: E402  (the meshio-suite harness: download, pytest, junit)


@dataclass(frozen=True)
class Project:
    name: str  # on PyPI
    version: str | None  # pinned; None: the installed one
    targets: tuple[str, ...]  # test files and node ids, relative to the sdist's root
    uses: str  # what these tests do with meshio


def _node_ids(path, names):
    return tuple(f"{path}::{name}" for name in names)


PROJECTS = (
    Project("pyvista", None, ("tests/test_meshio.py",),
            "pv.from_meshio / pv.to_meshio round trips of every cell kind (polyhedra, pixels, "
            "voxels, 2-D points), pv.read_meshio / pv.save_meshio, meshio._exceptions"),
    Project("pygmsh", "7.1.17", ("tests",),
            "the whole suite: every geometry's generate_mesh() is a meshio.Mesh built from gmsh "
            "(cells, cell_sets, gmsh:physical / gmsh:geometrical cell data), some write files"),
    Project("scikit-fem", "11.0.0",
            _node_ids("tests/test_mesh.py", (
                "Loading", "test_meshio_cycle", "test_meshio_cycle_boundaries", "test_load_file",
                "test_meshio_cycle_subdomains", "test_saveload_cycle_vtk", "test_saveload_cycle_tags",
                "test_load_orientation", "test_hole_orientation"))
            + _node_ids("tests/test_basis.py", ("test_oriented_interface_integral", "test_oriented_saveload"))
            + _node_ids("tests/test_manufactured.py", (
                "SolveCirclePoisson", "SolveCirclePoissonQuad", "SolveCirclePoissonQuad2",
                "SolveCirclePoissonTri2", "SolveCirclePoissonTet2")),
            "skfem.io.meshio (to_meshio / from_meshio with cell sets, oriented boundaries), "
            "Mesh.load of Gmsh 2.2/4.1 and VTK files, Mesh.save to .msh/.vtk/.vtu and back"),
    Project("felupe", "11.3.0",
            _node_ids("tests/test_mesh.py", ("test_meshes", "test_container", "test_read", "test_read_nocells"))
            + _node_ids("tests/test_job.py", (
                "test_job_xdmf", "test_job_xdmf_global_field", "test_job_xdmf_vertex",
                "test_job_after_job_on_error", "test_job_repeated_evaluate"))
            + _node_ids("tests/test_cutback.py", ("test_cutback_xdmf",))
            + _node_ids("tests/test_tools.py", ("test_solve", "test_solve_mixed"))
            + _node_ids("tests/test_readme.py", ("test_readme",))
            + ("tests/test_composite.py",)
            + _node_ids("tests/test_plot.py", ("test_xdmf_cell_data", "test_xdmf_point_data")),
            "Mesh.as_meshio / save (VTK), fem.mesh.read (Nastran), meshio.xdmf.TimeSeriesWriter / "
            "TimeSeriesReader result files of jobs"),
)


def ensure_installed(project):
    """The version to test: the pin (pip-installed when another one is there) or the installed one."""
    try:
        installed = metadata.version(project.name)
    except metadata.PackageNotFoundError:
        installed = None
    version = project.version or installed
    if version is None:
        raise RuntimeError(f"{project.name} is not installed (pip install {project.name})")
    if installed != version:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", f"{project.name}=={version}"], check=True)
    return version


def apply_overlay(project, root):
    """Copies ``overlays/<project>/`` onto ``root``: files the sdist lacks; ``*.tar.gz`` unpacked."""
    overlay = HERE / "overlays" / project.name
    for source in sorted(overlay.rglob("*")) if overlay.is_dir() else []:
        if source.name.endswith(".tar.gz"):
            suite.extract(source, root, [""])
        elif source.is_file() and not (root / source.relative_to(overlay)).exists():
            (root / source.relative_to(overlay)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, root / source.relative_to(overlay))


def fetch_tests(project, version, cache):
    """The sdist's root folder, with its ``tests/`` unpacked and the overlay applied (once)."""
    # Only this package from source: its build requirements (numpy, gmsh …) may be wheels.
    archive = suite.download_sdist(cache, project.name, version, no_binary=project.name)
    root = cache / archive.name[: -len(".tar.gz")]
    ini = root / "harness-pytest.ini"
    if not ini.is_file():
        suite.extract(archive, cache, [f"{root.name}/tests/"])
        apply_overlay(project, root)
        # An empty ini so that neither the client's pytest configuration nor ours is picked up.
        ini.write_text("[pytest]\n")
    return root


def error_line(junit, test_id):
    """What went wrong, in one line: the failure's message, else the first ``E`` line of its report."""
    message = " ".join(suite.failure_text(junit, test_id))
    if message and message != "collection failure":
        return message
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        if f"{case.get('classname')}::{case.get('name')}" == test_id:
            text = "".join(node.text or "" for node in case if node.tag in ("failure", "error"))
            found = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
            return found[0] if found else message
    return message


def collection_error(junit, test_id):
    """For a test our run does not have: the error of collecting its module, if that is why."""
    module = test_id.split("::")[0]
    for collected, outcome in suite.outcomes(junit).items():
        name = collected.split("::")[-1]
        if collected.startswith("::") and outcome == "failed" and module.startswith(name):
            return f"collecting {name}: {error_line(junit, collected)}"
    return "not collected"


@dataclass
class Result:
    project: Project
    version: str
    theirs: dict
    ours: dict
    regressions: list  # (test id, our outcome, first error line)
    pending: list
    ahead: list
    both_fail: list
    seconds: float


def run_project(project, cache, jobs):
    version = ensure_installed(project)
    root = fetch_tests(project, version, cache)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        # Each run in its own copy: clients' tests write files into the working directory.
        sides = {}
        for side in ("meshio", "ours"):
            tree = shutil.copytree(root, Path(folder) / side)
            shutil.copyfile(HERE / "meshio_probe.py", tree / "harness_meshio_probe.py")
            sides[side] = (tree / "tests", Path(folder) / f"{side}.xml")
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            runs = {side: pool.submit(suite.run_pytest, tests, junit, side == "ours",
                                      ["-p", "harness_meshio_probe", "--continue-on-collection-errors"],
                                      list(project.targets))
                    for side, (tests, junit) in sides.items()}
            done = {side: run.result() for side, run in runs.items()}
        for side, (tests, junit) in sides.items():
            if not junit.is_file():
                raise RuntimeError(f"the {side} run of {project.name} produced no results:\n"
                                   + done[side].stdout[-3000:] + done[side].stderr[-3000:])
            probe = tests.parent / "meshio-used.txt"
            used = probe.read_text() if probe.is_file() else "unknown (no meshio-used.txt)"
            expected = {"meshio": "meshio", "ours": "meshioplusplus"}[side]
            if used != expected:
                raise RuntimeError(f"the {side} run of {project.name} imported meshio as {used}, not {expected}")
        junit_ours = sides["ours"][1]
        theirs, ours = suite.outcomes(sides["meshio"][1]), suite.outcomes(junit_ours)
        pending = suite.read_reasons(HERE / "pending.txt")
        result = Result(project, version, theirs, ours, [], [], [], [], time.monotonic() - started)
        for test_id, outcome in sorted(theirs.items()):
            mine = ours.get(test_id, "missing")
            if outcome == "passed" and mine != "passed":
                why = collection_error(junit_ours, test_id) if mine == "missing" else error_line(junit_ours, test_id)
                key = f"{project.name}::{test_id}"
                (result.pending if key in pending else result.regressions).append((test_id, mine, why))
            elif outcome == "failed" and mine == "passed":
                result.ahead.append(test_id)
            elif outcome == "failed":
                result.both_fail.append((test_id, error_line(sides["meshio"][1], test_id)))
    return result


def report(results, seconds):
    def count(outcomes, what):
        return sum(1 for v in outcomes.values() if v == what)

    header = f"{'project':<12} {'version':<9} {'tests':>6} {'pass meshio':>12} {'pass us':>8} " \
             f"{'fail us only':>13} {'pending':>8} {'fail both':>10} {'skipped':>8} {'seconds':>8}"
    lines = [f"meshio's clients, their meshio tests: meshio {suite.MESHIO_VERSION} vs meshio++ as meshio",
             "", header, "-" * len(header)]
    for r in results:
        lines.append(f"{r.project.name:<12} {r.version:<9} {len(r.theirs):>6} {count(r.theirs, 'passed'):>12} "
                     f"{count(r.ours, 'passed'):>8} {len(r.regressions):>13} {len(r.pending):>8} "
                     f"{len(r.both_fail):>10} {count(r.theirs, 'skipped'):>8} {r.seconds:>8.0f}")
    lines.append(f"\nwall time: {seconds:.0f} s")
    pending = suite.read_reasons(HERE / "pending.txt")
    for r in results:
        lines.append(f"\n== {r.project.name} {r.version}: {r.project.uses}")
        lines += [f"  FAILS FOR US ONLY: {r.project.name}::{t} [{o}] {msg[:300]}" for t, o, msg in r.regressions]
        for t, o, msg in r.pending:
            lines += [f"  pending: {r.project.name}::{t} [{o}] {msg[:200]}",
                      f"    pending.txt: {pending[f'{r.project.name}::{t}']}"]
        lines += [f"  passes for us, fails for meshio: {t}" for t in r.ahead]
        lines += [f"  fails for both: {t} {msg[:160]}" for t, msg in r.both_fail]
    still = {f"{r.project.name}::{t}" for r in results for t, _, _ in r.pending}
    stale = [key for key in pending if key.split("::")[0] in {r.project.name for r in results} and key not in still]
    if stale:
        lines.append("\npending.txt entries that no longer fail for us only (remove them):")
        lines += [f"  {key}" for key in stale]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("projects", nargs="*", help="only these (default: all of them)")
    parser.add_argument("--cache", type=Path, default=suite.REPO / "build" / "downstream" / "cache")
    parser.add_argument("--report", type=Path, default=suite.REPO / "build" / "downstream" / "report.txt")
    parser.add_argument("--jobs", type=int, choices=(1, 2), default=2,
                        help="run the meshio and the meshio++ side of a project at once (2) or in turn (1)")
    args = parser.parse_args(argv)
    unknown = set(args.projects) - {p.name for p in PROJECTS}
    if unknown:
        parser.error(f"unknown project(s): {', '.join(sorted(unknown))}")

    started = time.monotonic()
    results = []
    for project in PROJECTS:
        if args.projects and project.name not in args.projects:
            continue
        try:
            results.append(run_project(project, args.cache, args.jobs))
        except (RuntimeError, subprocess.CalledProcessError, FileNotFoundError, tarfile.TarError) as error:
            print(f"downstream: {project.name}: {error}")
            return 2
    text = report(results, time.monotonic() - started)
    print(text)
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(text + "\n")
    return 1 if any(r.regressions for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
