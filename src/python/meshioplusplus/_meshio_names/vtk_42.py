"""meshio's ``meshio.vtk._vtk_42`` (``meshioplusplus.vtk._vtk_42``): the legacy VTK 4.2 module.
PyVista's ``from_meshio`` reads ``vtk_type_to_numnodes`` from it; ``read``/``write`` are the
core's VTK reader and its 4.2 writer."""

from .._capabilities import entry_point
from . import _tables
from .vtk_common import meshio_to_vtk_order, meshio_to_vtk_type, vtk_to_meshio_order, vtk_to_meshio_type  # noqa: F401

__all__ = ["vtk_type_to_numnodes", "read", "write"]

vtk_type_to_numnodes = _tables.vtk_type_to_numnodes()


def read(filename):
    """Read a legacy VTK file (any version)."""
    return entry_point("read")(filename, "vtk")


def write(filename, mesh, binary=True):
    """Write ``mesh`` as a legacy VTK 4.2 file."""
    entry_point("write")(filename, mesh, "vtk", binary=binary, fmt_version="4.2")
