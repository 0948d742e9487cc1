"""meshio's private modules, for code that imports them (PyVista, pygmsh, toughio, sgio,
ogstools, …): one module here per meshio module it mirrors, with meshio's names and meanings,
generated from meshio++'s own tables (``_tables``), never copied from meshio.

- ``common`` → ``meshioplusplus._common``, ``files`` → ``_files``, ``vtk_common`` →
  ``_vtk_common`` (thin top-level modules), and ``topological_dimension`` in ``_mesh``;
- ``vtk_42``/``vtk_51`` → ``meshioplusplus.vtk._vtk_42``/``_vtk_51``; ``gmsh_common``/
  ``gmsh_main`` → ``meshioplusplus.gmsh.common``/``main``, plus ``gmsh.gmsh_to_meshio_type``
  and ``gmsh.meshio_to_gmsh_type``; ``xdmf_common``/``xdmf_main``/``xdmf_time_series`` →
  ``meshioplusplus.xdmf.common``/``main``/``time_series``; ``abaqus`` →
  ``meshioplusplus.abaqus._abaqus``: registered here as capabilities
  (``submodules``, ``lazy_namespace``), installed by ``_formats`` into the namespaces.

What differs from meshio, and why: docs/meshio-compatibility.md, "Names real clients import"."""

from .._capabilities import register
from . import _tables, abaqus, common, files, gmsh_common, gmsh_main, vtk_42, vtk_51, vtk_common, xdmf_common
from . import xdmf_main, xdmf_time_series
# meshio's top-level private modules are attributes of the package once it is imported, as in meshio
from .. import __about__, _common, _files, _vtk_common  # noqa: F401

__all__ = ["common", "files", "vtk_common"]

register("abaqus", submodules={"_abaqus": abaqus})
register("vtk", submodules={"_vtk_42": vtk_42, "_vtk_51": vtk_51})
register(
    "gmsh",
    submodules={"common": gmsh_common, "main": gmsh_main},
    lazy_namespace={"gmsh_to_meshio_type": _tables.gmsh_to_meshio_type,
                    "meshio_to_gmsh_type": _tables.meshio_to_gmsh_type},
)
register("xdmf", submodules={"common": xdmf_common, "main": xdmf_main, "time_series": xdmf_time_series})
