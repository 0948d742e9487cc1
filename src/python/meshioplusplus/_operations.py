"""Mesh operations implemented in the C++ core."""

from typing import List, NamedTuple

from . import _core
from ._conversion import to_core
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
