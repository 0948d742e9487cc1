"""Every time step of an Exodus II file, read lazily (meshio's ``read`` gives step 0 only) and
written step by step — the same shapes as ``meshioplusplus.xdmf.TimeSeriesReader`` /
``TimeSeriesWriter``, on the core's time-series interface (``exodus::open_time_series``,
``exodus::create_time_series``):

    with meshioplusplus.exodus.TimeSeriesWriter("results.e") as writer:   # netcdf_format="NETCDF4"
        writer.write_points_cells(points, cells)
        for t in times:
            writer.write_data(t, point_data={"T": T, "U": U}, cell_data={"p": [p_per_block]})

    with meshioplusplus.exodus.TimeSeriesReader("results.e") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)

The writer writes the mesh as ``meshioplusplus.exodus.write`` does, then one record per step
along the unlimited ``time_step`` dimension: ``time_whole``, nodal variables
(``vals_nod_var<i>``; an (n, 3) array is three, ``<name>X/Y/Z``), element variables per block
(``vals_elem_var<i>eb<j>``). Exodus declares its variables once: the first ``write_data`` fixes
the names, dtypes and trailing shapes, and every later step must have the same. The file
appears (atomically) on ``close()``.

``read_data(k)`` reads only step k's nodal, element and global variables (the globals are in
``reader.field_data`` after the call); ``reader.times`` lists every step's time.
"""

from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader
from ._time_series import TimeSeriesWriter as _TimeSeriesWriter

__all__ = ["TimeSeriesReader", "TimeSeriesWriter"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "exodus"


class TimeSeriesWriter(_TimeSeriesWriter):
    """``netcdf_format`` as ``meshioplusplus.exodus.write``: "NETCDF4" (default),
    "NETCDF3_64BIT_OFFSET", "NETCDF3_64BIT_DATA" or "NETCDF3_CLASSIC"."""

    format_name = "exodus"

    def __init__(self, filename, netcdf_format: str = "NETCDF4", *, append: bool = False) -> None:
        super().__init__(filename, append=append)
        self.options = {"netcdf_format": str(netcdf_format)}


register("exodus", time_series_reader=TimeSeriesReader, time_series_writer=TimeSeriesWriter)
