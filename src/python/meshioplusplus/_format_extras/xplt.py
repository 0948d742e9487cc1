"""FEBio plot files (.xplt): every state through the core's time-series reader, the shape of
``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.xplt.TimeSeriesReader("run.xplt") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # only state k's bytes

A plot file may hold a new mesh part-way (FEBio writes one when the mesh changes): after
``read_data(k)`` ``reader.mesh`` is state k's. ``meshioplusplus.read`` gives the first state."""

from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "xplt"
    mesh_follows_step = True


register("xplt", time_series_reader=TimeSeriesReader)
