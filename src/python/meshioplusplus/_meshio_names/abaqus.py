"""meshio's ``meshio.abaqus._abaqus`` (``meshioplusplus.abaqus._abaqus``; sgio and adapy import
its type maps): Abaqus element names <-> cell type names, and ``read``/``write`` through the core.

The maps are the core Abaqus format's own tables (``src/cpp/formats/abaqus/
abaqus_element_types.cpp``, bound as ``_core.abaqus_element_types`` and
``_core.abaqus_written_names``): ``abaqus_to_meshio_type`` holds every element name the core
reads, ``meshio_to_abaqus_type`` the name it writes for each type when the points are 3-D
(meshio's is the inverse of its first map, the last name listed per type).
docs/meshio-compatibility.md lists the differences. Changing these dicts does not change what
the core reads or writes."""

from .. import _core
from .._capabilities import entry_point

__all__ = ["abaqus_to_meshio_type", "meshio_to_abaqus_type", "read", "write"]

abaqus_to_meshio_type = dict(_core.abaqus_element_types())
meshio_to_abaqus_type = {cell_type: spatial for cell_type, _, spatial in _core.abaqus_written_names()}


def read(filename):
    """Read an Abaqus input file."""
    return entry_point("read")(filename, "abaqus")


def write(filename, mesh, float_fmt=".16e", translate_cell_names=True):
    """Write an Abaqus input file; meshio's own type names (upper case) where
    ``translate_cell_names`` is false. ``float_fmt`` is accepted and ignored: floats are written
    in their shortest exact form."""
    entry_point("write")(filename, mesh, "abaqus", translate_cell_names=translate_cell_names)
