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
    """meshio's writer, meshio's file placement: the heavy data (``<stem>.h5``, or
    ``<stem><k>.bin`` for ``data_format="Binary"``) goes into the **working directory**, named
    without a folder in the .xdmf — readers (meshio's, VTK's, ours) look for it beside the .xdmf,
    so a series written elsewhere reads back once the file is moved there, which code written
    for meshio does. ``heavy_data_beside=True`` writes it beside the .xdmf at once (what
    ``meshioplusplus.xdmf.write`` does for a single mesh). ``append=True``: the base class."""

    format_name = "xdmf"

    def __init__(self, filename, data_format: str = "HDF", *, heavy_data_beside: bool = False,
                 append: bool = False) -> None:
        if data_format not in _DATA_FORMATS:
            raise WriteError(f"Unknown XDMF data format '{data_format}' (use 'XML', 'Binary', or 'HDF'.)")
        super().__init__(filename, append=append)
        self.data_format = data_format
        self.options = {"data_format": data_format,
                        "heavy_data_location": "beside" if heavy_data_beside else "working_directory"}


register("xdmf", time_series_reader=TimeSeriesReader, time_series_writer=TimeSeriesWriter)
