"""USD on the Python side: binary crate layers (.usdc) and packages (.usdz) are read through
Pixar's usd-core (``pip install usd-core``; ``from pxr import Usd, UsdGeom``), imported only
when such a file is read. Text layers (.usda) are the core's (formats/usd/usd_reader.cpp);
``meshioplusplus.usd.read`` takes any of them and builds the same Mesh either way: points placed
by their world transforms, one block per run of faces of one size, a Cell region per prim path,
GeomSubsets as regions, primvars by interpolation (the reader's header comment says which)."""

import os

import numpy as np

from .. import _core
from .._capabilities import register
from .._exceptions import ReadError
from .._conversion import from_core
from .._mesh import CellBlock, Mesh
from .._regions import Region, RegionKind

_TEXT_MAGIC = b"#usda "


def _is_text_layer(path):
    with open(path, "rb") as handle:
        return handle.read(len(_TEXT_MAGIC)) == _TEXT_MAGIC


def _import_pxr(path):
    try:
        from pxr import Usd, UsdGeom  # noqa: F401
    except ImportError as error:
        raise ReadError(f"{path}: reading binary USD (.usdc/.usdz) needs Pixar's usd-core: "
                              f"pip install usd-core ({error})") from None
    return Usd, UsdGeom


def read(filename):
    """A USD file as a Mesh: .usda through the core, .usdc/.usdz (and binary .usd) through usd-core."""
    path = os.fspath(filename)
    if _is_text_layer(path):
        return from_core(_core.read(path, "usd"))
    return read_with_usd_core(path)


def _first_value(attribute, Usd):
    """The attribute's default value, else its first time sample (as the core reads it)."""
    if not attribute or not attribute.HasAuthoredValue():
        return None
    value = attribute.Get(Usd.TimeCode.Default())
    if value is None:
        samples = attribute.GetTimeSamples()
        if samples:
            value = attribute.Get(samples[0])
    return value


_FLOAT64_TYPES = ("double", "timecode", "matrix", "frame")


def _dtype_of(type_name):
    scalar = str(type_name.scalarType)
    if scalar.startswith(_FLOAT64_TYPES) or (scalar[-1:] == "d" and not scalar.startswith(("bool", "int", "uint", "uchar"))):
        return np.float64
    if scalar.startswith("int64"):
        return np.int64
    if scalar.startswith("uint64"):
        return np.uint64
    if scalar.startswith("uint"):
        return np.uint32
    if scalar.startswith(("uchar", "bool")):
        return np.uint8
    if scalar.startswith("int"):
        return np.int32
    return np.float32


class _Gatherer:
    """Mirrors the core's Builder (formats/usd/usd_reader.cpp) over a composed stage."""

    def __init__(self):
        self.points = []
        self.point_count = 0
        self.blocks = []  # (type, connectivity list or (offsets, flat), corner width)
        self.cell_count = 0
        self.point_data = {}  # name -> (dtype, width, {first: array})
        self.cell_data = {}  # name -> {block: array}
        self.field_data = {}
        self.regions = []

    def add_points(self, values, world):
        values = np.asarray(values, dtype=np.float64).reshape(-1, 3)
        if world is not None:
            matrix = np.array(world, dtype=np.float64)
            values = values @ matrix[:3, :3] + matrix[3, :3]
        first = self.point_count
        self.points.append(values)
        self.point_count += len(values)
        return first, len(values)

    def add_region(self, name, dim, first, count):
        self.regions.append(Region(name, RegionKind.CELL, dim, -1, np.arange(first, first + count, dtype=np.int64)))

    def add_primvars(self, prim, first_point, point_count, faces, UsdGeom, Usd):
        entries = []
        if faces is not None:
            normals = UsdGeom.Mesh(prim).GetNormalsAttr()
            if normals and normals.HasAuthoredValue():
                interpolation = UsdGeom.Mesh(prim).GetNormalsInterpolation()
                entries.append(("normals", _first_value(normals, Usd), interpolation, 1, normals.GetTypeName()))
        for primvar in UsdGeom.PrimvarsAPI(prim).GetAuthoredPrimvars():
            attribute = primvar.GetAttr()
            if not attribute.HasAuthoredValue():
                continue
            values = _first_value(attribute, Usd)
            if values is None:
                continue
            if primvar.IsIndexed():
                indices = primvar.GetIndicesAttr().Get(Usd.TimeCode.Default())
                if indices is None:
                    samples = primvar.GetIndicesAttr().GetTimeSamples()
                    indices = primvar.GetIndicesAttr().Get(samples[0]) if samples else None
                if indices is not None:
                    values = np.asarray(values)[np.asarray(indices, dtype=np.int64)]
            entries.append((str(primvar.GetPrimvarName()), values, str(primvar.GetInterpolation()),
                            primvar.GetElementSize(), attribute.GetTypeName()))
        for name, values, interpolation, element_size, type_name in entries:
            dtype = np.float32 if name == "normals" and faces is not None else _dtype_of(type_name)
            array = np.asarray(values)
            if array.dtype == object or array.size == 0 and not type_name.isArray:
                continue
            array = array.astype(np.float64).reshape(len(array) if array.ndim else 1, -1)
            width = array.shape[1] * max(int(element_size), 1)
            flat = array.reshape(-1)
            if flat.size % width:
                continue
            rows = flat.reshape(-1, width)
            if interpolation in ("vertex", "varying"):
                if len(rows) != point_count:
                    continue
                column = self.point_data.setdefault(name, (dtype, width, {}))
                if column[1] == width:
                    column[2][first_point] = rows
            elif interpolation == "constant":
                self.field_data[f"{prim.GetPath()}:{name}"] = rows.astype(dtype)
            elif faces is not None and interpolation == "uniform":
                if len(rows) != faces["faces"]:
                    continue
                kept = rows[faces["kept"]]
                for block, members in faces["blocks"]:
                    self.cell_data.setdefault(name, {}).setdefault(block, (dtype, kept[members]))
            elif faces is not None and interpolation == "faceVarying":
                if len(rows) != faces["corners"]:
                    continue
                for block, members in faces["blocks"]:
                    corner_width = self.blocks[block][2]
                    out = np.full((len(members), corner_width * width), np.nan if np.issubdtype(dtype, np.floating) else 0.0)
                    # rows filled below, cast to the primvar's dtype when the mesh is made
                    for row, k in enumerate(members):
                        face = faces["kept"][k]
                        n = faces["counts"][face]
                        start = faces["starts"][face]
                        order = [(n - c) % n for c in range(n)] if faces["left_handed"] else range(n)
                        out[row, :n * width] = rows[[start + c for c in order]].reshape(-1)
                    self.cell_data.setdefault(name, {}).setdefault(block, (dtype, out))

    def add_mesh(self, prim, world, UsdGeom, Usd):
        mesh = UsdGeom.Mesh(prim)
        points = _first_value(mesh.GetPointsAttr(), Usd)
        first, count = self.add_points(points if points is not None else np.zeros((0, 3)), world)
        counts = _first_value(mesh.GetFaceVertexCountsAttr(), Usd)
        indices = _first_value(mesh.GetFaceVertexIndicesAttr(), Usd)
        counts = np.asarray(counts if counts is not None else [], dtype=np.int64)
        indices = np.asarray(indices if indices is not None else [], dtype=np.int64)
        holes = _first_value(mesh.GetHoleIndicesAttr(), Usd)
        holes = set(int(h) for h in (holes if holes is not None else []))
        left_handed = mesh.GetOrientationAttr().Get() == UsdGeom.Tokens.leftHanded
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64) if len(counts) else counts
        kept = [f for f in range(len(counts)) if f not in holes]
        blocks = []  # runs of one face type
        for k, face in enumerate(kept):
            n = int(counts[face])
            kind = {1: "vertex", 2: "line", 3: "triangle", 4: "quad"}.get(n, "polygon")
            if not blocks or blocks[-1][0] != kind:
                blocks.append((kind, []))
            blocks[-1][1].append(k)
        block_members = []
        for kind, members in blocks:
            corners = []
            for k in members:
                face = kept[k]
                n = int(counts[face])
                order = [(n - c) % n for c in range(n)] if left_handed else range(n)
                corners.append([first + int(indices[starts[face] + c]) for c in order])
            width = max(len(c) for c in corners)
            self.blocks.append((kind, corners, width))
            block_members.append((len(self.blocks) - 1, members))
        self.add_region(str(prim.GetPath()), 2, self.cell_count, len(kept))
        faces = {"faces": len(counts), "kept": kept, "blocks": block_members, "counts": counts, "starts": starts,
                 "corners": int(counts.sum()), "left_handed": left_handed}
        first_cell = self.cell_count
        self.cell_count += len(kept)
        self.add_primvars(prim, first, count, faces, UsdGeom, Usd)
        cell_of_face = {face: first_cell + k for k, face in enumerate(kept)}
        for subset in UsdGeom.Subset.GetAllGeomSubsets(mesh):
            element_type = subset.GetElementTypeAttr().Get()
            members = subset.GetIndicesAttr().Get() or []
            label = subset.GetPrim().GetAttribute("meshioplusplus:region")
            name = label.Get() if label and label.HasAuthoredValue() else str(subset.GetPath())
            if element_type == "face":
                entries = [cell_of_face[int(f)] for f in members if int(f) in cell_of_face]
                self.regions.append(Region(name, RegionKind.CELL, 2, -1, np.asarray(entries, dtype=np.int64)))
            elif element_type == "point":
                self.regions.append(Region(name, RegionKind.POINT, 0, -1, first + np.asarray(members, dtype=np.int64)))

    def add_point_prim(self, prim, world, UsdGeom, Usd):
        points = _first_value(UsdGeom.Points(prim).GetPointsAttr(), Usd)
        first, count = self.add_points(points if points is not None else np.zeros((0, 3)), world)
        self.blocks.append(("vertex", [[first + p] for p in range(count)], 1))
        self.add_region(str(prim.GetPath()), 0, self.cell_count, count)
        self.cell_count += count
        self.add_primvars(prim, first, count, None, UsdGeom, Usd)

    def add_curves(self, prim, world, UsdGeom, Usd):
        curves = UsdGeom.BasisCurves(prim)
        points = _first_value(curves.GetPointsAttr(), Usd)
        first, count = self.add_points(points if points is not None else np.zeros((0, 3)), world)
        lines = []
        start = 0
        for n in _first_value(curves.GetCurveVertexCountsAttr(), Usd) or []:
            lines += [[first + start + k, first + start + k + 1] for k in range(int(n) - 1)]
            start += int(n)
        self.blocks.append(("line", lines, 2))
        self.add_region(str(prim.GetPath()), 1, self.cell_count, len(lines))
        self.cell_count += len(lines)
        self.add_primvars(prim, first, count, None, UsdGeom, Usd)

    def mesh(self):
        points = np.concatenate(self.points) if self.points else np.zeros((0, 3))
        cells = []
        for kind, corners, _ in self.blocks:
            if kind == "polygon":
                cells.append(CellBlock(kind, [np.asarray(c, dtype=np.int64) for c in corners]))
            else:
                cells.append(CellBlock(kind, np.asarray(corners, dtype=np.int64).reshape(len(corners), -1)))
        point_data = {}
        for name, (dtype, width, parts) in self.point_data.items():
            missing = np.nan if np.issubdtype(dtype, np.floating) else 0
            array = np.full((len(points), width), missing, dtype=np.float64)
            for first, rows in parts.items():
                array[first:first + len(rows)] = rows
            point_data[name] = (array[:, 0] if width == 1 else array).astype(dtype)
        cell_data = {}
        for name, per_block in self.cell_data.items():
            model_dtype, model = next(iter(per_block.values()))
            arrays = []
            for b, (_, corners, _) in enumerate(self.blocks):
                if b in per_block:
                    dtype, array = per_block[b]
                else:
                    dtype = model_dtype
                    array = np.full((len(corners), model.shape[1]), np.nan if np.issubdtype(dtype, np.floating) else 0)
                arrays.append((array[:, 0] if array.shape[1] == 1 else array).astype(dtype))
            cell_data[name] = arrays
        mesh = Mesh(points, cells, point_data=point_data, cell_data=cell_data, field_data=self.field_data)
        mesh.regions = self.regions
        return mesh


def read_with_usd_core(path):
    """Any USD file (.usdc, .usdz, .usda) composed by usd-core, as the core reads a text layer."""
    Usd, UsdGeom = _import_pxr(path)
    try:
        stage = Usd.Stage.Open(os.fspath(path))
    except Exception as error:  # usd-core's Tf.ErrorException: a damaged or foreign file
        message = " ".join(str(error).split())[-300:]
        raise ReadError(f"{path}: usd-core could not open the file: {message}") from None
    if stage is None:
        raise ReadError(f"{path}: usd-core could not open the file")
    gather = _Gatherer()
    cache = UsdGeom.XformCache(Usd.TimeCode.Default())
    for prim in stage.Traverse():
        world = cache.GetLocalToWorldTransform(prim) if prim.IsA(UsdGeom.Xformable) else None
        if world is not None and world == type(world)(1):
            world = None
        if prim.IsA(UsdGeom.Mesh):
            gather.add_mesh(prim, world, UsdGeom, Usd)
        elif prim.IsA(UsdGeom.Points):
            gather.add_point_prim(prim, world, UsdGeom, Usd)
        elif prim.IsA(UsdGeom.BasisCurves):
            gather.add_curves(prim, world, UsdGeom, Usd)
    mesh = gather.mesh()
    if stage.HasAuthoredMetadata("metersPerUnit"):
        mesh.field_data["metersPerUnit"] = np.array([stage.GetMetadata("metersPerUnit")], dtype=np.float64)
    if stage.HasAuthoredMetadata("upAxis"):
        mesh.field_data["upAxis"] = np.array([stage.GetMetadata("upAxis")])
    return mesh


def _python_read(path):
    """The binary layers for ``meshioplusplus.read`` (usd-core); text layers stay the core's."""
    return None if _is_text_layer(path) else read_with_usd_core(path)


register("usd", namespace={"read": read, "read_with_usd_core": read_with_usd_core}, python_read=_python_read)
