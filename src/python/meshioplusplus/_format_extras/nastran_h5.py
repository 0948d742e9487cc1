"""MSC Nastran HDF5 results (``.h5``, MDLPRM,HDF5): every subcase, mode or time step through
the core's time-series reader, the shape of ``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.nastran_h5.TimeSeriesReader("model.h5") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # only step k's rows

The mesh (/NASTRAN/INPUT) is the same for every step. ``meshioplusplus.read(h5)`` gives the
first step."""

from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "nastran_h5"


register("nastran_h5", time_series_reader=TimeSeriesReader)
