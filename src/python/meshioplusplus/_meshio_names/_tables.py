"""meshio's cell-type tables, generated from meshio++'s own: nothing here is copied from meshio.

- VTK ids come from the core's cell-type table (``_core.cell_types()``, the same table
  ``_cell_types`` reads).
- Gmsh element ids, XDMF topology names and Mixed ids, and the node orders that differ from
  ours, are the C++ tables of their format folders, bound by the extension:
  ``_core.gmsh_element_types`` (``src/cpp/formats/gmsh/gmsh_element_types.cpp``),
  ``_core.xdmf_topology_names`` / ``_core.xdmf_mixed_ids`` (``src/cpp/io/cells/
  xdmf_cell_types.hpp``) and ``_core.vtk_node_permutation`` (``src/cpp/io/vtk/vtk_cells.hpp``).

Every function returns the same object on each call (clients may hold on to the dicts)."""

import functools
import threading

import numpy as np

from .. import _core
from .._cell_types import CELL_TYPES

_MAKING = threading.RLock()


def _once(make):
    """``make()`` computed on the first call and the same object returned ever after (also to
    threads that ask at the same moment)."""
    made = []

    @functools.wraps(make)
    def get():
        if not made:
            with _MAKING:
                if not made:
                    made.append(make())
        return made[0]

    return get


# ---- VTK ---------------------------------------------------------------------------------


def module_attributes_made_on_first_use(module_globals, makers):
    """``(__getattr__, __dir__)`` for a module whose names ``makers`` makes on first use (PEP
    562): ``makers[name]()`` gives the value, which is then kept in the module."""

    def __getattr__(name):
        make = makers.get(name)
        if make is None:
            raise AttributeError(f"module {module_globals['__name__']!r} has no attribute {name!r}")
        module_globals[name] = value = make()
        return value

    def __dir__():
        return sorted(set(module_globals) | set(makers))

    return __getattr__, __dir__


@_once
def vtk_to_meshio_type():
    """VTK id -> the type the core reads it as. Where several types share an id (the
    fixed-order Lagrange types and VTK_LAGRANGE_*), the core reads the one of any node count."""
    names = {}
    for name, (nodes, _, vtk_id) in CELL_TYPES.items():
        if vtk_id < 0:
            continue
        if vtk_id not in names or nodes < 0:
            names[vtk_id] = name
    return dict(sorted(names.items()))


@_once
def meshio_to_vtk_type():
    """The inverse of ``vtk_to_meshio_type`` (meshio defines it so)."""
    return {name: vtk_id for vtk_id, name in vtk_to_meshio_type().items()}


@_once
def vtk_type_to_numnodes():
    """meshio's ``vtk._vtk_42.vtk_type_to_numnodes``: an array indexed by VTK id, up to the
    largest id read as a type of fixed size, holding that type's node count; -1 where the id is
    read as a type without one (polygon, polyhedron) or names no type."""
    fixed = {vtk_id: CELL_TYPES[name][0] for vtk_id, name in vtk_to_meshio_type().items()
             if CELL_TYPES[name][0] > 0}
    size = 1 + max(fixed)
    table = np.full(size, -1, dtype=int)
    for vtk_id, nodes in fixed.items():
        if vtk_id < size:
            table[vtk_id] = nodes
    return table


@functools.lru_cache(maxsize=None)
def vtk_written_order(cell_type):
    """Our nodes in the order a VTK file holds them (``file[k] = ours[order[k]]``) for
    ``cell_type``; ``None`` where the orders agree or the type has no fixed size."""
    vtk_id = CELL_TYPES.get(cell_type, (0, 0, -1))[2]
    return _core.vtk_node_permutation(vtk_id) if vtk_id >= 0 else None


# ---- Gmsh --------------------------------------------------------------------------------


@_once
def gmsh_element_types():
    """``[(gmsh_id, type, meshio_from_gmsh)]`` in Gmsh id order: meshio node ``i`` of a cell is
    its Gmsh node ``meshio_from_gmsh[i]``; ``()`` where the orders agree."""
    return tuple(_core.gmsh_element_types())


@_once
def gmsh_to_meshio_type():
    return {gmsh_id: name for gmsh_id, name, _ in gmsh_element_types()}


@_once
def meshio_to_gmsh_type():
    return {name: gmsh_id for gmsh_id, name in gmsh_to_meshio_type().items()}


@_once
def gmsh_orders():
    """type -> (meshio_from_gmsh, gmsh_from_meshio) for the types whose orders differ."""
    return {name: (order, _inverse(order)) for _, name, order in gmsh_element_types() if order}


# ---- XDMF --------------------------------------------------------------------------------


@_once
def xdmf_topology_names():
    """``[(xdmf_name, type)]`` in the table's order: each type's written spelling first, then
    the spellings the reader also accepts."""
    return tuple(_core.xdmf_topology_names())


@_once
def xdmf_mixed_ids():
    """``[(id, type, nodes)]`` of Mixed topologies, ``nodes`` 0 where a node count follows the
    id in the stream (Polyvertex, Polyline, Polygon)."""
    return tuple(_core.xdmf_mixed_ids())


def _inverse(order):
    inverse = [0] * len(order)
    for position, node in enumerate(order):
        inverse[int(node)] = position
    return tuple(inverse)
