"""The fixtures PyVista's tests/test_meshio.py takes from PyVista's own tests/conftest.py, which
its sdist leaves out: as there, each is the bundled example mesh of its name (no download)."""

import pytest

import pyvista
from pyvista import examples

pyvista.OFF_SCREEN = True


def _example(name):
    @pytest.fixture(name=name)
    def load():
        return getattr(examples, f"load_{name}")()

    return load


airplane, sphere, uniform, hexbeam = (_example(name) for name in ("airplane", "sphere", "uniform", "hexbeam"))
