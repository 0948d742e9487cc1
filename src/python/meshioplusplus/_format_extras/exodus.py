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

from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "exodus"
