"""meshio's cell-type tables, generated from meshio++'s own: nothing here is copied from meshio.

- VTK ids come from the core's cell-type table (``_core.cell_types()``, the same table
  ``_cell_types`` reads).
- Gmsh element ids, XDMF topology names and Mixed ids, and the node orders that differ from
  ours, live in C++ tables private to their format folders (``src/cpp/formats/gmsh/
  gmsh_element_types.cpp``, ``src/cpp/io/cells/xdmf_cell_types.hpp``,
  ``io::vtk_node_permutation`` in ``src/cpp/io/vtk/vtk_cells.hpp``). Where the extension binds
  them (``_core.gmsh_element_types``, ``_core.xdmf_topology_names``, ``_core.xdmf_mixed_ids``,
  ``_core.vtk_node_permutation``) they are read from there; until then they are read off what
  the core's own writers write for a one-cell mesh of each type (``_written``), once, on first
  use, so that they are still the core's tables and cannot drift from them.

Every function returns the same object on each call (clients may hold on to the dicts)."""

import functools
import os
import re
import tempfile
import threading

import numpy as np

from .. import _core
from .._cell_types import CELL_TYPES
from .._conversion import to_core
from .._exceptions import MeshioError
from .._mesh import Mesh

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
    bound = getattr(_core, "vtk_node_permutation", None)
    if bound is not None:
        vtk_id = CELL_TYPES.get(cell_type, (0, 0, -1))[2]
        order = bound(vtk_id) if vtk_id >= 0 else None
    else:
        order = vtk_order_written(cell_type)
    if order is None or list(order) == list(range(len(order))):
        return None
    return tuple(int(k) for k in order)


def vtk_order_written(cell_type):
    """The order the core's VTK writer gives a ``cell_type`` cell's nodes (``None``: refused)."""
    return _written("vtk", cell_type, {"fmt_version": "4.2", "binary": "false"}, _vtk_cell_nodes)


def _vtk_cell_nodes(text):
    match = re.search(r"^CELLS\s+\d+\s+\d+\s*\n\s*([^\n]*)", text, re.MULTILINE)
    return [int(token) for token in match.group(1).split()[1:]]


# ---- Gmsh --------------------------------------------------------------------------------


@_once
def gmsh_element_types():
    """``[(gmsh_id, type, gmsh_from_meshio)]``, ``gmsh_from_meshio`` the order a Gmsh file
    holds our nodes in (``file[k] = ours[order[k]]``), ``None`` where the orders agree."""
    bound = getattr(_core, "gmsh_element_types", None)
    if bound is not None:  # (gmsh_id, type, meshio_from_gmsh): inverted here
        rows = [(int(gmsh_id), str(name), _inverse(order) if len(order) else None)
                for gmsh_id, name, order in bound()]
    else:
        rows = gmsh_rows_written()
    return tuple(sorted(rows))


def gmsh_rows_written():
    """``gmsh_element_types()`` read off the core's Gmsh writer (MSH 2.2 text)."""
    rows = []
    for name, (nodes, _, _) in CELL_TYPES.items():
        written = _written("gmsh", name, {"fmt_version": "2.2", "binary": "false"}, _gmsh_element)
        if written is not None:
            gmsh_id, order = written
            rows.append((gmsh_id, name, None if order == list(range(nodes)) else tuple(order)))
    return sorted(rows)


def _gmsh_element(text):
    body = text.split("$Elements", 1)[1].split()
    # count, then "number type num_tags tags... nodes..."; node numbers are point index + 1
    gmsh_id, num_tags = int(body[2]), int(body[3])
    return gmsh_id, [int(token) - 1 for token in body[4 + num_tags : body.index("$EndElements")]]


@_once
def gmsh_to_meshio_type():
    return {gmsh_id: name for gmsh_id, name, _ in gmsh_element_types()}


@_once
def meshio_to_gmsh_type():
    return {name: gmsh_id for gmsh_id, name in gmsh_to_meshio_type().items()}


@_once
def gmsh_orders():
    """type -> (meshio_from_gmsh, gmsh_from_meshio) for the types whose orders differ."""
    return {name: (_inverse(order), order) for _, name, order in gmsh_element_types() if order is not None}


# ---- XDMF --------------------------------------------------------------------------------


@_once
def xdmf_topology_names():
    """``[(xdmf_name, type)]``, each type's written spelling first, then the spellings the
    reader also accepts (only known where the extension binds the table)."""
    bound = getattr(_core, "xdmf_topology_names", None)
    if bound is not None:
        return tuple((str(xdmf), str(name)) for xdmf, name in bound())
    return tuple(xdmf_names_written())


def xdmf_names_written():
    """``[(xdmf_name, type)]``: the topology name the core's XDMF writer gives each type."""
    rows = []
    for name in CELL_TYPES:
        written = _written("xdmf", name, {"data_format": "XML"}, _xdmf_topology_type)
        if written is not None and written != "Mixed":
            rows.append((written, name))
    return rows


def _xdmf_topology_type(text):
    return re.search(r'<Topology[^>]*TopologyType="([^"]+)"', text).group(1)


@_once
def xdmf_mixed_ids():
    """``[(id, type, nodes)]`` of Mixed topologies, ``nodes`` 0 where a node count follows the
    id in the stream (Polyvertex, Polyline, Polygon)."""
    bound = getattr(_core, "xdmf_mixed_ids", None)
    if bound is not None:
        return tuple((int(i), str(name), int(nodes)) for i, name, nodes in bound())
    return tuple(xdmf_mixed_written())


def xdmf_mixed_written():
    """``xdmf_mixed_ids()`` read off the Mixed topologies the core's XDMF writer writes."""
    rows = []
    for name, (nodes, _, _) in CELL_TYPES.items():
        written = _written("xdmf", name, {"data_format": "XML"}, _xdmf_mixed_stream, blocks=2)
        if written is not None:
            # one cell: its id, then its nodes, or the node count and the nodes
            size = nodes if nodes > 0 else 3
            rows.append((written[0], name, 0 if len(written) == size + 2 and written[1] == size else size))
    return sorted(rows)


def _xdmf_mixed_stream(text):
    match = re.search(r'<Topology[^>]*TopologyType="Mixed"[^>]*>\s*<DataItem[^>]*>([^<]*)<', text)
    values = [int(token) for token in match.group(1).split()]
    return values[: len(values) // 2]  # the first of the two one-cell blocks


# ---- reading the core's writers ----------------------------------------------------------


def _written(format_name, cell_type, options, parse, blocks=1):
    """``parse(text)`` of the file the core writes in ``format_name`` for ``blocks`` one-cell
    blocks of ``cell_type`` with nodes 0, 1, …; ``None`` where it refuses the type."""
    nodes = CELL_TYPES.get(cell_type, (-1, 0, -1))[0]
    if nodes < 0 or cell_type == "polyhedron":
        return None  # unknown, any node count, or cells of faces: nothing fixed to read off
    size = nodes if nodes > 0 else 3  # a ragged type (polygon) as a triangle
    points = np.arange(3.0 * size).reshape(size, 3)
    cells = [(cell_type, np.arange(size, dtype=np.int64).reshape(1, size)) for _ in range(blocks)]
    with tempfile.TemporaryDirectory(prefix="meshioplusplus-tables-") as directory:
        path = os.path.join(directory, f"cell.{format_name}")
        try:
            _core.write(path, to_core(Mesh(points, cells)), format_name, options)
        except (MeshioError, ValueError, RuntimeError):
            return None
        with open(path, encoding="utf-8", errors="replace") as f:
            return parse(f.read())


def _inverse(order):
    inverse = [0] * len(order)
    for position, node in enumerate(order):
        inverse[int(node)] = position
    return tuple(inverse)
