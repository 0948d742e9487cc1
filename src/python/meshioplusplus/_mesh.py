"""The Python mesh: meshio's ``Mesh``/``CellBlock`` surface over meshio++'s region model."""

import copy as _copy

import numpy as np

from ._cell_types import RAGGED_CELL_TYPES, cell_dimension
from ._regions import CellSets, PointSets, Region, RegionKind, block_bases, split_by_block


def is_ragged_type(cell_type):
    return cell_type in RAGGED_CELL_TYPES or cell_type.startswith("polyhedron")


class CellBlock:
    """Cells of one type. ``data`` is an (n, k) integer array; for ragged types (polygon
    and polyhedron) it may be a list with one entry per cell, as in meshio: a node list for a
    polygon, a list of face node lists for a polyhedron."""

    def __init__(self, cell_type, data, tags=None):
        self.type = cell_type
        self.dim = cell_dimension(cell_type)
        self.tags = [] if tags is None else list(tags)
        if is_ragged_type(cell_type):
            self.data = _ragged_or_rectangular(data)
        else:
            self.data = np.asarray(data)
            if self.data.ndim != 2:
                raise ValueError(f"{cell_type} cells need a 2-D (n, nodes) array, got shape {self.data.shape}")

    @property
    def is_ragged(self):
        return isinstance(self.data, list)

    def __len__(self):
        return len(self.data)

    # meshio < 5 code unpacks blocks as (type, data) tuples.
    def __iter__(self):
        return iter((self.type, self.data))

    def __getitem__(self, index):
        return (self.type, self.data)[index]

    def __repr__(self):
        items = [f"type: {self.type}", f"num cells: {len(self)}"]
        if self.tags:
            items.append(f"tags: {self.tags}")
        return "<meshioplusplus CellBlock, " + ", ".join(items) + ">"


def _ragged_or_rectangular(data):
    if isinstance(data, np.ndarray):
        return data
    data = list(data)
    lengths = {len(cell) for cell in data}
    nested = any(isinstance(cell, (list, tuple)) and cell and np.ndim(cell[0]) > 0 for cell in data)
    if len(lengths) == 1 and not nested:
        return np.asarray(data)
    if nested:  # polyhedron: list of faces per cell
        return [[np.asarray(face) for face in cell] for cell in data]
    return [np.asarray(cell) for cell in data]


def _as_cell_block(block):
    if isinstance(block, CellBlock):
        return block
    cell_type, data = block
    return CellBlock(cell_type, data)


class Mesh:
    """A mesh: points, cell blocks, data, and regions (named point/cell/side groups).

    ``point_sets`` and ``cell_sets`` are meshio-compatible live views over ``regions``.
    """

    def __init__(
        self,
        points,
        cells,
        point_data=None,
        cell_data=None,
        field_data=None,
        point_sets=None,
        cell_sets=None,
        gmsh_periodic=None,
        info=None,
        regions=None,
    ):
        self.points = np.asarray(points)
        if isinstance(cells, dict):
            cells = list(cells.items())
        self.cells = [_as_cell_block(block) for block in cells]
        self.point_data = {} if point_data is None else {k: np.asarray(v) for k, v in point_data.items()}
        self.cell_data = {} if cell_data is None else {k: [np.asarray(a) for a in v] for k, v in cell_data.items()}
        self.field_data = {} if field_data is None else dict(field_data)
        self.regions = [] if regions is None else [self._as_region(r) for r in regions]
        self.gmsh_periodic = gmsh_periodic
        self.info = info
        for name, indices in (point_sets or {}).items():
            self.point_sets[name] = indices
        for name, per_block in (cell_sets or {}).items():
            self.cell_sets[name] = per_block
        self._check()

    @staticmethod
    def _as_region(region):
        return region if isinstance(region, Region) else Region(*region)

    def _check(self):
        for name, values in self.point_data.items():
            if len(values) != len(self.points):
                raise ValueError(
                    f"len(points) = {len(self.points)}, but len(point_data[{name!r}]) = {len(values)}"
                )
        for name, per_block in self.cell_data.items():
            if len(per_block) != len(self.cells):
                raise ValueError(
                    f"cell_data[{name!r}] has {len(per_block)} blocks, but the mesh has {len(self.cells)} cell blocks"
                )
            for b, (values, block) in enumerate(zip(per_block, self.cells)):
                if len(values) != len(block):
                    raise ValueError(
                        f"len(cells[{b}]) = {len(block)}, but len(cell_data[{name!r}][{b}]) = {len(values)}"
                    )

    # --- meshio-compatible views --------------------------------------------------------

    @property
    def point_sets(self):
        return PointSets(self)

    @point_sets.setter
    def point_sets(self, value):
        self.regions = [r for r in self.regions if r.kind != RegionKind.POINT]
        for name, indices in (value or {}).items():
            self.point_sets[name] = indices

    @property
    def cell_sets(self):
        return CellSets(self)

    @cell_sets.setter
    def cell_sets(self, value):
        self.regions = [r for r in self.regions if r.kind != RegionKind.CELL]
        for name, per_block in (value or {}).items():
            self.cell_sets[name] = per_block

    @property
    def cells_dict(self):
        return _concatenate_by_type(self.cells, [block.data for block in self.cells])

    @property
    def cell_data_dict(self):
        return {name: _concatenate_by_type(self.cells, per_block) for name, per_block in self.cell_data.items()}

    @property
    def cell_sets_dict(self):
        result = {}
        for name, per_block in self.cell_sets.items():
            offsets = {}
            entry = {}
            for block, local in zip(self.cells, per_block):
                base = offsets.get(block.type, 0)
                if len(local):
                    entry.setdefault(block.type, []).append(np.asarray(local) + base)
                offsets[block.type] = base + len(block)
            result[name] = {t: np.concatenate(parts) for t, parts in entry.items()}
        return result

    def get_cells_type(self, cell_type):
        blocks = [block.data for block in self.cells if block.type == cell_type]
        if not blocks:
            return np.empty((0, 0), dtype=np.int64)
        return blocks[0] if len(blocks) == 1 else np.concatenate(blocks)

    def get_cell_data(self, name, cell_type):
        parts = [data for block, data in zip(self.cells, self.cell_data[name]) if block.type == cell_type]
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def region(self, name, kind=None):
        """The region called ``name`` (of ``kind`` when given)."""
        for region in self.regions:
            if region.name == name and (kind is None or region.kind == RegionKind(kind)):
                return region
        raise KeyError(name)

    def cell_blocks_of(self, region):
        """A Cell region's entries as one block-local index array per block."""
        return split_by_block(region.entries, block_bases(self.cells))

    # --- I/O ---------------------------------------------------------------------------

    @staticmethod
    def read(path_or_buf, file_format=None):
        from ._helpers import read

        return read(path_or_buf, file_format)

    def write(self, path_or_buf, file_format=None, **kwargs):
        from ._helpers import write

        write(path_or_buf, self, file_format, **kwargs)

    def copy(self):
        return _copy.deepcopy(self)

    def __repr__(self):
        lines = ["<meshioplusplus mesh object>", f"  Number of points: {len(self.points)}"]
        if self.cells:
            lines.append("  Number of cells:")
            for block in self.cells:
                lines.append(f"    {block.type}: {len(block)}")
        else:
            lines.append("  No cells.")
        for label, names in (
            ("Point data", list(self.point_data)),
            ("Cell data", list(self.cell_data)),
            ("Field data", list(self.field_data)),
        ):
            if names:
                lines.append(f"  {label}: {', '.join(names)}")
        for region in self.regions:
            lines.append(
                f"  Region {region.name!r}: {region.kind.name.lower()}, dim {region.dim}, tag {region.tag}, "
                f"{len(region.entries)} entries"
            )
        return "\n".join(lines)


def _concatenate_by_type(blocks, per_block):
    grouped = {}
    for block, data in zip(blocks, per_block):
        grouped.setdefault(block.type, []).append(data)
    result = {}
    for cell_type, parts in grouped.items():
        if len(parts) == 1:
            result[cell_type] = parts[0]
        elif all(isinstance(p, np.ndarray) for p in parts):
            result[cell_type] = np.concatenate(parts)
        else:
            result[cell_type] = [cell for part in parts for cell in part]
    return result
