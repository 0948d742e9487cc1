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
