"""Isolated reads (docs/isolation.md): ``read(path, isolate=True)`` runs the reader in a worker
process; a crash, hang or memory cap there is a ReadError here, and the mesh comes back whole
through shared memory, bit-identical to an in-process read."""

import os
import random
import re
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _isolation
from meshioplusplus._mesh import CellBlock, Mesh
from meshioplusplus._regions import Region

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
SHARED_CORPUS = REPO.parent / "shared" / "corpus"
FINDINGS = DATA / "fuzz-library-findings"
# Under the sanitizer lane's ASan build (scripts/sanitize.sh sets MESHIOPLUSPLUS_SANITIZED) a
# worker's crash or failed allocation is caught by ASan, reported on the worker's stderr and ends
# in abort (abort_on_error=1): the signal the caller sees is SIGABRT.
SANITIZED = bool(os.environ.get("MESHIOPLUSPLUS_SANITIZED"))
CRASH_SIGNAL = "SIGSEGV|SIGABRT" if SANITIZED else "SIGSEGV"
_SKIP_NAMES = {"MANIFEST.tsv", "EXPECTED_meshio.tsv", "EXPECTED_ref.tsv", "README.md", "README_meshio.md"}


def _corpus_files():
    files = []
    for root in (DATA, SHARED_CORPUS):
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.name not in _SKIP_NAMES and not any(
                    part.startswith("fuzz-") for part in path.relative_to(root).parts):
                files.append(path)
    return files


def _library_corpus_files():
    suffixes = {".h5m", ".hmf", ".cgns", ".med", ".e", ".exo", ".ex2", ".hdf", ".vtkhdf"}
    return [path for path in _corpus_files() if path.suffix.lower() in suffixes]


def assert_identical(a, b, where="mesh"):
    """Deep, bit-exact equality of two read results (arrays by dtype, shape and bytes)."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, f"{where}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes(), f"{where}: values differ"
    elif isinstance(a, Mesh):
        assert_identical(a.__getstate__(), b.__getstate__(), where)
    elif isinstance(a, Region):
        for name in Region.__slots__:
            assert_identical(getattr(a, name), getattr(b, name), f"{where}.{name}")
    elif isinstance(a, CellBlock):
        assert_identical(a.__getstate__() if hasattr(a, "__getstate__") and callable(a.__getstate__) else vars(a),
                         b.__getstate__() if hasattr(b, "__getstate__") and callable(b.__getstate__) else vars(b),
                         where)
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for key in a:
            assert_identical(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{where}: length {len(a)} != {len(b)}"
        for index, (x, y) in enumerate(zip(a, b)):
            assert_identical(x, y, f"{where}[{index}]")
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), where
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def _read_or_error(path, **keywords):
    try:
        return mio.read(path, **keywords), None
    except mio.ReadError as error:
        return None, error


@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: str(p.relative_to(p.parents[2])))
def test_an_isolated_read_is_bit_identical_to_an_in_process_one(path):
    expected, expected_error = _read_or_error(path)
    got, error = _read_or_error(path, isolate=True, timeout=60)
    if expected_error is not None:
        assert error is not None, f"{path}: read in-process fails ({expected_error}) but not isolated"
        assert type(error) is type(expected_error) and str(error) == str(expected_error)
        return
    assert error is None, f"{path}: {error}"
    assert_identical(expected, got)


def test_the_arrays_come_back_shared_not_copied():
    path = DATA / "corpus" / "exodus" / "disk_out_ref.ex2"
    before = _isolation.stats()
    mesh = mio.read(path, isolate=True)
    after = _isolation.stats()
    # The mapping is the arrays' memory: their base chain ends at the shared mapping.
    arrays = [mesh.points, *(block.data for block in mesh.cells), *mesh.point_data.values()]
    for array in arrays:
        base = array
        while isinstance(base, np.ndarray) and base.base is not None:
            base = base.base
        assert isinstance(base, _isolation.SharedMapping), type(base)
        assert array.flags.writeable
    shared = after["bytes_shared"] - before["bytes_shared"]
    assert shared >= sum(a.nbytes for a in arrays) > 0
    assert after["bytes_copied"] - before["bytes_copied"] == 0
    # Writing to the adopted arrays is ours alone, and the memory outlives the read.
    mesh.points[0, 0] = 12345.0
    del arrays
    assert mesh.points[0, 0] == 12345.0


def test_the_mapping_goes_when_its_last_array_does():
    mesh = mio.read(DATA / "corpus" / "exodus" / "box-noglom.ex2", isolate=True)
    base = mesh.points
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    import weakref
    alive = weakref.ref(base)
    del base, mesh
    import gc
    gc.collect()
    assert alive() is None


def test_library_findings_are_read_errors_and_this_process_survives():
    """The saved crashes, hangs and leaks inside libhdf5/libnetcdf/libcgns (tests/data/
    fuzz-library-findings/README.md): in-process they take this process down; isolated each is a
    ReadError (or, where a release build survives the input, a mesh)."""
    formats = {"hmf": "hmf", "h5m": "h5m", "vtkhdf": "vtkhdf", "med": "med", "cgns": "cgns", "exodus": "exodus",
               "fluent_cff": "fluent_cff"}
    outcomes = {}
    for path in sorted(FINDINGS.glob("*/*")):
        file_format = formats[path.parent.name]
        try:
            mio.read(path, file_format, isolate=True, timeout=3)
            outcomes[path.name] = "mesh"
        except mio.ReadError as error:
            assert str(path) in str(error) and file_format in str(error)
            outcomes[path.name] = getattr(error, "cause", None) or "error"
    assert len(outcomes) >= 17
    # The two SEGVs (H5HG_read; memcpy from null under H5Lexists) kill the worker: named so.
    assert outcomes["crash-8fb002327642"] == "signal"
    assert outcomes["crash-03d597c1036f"] == "signal"
    # The hangs: the worker is killed at the timeout. Whether libhdf5 reaches its loop depends on
    # the order the reader opens the file's objects (which the thread count of earlier tests can
    # change): a finding may also end earlier, in a ReadError of ours — never anything else.
    hangs = {name: outcomes[name] for name in outcomes if name.startswith("timeout-") and (FINDINGS / "hmf" / name).exists()}
    assert set(hangs.values()) <= {"timeout", "error"} and "timeout" in hangs.values(), hangs
    assert list(outcomes.values()).count("mesh") <= 2
    # And the worker pool is healthy afterwards.
    assert len(mio.read(DATA / "corpus" / "exodus" / "box-noglom.ex2", isolate=True).points) > 0


def test_a_crash_names_the_file_the_format_and_the_signal():
    path = FINDINGS / "hmf" / "crash-8fb002327642"
    with pytest.raises(mio.ReadError, match=rf"crash-8fb002327642: hmf: .*({CRASH_SIGNAL})") as caught:
        mio.read(path, "hmf", isolate=True)
    assert caught.value.path == str(path) and caught.value.format == "hmf" and caught.value.cause == "signal"


HOOK_MODULE = """
import os, signal, time
import numpy
import meshioplusplus as mio

def hang(path):
    time.sleep(3600)

def hog(path):
    block = bytearray(int(open(path).read()))  # the parser's own heap, not an array of the mesh
    return mio.Mesh(numpy.zeros((len(block) and 1, 3)), [])

def abort(path):
    os.kill(os.getpid(), signal.SIGABRT)

def python_made(path):
    return mio.Mesh(numpy.arange(12.0).reshape(4, 3), [("triangle", numpy.array([[0, 1, 2], [1, 2, 3]]))])

for name, reader in [("hang", hang), ("hog", hog), ("abort", abort), ("pymade", python_made)]:
    mio.register_format("test-" + name, ["." + name], reader, {})
"""


@pytest.fixture
def hooks(tmp_path, monkeypatch):
    """Formats registered from Python in the worker (MESHIOPLUSPLUS_ISOLATE_IMPORTS): a reader
    that hangs, one that allocates what it is told, one that aborts."""
    (tmp_path / "isolation_hooks.py").write_text(HOOK_MODULE)
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    monkeypatch.setenv("MESHIOPLUSPLUS_ISOLATE_IMPORTS", "isolation_hooks")
    _isolation.shutdown()  # workers started from here on import the hooks
    files = {}
    for name, content in [("hang", "x"), ("abort", "x"), ("pymade", "x"), ("hog", str(3 << 30))]:
        files[name] = tmp_path / f"file.{name}"
        files[name].write_text(content)
    for name in ("hang", "hog", "abort", "pymade"):
        mio.register_format("test-" + name, ["." + name], None, {})  # the extension, here too
    yield files
    for name in ("hang", "hog", "abort", "pymade"):
        mio.deregister_format("test-" + name)
    _isolation.shutdown()


def test_a_read_that_hangs_hits_the_timeout(hooks):
    mio.read(hooks["pymade"], isolate=True)  # a worker is ready
    start = time.monotonic()
    with pytest.raises(mio.ReadError, match=r"file.hang: .*timeout=0.5 s") as caught:
        mio.read(hooks["hang"], isolate=True, timeout=0.5)
    assert caught.value.cause == "timeout"
    assert 0.5 <= time.monotonic() - start < 10
    assert mio.read(DATA / "corpus" / "exodus" / "box-noglom.ex2", timeout=30).points.shape[1] == 3


def test_an_abort_is_named(hooks):
    with pytest.raises(mio.ReadError, match="SIGABRT") as caught:
        mio.read(hooks["abort"], isolate=True)
    assert caught.value.cause == "signal"


def test_the_parsers_own_heap_is_capped_by_max_bytes(hooks):
    # 3 GiB asked by the "parser" itself: past max_bytes (+ 256 MiB room) it fails in the worker.
    # (Under ASan its own allocator may refuse first and abort the worker.)
    with pytest.raises(mio.ReadError, match="max_bytes=|SIGABRT" if SANITIZED else "max_bytes=") as caught:
        mio.read(hooks["hog"], isolate=True, max_bytes=64 << 20)
    assert caught.value.cause in (("memory", "signal") if SANITIZED else ("memory",))


def test_arrays_made_in_python_come_back_copied_and_counted(hooks):
    before = _isolation.stats()
    mesh = mio.read(hooks["pymade"], isolate=True)
    assert mesh.points.shape == (4, 3) and mesh.cells[0].data.tolist() == [[0, 1, 2], [1, 2, 3]]
    assert _isolation.stats()["bytes_copied"] - before["bytes_copied"] >= mesh.points.nbytes


def test_a_fifo_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "nobody-writes.vtu"
    os.mkfifo(fifo)
    with pytest.raises(mio.ReadError, match="FIFO"):
        mio.read(fifo, isolate=True, timeout=30)


def test_killing_the_worker_mid_read_is_a_read_error(hooks):
    outcome = {}

    def reading():
        try:
            mio.read(hooks["hang"], isolate=True, timeout=60)
            outcome["result"] = "mesh"
        except mio.ReadError as error:
            outcome["result"] = error

    thread = threading.Thread(target=reading)
    thread.start()
    deadline = time.monotonic() + 30
    while not _isolation._pool.busy and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)  # the worker is asleep in the reader
    for worker in list(_isolation._pool.busy):
        os.kill(worker.pid, signal.SIGKILL)
    thread.join(60)
    assert isinstance(outcome["result"], mio.ReadError)
    assert "SIGKILL" in str(outcome["result"]) and outcome["result"].cause == "signal"


def test_the_memory_cap_fails_the_read_in_the_worker_only():
    path = DATA / "corpus" / "exodus" / "disk_out_ref.ex2"
    whole = mio.read(path)
    total = whole.points.nbytes + sum(np.asarray(v).nbytes for v in whole.point_data.values())
    largest = max([whole.points.nbytes] + [np.asarray(v).nbytes for v in whole.point_data.values()])
    cap = largest + 4096  # every array passes the per-array limit; together they do not fit
    assert cap < total
    limit_before = mio.get_max_array_bytes()
    with pytest.raises(mio.ReadError, match=f"max_bytes={cap}") as caught:
        mio.read(path, isolate=True, max_bytes=cap)
    assert caught.value.cause == "memory"
    # This process was not limited: its settings are as they were, the same read works here.
    assert mio.get_max_array_bytes() == limit_before
    assert_identical(mio.read(path, max_bytes=cap), whole)
    # And the worker took the next read normally.
    assert_identical(mio.read(path, isolate=True), whole)


def test_a_reused_worker_serves_many_reads_and_threads():
    path = DATA / "corpus" / "exodus" / "box-noglom.ex2"
    expected = mio.read(path)
    started = _isolation.stats()["workers_started"]
    for _ in range(20):
        assert_identical(mio.read(path, isolate=True), expected)
    results, errors = [], []

    def reading():
        try:
            for _ in range(10):
                results.append(mio.read(path, isolate=True))
        except Exception as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=reading) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors and len(results) == 40
    for mesh in results:
        assert_identical(mesh, expected)
    assert _isolation.stats()["workers_started"] - started <= 4


def test_the_environment_variable_and_the_keywords(monkeypatch):
    path = DATA / "corpus" / "exodus" / "box-noglom.ex2"
    before = _isolation.stats()["reads"]
    monkeypatch.setenv("MESHIOPLUSPLUS_ISOLATE", "1")
    mio.read(path)
    assert _isolation.stats()["reads"] == before + 1
    mio.read(path, isolate=False)
    assert _isolation.stats()["reads"] == before + 1
    monkeypatch.delenv("MESHIOPLUSPLUS_ISOLATE")
    mio.read(path)
    assert _isolation.stats()["reads"] == before + 1
    with pytest.raises(ValueError, match="timeout"):
        mio.read(path, isolate=False, timeout=1)
    with open(path, "rb") as buffer:  # buffers are spooled to a file the worker reads
        assert_identical(mio.read(buffer, "exodus", isolate=True), mio.read(path))


def test_the_worker_is_hardened_where_the_kernel_allows():
    info = _isolation.worker_info()
    assert info["no_new_privs"] is True
    if info["landlock_abi"] >= 1:
        assert info["filesystem_writes"].startswith("only beneath")
    if info["landlock_abi"] >= 4:
        assert info["tcp"] == "blocked"


def test_the_cli_isolates_library_formats_by_default(tmp_path, capsys):
    from meshioplusplus import _cli

    parse = _cli.build_parser().parse_args
    assert _cli._isolates(parse(["info", str(DATA / "corpus" / "exodus" / "box-noglom.ex2")])) is True
    assert _cli._isolates(parse(["info", "--no-isolate", "x.cgns"])) is False
    assert _cli._isolates(parse(["info", "x.vtu"])) is False
    assert _cli._isolates(parse(["info", "--isolate", "x.vtu"])) is True
    assert _cli._isolates(parse(["info", "--timeout", "5", "x.vtu"])) is True
    assert _cli._isolates(parse(["convert", "-i", "hmf", "x.bin", "y.vtu"])) is True
    # A crashing file is an error message and exit status 1, not a dead command.
    status = _cli.main(["convert", "-i", "hmf", str(FINDINGS / "hmf" / "crash-8fb002327642"),
                        str(tmp_path / "out.vtu")])
    assert status == 1
    assert re.search(CRASH_SIGNAL, capsys.readouterr().err)


def _mutants(data, rng, count):
    for _ in range(count):
        mutant = bytearray(data)
        kind = rng.random()
        if kind < 0.2:
            del mutant[rng.randrange(1, len(mutant)):]
        else:
            for _ in range(rng.choice([1, 2, 4, 8, 32])):
                position = rng.randrange(len(mutant))
                mutant[position] = rng.randrange(256) if kind < 0.7 else mutant[position] ^ (1 << rng.randrange(8))
        yield bytes(mutant)


def mutation_run(files, count, seed=0, timeout=5.0, folder=None):
    """Reads ``count`` mutants of ``files`` through isolate=True; returns the outcome counts.
    Every outcome must be a mesh or a ReadError (anything else propagates)."""
    import tempfile

    rng = random.Random(seed)
    outcomes = {"mesh": 0, "error": 0, "signal": 0, "timeout": 0, "memory": 0}
    per_file = -(-count // len(files))
    done = 0
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        for source in files:
            data = source.read_bytes()
            for index, mutant in enumerate(_mutants(data, rng, min(per_file, count - done))):
                target = Path(scratch) / f"mutant-{index}{source.suffix}"
                target.write_bytes(mutant)
                try:
                    mio.read(target, isolate=True, timeout=timeout, max_bytes=1 << 30)
                    outcomes["mesh"] += 1
                except mio.ReadError as error:
                    outcomes[getattr(error, "cause", None) or "error"] += 1
                target.unlink()
                done += 1
    return outcomes


def test_mutants_of_library_backed_files_never_take_this_process_down():
    files = _library_corpus_files()
    if not files:
        pytest.skip("no HDF5/netCDF/CGNS corpus files found")
    small = [path for path in files if path.stat().st_size <= 400_000] or files
    start = time.monotonic()
    outcomes = mutation_run(small, 200, seed=37)
    assert sum(outcomes.values()) == 200
    assert time.monotonic() - start < 120


def test_a_worker_answer_naming_anything_but_data_classes_is_refused():
    # A parser bug that let a file take the worker over must not reach the caller through the
    # answer: the unpickler admits the package's classes, exceptions and numpy's array
    # reconstructors only, so an answer naming os.system (or any function) is refused.
    import pickle

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo owned",))

    with pytest.raises(pickle.UnpicklingError, match="os.system|posix.system"):
        _isolation._restricted_loads(pickle.dumps(Evil()))
    mesh = Mesh(np.zeros((3, 3)), [CellBlock("triangle", np.array([[0, 1, 2]]))])
    back = _isolation._restricted_loads(pickle.dumps(("mesh", mesh, ValueError("x"), {1, 2}, np.arange(3))))
    assert back[0] == "mesh" and back[1].cells[0].type == "triangle"
    np.testing.assert_array_equal(back[4], np.arange(3))


@pytest.mark.parametrize("path", [DATA / "xdmf" / "checkpoint.xdmf", DATA / "exodus" / "tmap8_val-2d_limited_out.e"],
                         ids=lambda p: p.name)
def test_time_series_readers_read_isolated_as_in_process(path):
    module = mio.xdmf if path.suffix == ".xdmf" else mio.exodus
    with module.TimeSeriesReader(path) as here, module.TimeSeriesReader(path, isolate=True, timeout=60) as there:
        assert isinstance(there._reader, _isolation.IsolatedSeries)
        assert there.num_steps == here.num_steps > 0 and there.times == here.times
        points, cells = there.read_points_cells()
        assert_identical(here.read_points_cells()[0], points, "points")
        for k in (0, here.num_steps - 1):
            assert_identical(list(here.read_data(k)), list(there.read_data(k)), f"step {k}")
    with pytest.raises(ValueError, match="timeout= bounds an isolated read"):
        module.TimeSeriesReader(path, isolate=False, timeout=1)


def test_an_isolated_series_names_the_file_it_cannot_read(tmp_path):
    broken = tmp_path / "broken.xdmf"
    broken.write_bytes((DATA / "xdmf" / "checkpoint.xdmf").read_bytes())
    for name in os.listdir(DATA / "xdmf"):
        if name.endswith(".h5"):
            (tmp_path / name).write_bytes((DATA / "xdmf" / name).read_bytes()[:2048])  # the heavy data cut
    with pytest.raises(mio.ReadError, match="checkpoint.h5: xdmf: cannot open the HDF5 file"):
        with mio.xdmf.TimeSeriesReader(broken, isolate=True) as series:
            series.read_points_cells()
            series.read_data(0)
