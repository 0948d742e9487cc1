"""Abaqus results files (.fil, ASCII or binary): every increment through the core's time-series
reader, the shape of ``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.abaqus_fil.TimeSeriesReader("job.fil") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # only increment k's records

Node output (U, RF, NT, …) is point data; element output at integration points is cell data
averaged per element. ``meshioplusplus.read("job.fil")`` gives the last increment."""

from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "abaqus_fil"


register("abaqus_fil", time_series_reader=TimeSeriesReader)
