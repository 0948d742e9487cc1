"""Every time step of an Exodus II file, read lazily (meshio's ``read`` gives step 0 only) —
the same reader shape as ``meshioplusplus.xdmf.TimeSeriesReader``, on the core's time-series
interface (``exodus::open_time_series``).

    with meshioplusplus.exodus.TimeSeriesReader("results.e") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)

``read_data(k)`` reads only step k's nodal, element and global variables (the globals are in
``reader.field_data`` after the call); ``reader.times`` lists every step's time.
"""

import os

from .. import _core
from .._conversion import from_core

__all__ = ["TimeSeriesReader"]


class TimeSeriesReader:
    def __init__(self, filename):
        self.filename = os.fspath(filename)
        self._reader = _core.open_time_series(self.filename, "exodus")
        self.num_steps = self._reader.num_steps
        self.times = [self._reader.time(k) for k in range(self.num_steps)]
        self.field_data = {}
        self.mesh = None

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def close(self):
        self._reader = None

    def read_points_cells(self):
        """Points and cells; the full mesh (regions, records) is kept in ``self.mesh``."""
        self.mesh = from_core(self._reader.read_mesh())
        return self.mesh.points, self.mesh.cells

    def read_data(self, k: int):
        if not 0 <= k < self.num_steps:
            raise IndexError(f"time step {k} out of range (the file has {self.num_steps})")
        t, point_data, cell_data, self.field_data = self._reader.read_step(k)
        return t, point_data, cell_data
