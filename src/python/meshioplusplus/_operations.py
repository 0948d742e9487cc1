"""Mesh operations implemented in the C++ core."""

from typing import List, NamedTuple

import numpy as np

from . import _core
from ._capabilities import set_entry_point
from ._conversion import from_core, to_core
from ._regions import Region, RegionKind, block_bases


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


class MeshCheck(NamedTuple):
    """What ``check`` found (nothing is changed); cells are block-major indices."""

    inverted: np.ndarray  # mirrored node order: negative volume, or negative area of planar 2-D cells
    degenerate: np.ndarray  # a node repeated, or zero volume/area/length
    duplicate: np.ndarray  # same type and node set as an earlier cell (the later ones)
    unused_points: np.ndarray
    non_manifold_facets: int  # facets of the top-dimensional cells shared by more than two cells
    non_manifold_cells: np.ndarray

    @property
    def ok(self) -> bool:
        return not (len(self.inverted) or len(self.degenerate) or len(self.duplicate) or len(self.unused_points)
                    or self.non_manifold_facets)


def check(mesh):
    """A report of inverted, degenerate and duplicate cells, unused points and non-manifold
    facets (docs/clean-up.md); the mesh is not changed."""
    found = _core.check(to_core(mesh))
    return MeshCheck(found["inverted"], found["degenerate"], found["duplicate"], found["unused_points"],
                     int(found["non_manifold_facets"]), found["non_manifold_cells"])


def merge(meshes):
    """The meshes as one: points stacked, cell blocks in order, data every part has, regions of
    one name joined, field data of the first. No welding: ``merge_points`` afterwards."""
    meshes = list(meshes)
    if not meshes:
        raise ValueError("merge: no meshes")
    return from_core(_core.merge([to_core(mesh) for mesh in meshes]))


def crop(mesh, low, high, mode="all"):
    """The cells with all (``mode="all"``) or any (``"any"``) corners in the box ``[low, high]``
    as a new mesh; data and regions follow, unused points go."""
    if mode not in ("all", "any"):
        raise ValueError(f"crop: mode is 'all' or 'any', not {mode!r}")
    low, high = np.atleast_1d(np.asarray(low, float)), np.atleast_1d(np.asarray(high, float))
    return from_core(_core.subset(to_core(mesh), low.tolist(), high.tolist(), mode == "any"))


def select_cells(mesh, keep):
    """The cells flagged in ``keep`` (one bool per cell, block-major) as a new mesh, as ``crop``
    makes it: blocks left without cells go, cell data and Cell/Side regions follow, the points
    no kept cell uses go with their data (the core's ``select_cells``)."""
    keep = np.asarray(keep, dtype=bool).reshape(-1)
    total = int(block_bases(mesh.cells)[-1])
    if len(keep) != total:
        raise ValueError(f"select_cells: {len(keep)} flags for {total} cells")
    part = from_core(_core.select_cells(to_core(mesh), keep.view(np.uint8)))
    names = {region.name for region in part.regions}
    part.regions_outside_cell_sets = {name for name in getattr(mesh, "regions_outside_cell_sets", set()) if name in names}
    return part


def drop_cell_types(mesh, cell_types):
    """``mesh`` without the blocks of ``cell_types`` (a new mesh, as ``select_cells``)."""
    cell_types = set(cell_types)
    return select_cells(mesh, np.concatenate([np.full(len(block), block.type not in cell_types)
                                              for block in mesh.cells] or [np.zeros(0, bool)]))


def remove_cells(mesh, cells):
    """``mesh`` without the cells listed (block-major indices; a new mesh, as ``select_cells``)."""
    keep = np.ones(int(block_bases(mesh.cells)[-1]), dtype=bool)
    keep[np.asarray(cells, dtype=np.int64)] = False
    return select_cells(mesh, keep)


def extract_region(mesh, name):
    """The cells of the Cell or Side region ``name`` as a new mesh, as ``crop``."""
    return from_core(_core.subset(to_core(mesh), [], [], False, name))


def split(mesh, by="region"):
    """``{name: Mesh}``: one mesh per Cell/Side region (``by="region"``) or per cell type
    (``by="type"``), each with the data and regions of its cells."""
    if by == "region":
        names = list(dict.fromkeys(r.name for r in mesh.regions if r.kind != RegionKind.POINT))
        return {name: extract_region(mesh, name) for name in names}
    if by == "type":
        types = list(dict.fromkeys(block.type for block in mesh.cells))
        core = to_core(mesh)  # once for all types: it may copy (a non-contiguous block's view)
        return {name: from_core(_core.subset(core, [], [], False, "", name)) for name in types}
    raise ValueError(f"split: by is 'region' or 'type', not {by!r}")


set_entry_point("clean", clean)
set_entry_point("extract_surface", extract_surface)
set_entry_point("check", check)
set_entry_point("transform_operation", transform_operation)
