"""A list of meshes as one VTK multiblock file (.vtm), each mesh its own named dataset:

    meshioplusplus.vtm.write_blocks("scene.vtm", {"fluid": fluid, "solid": solid})
    blocks = meshioplusplus.vtm.read_blocks("scene.vtm")   # {"fluid": Mesh, "solid": Mesh}

``write_blocks`` takes a dict {name: mesh}, a list of meshes (named ``block0``, ``block1`` …) or
a list of (name, mesh) pairs; each mesh goes whole (points, cells, point/cell/field data) to
``<stem>/<stem>_<n>.vtu``, with the .vtu options (``binary``, ``compression`` …). ``read_blocks``
gives every leaf dataset back as its own mesh, keyed by its block path. ``meshioplusplus.read``
of a .vtm still gives one mesh with a Cell region per dataset.
"""

import os

from .. import _core
from .._conversion import from_core, to_core
from .._exceptions import MissingFileError
from .._capabilities import register
from .._options import core_write_options, write_option_specs

__all__ = ["write_blocks", "read_blocks"]


def _named(blocks):
    if isinstance(blocks, dict):
        return [(str(name), mesh) for name, mesh in blocks.items()]
    named = []
    for n, entry in enumerate(blocks):
        if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str):
            named.append(entry)
        else:
            named.append((f"block{n}", entry))
    return named


def write_blocks(filename, blocks, **options):
    """Write meshes as the datasets of one multiblock file (see the module's text)."""
    unknown = set(options) - set(write_option_specs("vtm"))
    if unknown:
        raise TypeError(f"vtm.write_blocks() got unexpected keyword(s) {sorted(unknown)}")
    text_options = core_write_options("vtm", options)
    _core.write_vtm_blocks(os.fspath(filename), [(name, to_core(mesh)) for name, mesh in _named(blocks)],
                           text_options)


def read_blocks(filename):
    """Every leaf dataset of a .vtm as its own mesh: {block path: Mesh}, in file order."""
    path = os.fspath(filename)
    if not os.path.exists(path):
        raise MissingFileError(f"File {path} not found.")
    return {name: from_core(mesh) for name, mesh in _core.read_vtm_blocks(path)}


# write("scene.vtm", [mesh, ...]) / write(path, {name: mesh}) write one dataset per mesh.
register("vtm", multi_mesh_writer=write_blocks, namespace={name: globals()[name] for name in __all__})
