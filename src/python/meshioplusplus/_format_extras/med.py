"""Every time step of the fields of a MED file, read and written through the core's
time-series interface — the same shapes as ``meshioplusplus.xdmf.TimeSeriesReader`` /
``TimeSeriesWriter``:

    with meshioplusplus.med.TimeSeriesWriter("results.med") as writer:
        writer.write_points_cells(points, cells)
        for t in times:
            writer.write_data(t, point_data={"TEMP": T}, cell_data={"SIG": [s_per_block]})

    with meshioplusplus.med.TimeSeriesReader("results.med") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # {"TEMP": ...}

The writer writes the mesh once (as ``meshioplusplus.med.write``), then per step one
computation step in each field ``/CHA/<name>``: NDT = the step index (0, 1, …), NOR = -1,
PDT = the time, in the groups the MED library names (20-digit NDT and NOR). The file appears
(atomically) on ``close()``. Steps are the fields' (time step, iteration) numbers in ascending
order, ``reader.times`` their exact times (``PDT``); a step's arrays are keyed by field name.
``meshioplusplus.read`` (and meshio's) gives the same arrays as meshio's ``"name[i] - t"`` keys.
"""

from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader
from ._time_series import TimeSeriesWriter as _TimeSeriesWriter

__all__ = ["TimeSeriesReader", "TimeSeriesWriter"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "med"


class TimeSeriesWriter(_TimeSeriesWriter):
    format_name = "med"


register("med", time_series_reader=TimeSeriesReader, time_series_writer=TimeSeriesWriter)
