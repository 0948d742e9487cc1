"""Every step of a PVD time series, read lazily through the core's time-series interface — the
same reader shape as ``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.pvd.TimeSeriesReader("run.pvd") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)

``read_data(k)`` reads only the files of step k; ``reader.times`` lists every step's time.

And written with the XDMF writer's shape: one complete ``.vtu`` per step (``<stem>/<stem>_<k>.vtu``,
written as the step arrives) and the ``.pvd`` collection on ``close()``:

    with meshioplusplus.pvd.TimeSeriesWriter("run.pvd", compression="zlib") as writer:
        writer.write_points_cells(points, cells)
        for t in times:
            writer.write_data(t, point_data={"phi": phi})
"""

from .._options import option_text
from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader
from ._time_series import TimeSeriesWriter as _TimeSeriesWriter

__all__ = ["TimeSeriesReader", "TimeSeriesWriter"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "pvd"


class TimeSeriesWriter(_TimeSeriesWriter):
    """The step files take ``meshioplusplus.vtu.write``'s options (``binary``, ``compression``,
    ``appended`` …), e.g. ``TimeSeriesWriter("run.pvd", binary=True, compression=None)``."""

    format_name = "pvd"

    def __init__(self, filename, *, append: bool = False, **vtu_options) -> None:
        super().__init__(filename, append=append)
        self.options = {name: text for name, value in vtu_options.items()
                        if (text := option_text(name, value, "x")) is not None}


register("pvd", time_series_reader=TimeSeriesReader, time_series_writer=TimeSeriesWriter)
