"""meshio's own test suite, run against meshio and against meshio++ posing as ``meshio``.

The definition of "drop-in": every test of meshio 5.3.5's suite that passes with meshio itself
must pass with meshio++. The suite ships, with its real mesh files, in meshio's PyPI sdist; this
script fetches it once (into ``--cache``), runs it twice with pytest — plain, and with
``tests/meshio_suite/shim`` first on ``sys.path`` so that ``import meshio`` is meshio++ — and
compares the outcomes test by test.

Exit status 1 when a test passes for meshio but not for us, unless the test's module is listed
in ``pending.txt`` (formats of an open issue; each line says which). Tests where we pass and meshio
fails are listed too: those are meshio bugs we do not copy (docs/meshio-compatibility.md).

    python tests/meshio_suite/run_meshio_suite.py [--cache DIR] [--report FILE] [-k EXPR]
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

MESHIO_VERSION = "5.3.5"
HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def download_sdist(cache, name, version, no_binary=":all:"):
    """The sdist of ``name==version`` in ``cache`` (downloaded once with pip)."""
    candidates = [cache / f"{stem}-{version}.tar.gz" for stem in dict.fromkeys((name, name.replace("-", "_")))]
    if not any(archive.is_file() for archive in candidates):
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", no_binary,
             f"{name}=={version}", "-d", str(cache)],
            check=True,
        )
    for archive in candidates:
        if archive.is_file():
            return archive
    raise FileNotFoundError(f"pip download {name}=={version} wrote none of {[a.name for a in candidates]}")


def extract(archive, cache, prefixes):
    """Unpacks the members of ``archive`` under any of ``prefixes`` into ``cache``."""
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(tuple(prefixes))]
        tar.extractall(cache, members=members, filter="data") if hasattr(tarfile, "data_filter") else tar.extractall(
            cache, members=members)


def fetch_suite(cache):
    """The unpacked ``tests/`` folder of meshio's sdist (downloaded once into ``cache``)."""
    root = cache / f"meshio-{MESHIO_VERSION}"
    tests = root / "tests"
    if (tests / "helpers.py").is_file():
        return tests
    archive = download_sdist(cache, "meshio", MESHIO_VERSION)
    extract(archive, cache, [f"meshio-{MESHIO_VERSION}/tests/"])
    # An empty ini so that neither meshio's nor our pytest configuration is picked up.
    (root / "harness-pytest.ini").write_text("[pytest]\n")
    return tests


def run_pytest(tests, junit, shim, extra, targets=None):
    """pytest on ``tests`` (or on ``targets``, paths or node ids relative to its parent folder)."""
    env = dict(os.environ)
    # A developer's PYTHONPATH (a dev build of meshioplusplus) stays, after the shim.
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if shim:
        paths.insert(0, str(HERE / "shim"))
    env["PYTHONPATH"] = os.pathsep.join(paths)
    # meshio's numpy readers would otherwise spin OpenBLAS threads on our two cores.
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    command = [sys.executable, "-m", "pytest", *(targets or [str(tests)]), "-q", "-p", "no:cacheprovider",
               "-c", str(tests.parent / "harness-pytest.ini"), "--rootdir", str(tests.parent),
               f"--junitxml={junit}", "-o", "junit_family=xunit1", *extra]
    completed = subprocess.run(command, cwd=tests.parent, env=env, capture_output=True, text=True)
    return completed


def outcomes(junit):
    """test id -> 'passed' | 'failed' | 'skipped'."""
    result = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        test_id = f"{case.get('classname')}::{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            result[test_id] = "failed"
        elif case.find("skipped") is not None:
            result[test_id] = "skipped"
        else:
            result[test_id] = "passed"
    return result


def failure_text(junit, test_id):
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        if f"{case.get('classname')}::{case.get('name')}" == test_id:
            for tag in ("failure", "error"):
                node = case.find(tag)
                if node is not None:
                    return (node.get("message") or "").strip().splitlines()[:1]
    return []


def read_pending():
    """module -> reason, from pending.txt ('tests.test_xdmf  issue 13: XDMF not yet …')."""
    pending = {}
    path = HERE / "pending.txt"
    if path.is_file():
        for line in path.read_text().splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                module, _, reason = line.partition(" ")
                pending[module] = reason.strip()
    return pending


def read_reasons(path):
    """test id -> reason, from a file of lines 'TEST_ID  REASON' (two spaces; '#' comments)."""
    reasons = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                test_id, _, reason = line.partition("  ")
                reasons[test_id.strip()] = reason.strip()
    return reasons


def read_deliberate():
    """test id -> reason, from deliberate.txt (tests we fail on purpose: meshio is wrong)."""
    return read_reasons(HERE / "deliberate.txt")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=REPO / "build" / "meshio-suite")
    parser.add_argument("--report", type=Path, default=None, help="write the comparison here (text)")
    parser.add_argument("-k", dest="keyword", default=None, help="pytest -k expression (both runs)")
    args = parser.parse_args(argv)

    tests = fetch_suite(args.cache)
    extra = ["-k", args.keyword] if args.keyword else []
    with tempfile.TemporaryDirectory() as folder:
        junit_meshio = Path(folder) / "meshio.xml"
        junit_ours = Path(folder) / "ours.xml"
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            meshio_run = pool.submit(run_pytest, tests, junit_meshio, False, extra)
            ours_run = pool.submit(run_pytest, tests, junit_ours, True, extra)
            meshio_done, ours_done = meshio_run.result(), ours_run.result()
        for label, done, junit in (("meshio", meshio_done, junit_meshio), ("meshio++", ours_done, junit_ours)):
            if not junit.is_file():
                sys.stdout.write(done.stdout[-4000:] + done.stderr[-4000:])
                print(f"meshio-suite: the {label} run produced no results")
                return 2
        theirs, ours = outcomes(junit_meshio), outcomes(junit_ours)
        pending = read_pending()
        deliberate = read_deliberate()
        regressions, pending_hits, ahead, on_purpose = [], [], [], []
        for test_id, outcome in sorted(theirs.items()):
            mine = ours.get(test_id, "missing")
            module = test_id.split("::")[0]
            if outcome == "passed" and mine != "passed":
                if test_id in deliberate:
                    on_purpose.append(test_id)
                    continue
                (pending_hits if module in pending else regressions).append(
                    (test_id, mine, failure_text(junit_ours, test_id)))
            elif outcome == "failed" and mine == "passed":
                ahead.append(test_id)

        def count(results, what):
            return sum(1 for v in results.values() if v == what)

        lines = [
            f"meshio {MESHIO_VERSION} test suite: {len(theirs)} tests",
            f"  meshio:   {count(theirs, 'passed')} passed, {count(theirs, 'failed')} failed, "
            f"{count(theirs, 'skipped')} skipped",
            f"  meshio++: {count(ours, 'passed')} passed, {count(ours, 'failed')} failed, "
            f"{count(ours, 'skipped')} skipped",
            f"  pass for meshio, not for meshio++: {len(regressions)} (+ {len(pending_hits)} in pending modules)",
            f"  pass for meshio++, fail for meshio: {len(ahead)}",
            f"  failed on purpose (deliberate.txt: meshio is wrong there): {len(on_purpose)}",
        ]
        if regressions:
            lines.append("\nRegressions (pass for meshio, not for us):")
            lines += [f"  {t} [{o}] {' '.join(msg)[:200]}" for t, o, msg in regressions]
        if pending_hits:
            lines.append("\nPending (modules of open issues, see pending.txt):")
            by_module = {}
            for t, _, _ in pending_hits:
                by_module.setdefault(t.split("::")[0], []).append(t)
            lines += [f"  {m}: {len(v)} tests — {pending[m]}" for m, v in by_module.items()]
        if on_purpose:
            lines.append("\nFailed on purpose (deliberate.txt):")
            lines += [f"  {t} — {deliberate[t]}" for t in on_purpose]
        if ahead:
            lines.append("\nWhere meshio fails and we pass:")
            lines += [f"  {t}" for t in ahead]
        text = "\n".join(lines)
        print(text)
        if args.report:
            args.report.write_text(text + "\n")
        return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
