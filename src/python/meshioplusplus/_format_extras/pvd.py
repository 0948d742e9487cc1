"""Every step of a PVD time series, read lazily through the core's time-series interface — the
same reader shape as ``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.pvd.TimeSeriesReader("run.pvd") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)

``read_data(k)`` reads only the files of step k; ``reader.times`` lists every step's time.
"""

from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "pvd"
