"""The one time-series reader shape every format with steps shares on the Python side (meshio's
``TimeSeriesReader``): the mesh once, then one step's data per ``read_data(k)``, read lazily
through the core's time-series interface (include/meshioplusplus/time_series.hpp)."""

import os

import numpy as np

from .. import _core
from .._capabilities import entry_point
from .._conversion import from_core, host_array, python_block_ranges, split_cell_data, to_core
from .._exceptions import WriteError
from .._mesh import Mesh


def open_core_series(path, format_name, options):
    """The core's time-series reader of ``path``; ``options``: ``mesh_name`` (MED: the series
    of that mesh, not the first). In-process and in an isolated read's worker alike."""
    unknown = set(options) - {"mesh_name"}
    if unknown:
        raise ValueError(f"unknown time-series option(s) {sorted(unknown)}")
    if options.get("mesh_name") is not None:
        if format_name != "med":
            raise ValueError(f"mesh_name= names a mesh of a MED file, not of a {format_name} file")
        return _core.open_med_time_series(path, str(options["mesh_name"]))
    return _core.open_time_series(path, format_name)


class TimeSeriesReader:
    """``reader.num_steps``, ``reader.times``, ``read_points_cells()`` (the full mesh stays in
    ``reader.mesh``), ``read_data(k)`` -> ``(t, point_data, cell_data)`` with the step's field
    data (e.g. Exodus global variables) in ``reader.field_data``. A context manager."""

    #: The core's format name; each format's module sets it.
    format_name = ""
    #: True for formats whose mesh may change from step to step (file sequences, EnSight's
    #: transient geometry): ``read_data(k)`` then makes ``reader.mesh``/``reader.cells`` step k's
    #: and splits the cell data over its blocks.
    mesh_follows_step = False

    def __init__(self, filename, *, isolate=None, timeout=None):
        """``isolate=True`` (or ``timeout=`` seconds, or ``MESHIOPLUSPLUS_ISOLATE``) makes every
        call run in a worker process, as ``read(..., isolate=True)`` does (docs/isolation.md)."""
        self.filename = os.fspath(filename)
        if isolate is None:
            isolate = timeout is not None or entry_point("isolate_by_default")()
        elif not isolate and timeout is not None:
            raise ValueError("timeout= bounds an isolated read; it cannot apply with isolate=False")
        options = self._series_options()
        self._reader = (entry_point("isolated_series")(self.filename, self.format_name, timeout, options) if isolate
                        else open_core_series(self.filename, self.format_name, options))
        self.num_steps = self._reader.num_steps
        self.times = [self._reader.time(k) for k in range(self.num_steps)]
        self.field_data = {}
        self.mesh = None
        self.cells = None

    def _series_options(self):
        """What a format's reader opens its series with beyond the file (``open_core_series``)."""
        return {}

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def close(self):
        """Releases the files (heavy data stays open until then)."""
        self._reader = None

    def read_points_cells(self):
        container = self._reader.read_mesh()
        self._block_ranges = python_block_ranges(container["cells"])
        self.mesh = from_core(container)
        self.cells = self.mesh.cells
        return self.mesh.points, self.mesh.cells

    def read_data(self, k: int):
        if not 0 <= k < self.num_steps:
            raise IndexError(f"time step {k} out of range (the series has {self.num_steps})")
        t, point_data, cell_data, self.field_data = self._reader.read_step(k)
        if self.mesh_follows_step:
            container = self._reader.read_mesh()
            self._block_ranges = python_block_ranges(container["cells"])
            self.mesh = from_core(container)
            self.cells = self.mesh.cells
        # Cell data comes per core block; polygon and polyhedron blocks are several Python
        # blocks (one per size, as meshio shows them): split it the same way.
        if getattr(self, "_block_ranges", None) is None:
            self._block_ranges = python_block_ranges(self._reader.read_mesh()["cells"])
        return t, point_data, split_cell_data(cell_data, self._block_ranges)

    def read_mesh_at(self, k: int):
        """Step k's mesh (its points, for a format whose mesh moves) with its point and cell data."""
        t, point_data, cell_data = TimeSeriesReader.read_data(self, k)
        mesh = from_core(self._reader.read_mesh())
        mesh.point_data.update(point_data)
        mesh.cell_data.update(cell_data)
        return mesh


def _cell_arrays(entry):
    # meshio accepts {name: [per block]} and the older {name: {cell_type: values}}.
    values = list(entry.values()) if isinstance(entry, dict) else list(entry)
    return [host_array(np.asarray(v), "cell_data") for v in values]


class TimeSeriesWriter:
    """meshio's ``TimeSeriesWriter`` shape over the core's time-series writer of
    ``format_name``: a context manager, ``write_points_cells`` once (or again, where the format
    allows a new geometry), then ``write_data`` per step; the file is complete at ``close()``.
    Subclasses set ``format_name`` and fill ``self.options`` (the format's write options).

    ``append=True`` (XDMF, PVD, VTKHDF, Exodus) continues the series in ``filename``: its mesh and
    steps stay, ``write_points_cells`` may be skipped (if called, it must give the same number
    of points and cell blocks), each ``write_data`` adds a step after the file's; a missing file
    is started, as ``open(..., "a")`` does. The file changes only at ``close()``."""

    format_name = ""

    def __init__(self, filename, append: bool = False) -> None:
        self.filename = os.fspath(filename)
        self.options = {}
        self.append = bool(append)
        self._writer = None
        self.has_mesh = False

    def __enter__(self):
        self._writer = _core.create_time_series(self.filename, self.format_name, self.options, self.append)
        # Appending to a file that has its mesh: steps may follow at once.
        self.has_mesh = self.append and os.path.exists(self.filename)
        return self

    def __exit__(self, exc_type, *_):
        if exc_type is None:
            self.close()
            return
        try:
            self.close()
        except WriteError:
            pass  # the error that ended the with-block is the one to see

    def close(self):
        if self._writer is not None:
            writer, self._writer = self._writer, None
            writer.close()

    def _error(self, message):
        # As the core's WriteError: the message starts with the file, path/format are set.
        error = WriteError(f"{self.filename}: {self.format_name}: {message}")
        error.path, error.format = self.filename, self.format_name
        return error

    def _require_open(self):
        if self._writer is None:
            raise self._error("TimeSeriesWriter: use it as a context manager (with ... as writer)")

    def write_points_cells(self, points, cells):
        self._require_open()
        if isinstance(cells, dict):
            cells = list(cells.items())
        self._writer.write_mesh(to_core(Mesh(np.asarray(points), cells)))
        self.has_mesh = True

    def write_data(self, t, point_data=None, cell_data=None, field_data=None):
        """One step. ``field_data``: the step's own values (Exodus global variables, one scalar
        each); formats without a place for them leave them out (docs/time-series.md)."""
        self._require_open()
        if not self.has_mesh:
            raise self._error("write_data() before write_points_cells()")
        point_arrays = {name: host_array(np.asarray(v), f"point_data[{name!r}]") for name, v in (point_data or {}).items()}
        cell_arrays = {name: _cell_arrays(entry) for name, entry in (cell_data or {}).items()}
        field_arrays = {name: host_array(np.asarray(v), f"field_data[{name!r}]") for name, v in (field_data or {}).items()}
        self._writer.write_step(float(t), point_arrays, cell_arrays, field_arrays)
