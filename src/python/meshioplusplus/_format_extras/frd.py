"""CalculiX result files (.frd): every result step through the core's time-series reader —
the same shape as ``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.frd.TimeSeriesReader("job.frd") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # {"DISP": (n, 3), "STRESS": (n, 6) …}
            step_number = reader.field_data["frd:step"]

A step is a run of result blocks (100C) with one step number and value: its time is that value
(a time, a frequency, a buckling factor). ``meshioplusplus.read("job.frd")`` gives the mesh with
the last step's arrays, ``field_data`` ``frd:time`` / ``frd:step``, and each array's component
names as ``string_field_data["frd:components:<NAME>"]``. Read only.
"""

from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "frd"


register("frd", time_series_reader=TimeSeriesReader)
