"""OpenFOAM cases: every time directory through the core's time-series reader, the shape of
``meshioplusplus.xdmf.TimeSeriesReader``:

    with meshioplusplus.openfoam.TimeSeriesReader("cavity") as reader:   # or cavity/case.foam
        points, cells = reader.read_points_cells()
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)   # {"p": …, "U": …} of time k

A step is a time directory ("0" included), read only when asked. A moving mesh's points follow
the steps: after ``read_data(k)`` ``reader.mesh`` / ``reader.points`` are step k's (its
``<time>/polyMesh/points``, else the newest earlier ones, else constant/polyMesh's), and
``read_mesh_at(k)`` gives step k's mesh with its fields. ``meshioplusplus.read(case)`` gives the
mesh with the latest time's fields and ``field_data["openfoam:time"]``.

A decomposed case (``processor0/`` …) read with ``meshioplusplus.read(case, comm=comm)`` gives
each MPI rank its share of the processor directories (``processor_dirs(case)`` lists them),
welded by their ``global_ids`` (decomposePar's point and cell addressing). Read only here; the
patch list is ``string_field_data["openfoam:patch_names"/"openfoam:patch_types"/"openfoam:patch_groups"]``.
"""

import os
import re

from .. import _core
from .._capabilities import register
from .._conversion import from_core
from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader", "processor_dirs", "case_directory"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "openfoam"

    def read_points_cells(self):
        result = super().read_points_cells()
        self.points = self.mesh.points
        return result

    def read_data(self, k: int):
        result = super().read_data(k)
        if self.mesh is not None:  # a moving mesh: the points of step k
            self.mesh.points = from_core(self._reader.read_mesh()).points
            self.points = self.mesh.points
        return result


def case_directory(path):
    """The case directory of ``path``: the directory itself, or the folder of a ``*.foam`` file."""
    path = os.fspath(path)
    return path if os.path.isdir(path) else (os.path.dirname(path) or ".")


def processor_dirs(path):
    """The ``processorN`` directories of the case at ``path``, by N (empty when not decomposed)."""
    root = case_directory(path)
    found = []
    for name in os.listdir(root):
        match = re.fullmatch(r"processor(\d+)", name)
        if match and os.path.isdir(os.path.join(root, name)):
            found.append((int(match.group(1)), os.path.join(root, name)))
    return [folder for _, folder in sorted(found)]


def read_processor(folder):
    """One processor directory as a mesh, with ``global_ids`` point and cell data."""
    return from_core(_core.read(os.fspath(folder), "openfoam"))


register("openfoam", time_series_reader=TimeSeriesReader,
         namespace={"processor_dirs": processor_dirs, "case_directory": case_directory})
