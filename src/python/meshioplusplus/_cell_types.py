"""The cell-type table of the C++ core, in meshio's dictionary shapes."""

from . import _core

#: name -> (num_nodes, topological dimension, VTK id); num_nodes 0 marks ragged types.
CELL_TYPES = {name: (nodes, dim, vtk) for name, nodes, dim, vtk in _core.cell_types()}

#: meshio-compatible views (``meshio._common``).
num_nodes_per_cell = {name: nodes for name, (nodes, _, _) in CELL_TYPES.items() if nodes > 0}
topological_dimension = {name: dim for name, (_, dim, _) in CELL_TYPES.items()}
RAGGED_CELL_TYPES = frozenset(name for name, (nodes, _, _) in CELL_TYPES.items() if nodes == 0)


def cell_dimension(cell_type):
    """Topological dimension of ``cell_type``; meshio-style ``polyhedronN`` names map to 3."""
    if cell_type in topological_dimension:
        return topological_dimension[cell_type]
    if cell_type.startswith("polyhedron"):
        return 3
    if cell_type.startswith("polygon"):
        return 2
    raise ValueError(f"unknown cell type {cell_type!r}")
