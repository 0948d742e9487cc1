"""Mesh operations implemented in the C++ core."""

from typing import List, NamedTuple

import numpy as np

from . import _core
from ._capabilities import set_entry_point
from ._conversion import from_core, to_core
from ._regions import Region, RegionKind


class SideRegionReport(NamedTuple):
    """What ``derive_side_regions`` did: for each Cell region it turned into a Side region,
    how many of its cells matched no facet (reported, never invented), and which regions it
    skipped because a Side region of that name already existed."""

    region_names: List[str]
    unmatched_counts: List[int]
    already_present: List[str]


def derive_side_regions(mesh):
    """Add a Side region for every Cell region of dimension D-1 whose cells are facets of
    the mesh's D-dimensional cells (D = the highest cell dimension).

    Each Side region has the Cell region's name, dim and tag; its entries are (cell, local
    facet) pairs in block-major cell numbering, with the local facet numbering documented in
    docs/regions.md. A facet shared by two cells yields both pairs. Runs in linear time
    (hashing sorted corner nodes). Modifies ``mesh.regions`` in place; returns a report.
    """
    added, report = _core.derive_side_regions(to_core(mesh))
    for name, kind, dim, tag, entries in added:
        mesh.regions.append(Region(name, RegionKind(kind), dim, tag, entries))
    return SideRegionReport(list(report["region_names"]), list(report["unmatched_counts"]),
                            list(report["already_present"]))


# ---- clean-up (meshio 4's prune*, and more): include/meshioplusplus/mesh_ops.hpp -------------


def clean(mesh, operations):
    """Applies ``operations`` — ``(name, numbers)`` pairs run in order by the core:
    ``prune_z_0 [tol]``, ``remove_orphaned_nodes``, ``remove_lower_dimensional_cells``,
    ``merge_points [tol]``, ``transform [rows, columns, *matrix]`` — to ``mesh`` in place
    (meshio 4's methods worked in place). Point data, cell data and regions follow; field data
    stays. Returns what each operation did (points or cells removed; 1/0 for ``prune_z_0``)."""
    result, counts = _core.clean(to_core(mesh), [(name, [float(x) for x in numbers]) for name, numbers in operations])
    cleaned = from_core(result)
    mesh._points, mesh._make_points = cleaned.points, None
    mesh.cells = cleaned.cells
    mesh.point_data = cleaned.point_data
    mesh.cell_data = cleaned.cell_data
    mesh.regions = cleaned.regions
    names = {region.name for region in mesh.regions}
    mesh.regions_outside_cell_sets = {name for name in getattr(mesh, "regions_outside_cell_sets", set()) if name in names}
    return list(counts)


def transform_operation(matrix):
    """The ``clean`` operation for an affine ``matrix`` (d×d, d×(d+1) or (d+1)×(d+1))."""
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError(f"transform: a 2-D matrix, not shape {matrix.shape}")
    return ("transform", [matrix.shape[0], matrix.shape[1], *matrix.ravel().tolist()])


def extract_surface(mesh):
    """The outward boundary of ``mesh``'s highest-dimensional cells as a new Mesh (faces of
    volume cells, edges of surface cells; corners only for higher-order cells), normals out.
    Cell data ``surface:cell`` / ``surface:facet`` name the (cell, local facet) each came from
    (a Side region's entries, docs/regions.md); the source's cell data comes along from those
    cells, its Side regions become Cell regions of the surface. docs/clean-up.md."""
    return from_core(_core.extract_surface(to_core(mesh)))


set_entry_point("clean", clean)
set_entry_point("extract_surface", extract_surface)
set_entry_point("transform_operation", transform_operation)
