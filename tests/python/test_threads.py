"""The thread-count knob: reads give the same arrays and the same errors on one thread as on
every core, and the environment variable sets the default."""

import os
import subprocess
import sys

import numpy as np
import pytest

import meshioplusplus as mio


@pytest.fixture
def restore_thread_count():
    yield
    mio.set_num_threads(None)


def box_mesh(n):
    """(n-1)^3 hexahedra split into 5 tets each: text sections well over the 4 MiB split size."""
    ticks = np.linspace(0.0, 1.0, n)
    points = np.stack(np.meshgrid(ticks, ticks, ticks, indexing="ij"), axis=-1).reshape(-1, 3)
    index = np.arange(n**3).reshape(n, n, n)
    corners = [index[i:n - 1 + i, j:n - 1 + j, k:n - 1 + k].ravel() for i in (0, 1) for j in (0, 1) for k in (0, 1)]
    c = np.stack(corners, axis=1)  # the 8 corners of each hexahedron
    tets = np.concatenate([c[:, [0, 1, 3, 5]], c[:, [0, 3, 2, 6]], c[:, [0, 5, 4, 6]], c[:, [3, 5, 6, 7]], c[:, [0, 3, 5, 6]]])
    return mio.Mesh(points, [("tetra", tets)], point_data={"x": points[:, 0].copy()},
                    cell_data={"id": [np.arange(len(tets), dtype=np.int32)]})


@pytest.mark.parametrize("filename,options", [("box.vtu", {"binary": False}), ("box.vtu", {"compression": "zlib"}),
                                              ("box.msh", {"binary": False}), ("box.mesh", {})])
def test_one_thread_reads_what_every_core_reads(tmp_path, restore_thread_count, filename, options):
    path = tmp_path / filename
    mio.write(path, box_mesh(50), **options)
    assert path.stat().st_size > 4 << 20 or "zlib" in options.values()
    on_every_core = mio.read(path)
    mio.set_num_threads(1)
    assert mio.get_num_threads() == 1
    on_one = mio.read(path)
    np.testing.assert_array_equal(on_one.points, on_every_core.points)
    np.testing.assert_array_equal(on_one.cells[0].data, on_every_core.cells[0].data)
    for name, arrays in on_every_core.cell_data.items():
        np.testing.assert_array_equal(on_one.cell_data[name][0], arrays[0])


def test_errors_do_not_depend_on_the_thread_count(tmp_path, restore_thread_count):
    path = tmp_path / "bad.vtu"
    mio.write(path, box_mesh(50), binary=False)
    text = path.read_bytes()
    connectivity = text.index(b">", text.index(b'Name="connectivity"')) + 1
    section_end = text.index(b"</DataArray>", connectivity)
    bad_at = text.index(b" ", (connectivity + 3 * section_end) // 4) + 1  # in the last piece, not the first
    path.write_bytes(text[:bad_at] + b"x" + text[bad_at + 1:])
    messages = []
    for count in (None, 1):
        mio.set_num_threads(count)
        with pytest.raises(mio.ReadError) as error:
            mio.read(path)
        messages.append(str(error.value))
    assert messages[0] == messages[1]
    assert str(bad_at) in messages[0]


def test_environment_variable_sets_the_default():
    code = "import meshioplusplus as mio; print(mio.get_num_threads())"
    environment = dict(os.environ, MESHIOPLUSPLUS_NUM_THREADS="1")
    assert subprocess.check_output([sys.executable, "-c", code], env=environment, text=True).strip() == "1"
    environment["MESHIOPLUSPLUS_NUM_THREADS"] = "not a number"
    default = subprocess.check_output([sys.executable, "-c", code], env=environment, text=True).strip()
    assert int(default) == len(os.sched_getaffinity(0)) or int(default) == os.cpu_count()


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True])
def test_bad_counts_are_refused(bad):
    with pytest.raises(ValueError, match="set_num_threads"):
        mio.set_num_threads(bad)
