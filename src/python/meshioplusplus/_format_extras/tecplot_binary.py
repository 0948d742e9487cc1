"""Tecplot binary .plt files: zones grouped by solution time through the core's time-series
reader, the shape of ``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.tecplot_binary.TimeSeriesReader("flow.plt") as reader:
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # only step k's zones

Each step is the zones of one solution time (plus the static ones): its mesh may differ from
the others', so after ``read_data(k)`` ``reader.mesh`` is step k's. ``meshioplusplus.read``
gives the first time."""

from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "tecplot_binary"
    mesh_follows_step = True


register("tecplot_binary", time_series_reader=TimeSeriesReader)
