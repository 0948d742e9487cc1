"""meshio's XDMF time-series API (``meshio.xdmf.TimeSeriesWriter`` / ``TimeSeriesReader``) on
the C++ core's time-series interface (include/meshioplusplus/time_series.hpp).

    with meshioplusplus.xdmf.TimeSeriesWriter("out.xdmf") as writer:
        writer.write_points_cells(points, cells)
        for t in times:
            writer.write_data(t, point_data={"phi": phi}, cell_data={"a": [a]})

    with meshioplusplus.xdmf.TimeSeriesReader("out.xdmf") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)

Steps are read lazily: ``read_data(k)`` reads only step k's arrays.
"""

from .._exceptions import WriteError
from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader
from ._time_series import TimeSeriesWriter as _TimeSeriesWriter

__all__ = ["TimeSeriesReader", "TimeSeriesWriter"]

_DATA_FORMATS = ("XML", "Binary", "HDF")


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "xdmf"


class TimeSeriesWriter(_TimeSeriesWriter):
    format_name = "xdmf"

    def __init__(self, filename, data_format: str = "HDF") -> None:
        if data_format not in _DATA_FORMATS:
            raise WriteError(f"Unknown XDMF data format '{data_format}' (use 'XML', 'Binary', or 'HDF'.)")
        super().__init__(filename)
        self.data_format = data_format
        self.options = {"data_format": data_format}


register("xdmf", time_series_reader=TimeSeriesReader, time_series_writer=TimeSeriesWriter)
