"""The Python mesh: meshio's ``Mesh``/``CellBlock`` surface over meshio++'s region model."""

import copy as _copy
import threading
import warnings
from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike

from ._capabilities import entry_point
from ._cell_types import RAGGED_CELL_TYPES, cell_dimension, num_nodes_per_cell
from ._cell_types import topological_dimension  # noqa: F401  (meshio's meshio._mesh.topological_dimension)
from ._regions import CellSets, PointSets, Region, RegionKind, block_bases, split_by_block


def is_ragged_type(cell_type):
    return cell_type in RAGGED_CELL_TYPES or cell_type.startswith("polyhedron")


class CellBlock:
    """Cells of one type, as in meshio: ``data`` is an (n, k) integer array — polygons too, one
    block per corner count — except for polyhedra (``polyhedron<N>``, N nodes per cell), whose
    ``data`` is a list with one entry per cell, each a list of face node arrays.

    Any type name is accepted (meshio keeps custom names); ``dim`` is ``None`` when the name
    says nothing about the dimension. A ragged list of node lists is accepted for ``polygon``
    too (a meshio++ extension; writers pack it)."""

    def __init__(self, cell_type: str, data: Any, tags: Optional[Sequence[str]] = None) -> None:
        self.type = cell_type
        self.dim = cell_dimension(cell_type)
        self.tags = [] if tags is None else list(tags)
        if cell_type.startswith("polyhedron"):
            self.data = data if isinstance(data, np.ndarray) else _polyhedron_cells(data)
        elif cell_type == "polygon":
            self.data = _ragged_or_rectangular(data)
        else:
            self.data = np.asarray(data)

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
        items = [f"type: {self.type}", f"num cells: {len(self)}", f"tags: {self.tags}"]
        return "<meshioplusplus CellBlock, " + ", ".join(items) + ">"


# Making a deferred array happens once, also when threads ask for it at the same moment:
# each must get the array the mesh keeps (one writing into its points writes into the mesh's).
_MAKING = threading.RLock()


class _MadeOnFirstUse:
    """An attribute (``Mesh.points``, ``DeferredCellBlock.data``) whose value is stored in
    ``value_name`` and may wait as a recipe in ``recipe_name`` (a callable returning the array)
    until first read; assigning a value drops the recipe."""

    def __init__(self, value_name, recipe_name):
        self.value_name, self.recipe_name = value_name, recipe_name

    def __get__(self, owner, owner_type=None):
        if owner is None:
            return self
        if getattr(owner, self.recipe_name) is not None:
            with _MAKING:
                make = getattr(owner, self.recipe_name)
                if make is not None:
                    setattr(owner, self.value_name, np.asarray(make()))
                    setattr(owner, self.recipe_name, None)
        return getattr(owner, self.value_name)

    def __set__(self, owner, value):
        setattr(owner, self.recipe_name, None)
        setattr(owner, self.value_name, value)


class DeferredCellBlock(CellBlock):
    """A block whose node array is made on first use of ``data``: the cells a structured grid
    implies (``.vts``/``.vtr``/``.vti``), which VTK's own readers never build. ``make`` returns
    the array; ``len()`` and ``repr()`` do not need it. Copies and pickles make it first."""

    def __init__(self, cell_type: str, count: int, make: Any) -> None:
        self.type = cell_type
        self.dim = cell_dimension(cell_type)
        self.tags = []
        self._count = int(count)
        self._make = make
        self._data = None

    data = _MadeOnFirstUse("_data", "_make")

    @property
    def is_deferred(self):
        """True until ``data`` is first used."""
        return self._make is not None

    def __len__(self):
        return self._count if self._make is not None else len(self._data)

    def __getstate__(self):
        self.data  # noqa: B018 - copies and pickles carry the array, not the recipe
        return self.__dict__


class PolyhedronCellBlock(CellBlock):
    """A polyhedron block as a read returns it: meshio's ``data`` (a list per cell of face node
    arrays, views of one buffer) is made on first use, since a CFD mesh of a million polyhedra
    holds millions of faces and most code never walks them one by one. Until then ``csr`` holds
    the core's arrays for these cells — (connectivity, faces per cell as offsets from 0, face
    offsets from 0) — and a write hands them on as they are; once ``data`` exists (or is
    assigned) it is the truth and ``csr`` is None."""

    def __init__(self, cell_type: str, connectivity: Any, offsets: Any, face_offsets: Any) -> None:
        self.type = cell_type
        self.dim = 3
        self.tags = []
        self._csr = (connectivity, offsets, face_offsets)
        self._data = None

    @property
    def data(self):
        if self._data is None:
            with _MAKING:
                if self._data is None:
                    connectivity, offsets, face_offsets = self._csr
                    faces = np.split(connectivity, face_offsets[1:-1]) if len(face_offsets) > 1 else []
                    self._data = [faces[offsets[c]:offsets[c + 1]] for c in range(len(offsets) - 1)]
        return self._data

    @data.setter
    def data(self, value):
        self._data = _polyhedron_cells(value)

    @property
    def csr(self):
        return self._csr if self._data is None else None

    def __len__(self):
        return len(self._csr[1]) - 1 if self._data is None else len(self._data)

    def __getstate__(self):
        self.data  # noqa: B018 - copies and pickles carry the lists
        return self.__dict__


def _polyhedron_cells(data):
    return [[np.asarray(face) for face in cell] for cell in data]


def _ragged_or_rectangular(data):
    if isinstance(data, np.ndarray):
        return data
    data = list(data)
    if len({len(cell) for cell in data}) <= 1:
        return np.asarray(data, dtype=np.int64) if not data else np.asarray(data)
    return [np.asarray(cell) for cell in data]


def _as_cell_block(block: Any) -> CellBlock:
    if isinstance(block, CellBlock):
        return block
    if hasattr(block, "type") and hasattr(block, "data"):  # meshio's CellBlock, or any look-alike
        return CellBlock(block.type, block.data, getattr(block, "tags", None))
    cell_type, data = block
    return CellBlock(cell_type, data)


class Mesh:
    """A mesh: points, cell blocks, data, and regions (named point/cell/side groups).

    ``point_sets`` and ``cell_sets`` are meshio-compatible live views over ``regions``.
    """

    def __init__(
        self,
        points: ArrayLike,
        cells: Union[Sequence[Any], Mapping[str, Any]],
        point_data: Optional[Mapping[str, ArrayLike]] = None,
        cell_data: Optional[Mapping[str, Sequence[ArrayLike]]] = None,
        field_data: Optional[Mapping[str, Any]] = None,
        point_sets: Optional[Mapping[str, ArrayLike]] = None,
        cell_sets: Optional[Mapping[str, Sequence[ArrayLike]]] = None,
        gmsh_periodic: Any = None,
        info: Any = None,
        regions: Optional[Sequence[Any]] = None,
    ) -> None:
        self._make_points = None
        if isinstance(points, DeferredArray):
            self._points, self._make_points = None, points
        else:
            self._points = np.asarray(points)
        if isinstance(cells, dict):
            cells = list(cells.items())
        self.cells = [_as_cell_block(block) for block in cells]
        self.point_data = {} if point_data is None else {k: np.asarray(v) for k, v in point_data.items()}
        self.cell_data = {} if cell_data is None else {k: [np.asarray(a) for a in v] for k, v in cell_data.items()}
        self.field_data = {} if field_data is None else dict(field_data)
        self.regions = [] if regions is None else [self._as_region(r) for r in regions]
        self.gmsh_periodic = gmsh_periodic
        self.info = info
        #: Names of Cell regions that ``cell_sets`` does not list, because meshio has no sets for
        #: them (Gmsh 2.2 physical groups: meshio gives them as ``gmsh:physical`` cell data only,
        #: and clients that prefer ``cell_sets`` when present would take another path). They stay
        #: in ``regions`` and every writer sees them; clear this set to see them as cell sets.
        self.regions_outside_cell_sets = set()
        for name, indices in (point_sets or {}).items():
            self.point_sets[name] = indices
        for name, per_block in (cell_sets or {}).items():
            self.cell_sets[name] = per_block
        self._check()

    @staticmethod
    def _as_region(region: Any) -> Region:
        return region if isinstance(region, Region) else Region(*region)

    # ``points`` is an attribute as in meshio; a structured grid read from a file that only
    # implies its points (.vtr, .vti) makes them on first use (a DeferredArray).
    points = _MadeOnFirstUse("_points", "_make_points")

    @property
    def points_deferred(self):
        """True while the points of a structured grid read from .vtr/.vti are not made yet
        (they are on first use of ``points``)."""
        return self._make_points is not None

    def _num_points(self):
        return self._make_points.count if self._make_points is not None else len(self._points)

    def __getstate__(self):
        self.points  # noqa: B018 - copies and pickles carry the arrays, not the recipe
        return self.__dict__

    def __setstate__(self, state):
        state = dict(state)
        if "points" in state:  # pickled before points became a property
            state["_points"] = state.pop("points")
        state.setdefault("_make_points", None)
        state.setdefault("regions_outside_cell_sets", set())
        self.__dict__.update(state)

    def _check(self):
        num_points = self._num_points()
        for name, values in self.point_data.items():
            if len(values) != num_points:
                raise ValueError(
                    f"len(points) = {num_points}, but len(point_data[{name!r}]) = {len(values)}"
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
        hidden = self.regions_outside_cell_sets
        self.regions = [r for r in self.regions if r.kind != RegionKind.CELL or r.name in hidden]
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
        """name -> {cell type -> indices into ``cells_dict[cell type]``} (meshio's shape)."""
        result = {}
        for name, per_block in self.cell_sets.items():
            offsets = {}
            entry = {}
            for block, local in zip(self.cells, per_block):
                base = offsets.get(block.type, 0)
                offsets[block.type] = base + len(block)
                if local is not None:
                    entry.setdefault(block.type, []).append(np.asarray(local) + base)
            result[name] = {t: np.concatenate(parts) for t, parts in entry.items() if sum(map(np.size, parts))}
        return result

    def get_cells_type(self, cell_type):
        blocks = [block.data for block in self.cells if block.type == cell_type]
        if not blocks:
            return np.empty((0, num_nodes_per_cell.get(cell_type, 0)), dtype=int)
        return _concatenate(blocks)

    def get_cell_data(self, name, cell_type):
        return _concatenate([data for block, data in zip(self.cells, self.cell_data[name]) if block.type == cell_type])

    # --- meshio's conversions between sets and integer data --------------------------------

    def cell_sets_to_data(self, data_name=None):
        """Cell sets -> one integer cell-data array (the index of each cell's set, -1 for none);
        the sets are removed. The name defaults to the set names joined by ``-``."""
        sets = dict(self.cell_sets)
        if not sets:
            return
        per_block = []
        for b, block in enumerate(self.cells):
            values = np.full(len(block), -1, dtype=int)
            for index, members in enumerate(sets.values()):
                if b < len(members) and members[b] is not None:
                    values[np.asarray(members[b], dtype=np.int64)] = index
            per_block.append(values)
        unassigned = sum(int(np.sum(values == -1)) for values in per_block)
        if unassigned:
            warnings.warn(f"{unassigned} cells are not part of any cell set. Using default value -1.", stacklevel=2)
        self.cell_data[data_name if data_name is not None else "-".join(sets)] = per_block
        self.cell_sets = {}

    def point_sets_to_data(self, join_char="-"):
        """Point sets -> one integer point-data array named by the set names joined by
        ``join_char`` (-1 for points in no set); the sets are removed."""
        sets = dict(self.point_sets)
        if not sets:
            return
        values = np.full(len(self.points), -1, dtype=int)
        for index, members in enumerate(sets.values()):
            values[np.asarray(members, dtype=np.int64)] = index
        if np.any(values == -1):
            warnings.warn("Not all points are part of a point set. Using default value -1.", stacklevel=2)
        self.point_data[join_char.join(sets)] = values
        self.point_sets = {}

    def cell_data_to_sets(self, key):
        """Integer cell data -> cell sets (one per distinct value), named by splitting ``key`` at
        ``-`` when the counts agree, else ``set-<key>-<value>``; the data is removed."""
        data = [np.asarray(values) for values in self.cell_data[key]]
        if not all(values.dtype.kind in "iu" for values in data):
            raise RuntimeError(f"cell_data['{key}'] is not int data.")
        tags = np.unique(np.concatenate(data)) if data else np.zeros(0, dtype=int)
        names = _set_names(key, tags, f"set-{key}-")
        for name, tag in zip(names, tags):
            self.cell_sets[name] = [np.where(values == tag)[0] for values in data]
        del self.cell_data[key]

    def point_data_to_sets(self, key):
        """Integer point data -> point sets, named like ``cell_data_to_sets``; the data is removed."""
        data = np.asarray(self.point_data[key])
        if data.dtype.kind not in "iu":
            raise RuntimeError(f"point_data['{key}'] is not int data.")
        tags = np.unique(data)
        # meshio names the fallback sets "set-key-<tag>" (the literal word), kept for drop-in.
        names = _set_names(key, tags, "set-key-")
        for name, tag in zip(names, tags):
            self.point_sets[name] = np.where(data == tag)[0]
        del self.point_data[key]

    def region(self, name: str, kind: Optional[Union[RegionKind, int]] = None) -> Region:
        """The region called ``name`` (of ``kind`` when given)."""
        for region in self.regions:
            if region.name == name and (kind is None or region.kind == RegionKind(kind)):
                return region
        raise KeyError(name)

    def cell_blocks_of(self, region):
        """A Cell region's entries as one block-local index array per block."""
        return split_by_block(region.entries, block_bases(self.cells))

    # --- I/O ---------------------------------------------------------------------------

    @classmethod
    def read(cls, path_or_buf, file_format=None):
        warnings.warn("Mesh.read is deprecated (as in meshio), use meshioplusplus.read", DeprecationWarning, stacklevel=2)
        return entry_point("read")(path_or_buf, file_format)

    def write(self, path_or_buf, file_format=None, **kwargs):
        # The public write is registered by the package's top (_helpers): no import of a floor above.
        entry_point("write")(path_or_buf, self, file_format, **kwargs)

    def copy(self):
        return _copy.deepcopy(self)

    # --- clean-up, in place as in meshio 4 (the core's mesh_ops.hpp; docs/clean-up.md) -----

    def prune_z_0(self, tol: float = 1.0e-13) -> bool:
        """Drop the z column when every ``|z| < tol`` (a 2-D mesh written with z = 0, e.g. by
        Gmsh for FEniCS). Returns whether it did."""
        return bool(entry_point("clean")(self, [("prune_z_0", [tol])])[0])

    def remove_orphaned_nodes(self) -> int:
        """Remove the points no cell uses (point data and Point regions follow). Returns how many."""
        return entry_point("clean")(self, [("remove_orphaned_nodes", [])])[0]

    def remove_lower_dimensional_cells(self) -> int:
        """Keep only the cell blocks of the highest dimension (cell data and Cell/Side regions
        follow; regions left empty go). Returns how many cells went."""
        return entry_point("clean")(self, [("remove_lower_dimensional_cells", [])])[0]

    def prune(self) -> None:
        """meshio 4's ``prune``: ``remove_lower_dimensional_cells`` then ``remove_orphaned_nodes``."""
        entry_point("clean")(self, [("remove_lower_dimensional_cells", []), ("remove_orphaned_nodes", [])])

    def merge_points(self, tol: float = 0.0) -> int:
        """Weld points within ``tol`` (Euclidean; 0: equal coordinates) into the first of them;
        connectivity is renumbered, the others removed. Returns how many went."""
        return entry_point("clean")(self, [("merge_points", [tol])])[0]

    def extract_surface(self) -> "Mesh":
        """The outward boundary faces as a new mesh (``meshioplusplus.extract_surface``)."""
        return entry_point("extract_surface")(self)

    def check(self) -> Any:
        """A report of inverted, degenerate and duplicate cells, unused points and non-manifold
        facets (``meshioplusplus.check``); nothing is changed."""
        return entry_point("check")(self)

    def transform(self, matrix) -> None:
        """Apply an affine map to the points: ``matrix`` d×d, d×(d+1) or homogeneous (d+1)×(d+1)."""
        entry_point("clean")(self, [entry_point("transform_operation")(matrix)])

    def __repr__(self):
        lines = ["<meshioplusplus mesh object>", f"  Number of points: {self._num_points()}"]
        if self.cells:
            lines.append("  Number of cells:")
            for block in self.cells:
                corners = ""
                if (block.type == "polygon" or block.type.startswith("VTK_LAGRANGE")) and not getattr(
                    block, "is_deferred", False) and isinstance(block.data, np.ndarray) and block.data.ndim == 2:
                    corners = f"({block.data.shape[1]})"
                lines.append(f"    {block.type}{corners}: {len(block)}")
        else:
            lines.append("  No cells.")
        for label, names in (
            ("Point sets", list(self.point_sets)),
            ("Cell sets", list(self.cell_sets)),
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


class DeferredArray:
    """How to make an array of ``count`` rows on first use (a structured grid's points or
    cells): calling it returns the array. ``function`` is a callable, or the name of a recipe
    registered with ``register_recipe`` — the form in which an isolated read ships a deferred
    array back to its caller (docs/isolation.md): only registered recipes travel."""

    _recipes = {}
    _rows = {}

    def __init__(self, count, function, *arguments):
        if isinstance(function, str):
            if function not in DeferredArray._recipes:
                raise ValueError(f"no deferred-array recipe named {function!r}")
            function = DeferredArray._recipes[function]
        self.count = int(count)
        self.function = function
        self.arguments = arguments

    @classmethod
    def register_recipe(cls, name, function, rows):
        """Make ``function`` shippable by ``name``; ``rows(*arguments)`` gives the number of rows
        it makes from its arguments alone, so a receiver can check a recipe before keeping it."""
        cls._recipes[name] = function
        cls._rows[name] = rows

    def recipe_name(self):
        """The registered name of this recipe's function, or None."""
        return next((name for name, function in DeferredArray._recipes.items() if function is self.function), None)

    def rows_from_arguments(self):
        """The rows the registered recipe makes from these arguments (None if not registered)."""
        name = self.recipe_name()
        return None if name is None else int(DeferredArray._rows[name](*self.arguments))

    def __reduce__(self):
        name = self.recipe_name()
        if name is None:
            raise TypeError(f"a deferred array made by {self.function!r} cannot be pickled (not a registered recipe)")
        return DeferredArray, (self.count, name, *self.arguments)

    def __call__(self):
        return self.function(*self.arguments)


def _set_names(key, tags, fallback_prefix):
    names = list(dict.fromkeys(key.split("-")))
    if len(names) != len(tags):
        names = [f"{fallback_prefix}{tag}" for tag in tags]
    return names


def _concatenate(parts):
    if len(parts) == 1:
        return parts[0]
    if all(isinstance(p, np.ndarray) for p in parts):
        return np.concatenate(parts)
    return [cell for part in parts for cell in part]


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
