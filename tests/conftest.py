"""Shared fixtures: the real-file corpus beside the repository and its meshio expectations."""

import csv
import os
import pathlib

import pytest

CORPUS = pathlib.Path(os.environ.get("MESHIOPLUSPLUS_CORPUS", pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "corpus"))


def expected_rows():
    """EXPECTED_meshio.tsv as dicts (empty when the corpus is absent)."""
    table = CORPUS / "EXPECTED_meshio.tsv"
    if not table.exists():
        return []
    with open(table, newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def parse_blocks(text):
    """'line:7;triangle:45' -> [('line', 7), ('triangle', 45)]"""
    if not text:
        return []
    return [(name, int(count)) for name, count in (item.split(":") for item in text.split(";"))]


@pytest.fixture(scope="session")
def corpus():
    if not CORPUS.exists():
        pytest.skip(f"corpus not found at {CORPUS}")
    return CORPUS


@pytest.fixture
def meshio_knows_wedge15_pyramid13(monkeypatch):
    """meshio 5.3.5 bug: ``meshio._mesh.topological_dimension`` has no "wedge15" and no
    "pyramid13" entry although its format tables (PERMAS PENTA15, Netgen's 15- and 13-node
    elements, ``num_nodes_per_cell``) know them, so ``meshio.Mesh`` raises KeyError for such a
    block, on write and on read alike. The entries are added for one test only; the interop
    tests that use this also pin the KeyError without it."""
    from interop import meshio_module

    meshio = meshio_module()
    for cell_type in ("wedge15", "pyramid13"):
        monkeypatch.setitem(meshio._mesh.topological_dimension, cell_type, 3)
