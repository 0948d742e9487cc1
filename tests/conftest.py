"""Shared fixtures: the real-file corpus beside the repository and its meshio expectations."""

import csv
import os
import pathlib

import pytest

# tests/downstream/overlays holds files laid into real clients' test trees (a PyVista conftest
# among them), not tests of ours. (No conftest.py in tests/downstream: a second module named
# "conftest" would shadow this one for the tests that import from it.)
collect_ignore = ["downstream/overlays"]

_FULL_CORPUS = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
_CURATED_CORPUS = pathlib.Path(__file__).resolve().parent / "data" / "corpus"
#: The full project corpus when present (or MESHIOPLUSPLUS_CORPUS), else the curated copy of its
#: files up to 1 MB that ships in tests/data/corpus (see its README.md).
CORPUS = pathlib.Path(os.environ.get("MESHIOPLUSPLUS_CORPUS", _FULL_CORPUS if _FULL_CORPUS.exists() else _CURATED_CORPUS))
CORPUS_SOURCE_HINT = ("the project corpus ../shared/corpus (its MANIFEST.tsv names each file's public origin; "
                      "set MESHIOPLUSPLUS_CORPUS to its folder)")


def corpus_file(relative):
    """A corpus file's path, or a skip naming where to get it when this corpus lacks it."""
    path = CORPUS / relative
    if not path.exists():
        pytest.skip(f"{relative} is not in {CORPUS}; it comes with {CORPUS_SOURCE_HINT}")
    return path


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
        pytest.skip(f"corpus not found at {CORPUS}; get {CORPUS_SOURCE_HINT}")
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
