"""Nastran OP2 results: every subcase, mode or time step through the core's time-series
reader, the shape of ``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.op2.TimeSeriesReader("run.op2") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # only step k's records

The mesh (GEOM1/GEOM2) is the same for every step. ``meshioplusplus.read(op2)`` gives the
first step."""

from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "op2"


register("op2", time_series_reader=TimeSeriesReader)
