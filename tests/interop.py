"""Cross-checks against meshio (PyPI): files we write read back equal in meshio, and files
meshio writes read back equal in meshio++. Used by the per-format interop tests. Also the way
to meshio++ 17.21 (the earlier implementation, a peer in its own venv: same import name)."""

import gzip
import os
import pathlib
import subprocess
import threading

import numpy as np
import pytest

import meshioplusplus as mio


def sample_mesh(cell_types=("triangle", "quad", "tetra", "hexahedron", "wedge", "pyramid")):
    """Points in general position plus one small block per requested type, with point and
    cell data of a few dtypes."""
    rng = np.random.default_rng(42)
    points = rng.random((30, 3))
    nodes = mio.num_nodes_per_cell
    cells = [(t, rng.integers(0, 30, size=(3, nodes[t]), dtype=np.int64)) for t in cell_types]
    return mio.Mesh(
        points,
        cells,
        point_data={"T": rng.random(30), "v": rng.random((30, 3)), "id": np.arange(30, dtype=np.int32)},
        cell_data={"c": [rng.random(3) for _ in cells], "m": [np.arange(3, dtype=np.int64) for _ in cells]},
    )


def meshio_module():
    return pytest.importorskip("meshio")


def assert_same_mesh(a, b, check_dtypes=True, rtol=0.0):
    """Equal points and float data (bit-exact unless ``rtol`` allows the rounding of a lossy
    text writer such as meshio's ASCII VTU), equal blocks and integer data."""
    np.testing.assert_allclose(np.asarray(a.points), np.asarray(b.points), rtol=rtol, atol=0)
    assert [c.type for c in a.cells] == [c.type for c in b.cells]
    for x, y in zip(a.cells, b.cells):
        np.testing.assert_array_equal(np.asarray(x.data), np.asarray(y.data))
    assert set(a.point_data) == set(b.point_data)
    for name in a.point_data:
        x, y = np.asarray(a.point_data[name]), np.asarray(b.point_data[name])
        np.testing.assert_allclose(x.reshape(len(x), -1), y.reshape(len(y), -1), rtol=rtol, atol=0)
        if check_dtypes:
            assert x.dtype == y.dtype, name
    assert set(a.cell_data) == set(b.cell_data)
    for name in a.cell_data:
        for x, y in zip(a.cell_data[name], b.cell_data[name]):
            x, y = np.asarray(x), np.asarray(y)
            np.testing.assert_allclose(x.reshape(len(x), -1), y.reshape(len(y), -1), rtol=rtol, atol=0)


def to_meshio(mesh):
    meshio = meshio_module()
    return meshio.Mesh(
        mesh.points,
        [(b.type, b.data) for b in mesh.cells],
        point_data=mesh.point_data,
        cell_data=mesh.cell_data,
    )


class CountingAllocator:
    """alloc/free pair that remembers every buffer it handed out and got back."""

    def __init__(self, name="counting"):
        self.name = name
        self.allocated = []  # byte counts asked for
        self.freed = 0
        self.owners = []
        self.lock = threading.Lock()

    def alloc(self, nbytes):
        owner = np.empty(max(int(nbytes), 1), dtype=np.uint8)
        with self.lock:
            self.allocated.append(int(nbytes))
            self.owners.append(id(owner))
        return owner

    def free(self, owner):
        with self.lock:
            self.freed += 1

    @property
    def live(self):
        return len(self.allocated) - self.freed

    @property
    def bytes_allocated(self):
        return sum(self.allocated)


def unpacked(path, folder):
    """A real file shipped gzip-compressed to keep tests/data within its budget (``<name>.gz``),
    inflated into ``folder`` as ``<name>``; with no ``.gz`` suffix, ``path`` itself."""
    path = pathlib.Path(path)
    if path.suffix != ".gz":
        return path
    target = pathlib.Path(folder) / path.stem
    if not target.exists():
        target.write_bytes(gzip.decompress(path.read_bytes()))
    return target


_UNPACKED_FOLDER = []


def data_files(folder, suffixes=None):
    """The real files of a tests/data folder, sorted by name (only those ending in one of
    ``suffixes`` when given, ``.gz`` aside): the ones shipped gzip-compressed inflated once per
    session into a temporary folder that goes at exit."""
    import atexit
    import shutil
    import tempfile

    if not _UNPACKED_FOLDER:
        _UNPACKED_FOLDER.append(pathlib.Path(tempfile.mkdtemp(prefix="meshioplusplus-test-data-")))
        atexit.register(shutil.rmtree, _UNPACKED_FOLDER[0], True)
    paths = []
    for path in sorted(pathlib.Path(folder).iterdir()):
        name = path.name[:-3] if path.suffix == ".gz" else path.name
        if path.is_file() and (suffixes is None or name.endswith(tuple(suffixes))):
            paths.append(unpacked(path, _UNPACKED_FOLDER[0]))
    return sorted(paths, key=lambda p: p.name)


#: meshio++ 17.21's interpreter (docs/benchmarks.md says how to make the venv).
MESHIOPLUSPLUS_17 = pathlib.Path(__file__).resolve().parents[1] / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"


def run_meshioplusplus_17(script, *args, timeout=600):
    """The standard output of `script` run by meshio++ 17.21 with `args` — its own package, not
    a PYTHONPATH pointing at ours; a skip naming the venv when it is not installed."""
    if not MESHIOPLUSPLUS_17.exists():
        pytest.skip("meshio++ 17.21 is not installed at bench/.venv-meshioplusplus-17")
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run([str(MESHIOPLUSPLUS_17), "-c", script, *map(str, args)], capture_output=True, text=True,
                          check=True, env=environment, timeout=timeout)
    return done.stdout


# Polyhedra shared by the VTK and XDMF polyhedron tests: twelve points, a cube, a pyramid on the
# cube's x = 1 face and a triangular prism (8, 5 and 6 nodes: three meshio block sizes), each as
# its faces' node lists pointing out of the cell; and VTK's face stream of such a list.
POLYHEDRA_POINTS = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1],
                             [2, 0, 0], [2, 1, 0], [2, 2, 0], [1, 2, 0]], dtype=np.float64)
CUBE = [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]]
PYRAMID = [[1, 2, 9, 8], [1, 8, 5], [8, 9, 5], [9, 2, 5], [2, 1, 5]]
PRISM = [[2, 11, 9], [6, 10, 5], [2, 9, 5, 6], [9, 11, 10, 5], [11, 2, 6, 10]]


def face_stream(faces):
    """VTK's face stream of a polyhedron: the face count, then each face's size and nodes."""
    out = [len(faces)]
    for face in faces:
        out += [len(face), *face]
    return out


def faces_of_stream(stream):
    """The inverse of face_stream."""
    faces, at = [], 1
    for _ in range(stream[0]):
        n = stream[at]
        faces.append(list(stream[at + 1: at + 1 + n]))
        at += n + 1
    return faces


def vtk_cells(grid):
    """Per cell of a VTK unstructured grid: ("polyhedron", its faces) or (VTK type, point ids)."""
    import vtk

    out = []
    for c in range(grid.GetNumberOfCells()):
        ids = vtk.vtkIdList()
        if grid.GetCellType(c) == 42:
            grid.GetFaceStream(c, ids)
            out.append(("polyhedron", faces_of_stream([ids.GetId(i) for i in range(ids.GetNumberOfIds())])))
        else:
            grid.GetCellPoints(c, ids)
            out.append((grid.GetCellType(c), [ids.GetId(i) for i in range(ids.GetNumberOfIds())]))
    return out


_GMSH_CAD_VIEW = """
import json, sys
import gmsh
import numpy as np
gmsh.initialize()
gmsh.option.setNumber("General.Terminal", 0)
gmsh.model.occ.importShapes(sys.argv[1])
gmsh.model.occ.synchronize()
surfaces, volumes = gmsh.model.getEntities(2), gmsh.model.getEntities(3)
area = sum(gmsh.model.occ.getMass(2, tag) for _, tag in surfaces)
box = np.array(gmsh.model.getBoundingBox(-1, -1))
gmsh.option.setNumber("Mesh.MeshSizeMax", float(np.linalg.norm(box[3:] - box[:3])) / 20)
gmsh.model.mesh.generate(2)
nodes = gmsh.model.mesh.getNodes()[1].reshape(-1, 3)
print(json.dumps({"surfaces": len(surfaces), "volumes": len(volumes), "area": area,
                  "low": nodes.min(0).tolist(), "high": nodes.max(0).tolist()}))
"""


def gmsh_cad_view(path):
    """Gmsh's OpenCASCADE import of a STEP/IGES file (STEP and IGES tests): its surfaces and
    volumes, their exact area (occ.getMass) and the box of its 2-D mesh's nodes. In a process of
    its own: Gmsh's wheel carries its own OpenCASCADE, which must not meet ours in one process."""
    import importlib.util
    import json
    import sys

    if importlib.util.find_spec("gmsh") is None:
        pytest.skip("Gmsh's Python API (pip install gmsh) is the reference")
    # Without the sanitizer lane's preloaded ASan runtime: the reference is not under test.
    environment = {key: value for key, value in os.environ.items() if key not in ("LD_PRELOAD", "PYTHONPATH")}
    done = subprocess.run([sys.executable, "-c", _GMSH_CAD_VIEW, str(path)], capture_output=True, text=True,
                          check=True, timeout=600, env=environment)
    view = json.loads(done.stdout.strip().splitlines()[-1])
    view["low"], view["high"] = np.array(view["low"]), np.array(view["high"])
    return view

def kuhn_tet_box(n):
    """A cube of (n-1)^3 hexahedra split into 6 tetrahedra each (Kuhn): points, tetra nodes."""
    axis = np.linspace(0.0, 1.0, n)
    x, y, z = np.meshgrid(axis, axis, axis, indexing="ij")
    points = np.column_stack([x.ravel(), y.ravel(), z.ravel()])
    i, j, k = np.meshgrid(*(np.arange(n - 1),) * 3, indexing="ij")
    base = (i * n * n + j * n + k).ravel()
    corner = [base + a * n * n + b * n + c for a in (0, 1) for b in (0, 1) for c in (0, 1)]
    kuhn = [(0, 4, 6, 7), (0, 4, 5, 7), (0, 1, 5, 7), (0, 1, 3, 7), (0, 2, 3, 7), (0, 2, 6, 7)]
    return points, np.concatenate([np.column_stack([corner[a], corner[b], corner[c], corner[d]]) for a, b, c, d in kuhn])


def assert_large_deck_reads_alike_on_one_thread_and_two(path, file_format, n=35):
    """A tet box deck (n=35: 235,824 tets) large enough for a reader's sections parsed on all
    cores, written by our writer to ``path``: the same arrays read at one thread and at two,
    and the mesh that was written."""
    import meshioplusplus as mio

    points, tets = kuhn_tet_box(n)
    mio.write(str(path), mio.Mesh(points, [("tetra", tets)]), file_format=file_format)
    meshes = []
    for threads in (1, 2):
        mio._core.set_thread_count(threads)
        try:
            meshes.append(mio.read(str(path), file_format=file_format))
        finally:
            mio._core.set_thread_count(0)
    one, two = meshes
    assert np.array_equal(one.points, two.points) and np.array_equal(one.points, points)
    assert [c.type for c in two.cells] == ["tetra"]
    assert np.array_equal(one.cells[0].data, two.cells[0].data) and np.array_equal(two.cells[0].data, tets)
    assert one.cell_data.keys() == two.cell_data.keys()
    for name in one.cell_data:
        assert all(np.array_equal(a, b) for a, b in zip(one.cell_data[name], two.cell_data[name])), name


class FakeWorld:
    """Every rank of a communicator of ``size``, one after the other in one process (no MPI
    needed): ``comm(rank)`` is that rank's communicator, with the calls a partitioned read and
    write make. A ``bcast`` on rank 0 records its value (pickled, as MPI sends it); the other
    ranks' ``bcast`` deliver rank 0's values in call order — so run rank 0 first. ``gather``
    behaves as on a communicator of one rank."""

    def __init__(self, size):
        self.size, self.sent = size, []

    def comm(self, rank):
        return _FakeComm(self, rank)


class _FakeComm:
    def __init__(self, world, rank):
        self.world, self.rank, self.received = world, rank, 0

    def Get_rank(self):
        return self.rank

    def Get_size(self):
        return self.world.size

    def gather(self, value, root=0):
        return [value]

    def bcast(self, value, root=0):
        import pickle

        assert root == 0
        if self.rank == 0:
            self.world.sent.append(pickle.dumps(value))
            return value
        assert value is None, "only rank 0's value is broadcast"
        message = self.world.sent[self.received]
        self.received += 1
        return pickle.loads(message)
