"""EnSight Gold cases: every time step through the core's time-series reader, the shape of
``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.ensight.TimeSeriesReader("run.case") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # only step k's files

A step reads only its own variable files (and geometry file when the geometry is transient).
A transient geometry may change its cells from step to step: after ``read_data(k)``
``reader.mesh`` / ``reader.cells`` are step k's and the cell data is split over its blocks;
``read_mesh_at(k)`` gives step k's mesh with its data. ``meshioplusplus.read(case)`` gives the
first step (as ParaView opens a case).

    with meshioplusplus.ensight.TimeSeriesWriter("out.case") as writer:
        writer.write_points_cells(points, cells)      # again between steps if the mesh moves
        for t in times:
            writer.write_data(t, point_data={"T": T}, cell_data={"p": [p]})"""

from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader
from ._time_series import TimeSeriesWriter as _TimeSeriesWriter

__all__ = ["TimeSeriesReader", "TimeSeriesWriter"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "ensight"
    mesh_follows_step = True


class TimeSeriesWriter(_TimeSeriesWriter):
    """Each step's variables as they arrive (``<stem>.<name>NNNNN``), the geometry once — or once
    per ``write_points_cells`` when it is called again between steps (transient geometry) —
    and the case at ``close()``; ``binary=False`` for ASCII. Times must increase."""

    format_name = "ensight"

    def __init__(self, filename, binary=True) -> None:
        super().__init__(filename)
        self.options["binary"] = "true" if binary else "false"


register("ensight", time_series_reader=TimeSeriesReader, time_series_writer=TimeSeriesWriter)
