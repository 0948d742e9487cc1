"""Reading less and knowing more (issue 35; docs/read-less.md): ``read(points_only=, arrays=,
cell_types=, time_step=)`` and ``read_metadata`` on every real file in tests/data, against the
full read of the same file — a narrowed read is the same subset of the full read, bit for bit —
and the bytes a VTU read leaves on disk (the page cache tells which pages were touched)."""

import ctypes
import json
import mmap
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import meshioplusplus as mio

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
EXTENSIONS = {
    ".vtu", ".vtk", ".vtp", ".msh", ".mesh", ".mail", ".frd", ".unv", ".cdb", ".k", ".xda", ".xdr", ".mphtxt",
    ".glb", ".gltf", ".pcd", ".e", ".exo", ".xdmf", ".med", ".ply", ".stl", ".obj", ".inp", ".feb", ".neu", ".op2",
    ".fil", ".plt", ".xplt", ".case", ".usda", ".off", ".node", ".vts", ".vtr", ".vti", ".pvtu", ".pvd", ".vtkhdf",
    ".cgns", ".h5m", ".su2", ".bdf", ".nas", ".xyz", ".pts", ".ugrid", ".f3grid", ".mdpa", ".wkt", ".ele", ".vtm",
}
FILES = sorted(
    p for p in DATA.rglob("*")
    if p.is_file() and "fuzz" not in p.as_posix() and p.suffix.lower() in EXTENSIONS
)
SIZED = re.compile(r"^(polygon|polyhedron)\d+$")


def ids(path):
    return path.relative_to(DATA).as_posix()


def same_array(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def same_cells(blocks, others):
    assert [b.type for b in blocks] == [b.type for b in others]
    for block, other in zip(blocks, others):
        if isinstance(block.data, np.ndarray):
            assert same_array(block.data, other.data), block.type
        else:
            assert len(block.data) == len(other.data), block.type


def full_or_error(path):
    try:
        return mio.read(path), None
    except mio.ReadError as error:
        return None, error


def test_the_corpus_is_there():
    assert len(FILES) > 150, "tests/data holds the real files of every format"


@pytest.mark.parametrize("path", FILES, ids=ids)
def test_narrowed_reads_are_subsets_of_the_full_read(path):
    full, error = full_or_error(path)
    if error is not None:  # a file the reader refuses is refused the same way narrowed
        with pytest.raises(mio.ReadError):
            mio.read(path, arrays=[])
        return
    names = list(full.point_data) + list(full.cell_data)
    # arrays=[]: the geometry, no data
    bare = mio.read(path, arrays=[])
    assert same_array(bare.points, full.points)
    same_cells(bare.cells, full.cells)
    assert not bare.point_data and not bare.cell_data
    # arrays=[one]: that array alone, equal to the full read's
    if names:
        name = names[-1]
        one = mio.read(path, arrays=[name])
        # by name: a point and a cell array of that name both stay
        assert list(one.point_data) == [name] * (name in full.point_data)
        assert list(one.cell_data) == [name] * (name in full.cell_data)
        if name in full.point_data:
            assert same_array(one.point_data[name], full.point_data[name])
        if name in full.cell_data:
            assert len(one.cell_data[name]) == len(full.cell_data[name])
            for part, whole in zip(one.cell_data[name], full.cell_data[name]):
                assert same_array(part, whole)
        same_cells(one.cells, full.cells)
    # points_only: the points and nothing else
    points = mio.read(path, points_only=True)
    assert same_array(points.points, full.points)
    assert len(points.cells) == 0 and not points.point_data and not points.cell_data
    # cell_types=[one]: those blocks, the points whole
    types = [b.type for b in full.cells if not SIZED.match(b.type)]
    if types:
        kept = mio.read(path, cell_types=[types[0]])
        assert same_array(kept.points, full.points)
        same_cells(kept.cells, [b for b in full.cells if b.type == types[0]])
        for name, parts in kept.cell_data.items():
            wanted = [p for p, b in zip(full.cell_data[name], full.cells) if b.type == types[0]]
            assert all(same_array(p, w) for p, w in zip(parts, wanted))


@pytest.mark.parametrize("path", FILES, ids=ids)
def test_metadata_shows_what_the_full_read_shows(path):
    full, error = full_or_error(path)
    if error is not None:
        with pytest.raises(mio.ReadError):
            mio.read_metadata(path)
        return
    summary = mio.read_metadata(path)
    assert summary["schema"] == 1
    assert summary["num_points"] == len(full.points)
    assert summary["num_cells"] == sum(len(b) for b in full.cells)
    by_type = {}
    for block in full.cells:
        core_type = SIZED.sub(r"\1", block.type)
        by_type[core_type] = by_type.get(core_type, 0) + len(block)
    stated = {}
    for block in summary["cell_blocks"]:
        stated[block["type"]] = stated.get(block["type"], 0) + block["count"]
    assert stated == {t: c for t, c in by_type.items() if c}
    arrays = {(a["association"], a["name"]): a for a in summary["arrays"]}
    for name, values in full.point_data.items():
        entry = arrays[("point", name)]
        assert entry["dtype"] == np.asarray(values).dtype.name and tuple(entry["shape"]) == np.asarray(values).shape
    for name, parts in full.cell_data.items():
        entry = arrays[("cell", name)]
        assert entry["shape"][0] == sum(len(p) for p in parts)
    assert {n for a, n in arrays if a in ("point", "cell")} == set(full.point_data) | set(full.cell_data)
    json.dumps(summary)  # the documented schema is plain JSON


def test_bad_requests_name_what_was_asked_and_what_the_file_has():
    path = DATA / "corpus" / "vtu" / "notch_disp.vtu"
    with pytest.raises(ValueError, match="no array 'pressure'.*Nodal Displacement"):
        mio.read(path, arrays=["pressure"])
    with pytest.raises(ValueError, match="no 'triangle' cells.*hexahedron20"):
        mio.read(path, cell_types=["triangle"])
    with pytest.raises(ValueError, match="unknown cell type 'trangle'"):
        mio.read(path, cell_types=["trangle"])
    with pytest.raises(ValueError, match="time_step=3 is out of range: vtu files hold one step"):
        mio.read(path, time_step=3)
    with pytest.raises(ValueError, match="points_only=True reads no cells"):
        mio.read(path, points_only=True, cell_types=["tetra"])
    with pytest.raises(TypeError, match="time_step must be an integer"):
        mio.read(path, time_step=1.5)
    with pytest.raises(ValueError, match="ask for 'polygon'"):
        mio.read(path, cell_types=["polygon5"])
    assert len(mio.read(path, time_step=-1).cells) == len(mio.read(path).cells)  # one step: 0 or -1


@pytest.mark.parametrize("path", sorted(DATA.glob("xdmf/*.xdmf")) + sorted(DATA.glob("exodus/*.e")), ids=ids)
def test_time_step_is_the_series_step(path):
    summary = mio.read_metadata(path)
    module = mio.xdmf if path.suffix == ".xdmf" else mio.exodus
    with module.TimeSeriesReader(path) as series:
        series.read_points_cells()
        assert summary["times"] == pytest.approx(series.times)
        if not series.num_steps:  # a series without steps of data holds one: the file itself
            whole = mio.read(path)
            for step in (0, -1):
                assert same_array(mio.read(path, time_step=step).points, whole.points)
            with pytest.raises(ValueError, match="time_step=1 is out of range"):
                mio.read(path, time_step=1)
            return
        for k in (0, series.num_steps - 1):
            t, point_data, cell_data = series.read_data(k)
            for step in (k, k - series.num_steps):
                mesh = mio.read(path, time_step=step)
                for name, values in point_data.items():
                    assert same_array(mesh.point_data[name], values)
                for name, parts in cell_data.items():
                    assert all(same_array(a, b) for a, b in zip(mesh.cell_data[name], parts))
        with pytest.raises(ValueError, match=f"the file holds {series.num_steps} steps"):
            mio.read(path, time_step=series.num_steps)


def test_isolated_reads_take_the_same_options():
    path = DATA / "corpus" / "vtu" / "notch_disp.vtu"
    narrowed = mio.read(path, points_only=True, isolate=True)
    assert same_array(narrowed.points, mio.read(path).points) and not narrowed.cells
    assert mio.read_metadata(path, isolate=True) == mio.read_metadata(path)
    with pytest.raises(ValueError, match="no array 'x'"):
        mio.read(path, arrays=["x"], isolate=True)


def test_narrowing_reaches_readers_registered_in_python(tmp_path):
    def reader(filename):
        return mio.Mesh(np.zeros((3, 3)), [("triangle", np.array([[0, 1, 2]]))], point_data={"a": np.arange(3.0),
                                                                                               "b": np.ones(3)})
    mio.register_format("three-points", [".three"], reader, {})
    try:
        path = tmp_path / "x.three"
        path.write_text("")
        mesh = mio.read(path, arrays=["b"])
        assert list(mesh.point_data) == ["b"] and len(mesh.cells) == 1
        summary = mio.read_metadata(path)
        assert summary["num_points"] == 3 and summary["cell_blocks"] == [{"type": "triangle", "count": 1}]
        assert not summary["header_only"]
    finally:
        mio.deregister_format("three-points")


def test_cli_info_fast_and_json():
    path = DATA / "corpus" / "vtu" / "notch_disp.vtu"
    run = [sys.executable, "-m", "meshioplusplus", "info"]
    fast = subprocess.run(run + ["--fast", str(path)], capture_output=True, text=True, check=True).stdout
    assert "from the header" in fast and "hexahedron20     2188" in fast and "Nodal Displacement: float64 (12717, 3)" in fast
    summary = json.loads(subprocess.run(run + ["--fast", "--json", str(path)], capture_output=True, text=True,
                                        check=True).stdout)
    assert summary == mio.read_metadata(path)
    full = json.loads(subprocess.run(run + ["--json", str(path)], capture_output=True, text=True, check=True).stdout)
    assert full["num_cells"] == summary["num_cells"] and not full["header_only"] and full["bounds"] is not None


# ---- bytes left on disk: the page cache after a narrowed VTU read ----

def resident_bytes(path):
    """Bytes of `path` in the page cache: mincore over a fresh copy-on-write mapping (never written,
    so every page it reports is the file's own cached page)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    size = os.path.getsize(path)
    vector = (ctypes.c_ubyte * -(-size // mmap.PAGESIZE))()
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), size, access=mmap.ACCESS_COPY) as mapping:
        first = ctypes.c_char.from_buffer(mapping)
        status = libc.mincore(ctypes.addressof(first), size, vector)
        del first  # the mapping closes only once nothing points into it
    assert status == 0, f"mincore failed: errno {ctypes.get_errno()}"
    return sum(page & 1 for page in vector) * mmap.PAGESIZE


def evict(path):
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())  # dirty pages stay cached until written back
        os.posix_fadvise(handle.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def readahead_bytes(path):
    """The kernel's readahead window for the device holding `path` (each touched range may be
    read up to this far past its end)."""
    device = os.stat(path).st_dev
    base = pathlib.Path(f"/sys/dev/block/{os.major(device)}:{os.minor(device)}")
    for queue in (base / "queue", base / ".." / "queue"):
        try:
            return int((queue / "read_ahead_kb").read_text()) * 1024
        except (OSError, ValueError):
            continue
    return 8 * 2**20


def test_a_narrowed_vtu_read_leaves_the_other_arrays_on_disk(tmp_path):
    n = 1_000_000
    rng = np.random.default_rng(7)
    mesh = mio.Mesh(rng.random((n, 3)), [("tetra", rng.integers(0, n, size=(n, 4)))],
                    point_data={f"field{i}": rng.random((n, 3)) for i in range(6)})
    path = str(tmp_path / "big.vtu")
    # Appended raw: the layout whose arrays a reader can skip (inline base64 sits inside the XML,
    # which is scanned whole)
    mio.write(path, mesh, binary=True, compression=None, appended=True)
    del mesh
    size = os.path.getsize(path)
    evict(path)
    if resident_bytes(path) > size // 10:
        pytest.skip("this filesystem keeps the file cached after POSIX_FADV_DONTNEED")
    array_bytes = n * 3 * 8  # 24 MB: the points, and each field
    mio.read(path, points_only=True, arrays=["field2"])
    touched = resident_bytes(path)
    # The points and one field, the header, the file's last page, and the kernel's readahead
    # past each (its window grows to twice read_ahead_kb) — not the cells (40 MB) nor the five
    # other fields (120 MB).
    assert touched <= 2 * array_bytes + 5 * readahead_bytes(path), (touched, size)
    assert touched < size // 2
    evict(path)
    mio.read(path)
    assert resident_bytes(path) >= size - 2**20  # the full read touches everything


def test_points_only_with_a_cell_array_named_reads_the_check_and_drops_the_cells(tmp_path):
    mesh = mio.Mesh(np.random.default_rng(3).random((4, 3)), [("tetra", np.array([[0, 1, 2, 3]]))],
                    point_data={"T": np.arange(4.0)}, cell_data={"m": [np.array([7])]})
    path = tmp_path / "one.vtu"
    mio.write(path, mesh, binary=True, compression=None, appended=True)
    narrowed = mio.read(path, points_only=True, arrays=["T", "m"])
    assert not narrowed.cells and list(narrowed.point_data) == ["T"] and not narrowed.cell_data
    with pytest.raises(ValueError, match="no array 'n'.*'T', 'm'"):
        mio.read(path, points_only=True, arrays=["n"])


@pytest.mark.parametrize("extension, options", [(".vtk", {"binary": True}), (".vtk", {"binary": False}),
                                                (".vtu", {}), (".vtkhdf", {})])
def test_metadata_counts_runs_of_cell_types_of_every_length(tmp_path, extension, options):
    # read_metadata finds a run's end 32 bytes (or 8 legacy values) at a time: runs shorter
    # than, equal to and longer than a step, odd lengths, a lone cell between two long runs.
    if extension == ".vtkhdf" and not mio._core.features().get("hdf5"):
        pytest.skip("this build has no HDF5")
    lengths = [1, 31, 32, 33, 64, 65, 1, 200, 7, 1000, 1]
    points = np.random.default_rng(3).random((8, 3))
    cells = [("tetra" if k % 2 == 0 else "hexahedron",
              np.tile(np.arange(4 if k % 2 == 0 else 8), (n, 1))) for k, n in enumerate(lengths)]
    path = tmp_path / f"runs{extension}"
    mio.write(path, mio.Mesh(points, cells), **options)
    summary = mio.read_metadata(path)
    assert summary["num_cells"] == sum(lengths)
    counted = {}
    for block in summary["cell_blocks"]:
        counted[block["type"]] = counted.get(block["type"], 0) + block["count"]
    assert counted == {"tetra": sum(lengths[0::2]), "hexahedron": sum(lengths[1::2])}
    if extension != ".vtu":  # legacy and VTKHDF list runs in file order; VTU one entry per type
        assert [(b["type"], b["count"]) for b in summary["cell_blocks"]] == [(t, len(c)) for t, c in cells]
    full = mio.read(path)
    assert [(b.type, len(b)) for b in full.cells] == [(t, len(c)) for t, c in cells]


def test_legacy_binary_metadata_reports_an_unknown_type_inside_a_long_run(tmp_path):
    path = tmp_path / "bad.vtk"
    mio.write(path, mio.Mesh(np.random.default_rng(4).random((4, 3)), [("tetra", np.tile(np.arange(4), (100, 1)))]),
              binary=True)
    data = bytearray(path.read_bytes())
    at = data.index(b"CELL_TYPES 100\n") + len(b"CELL_TYPES 100\n")
    data[at + 4 * 70: at + 4 * 71] = (77).to_bytes(4, "big")  # cell 70 of one run of tetra (10)
    path.write_bytes(bytes(data))
    for call in (mio.read_metadata, mio.read):
        with pytest.raises(mio.ReadError, match=r"unknown VTK cell type 77 \(cell 70\)"):
            call(path)


# Files over the 1 MiB small-file limit are mapped; then legacy CELL_TYPES and VTU's raw
# appended types are copied out by pread in 64 Ki-value chunks and counted as they come: runs
# ending one cell before, at and after a chunk's end, a lone cell on a boundary, a long tail.
CHUNK_RUNS = [65535, 1, 65536, 2, 65535, 100000]


def chunk_runs_mesh():
    points = np.random.default_rng(5).random((8, 3))
    return [("tetra" if k % 2 == 0 else "hexahedron", np.tile(np.arange(4 if k % 2 == 0 else 8), (n, 1)))
            for k, n in enumerate(CHUNK_RUNS)], points


@pytest.mark.parametrize("extension, options", [
    (".vtk", {"binary": True}),
    (".vtu", {"binary": True, "compression": None, "appended": True}),
    (".vtu", {"binary": True, "compression": None, "appended": False}),
    (".vtu", {"binary": True, "compression": "zlib"}),
])
def test_metadata_of_a_mapped_file_counts_runs_across_chunks(tmp_path, extension, options):
    cells, points = chunk_runs_mesh()
    path = tmp_path / f"chunks{extension}"
    mio.write(path, mio.Mesh(points, cells, point_data={"T": np.arange(8.0)}), **options)
    if options.get("compression", "") is None or extension == ".vtk":
        assert path.stat().st_size > 2**20  # mapped, not copied
    summary = mio.read_metadata(path)
    assert summary["num_cells"] == sum(CHUNK_RUNS)
    counted = {}
    for block in summary["cell_blocks"]:
        counted[block["type"]] = counted.get(block["type"], 0) + block["count"]
    assert counted == {"tetra": sum(CHUNK_RUNS[0::2]), "hexahedron": sum(CHUNK_RUNS[1::2])}
    if extension == ".vtk":  # runs in file order
        assert [(b["type"], b["count"]) for b in summary["cell_blocks"]] == [(t, len(c)) for t, c in cells]
    assert [a["name"] for a in summary["arrays"]] == ["T"]
    full = mio.read(path)
    assert [(b.type, len(b)) for b in full.cells] == [(t, len(c)) for t, c in cells]
    assert same_array(full.point_data["T"], np.arange(8.0))


def test_mapped_legacy_metadata_reports_an_unknown_type_in_a_later_chunk(tmp_path):
    cells, points = chunk_runs_mesh()
    path = tmp_path / "bad.vtk"
    mio.write(path, mio.Mesh(points, cells), binary=True)
    data = bytearray(path.read_bytes())
    header = f"CELL_TYPES {sum(CHUNK_RUNS)}\n".encode()
    at = data.index(header) + len(header)
    data[at + 4 * 200000: at + 4 * 200001] = (77).to_bytes(4, "big")
    path.write_bytes(bytes(data))
    for call in (mio.read_metadata, mio.read):
        with pytest.raises(mio.ReadError, match=r"unknown VTK cell type 77 \(cell 200000\)"):
            call(path)


def inline_base64_texts(data):
    """The (start, end) of every inline base64 DataArray text of a VTU."""
    spans = []
    for match in re.finditer(rb'format="binary"[^>]*>', data):
        start = match.end()
        spans.append((start, data.index(b"<", start)))
    return spans


@pytest.mark.parametrize("compression", [None, "zlib"])
def test_inline_base64_ends_found_from_the_header_or_by_search(tmp_path, compression):
    # The scan jumps over an unbroken base64 text by its size header; wrapped text (line
    # breaks inside) or a header that does not add up is searched for its end instead.
    cells, points = chunk_runs_mesh()
    mesh = mio.Mesh(points, cells[:3], point_data={"T": np.arange(8.0)}, cell_data={"m": [np.arange(len(c)) for _, c in cells[:3]]})
    path = tmp_path / "inline.vtu"
    mio.write(path, mesh, binary=True, compression=compression, appended=False)
    data = path.read_bytes()
    spans = inline_base64_texts(data)
    assert spans
    wrapped = bytearray()
    last = 0
    for start, end in spans:
        text = data[start:end].strip()
        wrapped += data[last:start] + b"\n" + b"\n".join(text[k:k + 76] for k in range(0, len(text), 76)) + b"\n"
        last = end
    wrapped += data[last:]
    wrapped_path = tmp_path / "wrapped.vtu"
    wrapped_path.write_bytes(bytes(wrapped))
    expected = mio.read(path)
    for candidate in (path, wrapped_path):
        assert mio.read_metadata(candidate) == mio.read_metadata(path)
        full = mio.read(candidate)
        same_cells(full.cells, expected.cells)
        assert same_array(full.point_data["T"], expected.point_data["T"])
        for part, other in zip(full.cell_data["m"], expected.cell_data["m"]):
            assert same_array(part, other)
