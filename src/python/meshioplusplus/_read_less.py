"""Reading less and knowing more (docs/read-less.md): the options of ``read`` that narrow it
(``points_only``, ``arrays``, ``cell_types``, ``time_step``) and ``read_metadata``.

The meaning lives in the core (include/meshioplusplus/read_selection.hpp): formats whose layout
allows it skip what was not asked for on disk, the others read the file and drop the rest, so
every format answers every option with the same subset of its full read. This module checks
the arguments, narrows meshes read by Python readers the same way (through the core), and
gives ``read_metadata`` its documented dict.
"""

import re
from typing import Any, Dict, Iterable, List, Optional

from . import _core
from ._conversion import from_core, to_core

#: The keys of ``read_metadata``'s dict, in order; ``info --json`` prints the same (schema 1).
METADATA_SCHEMA_VERSION = 1


class ReadRequest:
    """The narrowing options of one read, checked."""

    __slots__ = ("points_only", "arrays", "cell_types", "time_step")

    def __init__(self, points_only=False, arrays=None, cell_types=None, time_step=None):
        self.points_only = bool(points_only)
        self.arrays = _names(arrays, "arrays")
        self.cell_types = _cell_types(cell_types)
        if time_step is not None and (isinstance(time_step, bool) or not hasattr(time_step, "__index__")):
            raise TypeError(f"time_step must be an integer step index, got {time_step!r}")
        self.time_step = None if time_step is None else int(time_step.__index__())
        if self.points_only and self.cell_types is not None:
            raise ValueError("points_only=True reads no cells; it does not combine with cell_types=")

    def given(self) -> bool:
        return self.points_only or self.arrays is not None or self.cell_types is not None or self.time_step is not None

    def core_arguments(self) -> Dict[str, Any]:
        return {"points_only": self.points_only, "arrays": self.arrays, "cell_types": self.cell_types,
                "time_step": self.time_step}


def _names(values, what) -> Optional[List[str]]:
    if values is None:
        return None
    if isinstance(values, (str, bytes)):
        values = [values]  # one name: a list of one, not its characters
    names = list(values)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{what} lists names (str), got {name!r}")
    return names


_SIZED = re.compile(r"^(polygon|polyhedron)\d+$")


def _cell_types(values: Optional[Iterable[str]]) -> Optional[List[str]]:
    names = _names(values, "cell_types")
    if names is None:
        return None
    for name in names:
        if _SIZED.match(name):
            raise ValueError(f"cell_types: {name!r} is a block of the read's result; ask for "
                             f"{_SIZED.match(name).group(1)!r} (every size)")
    return names


def narrow(mesh, request: ReadRequest, source: str):
    """A mesh read by a Python reader, narrowed as the core narrows its own reads."""
    if request.time_step not in (None, 0, -1):
        raise ValueError(f"{source}: time_step={request.time_step} is out of range: this reader gives one step (0 or -1)")
    if not (request.points_only or request.arrays is not None or request.cell_types is not None):
        return mesh
    return from_core(_core.apply_read_request(to_core(mesh), request.points_only, request.arrays,
                                              request.cell_types, source))


def metadata_from_core(summary: Dict[str, Any]) -> Dict[str, Any]:
    """The core's summary in the documented shape (docs/read-less.md, "read_metadata")."""
    blocks = [{"type": cell_type, "count": int(count)} for cell_type, count in summary["cell_blocks"]]
    result = {
        "schema": METADATA_SCHEMA_VERSION,
        "format": summary["format"],
        "variant": summary["variant"],
        "num_points": int(summary["num_points"]),
        "point_dim": int(summary["point_dim"]),
        "num_cells": sum(block["count"] for block in blocks),
        "cell_blocks": blocks,
        "arrays": [dict(entry, shape=list(entry["shape"])) for entry in summary["arrays"]],
        "regions": list(summary["regions"]),
        "times": list(summary["times"]),
        "bounds": None if summary["bounds"] is None else list(summary["bounds"]),
        "header_only": bool(summary["header_only"]),
    }
    return result


def metadata_of_mesh(mesh, format_name: str) -> Dict[str, Any]:
    """``read_metadata``'s dict for a mesh read by a Python reader (read in full)."""
    return metadata_from_core(_core.summarize(to_core(mesh), format_name))
