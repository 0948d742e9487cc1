"""meshio's ``meshio._vtk_common`` (re-exported by ``meshioplusplus._vtk_common``; PyVista's
``from_meshio``/``to_meshio`` import its type maps): VTK cell ids <-> cell type names, the node
orders that differ, and meshio's decoding of VTK's connectivity/offsets/types arrays.

The maps are generated from the core's cell-type table (``_tables``). They hold every VTK cell
meshio++ reads and writes; meshio's map also names VTK ids meshio++ has no cell type for
(0 ``empty``, 8 ``pixel`` — read as ``quad`` —, 15 ``penta_prism``, 16 ``hexa_prism``, 75-81
``VTK_BEZIER_*``), which are absent here (docs/meshio-compatibility.md). Changing these dicts
does not change what the core reads or writes."""

import numpy as np

from .._exceptions import ReadError
from .._mesh import CellBlock
from . import _tables
from .common import num_nodes_per_cell, warn

__all__ = [
    "vtk_to_meshio_type",
    "meshio_to_vtk_type",
    "vtk_to_meshio_order",
    "meshio_to_vtk_order",
    "vtk_cells_from_data",
    "Info",
]

vtk_to_meshio_type = _tables.vtk_to_meshio_type()
meshio_to_vtk_type = _tables.meshio_to_vtk_type()

# VTK types whose blocks meshio splits by node count (each cell's count from the offsets).
_ANY_NODE_COUNT = frozenset(
    name for name in meshio_to_vtk_type if name not in num_nodes_per_cell and not name.startswith("polyhedron")
)


def meshio_to_vtk_order(meshio_type, dtype=int):
    """The node order of a ``meshio_type`` cell in a VTK file (``vtk = ours[:, order]``), or
    ``None`` where the two agree (every type but the linear wedge)."""
    order = _tables.vtk_written_order(meshio_type) if meshio_type in num_nodes_per_cell else None
    return None if order is None else np.array(order, dtype=dtype)


def vtk_to_meshio_order(vtk_type, dtype=int):
    """The inverse of ``meshio_to_vtk_order`` for the type VTK id ``vtk_type`` is read as
    (``ours = vtk[:, order]``), or ``None`` where the orders agree."""
    name = vtk_to_meshio_type.get(int(vtk_type))
    order = meshio_to_vtk_order(name) if name is not None else None
    if order is None:
        return None
    inverse = np.empty_like(order, dtype=dtype)
    inverse[order] = np.arange(len(order), dtype=dtype)
    return inverse


def vtk_cells_from_data(connectivity, offsets, types, cell_data_raw):
    """meshio's cell blocks from VTK's arrays: ``connectivity`` (all cells' nodes), ``offsets``
    (each cell's END in ``connectivity``, as in VTU files), ``types`` (VTK ids) and the raw cell
    data (one array per name over all cells). Returns ``(cells, cell_data)``: one block per run
    of equal type — for polygons and Lagrange cells, per run of equal node count — with the
    data split alike. Cells of a type without a name are dropped with a warning."""
    connectivity, offsets, types = np.asarray(connectivity), np.asarray(offsets), np.asarray(types)
    if len(offsets) != len(types):
        raise ReadError(f"len(offsets) != len(types) ({len(offsets)} != {len(types)})")
    cells, cell_data = [], {}

    def add(cell_type, ends, size, cell_indices):
        order = vtk_to_meshio_order(types[cell_indices[0]], dtype=offsets.dtype)
        if order is None:
            order = np.arange(size, dtype=offsets.dtype)
        cells.append(CellBlock(cell_type, connectivity[np.add.outer(ends, order - size)]))
        for name, values in cell_data_raw.items():
            cell_data.setdefault(name, []).append(values[cell_indices])

    breaks = np.flatnonzero(types[:-1] != types[1:]) + 1
    for start, end in zip(np.concatenate([[0], breaks]), np.concatenate([breaks, [len(types)]])):
        start, end = int(start), int(end)
        cell_type = vtk_to_meshio_type.get(int(types[start]))
        if cell_type is None:
            warn(f"File contains cells that meshio cannot handle (type {types[start]}).")
            continue
        if cell_type in _ANY_NODE_COUNT:
            first = 0 if start == 0 else offsets[start - 1]
            bounds = np.concatenate([[first], offsets[start:end]])
            sizes = np.diff(bounds)
            runs = np.concatenate([[0], np.flatnonzero(np.diff(sizes)) + 1, [len(sizes)]])
            for run_start, run_end in zip(runs[:-1], runs[1:]):
                local = np.arange(run_start, run_end)
                add(cell_type, bounds[local + 1], int(sizes[run_start]), start + local)
        else:
            add(cell_type, offsets[start:end], num_nodes_per_cell[cell_type], np.arange(start, end))
    return cells, cell_data


class Info:
    """meshio's container for the state of its legacy VTK reader."""

    def __init__(self):
        self.points = None
        self.field_data = {}
        self.cell_data_raw = {}
        self.point_data = {}
        self.dataset = {}
        self.connectivity = None
        self.offsets = None
        self.types = None
        self.active = None
        self.is_ascii = False
        self.split = []
        self.num_items = 0
        self.section = None
