"""The results of an I-deas Universal File (datasets 2414 and 55) as time steps, through the core's
time-series interface — the shape of ``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.unv.TimeSeriesReader("results.unv") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # {"Displacement": ...}

A step is one (analysis type, step number, value) of the result datasets — a load set, a mode,
a time step or a frequency — and ``reader.times`` their values (time, frequency, eigenvalue;
src/cpp/formats/unv/unv_time_series.cpp). Node results are point data, element results cell
data. ``meshioplusplus.read`` gives the mesh only. There is no time-series writer.
"""

from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "unv"


register("unv", time_series_reader=TimeSeriesReader)
