"""SVG (write only): meshio++'s document has meshio's structure; numbers agree to meshio's
float_fmt precision (meshio++ writes shortest round-trip numbers instead)."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import meshioplusplus as mio
from interop import meshio_module

NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")


def flat_mesh():
    rng = np.random.default_rng(3)
    points = np.column_stack([rng.random((12, 2)) * 7.0, np.zeros(12)])
    cells = [("triangle", rng.integers(0, 12, (4, 3))), ("quad", rng.integers(0, 12, (3, 4))),
             ("line", rng.integers(0, 12, (2, 2)))]
    return points, cells


def numbers(text):
    return np.array([float(x) for x in NUMBER.findall(text)])


def structure(path):
    root = ET.parse(path).getroot()
    return root, [(child.tag, sorted(child.attrib)) for child in root]


@pytest.mark.parametrize("options", [{}, {"image_width": None}, {"image_width": 250, "stroke_width": "0.3",
                                                                    "fill": "none", "stroke": "#ff0000"}])
def test_same_document_as_meshio(tmp_path, options):
    meshio = meshio_module()
    points, cells = flat_mesh()
    theirs = tmp_path / "theirs.svg"
    ours = tmp_path / "ours.svg"
    meshio.svg.write(theirs, meshio.Mesh(points, cells), **options)
    mio.svg.write(ours, mio.Mesh(points, cells), **options)
    root_t, children_t = structure(theirs)
    root_o, children_o = structure(ours)
    assert root_o.tag == root_t.tag and root_o.attrib.keys() == root_t.attrib.keys()
    assert root_o.attrib["version"] == root_t.attrib["version"]
    np.testing.assert_allclose(numbers(root_o.attrib["viewBox"]), numbers(root_t.attrib["viewBox"]), atol=1e-3)
    assert children_o == children_t
    style_t, style_o = root_t[0].text, root_o[0].text
    assert re.sub(NUMBER, "#", style_o) == re.sub(NUMBER, "#", style_t)
    for path_o, path_t in zip(root_o[1:], root_t[1:]):
        assert re.sub(NUMBER, "#", path_o.attrib["d"]) == re.sub(NUMBER, "#", path_t.attrib["d"])
        np.testing.assert_allclose(numbers(path_o.attrib["d"]), numbers(path_t.attrib["d"]), atol=1e-3)


def test_three_dimensional_meshes_are_refused_like_meshio(tmp_path):
    points, cells = flat_mesh()
    points[0, 2] = 1.0
    with pytest.raises(mio.WriteError):
        mio.svg.write(tmp_path / "x.svg", mio.Mesh(points, cells))
