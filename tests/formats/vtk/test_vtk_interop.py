"""Legacy VTK through meshio++ and meshio, both directions, every write variant."""

import pytest

import meshioplusplus as mio
from interop import assert_same_mesh, meshio_module, sample_mesh, to_meshio

VARIANTS = {
    "5.1-binary": {"binary": True, "fmt_version": "5.1"},
    "5.1-ascii": {"binary": False, "fmt_version": "5.1"},
    "4.2-binary": {"binary": True, "fmt_version": "4.2"},
    "4.2-ascii": {"binary": False, "fmt_version": "4.2"},
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_our_files_read_equal_in_meshio(tmp_path, variant):
    meshio = meshio_module()
    mesh = sample_mesh()
    if variant == "5.1-binary":
        # meshio 5.3.5's 5.1 reader takes VTK's `int` as 8 bytes in binary files; VTK and
        # meshio++ take it as 4. Compare without int32 arrays so the check stays meaningful.
        del mesh.point_data["id"]
    path = tmp_path / f"{variant}.vtk"
    mio.vtk.write(path, mesh, **VARIANTS[variant])
    # meshio's legacy reader widens/narrows some integer dtypes; values must still match.
    assert_same_mesh(meshio.read(path), mesh, check_dtypes=False)
    assert_same_mesh(mio.read(path), mesh)


@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("fmt_version", ["4.2", "5.1"])
def test_meshio_files_read_equal_in_ours(tmp_path, binary, fmt_version):
    meshio = meshio_module()
    mesh = sample_mesh()
    path = tmp_path / "from_meshio.vtk"
    meshio.vtk.write(path, to_meshio(mesh), binary=binary, fmt_version=fmt_version)
    # meshio's ASCII writer rounds floats; its binary output is exact.
    assert_same_mesh(mio.read(path), mesh, check_dtypes=False, rtol=0.0 if binary else 1e-10)
