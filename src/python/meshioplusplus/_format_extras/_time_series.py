"""The one time-series reader shape every format with steps shares on the Python side (meshio's
``TimeSeriesReader``): the mesh once, then one step's data per ``read_data(k)``, read lazily
through the core's time-series interface (include/meshioplusplus/time_series.hpp)."""

import os

from .. import _core
from .._conversion import from_core


class TimeSeriesReader:
    """``reader.num_steps``, ``reader.times``, ``read_points_cells()`` (the full mesh stays in
    ``reader.mesh``), ``read_data(k)`` -> ``(t, point_data, cell_data)`` with the step's field
    data (e.g. Exodus global variables) in ``reader.field_data``. A context manager."""

    #: The core's format name; each format's module sets it.
    format_name = ""

    def __init__(self, filename):
        self.filename = os.fspath(filename)
        self._reader = _core.open_time_series(self.filename, self.format_name)
        self.num_steps = self._reader.num_steps
        self.times = [self._reader.time(k) for k in range(self.num_steps)]
        self.field_data = {}
        self.mesh = None
        self.cells = None

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def close(self):
        """Releases the files (heavy data stays open until then)."""
        self._reader = None

    def read_points_cells(self):
        self.mesh = from_core(self._reader.read_mesh())
        self.cells = self.mesh.cells
        return self.mesh.points, self.mesh.cells

    def read_data(self, k: int):
        if not 0 <= k < self.num_steps:
            raise IndexError(f"time step {k} out of range (the series has {self.num_steps})")
        t, point_data, cell_data, self.field_data = self._reader.read_step(k)
        return t, point_data, cell_data
