"""LS-DYNA d3plot result families: every state through the core's time-series reader, the shape
of ``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.d3plot.TimeSeriesReader("d3plot") as reader:
        points, cells = reader.read_points_cells()        # initial coordinates
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # only state k's bytes

The points stay the initial coordinates; ``displacement`` carries the motion (VTK's reader
shows the deformed coordinates instead). ``meshioplusplus.read("d3plot")`` gives the first
state, as ParaView opens a d3plot."""

from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "d3plot"


register("d3plot", time_series_reader=TimeSeriesReader)
