"""Read and write by format: finds the format of a path (extension, then content), calls the
C++ core or a format registered from Python, and keeps meshio's format registry
(``reader_map``, ``_writer_map``, ``extension_to_filetypes``, ``register_format``,
``deregister_format``). What a format adds on the Python side (pieces, several meshes, option
translation) is looked up in ``_capabilities``, never imported from the format's module.
MPI (``comm=``) is the layer above (``_helpers`` → ``_parallel``); this floor knows nothing of it.
"""

import io
import os
import warnings
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any, Optional, Union

import numpy as np

from . import _core
from ._capabilities import capability
from ._conversion import STRUCTURED_FORMATS, from_core, from_structured_core, to_core
from ._exceptions import MissingFileError, ReadError, UnknownFormatError, WriteError
from ._mesh import Mesh, _as_cell_block
from ._options import CORE_FORMATS as _CORE_FORMATS
from ._options import core_write_options, with_array_limit
from ._read_less import ReadRequest, metadata_from_core, metadata_of_mesh, narrow
from ._regions import RegionKind, block_bases


#: extension -> list of format names (meshio's helper of the same name).
extension_to_filetypes = {}

#: meshio's alias table (``file_format`` names it accepts besides the format names).
#: meshio maps ``vtk51`` to its 4.2 writer (a slip); here it writes 5.1, as the name says.
_FORMAT_ALIASES = {"vtu-ascii": ("vtu", {"binary": False}), "vtk-ascii": ("vtk", {"binary": False}),
                   "vtu-binary": ("vtu", {"binary": True}), "vtk-binary": ("vtk", {"binary": True}),
                   "vtk42": ("vtk", {"fmt_version": "4.2"}), "vtk51": ("vtk", {"fmt_version": "5.1"}),
                   "gmsh22": ("gmsh", {"fmt_version": "2.2"}), "gmsh4": ("gmsh", {"fmt_version": "4.1"}),
                   "dolfin-xml": ("dolfin", {})}

#: format name -> ``reader(path_or_buffer) -> Mesh`` (meshio's table; ``register_format`` adds).
reader_map = {}
#: writer name -> ``writer(path_or_buffer, mesh, **options)`` (meshio's table).
_writer_map = {}


def register_format(format_name, extensions, reader, writer_map):
    """Add a format, as in meshio: its extensions (with the dot), a reader (or None) and a
    ``{writer name: writer}`` map. Registered formats are tried after the built-in ones that
    share an extension."""
    for extension in extensions:
        extension_to_filetypes.setdefault(extension, []).append(format_name)
    if reader is not None:
        reader_map[format_name] = reader
    _writer_map.update(writer_map)


def deregister_format(format_name):
    for names in extension_to_filetypes.values():
        if format_name in names:
            names.remove(format_name)
    reader_map.pop(format_name, None)
    _writer_map.pop(format_name, None)


class _CoreReader:
    """A built-in reader in ``reader_map`` (calls the C++ core)."""

    def __init__(self, name):
        self.format_name = name

    def __call__(self, filename):
        return read(filename, self.format_name)


class _CoreWriter:
    """A built-in writer in ``_writer_map`` (calls the C++ core, with any implied options)."""

    def __init__(self, name):
        self.format_name = name

    def __call__(self, filename, mesh, **options):
        return write(filename, mesh, self.format_name, **options)


def _install_core_formats():
    # meshio lists the formats sharing an extension in the order its modules register them,
    # which is alphabetical (".msh": ["ansys", "gmsh"]); code that builds its own table from
    # extension_to_filetypes depends on that order, so it is meshio's here too. Which format a
    # write to a shared extension picks is the core's choice (_write_format_for_path), not this.
    for row in sorted(_CORE_FORMATS.values(), key=lambda row: row["name"]):
        for extension in row["extensions"]:
            extension_to_filetypes.setdefault(extension, []).append(row["name"])
    for row in _CORE_FORMATS.values():
        if row["can_read"]:
            reader_map[row["name"]] = _CoreReader(row["name"])
        if row["can_write"]:
            _writer_map[row["name"]] = _CoreWriter(row["name"])
    for alias, (name, _) in _FORMAT_ALIASES.items():
        if name in _CORE_FORMATS:
            if _CORE_FORMATS[name]["can_read"]:
                reader_map.setdefault(alias, _CoreReader(alias))
            if _CORE_FORMATS[name]["can_write"]:
                _writer_map.setdefault(alias, _CoreWriter(alias))


_install_core_formats()


def get_num_threads() -> int:
    """Threads one read or write may use for its large sections."""
    return _core.thread_count()


def set_num_threads(count: Optional[int]) -> None:
    """Lets reads and writes use at most ``count`` threads; ``0`` or ``None`` restores the default
    (``MESHIOPLUSPLUS_NUM_THREADS`` when set, else every core). Results never depend on it."""
    if count is None:
        count = 0
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"set_num_threads expects a non-negative int or None, got {count!r}")
    _core.set_thread_count(count)


def get_max_array_bytes() -> int:
    """The largest array (in bytes) a reader may allocate on a header's claim (docs/errors.md)."""
    return _core.max_array_bytes()


def set_max_array_bytes(limit: Optional[int]) -> None:
    """Caps the array a reader may allocate on a header's claim; ``None`` or ``0`` restores the
    default (``MESHIOPLUSPLUS_MAX_ARRAY_BYTES`` when set, else a share of physical memory).
    A file claiming more raises ``ReadError`` before anything is allocated."""
    if limit is None:
        limit = 0
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"set_max_array_bytes expects a non-negative int or None, got {limit!r}")
    _core.set_max_array_bytes(limit)


def _resolve_format(file_format):
    if file_format is None:
        return "", {}
    return _FORMAT_ALIASES.get(file_format, (file_format, {}))


def _is_buffer(target):
    return hasattr(target, "read") or hasattr(target, "write")


def _unknown_format(message, path=None, format_name=None):
    error = UnknownFormatError(message)
    error.path = None if path is None else os.fspath(path)
    error.format = format_name
    error.reason = message
    return error


def _filetypes_from_path(path):
    """Format names for ``path`` by its suffixes, longest match first (meshio's rule); a
    directory is the core's to name (an OpenFOAM case directory is ``openfoam``)."""
    if os.path.isdir(path):
        name = _core.format_for_path(os.fspath(path))
        if not name:
            raise _unknown_format(f"Could not deduce file format from path '{path}': a directory that holds no "
                                  f"OpenFOAM case (constant/polyMesh or processor*/).", path)
        return [name]
    extension = ""
    names = []
    for suffix in reversed(Path(path).suffixes):
        extension = (suffix + extension).lower()
        names = extension_to_filetypes.get(extension, []) + names
    if not names:
        # Formats the core knows by a file's whole name (z88i1.txt, Elmer's mesh.header).
        core_name = _core.format_for_path(os.fspath(path))
        if core_name:
            return [core_name]
        raise _unknown_format(f"Could not deduce file format from path '{path}'.", path)
    return list(dict.fromkeys(names))


def _write_format_for_path(path):
    """The format a write to ``path`` without ``file_format`` uses: among the formats claiming
    its extension, the first built-in one in the core's table order (``.msh``: Gmsh, which
    holds physical groups and data; meshio takes its list's first, ANSYS), else the first one
    registered from Python."""
    candidates = _filetypes_from_path(path)
    built_in = [name for name in _CORE_FORMATS if name in candidates and _CORE_FORMATS[name]["can_write"]]
    return built_in[0] if built_in else candidates[0]


def _read_core(path, format_name, request=None):
    # A format may read some of its files in Python (USD's binary layers through usd-core).
    for name in [format_name] if format_name else _filetypes_from_path(path):
        python_read = capability(name).python_read
        mesh = python_read(path) if python_read is not None else None
        if mesh is not None:
            return narrow(mesh, request, path) if request is not None else mesh
    if request is not None:  # the core narrows (docs/read-less.md); structured grids come explicit
        mesh = from_core(_core.read_selected(path, format_name, **request.core_arguments()))
    else:
        structured = format_name or Path(path).suffix.lower().lstrip(".")
        if structured in STRUCTURED_FORMATS:
            return from_structured_core(_core.read_structured_implicit(path, structured))
        mesh = from_core(_core.read(path, format_name))
    # The formats this file may be (the one named, else the extension's claimants) adjust the
    # mesh to meshio's view where they registered a reason to.
    for name in [format_name] if format_name else _filetypes_from_path(path):
        after_read = capability(name).after_read
        if after_read is not None:
            after_read(path, mesh)
    return mesh


def _existing_path(filename):
    path = os.fspath(filename)
    if not os.path.exists(path):
        raise MissingFileError(f"File {path} not found.")
    return path


def _named_reader(path, file_format):
    """The reader registered as ``file_format`` (core or Python), else the unknown-format error."""
    reader = reader_map.get(file_format)
    if reader is None:
        raise _unknown_format(f"Unknown file format '{file_format}' of '{path}'.", path, file_format)
    return reader


def _spool_suffix(format_name):
    row = _CORE_FORMATS.get(_resolve_format(format_name)[0])
    return row["extensions"][0] if row and row["extensions"] else ""


def read(filename: Union[str, "os.PathLike[str]", IO[Any]], file_format: Optional[str] = None,
         max_bytes: Optional[int] = None, piece: Optional[int] = None, merge_points: bool = False,
         request: Optional[ReadRequest] = None) -> Mesh:
    """One process's read (``meshioplusplus.read`` without ``comm``; see its documentation).
    ``request``: the narrowing options (``_read_less.ReadRequest``), None for the whole file."""
    if request is not None and not request.given():
        request = None
    if piece is not None or merge_points:
        mesh = _read_partitioned(filename, file_format, piece, merge_points, max_bytes)
        return narrow(mesh, request, os.fspath(filename)) if request is not None else mesh
    if max_bytes is not None:
        return with_array_limit(max_bytes, read, filename, file_format, request=request)
    if _is_buffer(filename):
        if not file_format:
            raise ReadError("File format must be given if buffer is used")
        if file_format == "tetgen":
            raise ReadError("tetgen format is spread across multiple files and so cannot be read from a buffer")
        reader = reader_map.get(file_format)
        if reader is None:
            raise _unknown_format(f"Unknown file format '{file_format}'", None, file_format)
        if not isinstance(reader, _CoreReader):
            return _narrowed(reader(filename), request, f"<{file_format} buffer>")
        # The core reads files (memory-mapped); a buffer is spooled to one first. Text-mode
        # buffers give str, written out as UTF-8.
        with tempfile.NamedTemporaryFile(suffix=_spool_suffix(file_format)) as spool:
            content = filename.read()
            spool.write(content.encode("utf-8", "surrogateescape") if isinstance(content, str) else content)
            spool.flush()
            format_name, _ = _resolve_format(file_format)
            return _read_core(spool.name, format_name, request)
    path = _existing_path(filename)
    if file_format:
        reader = _named_reader(path, file_format)
        if isinstance(reader, _CoreReader):
            return _read_core(path, _resolve_format(file_format)[0], request)
        return _narrowed(reader(path), request, path)
    # Built-in formats first: the core picks among them (by extension, and by content where an
    # extension is shared); formats registered from Python are tried after, as meshio does.
    candidates = _filetypes_from_path(path)
    errors = []
    if any(name in _CORE_FORMATS for name in candidates):
        try:
            return _read_core(path, "", request)
        except ReadError as error:
            errors.append(error)
    for name in candidates:
        reader = reader_map.get(name)
        if reader is None or isinstance(reader, _CoreReader):
            continue
        try:
            mesh = reader(path)
        except ReadError as error:
            errors.append(error)
            continue
        return _narrowed(mesh, request, path)
    if errors:
        raise errors[0]
    raise _unknown_format(f"Unknown file format of '{path}'.", path)


def _narrowed(mesh, request, source):
    return narrow(mesh, request, source) if request is not None else mesh


def read_metadata(filename: Union[str, "os.PathLike[str]"], file_format: Optional[str] = None) -> dict:
    """``meshioplusplus.read_metadata`` (docs/read-less.md)."""
    if _is_buffer(filename):
        raise TypeError("read_metadata takes a file path; read a buffer with read()")
    path = _existing_path(filename)
    if file_format:
        reader = _named_reader(path, file_format)
        if not isinstance(reader, _CoreReader):
            return metadata_of_mesh(reader(path), file_format)
        names = [_resolve_format(file_format)[0]]
    else:
        names = _filetypes_from_path(path)
    for name in names:
        python_read = capability(name).python_read
        mesh = python_read(path) if python_read is not None else None
        if mesh is not None:
            return metadata_of_mesh(mesh, name)
    if file_format or any(name in _CORE_FORMATS for name in names):
        return metadata_from_core(_core.read_metadata(path, names[0] if file_format else ""))
    for name in names:
        reader = reader_map.get(name)
        if reader is not None and not isinstance(reader, _CoreReader):
            return metadata_of_mesh(reader(path), name)
    raise _unknown_format(f"Unknown file format of '{path}'.", path)


#: Formats that cannot hold named sets but can hold integer data: sets are written as data
#: (one integer array per kind, named by the set names joined with "-"), as meshio does.
_SETS_AS_DATA_FORMATS = {"vtu", "vtk"}


def _sets_as_data(mesh):
    """A shallow copy of ``mesh`` with its point/cell sets turned into integer data (the caller's
    mesh is left as it was; meshio converts the caller's mesh in place)."""
    if isinstance(mesh, Mesh):
        return _regions_as_data(mesh)
    has_sets = bool(getattr(mesh, "point_sets", None)) or bool(getattr(mesh, "cell_sets", None))
    if not has_sets:
        return mesh
    cells = [_as_cell_block(block) for block in mesh.cells]
    regions = getattr(mesh, "regions", None)
    copy = Mesh(mesh.points, cells, point_data=dict(getattr(mesh, "point_data", None) or {}),
                cell_data={k: list(v) for k, v in (getattr(mesh, "cell_data", None) or {}).items()},
                field_data=dict(getattr(mesh, "field_data", None) or {}))
    if regions is not None:
        copy.regions = list(regions)
    else:
        copy.point_sets = dict(mesh.point_sets or {})
        copy.cell_sets = dict(mesh.cell_sets or {})
    # meshio's -1 for "in no set" is the documented value here, not a problem worth a warning.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        if copy.point_sets:
            copy.point_sets_to_data("-")
        if copy.cell_sets:
            copy.cell_sets_to_data("-".join(copy.cell_sets).replace(" ", "_"))
    return copy


def _read_partitioned(filename, file_format, piece, merge_points, max_bytes):
    path = os.fspath(filename)
    format_name = file_format or (_filetypes_from_path(path) or [""])[0]
    reader = capability(format_name).partitioned_reader
    if reader is None:
        raise ValueError(f"piece= and merge_points= apply to .pvtu and .pvtp files, not {format_name or path!r}")
    return reader(path, piece=piece, merge_points=merge_points, max_bytes=max_bytes)


def _in_range(entries, size):
    entries = np.asarray(entries, dtype=np.int64)
    if entries.size and (entries.min() < 0 or entries.max() >= size):
        entries = entries[(entries >= 0) & (entries < size)]  # as the cell_sets view drops them
    return entries


def _regions_as_data(mesh):
    """``_sets_as_data`` for our own Mesh, straight from its regions: one pass per set over
    global cell indices, where going through the ``cell_sets`` views splits every set by block
    several times (a quarter of a 1 M-cell VTU write went there)."""
    point_regions = [r for r in mesh.regions if r.kind == RegionKind.POINT]
    hidden = mesh.regions_outside_cell_sets  # not cell sets for meshio either: not written as sets
    cell_regions = [r for r in mesh.regions if r.kind == RegionKind.CELL and r.name not in hidden]
    if not point_regions and not cell_regions:
        return mesh
    copy = Mesh(mesh.points, list(mesh.cells), point_data=dict(mesh.point_data),
                cell_data={name: list(arrays) for name, arrays in mesh.cell_data.items()},
                field_data=dict(mesh.field_data))
    copy.regions = [r for r in mesh.regions if r.kind not in (RegionKind.POINT, RegionKind.CELL)]
    if point_regions:  # Mesh.point_sets_to_data("-"), without its warning
        values = np.full(len(mesh.points), -1, dtype=int)
        for index, region in enumerate(point_regions):
            values[_in_range(region.entries, len(values))] = index
        copy.point_data["-".join(r.name for r in point_regions)] = values
    if cell_regions:  # Mesh.cell_sets_to_data(names joined by "-", blanks as "_")
        bases = np.asarray(block_bases(mesh.cells))
        values = np.full(int(bases[-1]), -1, dtype=int)
        for index, region in enumerate(cell_regions):
            values[_in_range(region.entries, len(values))] = index
        name = "-".join(r.name for r in cell_regions).replace(" ", "_")
        copy.cell_data[name] = np.split(values, bases[1:-1])
    return copy


def write(filename: Union[str, "os.PathLike[str]", IO[Any]], mesh: Mesh, file_format: Optional[str] = None,
          **options: Any) -> None:
    """One process's write (``meshioplusplus.write`` without ``comm``; see its documentation)."""
    if _is_buffer(filename):
        if not file_format:
            raise WriteError("File format must be supplied if `filename` is a buffer")
        if file_format == "tetgen":
            raise WriteError("tetgen format is spread across multiple files, and so cannot be written to a buffer")
        with tempfile.TemporaryDirectory() as folder:
            spool = os.path.join(folder, "mesh" + _spool_suffix(file_format))
            write(spool, mesh, file_format, **options)
            with open(spool, "rb") as source:
                if isinstance(filename, io.TextIOBase):
                    try:
                        filename.write(source.read().decode("utf-8"))
                    except UnicodeDecodeError as error:
                        raise WriteError(f"{file_format} output is binary; pass a file opened in binary mode") from error
                else:
                    shutil.copyfileobj(source, filename)
        return
    path = os.fspath(filename)
    if not file_format:
        file_format = _write_format_for_path(path)
    if isinstance(mesh, (list, tuple, dict)):
        several = capability(_resolve_format(file_format)[0]).multi_mesh_writer
        if several is None:
            raise WriteError(f"{path}: {file_format} holds one mesh; several meshes go to a .vtm (one dataset each)")
        return several(path, mesh, **options)
    writer = _writer_map.get(file_format)
    if writer is None:
        raise _unknown_format(f"Unknown format '{file_format}'. Pick one of {sorted(_writer_map)}", path, file_format)
    if not isinstance(writer, _CoreWriter) or writer.format_name != file_format:
        return writer(path, mesh, **options)
    format_name, implied = _resolve_format(file_format)
    if format_name in _SETS_AS_DATA_FORMATS:
        mesh = _sets_as_data(mesh)
    options = {**implied, **options}
    translate = capability(format_name).translate_options
    if translate is not None:
        options = translate(options)
    _core.write(path, to_core(mesh), format_name, core_write_options(format_name, options))
