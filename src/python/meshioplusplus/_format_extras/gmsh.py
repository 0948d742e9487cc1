"""Every time step of the post-processing views of a Gmsh MSH file ($NodeData, $ElementData,
$ElementNodeData with several steps), read through the core's time-series interface — the same
reader shape as ``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.gmsh.TimeSeriesReader("result.msh") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # {"temperature": ...}

Steps are the views' time-step indices (ascending), ``reader.times`` their times; a step's
arrays are keyed by view name. ``meshioplusplus.read`` gives the same arrays as
``"view[step k, time t]"`` keys. The file is read once when the reader opens.
"""

from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "gmsh"
