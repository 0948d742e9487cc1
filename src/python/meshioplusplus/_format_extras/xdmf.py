"""meshio's XDMF time-series API (``meshio.xdmf.TimeSeriesWriter`` / ``TimeSeriesReader``) on
the C++ core's time-series interface (include/meshioplusplus/time_series.hpp).

    with meshioplusplus.xdmf.TimeSeriesWriter("out.xdmf") as writer:
        writer.write_points_cells(points, cells)
        for t in times:
            writer.write_data(t, point_data={"phi": phi}, cell_data={"a": [a]})

    with meshioplusplus.xdmf.TimeSeriesReader("out.xdmf") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)

Steps are read lazily: ``read_data(k)`` reads only step k's arrays.

``meshioplusplus.xdmf.write_dolfinx(path, mesh)`` writes what DOLFINx's ``XDMFFile.read_mesh`` /
``read_meshtags`` read (the core's ``layout="dolfinx"``; docs/formats.md, "FEniCS / DOLFINx").
"""

import os

from .._capabilities import entry_point, register
from .._cell_types import cell_dimension
from .._exceptions import WriteError
from .._regions import RegionKind
from ._time_series import TimeSeriesReader as _TimeSeriesReader
from ._time_series import TimeSeriesWriter as _TimeSeriesWriter

__all__ = ["TimeSeriesReader", "TimeSeriesWriter", "write_dolfinx"]

_DATA_FORMATS = ("XML", "Binary", "HDF")


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "xdmf"


class TimeSeriesWriter(_TimeSeriesWriter):
    """meshio's writer, meshio's file placement: the heavy data (``<stem>.h5``, or
    ``<stem><k>.bin`` for ``data_format="Binary"``) goes into the **working directory**, named
    without a folder in the .xdmf — readers (meshio's, VTK's, ours) look for it beside the .xdmf,
    so a series written elsewhere reads back once the file is moved there, which code written
    for meshio does. ``heavy_data_beside=True`` writes it beside the .xdmf at once (what
    ``meshioplusplus.xdmf.write`` does for a single mesh). ``append=True``: the base class."""

    format_name = "xdmf"

    def __init__(self, filename, data_format: str = "HDF", *, heavy_data_beside: bool = False,
                 append: bool = False) -> None:
        if data_format not in _DATA_FORMATS:
            raise WriteError(f"Unknown XDMF data format '{data_format}' (use 'XML', 'Binary', or 'HDF'.)")
        super().__init__(filename, append=append)
        self.data_format = data_format
        self.options = {"data_format": data_format,
                        "heavy_data_location": "beside" if heavy_data_beside else "working_directory"}


def write_dolfinx(filename, mesh, tags="gmsh:physical", prune_z=None, attribute_name="name_to_read", **options):
    """The mesh as DOLFINx reads it, replacing the meshio recipe FEniCS users paste::

        mesh_path, facets_path = meshioplusplus.xdmf.write_dolfinx("mesh.xdmf", msh)
        # DOLFINx:  XDMFFile(comm, "mesh.xdmf", "r").read_mesh(name="Grid"), read_meshtags(mesh, name="Grid")
        #           XDMFFile(comm, "mesh_facets.xdmf", "r").read_meshtags(mesh, name="Grid")

    ``filename``: the cells of the mesh's top dimension (one cell type; several raise a
    WriteError) with their tags as the Cell Attribute ``attribute_name``; ``<stem>_facets.xdmf``
    beside it: the cells one dimension lower with theirs, on the same points (one ``<stem>.h5``).
    ``tags``: the cell-data name holding the tags, ``"regions"`` (Cell regions) or ``None``;
    ``prune_z``: ``None`` drops z when it is all 0, ``True``/``False`` force. Other keywords:
    the xdmf writer's (``data_format="XML"``, ``compression``). Returns the paths written
    (the facet path is None when the mesh has no facet cells)."""
    path = os.fspath(filename)
    entry_point("write")(path, mesh, file_format="xdmf", layout="dolfinx",
                         tags="none" if tags is None else tags,
                         prune_z="auto" if prune_z is None else bool(prune_z),
                         attribute_name=attribute_name, **options)
    stem, extension = os.path.splitext(path)
    return path, (stem + "_facets" + extension) if _has_facets(mesh, tags) else None


def _has_facets(mesh, tags):
    """Whether the core wrote ``<stem>_facets.xdmf``: non-empty cells one dimension below the top,
    or else (tags not None) Side regions to take the facets from."""
    dims = [cell_dimension(block.type) for block in mesh.cells if len(block) > 0]
    dims = [dim for dim in dims if dim is not None]
    if dims and max(dims) > 0 and max(dims) - 1 in dims:
        return True
    return tags is not None and any(region.kind == RegionKind.SIDE and len(region.entries) for region in getattr(mesh, "regions", ()))


register("xdmf", time_series_reader=TimeSeriesReader, time_series_writer=TimeSeriesWriter,
         namespace={"write_dolfinx": write_dolfinx})
