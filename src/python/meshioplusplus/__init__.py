"""meshio++: mesh I/O with a dependency-free C++20 core, meshio's Python surface, and a
copy-exact GPU handoff.

    import meshioplusplus as mio
    mesh = mio.read("bracket.msh")
    mio.write("bracket.vtu", mesh)
"""

from . import _core, profiling
from . import _format_extras  # noqa: F401  (format modules register their capabilities)
from ._cell_types import num_nodes_per_cell, topological_dimension
from ._exceptions import MeshioError, MissingFileError, ReadError, UnknownFormatError, WriteError
from ._formats import install_namespaces as _install_namespaces
from ._gpu import (
    DevicePayload,
    InteropError,
    InteropWarning,
    from_cupy,
    has_cuda_device,
    has_cupy,
    pinned_reads,
    to_cupy,
    to_dlpack,
)
from ._helpers import (
    deregister_format,
    extension_to_filetypes,
    get_max_array_bytes,
    get_num_threads,
    read,
    read_metadata,
    register_format,
    set_max_array_bytes,
    set_num_threads,
    write,
    write_points_cells,
)
from ._interop_frameworks import to_jax, to_numba, to_torch, to_xp
from ._interop_meshes import from_pyvista, from_trimesh, to_pyvista, to_trimesh
from ._mesh import CellBlock, Mesh
from ._operations import MeshCheck, SideRegionReport, check, crop, derive_side_regions, extract_surface, merge, split
from ._parallel import device_for_rank, partition
from . import _parallel as parallel  # partitioned I/O: write_pieces, merge, files_read, bytes_read …
from ._mirror import DeviceMirror, PendingHostCopy
from ._allocation import allocation_owner, allocator_installed
from ._regions import Region, RegionKind, block_bases
from ._sequence import read_sequence, write_sequence
from .profiling import TransferBudget, assert_no_transfers, count_transfers

from ._version import __version__

globals().update(_install_namespaces(__name__))

from . import _cli  # noqa: E402  (meshio exposes meshio._cli.main)

__all__ = [
    "CellBlock",
    "DeviceMirror",
    "DevicePayload",
    "InteropError",
    "InteropWarning",
    "Mesh",
    "MeshioError",
    "PendingHostCopy",
    "ReadError",
    "Region",
    "RegionKind",
    "TransferBudget",
    "SideRegionReport",
    "WriteError",
    "derive_side_regions",
    "extract_surface",
    "check",
    "crop",
    "merge",
    "split",
    "MeshCheck",
    "deregister_format",
    "get_max_array_bytes",
    "MissingFileError",
    "register_format",
    "set_max_array_bytes",
    "UnknownFormatError",
    "allocation_owner",
    "allocator_installed",
    "assert_no_transfers",
    "block_bases",
    "count_transfers",
    "extension_to_filetypes",
    "from_cupy",
    "from_pyvista",
    "from_trimesh",
    "get_num_threads",
    "has_cuda_device",
    "has_cupy",
    "num_nodes_per_cell",
    "device_for_rank",
    "parallel",
    "partition",
    "pinned_reads",
    "profiling",
    "read",
    "read_metadata",
    "read_sequence",
    "set_num_threads",
    "to_cupy",
    "to_dlpack",
    "to_jax",
    "to_numba",
    "to_pyvista",
    "to_trimesh",
    "to_torch",
    "to_xp",
    "topological_dimension",
    "write",
    "write_points_cells",
    "write_sequence",
]
