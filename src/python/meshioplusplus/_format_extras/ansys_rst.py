"""ANSYS MAPDL results files (.rst, .rth, .rmg): every result set through the core's
time-series reader, the shape of ``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.ansys_rst.TimeSeriesReader("file.rst") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # only set k's records

Opening reads the headers only; ``read_data(k)`` reads set k's nodal solution.
``meshioplusplus.read(path)`` gives the first set (ansys-mapdl-reader's result 0)."""

from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "ansys_rst"


register("ansys_rst", time_series_reader=TimeSeriesReader)
