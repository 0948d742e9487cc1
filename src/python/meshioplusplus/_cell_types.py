"""The cell-type table of the C++ core, in meshio's dictionary shapes."""

from . import _core

#: name -> (num_nodes, topological dimension, VTK id); num_nodes 0 marks ragged types.
CELL_TYPES = {name: (nodes, dim, vtk) for name, nodes, dim, vtk in _core.cell_types()}

#: meshio-compatible views (``meshio._common``).
num_nodes_per_cell = {name: nodes for name, (nodes, _, _) in CELL_TYPES.items() if nodes > 0}
topological_dimension = {name: dim for name, (_, dim, _) in CELL_TYPES.items()}
RAGGED_CELL_TYPES = frozenset(name for name, (nodes, _, _) in CELL_TYPES.items() if nodes == 0)


#: meshio's names for VTK's arbitrary-order Lagrange cells (any node count).
LAGRANGE_DIMENSIONS = {
    "VTK_LAGRANGE_CURVE": 1,
    "VTK_LAGRANGE_TRIANGLE": 2,
    "VTK_LAGRANGE_QUADRILATERAL": 2,
    "VTK_LAGRANGE_TETRAHEDRON": 3,
    "VTK_LAGRANGE_HEXAHEDRON": 3,
    "VTK_LAGRANGE_WEDGE": 3,
    "VTK_LAGRANGE_PYRAMID": 3,
}
topological_dimension.update(LAGRANGE_DIMENSIONS)

_DIMENSION_BY_PREFIX = (("vertex", 0), ("line", 1), ("triangle", 2), ("quad", 2), ("polygon", 2), ("tetra", 3),
                        ("hexahedron", 3), ("wedge", 3), ("pyramid", 3), ("polyhedron", 3))


def cell_dimension(cell_type):
    """Topological dimension of ``cell_type``: from the table, else from a known family prefix
    (``polyhedron8`` → 3, ``line12`` → 1); ``None`` for a custom name that says nothing."""
    if cell_type in topological_dimension:
        return topological_dimension[cell_type]
    for prefix, dimension in _DIMENSION_BY_PREFIX:
        if cell_type.startswith(prefix):
            return dimension
    return None
