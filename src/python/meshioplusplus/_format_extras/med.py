"""Every time step of the fields of a MED file, read and written through the core's
time-series interface — the same shapes as ``meshioplusplus.xdmf.TimeSeriesReader`` /
``TimeSeriesWriter``:

    with meshioplusplus.med.TimeSeriesWriter("results.med") as writer:
        writer.write_points_cells(points, cells)
        for t in times:
            writer.write_data(t, point_data={"TEMP": T}, cell_data={"SIG": [s_per_block]})

    with meshioplusplus.med.TimeSeriesReader("results.med") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # {"TEMP": ...}

The writer writes the mesh once (as ``meshioplusplus.med.write``), then per step one
computation step in each field ``/CHA/<name>``: NDT = the step index (0, 1, …), NOR = -1,
PDT = the time, in the groups the MED library names (20-digit NDT and NOR). The file appears
(atomically) on ``close()``. Steps are the fields' (time step, iteration) numbers in ascending
order, ``reader.times`` their exact times (``PDT``); a step's arrays are keyed by field name.
``meshioplusplus.read`` (and meshio's) gives the same arrays as meshio's ``"name[i] - t"`` keys.

A MED file may hold several meshes (Salome and code_aster files often do), each with its own
fields. ``meshioplusplus.read`` gives the first; ``meshioplusplus.med.read(path, mesh_name=...)``
the one named, with only the fields defined on it, and ``meshioplusplus.med.mesh_names(path)``
lists them (file order) without reading their arrays:

    for name in meshioplusplus.med.mesh_names("study.med"):
        mesh = meshioplusplus.med.read("study.med", mesh_name=name)

``TimeSeriesReader(path, mesh_name=...)`` is the time series of the named mesh's fields.
"""

import os

from .. import _core
from .._capabilities import entry_point, register
from .._conversion import from_core
from .._exceptions import MissingFileError, ReadError
from .._options import with_array_limit
from ._time_series import TimeSeriesReader as _TimeSeriesReader
from ._time_series import TimeSeriesWriter as _TimeSeriesWriter

__all__ = ["TimeSeriesReader", "TimeSeriesWriter", "mesh_names", "read"]


def _existing(filename):
    path = os.fsdecode(filename)
    if not os.path.exists(path):
        raise MissingFileError(f"File {path} not found.")
    return path


def read(filename, mesh_name=None, max_bytes=None):
    """Read one mesh of a MED file: ``mesh_name`` (``None``: the first, as
    ``meshioplusplus.read`` gives it), with the fields defined on it. A name the file does not
    hold is a ``ReadError`` naming the file and listing its meshes. A buffer (read as the
    package's ``read`` reads one) gives the first mesh."""
    if not isinstance(filename, (str, bytes, os.PathLike)):
        if mesh_name is not None:
            raise ReadError("meshioplusplus.med.read: mesh_name= needs a file path, not a buffer")
        return entry_point("read")(filename, file_format="med", max_bytes=max_bytes)
    path = _existing(filename)
    name = "" if mesh_name is None else mesh_name
    mesh = with_array_limit(max_bytes, lambda: from_core(_core.read_med(path, name)))
    _meshio_family_attributes(path, mesh)
    return mesh


def _meshio_family_attributes(path, mesh):
    """meshio's MED reader always sets ``mesh.point_tags`` / ``mesh.cell_tags`` (``{}`` for a
    file without families); code reading them (``mesh.cell_tags.items()``) must not meet an
    AttributeError."""
    for attribute in ("point_tags", "cell_tags"):
        if not hasattr(mesh, attribute):
            setattr(mesh, attribute, {})


def mesh_names(filename):
    """The names of the file's meshes, in file order (the order ``read`` counts them in: the
    first is the one ``meshioplusplus.read`` gives); no array is read."""
    return _core.med_mesh_names(_existing(filename))


class TimeSeriesReader(_TimeSeriesReader):
    """The time steps of one mesh's fields: ``mesh_name`` (``None``: the first mesh)."""

    format_name = "med"

    def __init__(self, filename, mesh_name=None, *, isolate=None, timeout=None):
        self.mesh_name = mesh_name  # another mesh's series: opening reads only its steps' attributes
        super().__init__(filename, isolate=isolate, timeout=timeout)

    def _series_options(self):
        return {"mesh_name": self.mesh_name} if self.mesh_name is not None else {}


class TimeSeriesWriter(_TimeSeriesWriter):
    format_name = "med"


register("med", namespace={"read": read, "mesh_names": mesh_names}, after_read=_meshio_family_attributes,
         time_series_reader=TimeSeriesReader, time_series_writer=TimeSeriesWriter)
