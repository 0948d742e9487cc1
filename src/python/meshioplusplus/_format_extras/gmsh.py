"""Gmsh MSH time series: the steps of post-processing views ($NodeData, $ElementData,
$ElementNodeData), read and written through the core's time-series interface — the same
shapes as ``meshioplusplus.xdmf.TimeSeriesReader`` / ``TimeSeriesWriter``:

    with meshioplusplus.gmsh.TimeSeriesWriter("result.msh") as writer:   # fmt_version="4.1", binary=True
        writer.write_points_cells(points, cells)
        for t in times:
            writer.write_data(t, point_data={"temperature": T}, cell_data={"p": [p_per_block]})

    with meshioplusplus.gmsh.TimeSeriesReader("result.msh") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # {"temperature": ...}

The writer writes the mesh once, then per step one data section per array: the array's name
is the view name, the step's time the real tag, the step index (0, 1, …) the first integer tag
— Gmsh opens the file as one view per name with one time step per ``write_data``. The file
appears (atomically) on ``close()``. Steps are the views' time-step indices (ascending),
``reader.times`` their times; a step's arrays are keyed by view name. ``meshioplusplus.read``
gives the same arrays as ``"view[step k, time t]"`` keys. The file is read once when the reader
opens.
"""

import re

from .._capabilities import entry_point, register
from .._regions import RegionKind
from ._time_series import TimeSeriesReader as _TimeSeriesReader
from ._time_series import TimeSeriesWriter as _TimeSeriesWriter

__all__ = ["TimeSeriesReader", "TimeSeriesWriter", "read"]

# "$MeshFormat" then the version: 2.x is the legacy format whose physical groups meshio gives
# as cell data only; 4.x files have entities, whose physical groups meshio makes cell sets.
_LEGACY_HEADER = re.compile(rb"\s*\$MeshFormat\s+2\.")


def _is_legacy_msh(path):
    try:
        with open(path, "rb") as file:
            return _LEGACY_HEADER.match(file.read(64)) is not None
    except OSError:
        return False


def _meshio_sets_of_legacy_msh(path, mesh):
    """meshio reads no cell sets from an MSH 2.2 file (its physical groups are the
    ``gmsh:physical`` cell data and the names field data): our Cell regions of such a file stay
    regions, left out of ``cell_sets`` (``Mesh.regions_outside_cell_sets``)."""
    if _is_legacy_msh(path):
        mesh.regions_outside_cell_sets.update(r.name for r in mesh.regions if r.kind == RegionKind.CELL)


def read(filename, physical_groups_as_cell_sets=False):
    """Read a Gmsh MSH file. ``physical_groups_as_cell_sets=True`` lists the physical groups of
    an MSH 2.2 file in ``cell_sets`` too (meshio lists them only for MSH 4.x files; they are in
    ``mesh.regions`` either way)."""
    mesh = entry_point("read")(filename, "gmsh")
    if physical_groups_as_cell_sets:
        mesh.regions_outside_cell_sets.clear()
    return mesh


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "gmsh"


class TimeSeriesWriter(_TimeSeriesWriter):
    """``fmt_version`` "4.1" (default), "4.0" or "2.2" and ``binary`` as ``meshioplusplus.gmsh.write``."""

    format_name = "gmsh"

    def __init__(self, filename, fmt_version: str = "4.1", binary: bool = True) -> None:
        super().__init__(filename)
        self.options = {"fmt_version": str(fmt_version), "binary": "true" if binary else "false"}


register("gmsh", time_series_reader=TimeSeriesReader, time_series_writer=TimeSeriesWriter,
         after_read=_meshio_sets_of_legacy_msh, namespace={"read": read})
