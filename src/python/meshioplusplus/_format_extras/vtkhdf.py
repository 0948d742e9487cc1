"""VTKHDF time series (``Steps``) on the C++ core's time-series interface
(include/meshioplusplus/time_series.hpp), the same shape as ``meshioplusplus.xdmf``:

    with meshioplusplus.vtkhdf.TimeSeriesWriter("out.vtkhdf") as writer:
        writer.write_points_cells(points, cells)
        for t in times:
            writer.write_data(t, point_data={"phi": phi}, cell_data={"a": [a]})

    with meshioplusplus.vtkhdf.TimeSeriesReader("out.vtkhdf") as reader:
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)

``read_data(k)`` reads only step k's rows (HDF5 hyperslabs). Where the mesh changes between
steps (a VTKHDF file may store one geometry per step), ``read_data(k)`` splits cell data over
step k's blocks and ``reader.mesh`` / ``reader.cells`` become step k's mesh
(``read_mesh_at(k)`` gives it directly). The writer writes a static mesh with per-step data;
calling ``write_points_cells`` again between steps starts a new geometry for the steps after it.
VTK's ``vtkHDFReader`` reads the result step by step.

``read_partitions(path, first, count=1, step=0)`` reads one partition or a contiguous range of
a partitioned file (only their rows); ``mio.read(path, comm=comm)`` a rank's share
(docs/parallel.md).
"""

import os

from .. import _core
from .._conversion import from_core
from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader
from ._time_series import TimeSeriesWriter as _TimeSeriesWriter

__all__ = ["TimeSeriesReader", "TimeSeriesWriter", "read_partitions"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "vtkhdf"

    def read_data(self, k: int):
        result = super().read_data(k)
        if self.mesh is not None:  # follow a mesh that changes with the step
            self.mesh = from_core(self._reader.read_mesh())
            self.cells = self.mesh.cells
        return result


class TimeSeriesWriter(_TimeSeriesWriter):
    format_name = "vtkhdf"

    def __init__(self, filename, compression=None, compression_opts=None, *, append: bool = False) -> None:
        super().__init__(filename, append=append)
        if compression is not None:
            self.options["compression"] = str(compression)
        if compression_opts is not None:
            self.options["compression_opts"] = str(compression_opts)


def read_partitions(filename, first, count=1, step=0):
    """Partitions ``[first, first + count)`` of step ``step`` as one mesh with that step's point
    and cell data, reading only their rows (HDF5 hyperslabs)."""
    reader = _core.open_vtkhdf_partitions(os.fspath(filename), int(first), int(count))
    t, point_data, cell_data, _ = reader.read_step(int(step))
    mesh = from_core(reader.read_mesh())
    mesh.point_data.update(point_data)
    mesh.cell_data.update(cell_data)
    return mesh


def write_partitioned_main(filename, partition_files):
    """The main file of a partitioned VTKHDF: HDF5 virtual datasets over ``partition_files``
    (paths relative to the folder of ``filename``, one partition each), in order."""
    _core.write_vtkhdf_partitioned_main(os.fspath(filename), [os.fspath(name) for name in partition_files])


register("vtkhdf", time_series_reader=TimeSeriesReader, time_series_writer=TimeSeriesWriter, namespace={"read_partitions": read_partitions})
