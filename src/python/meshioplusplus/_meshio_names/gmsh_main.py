"""meshio's ``meshio.gmsh.main`` (``meshioplusplus.gmsh.main``): ``read`` and ``write`` of
MSH files (2.2, 4.0, 4.1) through the core."""

from .._capabilities import entry_point

__all__ = ["read", "write"]


def read(filename):
    """Read a Gmsh MSH file (any version)."""
    return entry_point("read")(filename, "gmsh")


def write(filename, mesh, fmt_version="4.1", binary=True, float_fmt=".16e"):
    """Write a Gmsh MSH file of version ``fmt_version`` ("2.2", "4.0" or "4.1"). ``float_fmt``
    is accepted and ignored: floats are written in their shortest exact form."""
    entry_point("write")(filename, mesh, "gmsh", fmt_version=fmt_version, binary=binary)
