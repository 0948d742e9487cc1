"""glTF's read option the package's ``read`` has no place for:
``meshioplusplus.gltf.read(path, expand_instances=False)`` gives each mesh once, in its own
coordinates, instead of every instance the scene places (transformed to world coordinates, as
trimesh and VTK show a scene; the default, which ``meshioplusplus.read`` gives)."""

import os

from .. import _core
from .._capabilities import entry_point, register
from .._conversion import from_core
from .._options import with_array_limit

__all__ = ["read"]


def read(filename, expand_instances=True, max_bytes=None):
    """A .gltf/.glb file as a Mesh; ``expand_instances=False``: the unique geometry only."""
    if not isinstance(filename, (str, bytes, os.PathLike)):
        return entry_point("read")(filename, file_format="gltf", max_bytes=max_bytes)
    path = os.fspath(filename)
    return with_array_limit(max_bytes, lambda: from_core(_core.read_gltf(path, bool(expand_instances))))


register("gltf", namespace={"read": read})
