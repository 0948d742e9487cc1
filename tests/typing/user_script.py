"""A user's script, type-checked with ``mypy --strict`` by tests/python/test_typing.py (and run
by it too): what a typed program touches — read, write, Mesh, CellBlock, regions, to_dlpack."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import numpy.typing as npt

import meshioplusplus as mio


def make_mesh() -> mio.Mesh:
    points: npt.NDArray[np.float64] = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    triangles = np.array([[0, 1, 2], [1, 3, 2]], dtype=np.int64)
    return mio.Mesh(
        points,
        [("triangle", triangles)],
        point_data={"height": points[:, 2]},
        cell_data={"material": [np.array([1, 2], dtype=np.int32)]},
        regions=[mio.Region("left", mio.RegionKind.CELL, dim=2, tag=7, entries=np.array([0]))],
    )


def summary(mesh: mio.Mesh) -> str:
    types = sorted({block.type for block in mesh.cells})
    counts = f"{sum(len(block) for block in mesh.cells)} cells of {types}"
    names = sorted(region.name for region in mesh.regions)
    return f"{len(mesh.points)} points; {counts}; regions {names}"


def round_trip(folder: Path) -> mio.Mesh:
    """Gmsh keeps regions as physical groups (VTU would hold them as cell data)."""
    path = folder / "square.msh"
    mio.write(path, make_mesh(), file_format="gmsh", binary=False)
    return mio.read(str(path))


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        mesh = round_trip(Path(folder))
    payload: mio.DevicePayload = mio.to_dlpack(mesh)
    region: mio.Region = mesh.region("left")
    kind: mio.RegionKind = region.kind
    entries: npt.NDArray[np.int64] = np.asarray(region.entries, dtype=np.int64)
    print(summary(mesh), kind.name, entries.tolist(), sorted(payload.point_data))
    threads: int = mio.get_num_threads()
    return 0 if threads >= 1 else 1


if __name__ == "__main__":
    sys.exit(main())
