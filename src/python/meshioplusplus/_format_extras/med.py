"""Every time step of the fields of a MED file, through the core's time-series interface — the
same reader shape as ``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.med.TimeSeriesReader("results.med") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # {"TEMP": ...}

Steps are the fields' (time step, iteration) numbers in ascending order, ``reader.times`` their
exact times (``PDT``); a step's arrays are keyed by field name. ``meshioplusplus.read`` gives
the same arrays as meshio's ``"name[i] - t"`` keys.
"""

from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "med"
