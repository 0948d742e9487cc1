"""meshio's ``meshio._common`` (re-exported by ``meshioplusplus._common``): the helpers format
plugins and converters written against meshio import from it.

``num_nodes_per_cell`` is the package's own table (``_cell_types``, from the core's cell-type
table): every type meshio lists, with meshio's node counts, plus the VTK cells meshio reads but
does not list (``triangle7``, ``quad6``, ``wedge12``). ``info``/``warn``/``error`` print to
stderr as meshio's do (plain text: meshio++ does not depend on ``rich``)."""

import sys
from xml.etree import ElementTree as ET

import numpy as np

from .._cell_types import num_nodes_per_cell

__all__ = [
    "num_nodes_per_cell",
    "cell_data_from_raw",
    "raw_from_cell_data",
    "write_xml",
    "_pick_first_int_data",
    "info",
    "warn",
    "error",
    "is_in_any",
    "join_strings",
    "replace_space",
]


def cell_data_from_raw(cells, cell_data_raw):
    """One array per name over all cells -> one array per cell block (meshio's split)."""
    bounds = np.cumsum([len(block) for block in cells])[:-1]
    return {name: np.split(values, bounds) for name, values in cell_data_raw.items()}


def raw_from_cell_data(cell_data):
    """The inverse of ``cell_data_from_raw``: each name's blocks concatenated."""
    return {name: np.concatenate(per_block) for name, per_block in cell_data.items()}


def write_xml(filename, root):
    """Writes the ``ElementTree`` element ``root`` to ``filename`` (a path or a file object)."""
    ET.ElementTree(root).write(filename)


def _pick_first_int_data(data):
    """``(key, others)``: the first entry of ``data`` (point or cell data) whose values are
    integers — the material ids several formats store — and the remaining keys in order;
    ``(None, [])`` when no entry is integer. Cell data is judged by its first block."""
    keys = list(data)
    for index, key in enumerate(keys):
        if np.asarray(data[key][0]).dtype.kind in "iu":
            return key, keys[:index] + keys[index + 1 :]
    return None, []


def _message(label, string):
    print(f"{label}: {string}", file=sys.stderr, flush=True)


def info(string, highlight: bool = True) -> None:
    _message("Info", string)


def warn(string, highlight: bool = True) -> None:
    _message("Warning", string)


def error(string, highlight: bool = True) -> None:
    _message("Error", string)


def is_in_any(string, strings):
    """True if ``string`` occurs in any of ``strings``."""
    return any(string in candidate for candidate in strings)


def join_strings(strings):
    """``(joined, char)``: ``strings`` joined with the first of ``- _ # + /`` that occurs in none
    of them, so that ``joined.split(char)`` gives them back."""
    for char in ("-", "_", "#", "+", "/"):
        if not is_in_any(char, strings):
            return char.join(strings), char
    raise AssertionError(f"no join character is free in {strings!r}")


def replace_space(string):
    """``(replaced, char)``: spaces in ``string`` replaced by the first of ``_ - + X / #`` that
    does not occur in it."""
    for char in ("_", "-", "+", "X", "/", "#"):
        if char not in string:
            return string.replace(" ", char), char
    raise AssertionError(f"no replacement character is free in {string!r}")
