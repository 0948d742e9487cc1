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
"""

import os

import numpy as np

from .. import _core
from .._conversion import host_array, to_core
from .._exceptions import WriteError
from .._mesh import Mesh
from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader", "TimeSeriesWriter"]

_DATA_FORMATS = ("XML", "Binary", "HDF")


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "xdmf"


def _cell_arrays(entry):
    # meshio accepts {name: [per block]} and the older {name: {cell_type: values}}.
    values = list(entry.values()) if isinstance(entry, dict) else list(entry)
    return [host_array(np.asarray(v), "cell_data") for v in values]


class TimeSeriesWriter:
    def __init__(self, filename, data_format: str = "HDF") -> None:
        if data_format not in _DATA_FORMATS:
            raise WriteError(f"Unknown XDMF data format '{data_format}' (use 'XML', 'Binary', or 'HDF'.)")
        self.filename = os.fspath(filename)
        self.data_format = data_format
        self._writer = None
        self.has_mesh = False

    def __enter__(self):
        self._writer = _core.create_time_series(self.filename, "xdmf", {"data_format": self.data_format})
        return self

    def __exit__(self, *_):
        self.close()

    def close(self):
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def _require_open(self):
        if self._writer is None:
            raise WriteError("TimeSeriesWriter: use it as a context manager (with ... as writer)")

    def write_points_cells(self, points, cells):
        self._require_open()
        if isinstance(cells, dict):
            cells = list(cells.items())
        self._writer.write_mesh(to_core(Mesh(np.asarray(points), cells)))
        self.has_mesh = True

    def write_data(self, t, point_data=None, cell_data=None):
        self._require_open()
        if not self.has_mesh:
            raise WriteError("write_data() before write_points_cells()")
        point_arrays = {name: host_array(np.asarray(v), f"point_data[{name!r}]") for name, v in (point_data or {}).items()}
        cell_arrays = {name: _cell_arrays(entry) for name, entry in (cell_data or {}).items()}
        self._writer.write_step(float(t), point_arrays, cell_arrays)
