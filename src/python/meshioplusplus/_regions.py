"""Regions (named point, cell and side groups) and the block-major cell numbering.

``block_bases`` is the Python face of the C++ helper that owns block-major numbering; every
module that needs cell offsets calls it rather than re-deriving prefix sums.
"""

import enum

import numpy as np

from . import _core


class RegionKind(enum.IntEnum):
    POINT = 0  #: entries are point indices, shape (n,)
    CELL = 1  #: entries are block-major global cell indices, shape (n,)
    SIDE = 2  #: entries are (cell, local facet) pairs, shape (n, 2)


def block_bases(cells):
    """int64 prefix sums of the cell counts of ``cells`` (length ``len(cells) + 1``).

    ``cells`` holds CellBlocks, ``(type, data)`` pairs or plain cell counts; ragged and
    empty blocks count like any other.
    """
    counts = [block if isinstance(block, (int, np.integer)) else len(_block_data(block)) for block in cells]
    return _core.block_bases([int(count) for count in counts])


def _block_data(block):
    data = getattr(block, "data", None)
    return block[1] if data is None else data


class Region:
    """A named group of points, cells or cell sides.

    ``Region(name, kind, dim=-1, tag=-1, entries=())``: ``dim`` is the topological dimension
    of the group (-1 when unknown) and ``tag`` its numeric id in the source format (a Gmsh
    physical tag, a Medit reference …; -1 when none).
    """

    __slots__ = ("name", "kind", "dim", "tag", "entries")

    def __init__(self, name, kind, dim=-1, tag=-1, entries=()):
        self.name = str(name)
        self.kind = RegionKind(kind)
        self.dim = int(dim)
        self.tag = int(tag)
        entries = np.asarray(entries)
        if entries.size == 0:
            entries = entries.astype(np.int64).reshape((0, 2) if self.kind == RegionKind.SIDE else (0,))
        if self.kind == RegionKind.SIDE and (entries.ndim != 2 or entries.shape[1] != 2):
            raise ValueError(f"side region {self.name!r} needs (cell, facet) pairs of shape (n, 2)")
        if self.kind != RegionKind.SIDE and entries.ndim != 1:
            raise ValueError(f"region {self.name!r} needs a 1-D index array")
        if entries.dtype.kind not in "iu":
            raise ValueError(f"region {self.name!r} entries must be integers, got {entries.dtype}")
        self.entries = entries

    def __repr__(self):
        return (
            f"Region(name={self.name!r}, kind={self.kind.name}, dim={self.dim}, tag={self.tag}, "
            f"entries=<{self.entries.shape[0]} {self.kind.name.lower()} entries>)"
        )

    def __eq__(self, other):
        if not isinstance(other, Region):
            return NotImplemented
        return (self.name, self.kind, self.dim, self.tag) == (other.name, other.kind, other.dim, other.tag) and (
            np.array_equal(self.entries, other.entries)
        )

    __hash__ = None


class PointSets:
    """meshio's ``point_sets`` as a live view over the mesh's Point regions."""

    def __init__(self, mesh):
        self._mesh = mesh

    def _regions(self):
        return [r for r in self._mesh.regions if r.kind == RegionKind.POINT]

    def __getitem__(self, name):
        for region in self._regions():
            if region.name == name:
                return region.entries
        raise KeyError(name)

    def __setitem__(self, name, indices):
        new = Region(name, RegionKind.POINT, entries=np.asarray(indices).reshape(-1))
        _replace_region(self._mesh.regions, new)

    def __delitem__(self, name):
        _remove_region(self._mesh.regions, name, RegionKind.POINT)

    def __iter__(self):
        return iter([r.name for r in self._regions()])

    def __len__(self):
        return len(self._regions())

    def __contains__(self, name):
        return any(r.name == name for r in self._regions())

    def keys(self):
        # A dict's key view, as meshio's plain dicts give: set operations work on it.
        return dict.fromkeys(r.name for r in self._regions()).keys()

    def values(self):
        return [r.entries for r in self._regions()]

    def items(self):
        return [(r.name, r.entries) for r in self._regions()]

    def get(self, name, default=None):
        return self[name] if name in self else default

    def __eq__(self, other):
        return dict(self.items()).keys() == dict(other).keys() and all(
            np.array_equal(v, other[k]) for k, v in self.items()
        )

    def __repr__(self):
        return repr(dict(self.items()))


class CellSets(PointSets):
    """meshio's ``cell_sets`` (name -> one local index array per block) as a live view over
    the mesh's Cell regions. Side regions are not cell sets and are not listed here."""

    def _regions(self):
        return [r for r in self._mesh.regions if r.kind == RegionKind.CELL]

    def __getitem__(self, name):
        for region in self._regions():
            if region.name == name:
                return split_by_block(region.entries, block_bases(self._mesh.cells))
        raise KeyError(name)

    def __setitem__(self, name, per_block):
        bases = block_bases(self._mesh.cells)
        entries = join_blocks(per_block, bases, name)
        _replace_region(self._mesh.regions, Region(name, RegionKind.CELL, entries=entries))

    def __delitem__(self, name):
        _remove_region(self._mesh.regions, name, RegionKind.CELL)

    def values(self):
        return [self[name] for name in self.keys()]

    def items(self):
        return [(name, self[name]) for name in self.keys()]

    def __eq__(self, other):
        mine = dict(self.items())
        return mine.keys() == dict(other).keys() and all(
            len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
            for a, b in ((mine[k], other[k]) for k in mine)
        )


def split_by_block(entries, bases):
    """Global block-major cell indices -> one array of block-local indices per block."""
    entries = np.asarray(entries)
    blocks = np.searchsorted(bases, entries, side="right") - 1
    return [entries[blocks == b] - bases[b] for b in range(len(bases) - 1)]


def join_blocks(per_block, bases, name="cell set"):
    """One array of block-local indices per block -> global block-major indices."""
    per_block = list(per_block)
    if len(per_block) != len(bases) - 1:
        raise ValueError(f"{name!r}: needs one index array per cell block ({len(bases) - 1}), got {len(per_block)}")
    parts = []
    for b, local in enumerate(per_block):
        if local is None:
            continue
        local = np.asarray(local).reshape(-1)
        if local.size and (local.min() < 0 or local.max() >= bases[b + 1] - bases[b]):
            raise ValueError(f"{name!r}: index outside cell block {b}")
        parts.append(local.astype(np.int64, copy=False) + bases[b])
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _replace_region(regions, new):
    for i, region in enumerate(regions):
        if region.name == new.name and region.kind == new.kind:
            regions[i] = new
            return
    regions.append(new)


def _remove_region(regions, name, kind):
    for i, region in enumerate(regions):
        if region.name == name and region.kind == kind:
            del regions[i]
            return
    raise KeyError(name)
