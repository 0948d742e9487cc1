"""meshio's ``meshio.vtk._vtk_51`` (``meshioplusplus.vtk._vtk_51``): the legacy VTK 5.1 module;
``read``/``write`` are the core's VTK reader and its 5.1 writer."""

from .._capabilities import entry_point
from .vtk_common import meshio_to_vtk_order, meshio_to_vtk_type, vtk_cells_from_data  # noqa: F401

__all__ = ["read", "write"]


def read(filename):
    """Read a legacy VTK file (any version)."""
    return entry_point("read")(filename, "vtk")


def write(filename, mesh, binary=True):
    """Write ``mesh`` as a legacy VTK 5.1 file."""
    entry_point("write")(filename, mesh, "vtk", binary=binary, fmt_version="5.1")
