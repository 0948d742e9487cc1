"""meshio's top-level I/O functions (``meshio._helpers``): ``read``, ``write``,
``write_points_cells`` and meshio's format registry (``reader_map``, ``_writer_map``,
``extension_to_filetypes``, ``register_format``, ``deregister_format``).

This is the layer where MPI is entered, once: with a communicator, ``read``/``write`` go to
``_parallel`` (a rank's share of a partitioned file), which reads and writes its pieces through
the floor below (``_dispatch``); without one they are ``_dispatch``'s own read and write.
"""

import functools
import os
from typing import IO, Any, Optional, Sequence, Union

from . import _isolation, _parallel
from ._capabilities import set_entry_point
from ._dispatch import (  # noqa: F401  (meshio's names, re-exported)
    _filetypes_from_path,
    _resolve_format,
    _write_format_for_path,
    _writer_map,
    deregister_format,
    extension_to_filetypes,
    get_max_array_bytes,
    get_num_threads,
    reader_map,
    register_format,
    set_max_array_bytes,
    set_num_threads,
)
from . import _dispatch
from ._mesh import Mesh
from ._options import MESHIO_ONLY_OPTIONS  # noqa: F401
from ._read_less import ReadRequest, narrow


def read(filename: Union[str, "os.PathLike[str]", IO[Any]], file_format: Optional[str] = None,
         max_bytes: Optional[int] = None, comm: Any = None, piece: Optional[int] = None,
         merge_points: bool = False, ghost_cells: bool = False, isolate: Optional[bool] = None,
         timeout: Optional[float] = None, *, points_only: bool = False, arrays: Optional[Sequence[str]] = None,
         cell_types: Optional[Sequence[str]] = None, time_step: Optional[int] = None) -> Mesh:
    """Read a mesh. ``file_format`` is deduced from the file name when omitted (for ``.msh``
    from the content too: Gmsh or ANSYS).

    Arrays in the result adopt the C++ buffers (zero-copy, writeable). ``max_bytes`` caps the
    size of any one array a header may make a reader allocate (see docs/errors.md). With an
    mpi4py communicator ``comm``, a partitioned file gives this rank's piece (docs/parallel.md);
    for a Gmsh-partitioned file ``ghost_cells=True`` adds the ghost cells of the rank's
    partitions, flagged by ``vtkGhostType`` point and cell data.
    For .pvtu/.pvtp, ``piece=k`` reads only piece k and ``merge_points=True`` welds the points
    that pieces share (docs/vtk-xml.md).

    ``isolate=True`` reads in a worker process (docs/isolation.md): a file that crashes or hangs
    the parser, or needs more memory than allowed, is a ``ReadError`` and this process is
    untouched; the arrays come back through shared memory, not copied. ``timeout`` (seconds)
    bounds such a read (and implies ``isolate``); with ``isolate``, ``max_bytes`` also caps the
    worker's memory for the read. ``isolate=None`` follows ``MESHIOPLUSPLUS_ISOLATE``. With
    ``comm``, each rank's own reading runs in its worker; the index's bcast stays here.

    Reading less (docs/read-less.md): ``points_only=True`` gives the points and nothing else
    (with ``arrays``, those point data too); ``arrays=[names]`` keeps only those data arrays
    (an empty list: none); ``cell_types=[types]`` only those blocks (points stay whole);
    ``time_step=k`` step k of a file with steps (negative: from the end). Formats whose layout
    allows it never read what was left out; every format gives the same subset of its full read.
    A name or step the file does not have is a ``ValueError`` naming what it has.
    """
    request = ReadRequest(points_only, arrays, cell_types, time_step)
    if isolate is None:
        isolate = timeout is not None or _isolation.environment_default()
    elif not isolate and timeout is not None:
        raise ValueError("timeout= bounds an isolated read; it cannot apply with isolate=False")
    if ghost_cells and comm is None:
        raise ValueError("ghost_cells=True asks for the ghost cells of this rank's partitions, so it needs a "
                         "communicator: read(path, comm=comm, ghost_cells=True) on a Gmsh-partitioned file")
    if comm is not None and piece is None and not merge_points:
        # the collective steps (the index's bcast) run here; the rank's own reading, isolated, in a worker
        run_share = (functools.partial(_isolation.read_share, timeout=timeout, max_bytes=max_bytes) if isolate
                     else None)
        mesh = _parallel.read_piece(filename, comm, file_format, ghost_cells=ghost_cells, run_share=run_share)
        return narrow(mesh, request, os.fspath(filename)) if request.given() else mesh
    if isolate:
        return _isolation.read(filename, file_format, max_bytes=max_bytes, piece=piece, merge_points=merge_points,
                               timeout=timeout, request=request)
    return _dispatch.read(filename, file_format, max_bytes=max_bytes, piece=piece, merge_points=merge_points,
                          request=request)


def read_metadata(filename: Union[str, "os.PathLike[str]"], file_format: Optional[str] = None,
                  isolate: Optional[bool] = None, timeout: Optional[float] = None) -> dict:
    """A summary of a mesh file without reading its arrays where the format's header allows
    (``header_only`` says whether it did): format and variant, ``num_points``, ``point_dim``,
    ``num_cells``, ``cell_blocks`` (type, count), ``arrays`` (name, association, dtype,
    shape), ``regions`` (name, kind, dim, tag, count), ``times`` of the steps, ``bounds`` where
    known. The schema is documented in docs/read-less.md (``schema``: its version).
    ``isolate``/``timeout`` as for ``read``."""
    if isolate is None:
        isolate = timeout is not None or _isolation.environment_default()
    elif not isolate and timeout is not None:
        raise ValueError("timeout= bounds an isolated read; it cannot apply with isolate=False")
    if isolate:
        return _isolation.read_metadata(filename, file_format, timeout=timeout)
    return _dispatch.read_metadata(filename, file_format)


def write(filename: Union[str, "os.PathLike[str]", IO[Any]], mesh: Mesh, file_format: Optional[str] = None,
          comm: Any = None, **options: Any) -> None:
    """Write ``mesh`` (ours, or a ``meshio.Mesh``). Contiguous canonical arrays are handed to the
    core without a copy; any other array-like is converted.

    The target is replaced atomically: on failure any existing file is left as it was. With an
    mpi4py communicator ``comm``, every rank passes its piece and a partitioned file is written
    collectively (docs/parallel.md).
    """
    if comm is not None:
        return _parallel.write_piece(filename, mesh, comm, file_format, **options)
    return _dispatch.write(filename, mesh, file_format, **options)


def write_points_cells(filename, points, cells, point_data=None, cell_data=None, field_data=None,
                       point_sets=None, cell_sets=None, file_format=None, **options):
    mesh = Mesh(points, cells, point_data=point_data, cell_data=cell_data, field_data=field_data,
                point_sets=point_sets, cell_sets=cell_sets)
    write(filename, mesh, file_format=file_format, **options)


# Mesh.read / Mesh.write (floor below) reach these through the capability table.
set_entry_point("read", read)
set_entry_point("write", write)
