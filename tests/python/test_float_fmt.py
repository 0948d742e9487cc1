"""meshio's ``float_fmt`` write option: honoured by the text writers whose meshio writer takes it
(Abaqus, FLAC3D, Gmsh, MDPA, Medit, Netgen, TetGen, SVG), printed as Python's ``format()``
prints it; absent, every writer keeps the shortest exact form."""

import re

import numpy as np
import pytest

import meshioplusplus as mio

POINTS = np.array([[0.0, -1.5, 0.1], [1e-300, 123456.789, -2.0 / 3.0], [1e300, 5e-324, 7.0],
                   [-0.0, 1.0, 2.0 ** 0.5]])
TETRA = [("tetra", np.array([[0, 1, 2, 3]]))]
TRIANGLES = [("triangle", np.array([[0, 1, 2], [0, 2, 3]]))]
# format name -> (file name, mesh cells, write options besides float_fmt)
WRITERS = {
    "gmsh": ("out.msh", TETRA, {"binary": False}),
    "medit": ("out.mesh", TETRA, {}),
    "abaqus": ("out.inp", TETRA, {}),
    "flac3d": ("out.f3grid", TETRA, {}),
    "mdpa": ("out.mdpa", TETRA, {}),
    "netgen": ("out.vol", TETRA, {}),
    "tetgen": ("out.node", TETRA, {}),
}
SPECS = [".16e", ".6g", ".3f", ".8E", "e", ".0g", ".12G"]


def tokens(text):
    return set(re.split(r"[\s,]+", text))


@pytest.mark.parametrize("name", sorted(WRITERS))
@pytest.mark.parametrize("spec", SPECS)
def test_every_coordinate_is_printed_as_python_formats_it(tmp_path, name, spec):
    filename, cells, options = WRITERS[name]
    points = POINTS if name != "flac3d" else POINTS[:, :3]
    path = tmp_path / filename
    mio.write(path, mio.Mesh(points, cells), file_format=name, float_fmt=spec, **options)
    found = tokens(path.read_text())
    expected = {format(float(v), spec) for v in points.ravel()}
    assert expected <= found, sorted(expected - found)


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_without_float_fmt_floats_round_trip_exactly(tmp_path, name):
    filename, cells, options = WRITERS[name]
    path = tmp_path / filename
    mio.write(path, mio.Mesh(POINTS, cells), file_format=name, **options)
    back = mio.read(path, file_format=name)
    assert np.array_equal(np.asarray(back.points, dtype=float)[:, :3], POINTS)


def test_a_lossy_float_fmt_is_what_the_caller_asked_for(tmp_path):
    path = tmp_path / "lossy.msh"
    mio.write(path, mio.Mesh(POINTS, TETRA), fmt_version="2.2", binary=False, float_fmt=".3f")
    back = mio.read(path)
    assert np.allclose(back.points[:, :2][np.abs(POINTS[:, :2]) < 1e6], np.round(POINTS[:, :2][np.abs(POINTS[:, :2]) < 1e6], 3))


def test_svg_takes_float_fmt_for_its_coordinates(tmp_path):
    flat = POINTS[:, :2].copy()
    flat[np.abs(flat) > 1e6] = 3.0  # a drawing of sane size
    path = tmp_path / "out.svg"
    mio.write(path, mio.Mesh(flat, TRIANGLES), float_fmt=".3f", image_width=None)
    drawn = " ".join(re.findall(r'(?:d|viewBox)="([^"]*)"', path.read_text()))
    numbers = re.findall(r"-?\d+\.\d+", drawn)
    assert numbers and all(len(n.split(".")[1]) == 3 for n in numbers)


def test_meshio_and_we_print_the_same_numbers(tmp_path):
    meshio = pytest.importorskip("meshio")
    mesh = mio.Mesh(POINTS, TETRA)
    for spec in (".16e", ".5f"):
        ours, theirs = tmp_path / f"ours{spec}.mesh", tmp_path / f"theirs{spec}.mesh"
        mio.write(ours, mesh, float_fmt=spec)
        meshio.write(theirs, meshio.Mesh(POINTS, [("tetra", np.array([[0, 1, 2, 3]]))]), float_fmt=spec)
        vertices = {format(float(v), spec) for v in POINTS.ravel()}
        assert vertices <= tokens(ours.read_text()) and vertices <= tokens(theirs.read_text())


@pytest.mark.parametrize("spec", ["%.3f", "10.3f", ".3d", ".f", "+.3e", ".999e"])
def test_a_spec_we_cannot_honour_is_a_write_error_naming_it(tmp_path, spec):
    path = tmp_path / "out.msh"
    path.write_text("previous")
    with pytest.raises(mio.WriteError, match="float_fmt"):
        mio.write(path, mio.Mesh(POINTS, TETRA), binary=False, float_fmt=spec)
    assert path.read_text() == "previous"


def test_formats_without_float_fmt_accept_and_ignore_it(tmp_path):
    path = tmp_path / "out.vtu"
    mio.write(path, mio.Mesh(POINTS, TETRA), float_fmt=".3f")  # meshio code passes it everywhere
    assert np.array_equal(mio.read(path).points, POINTS)
