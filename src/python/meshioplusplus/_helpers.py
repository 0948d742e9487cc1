"""meshio-compatible top-level I/O functions."""

import os
import shutil
import tempfile

from . import _core
from ._conversion import from_core, to_core
from ._mesh import Mesh

_FORMATS = _core.formats()

#: extension -> list of format names (meshio's helper of the same name).
extension_to_filetypes = {}
for _row in _FORMATS:
    for _extension in _row["extensions"]:
        extension_to_filetypes.setdefault(_extension, []).append(_row["name"])

#: meshio's alias table (``file_format`` names it accepts besides the format names).
_FORMAT_ALIASES = {"vtu-ascii": ("vtu", {"binary": False}), "vtk-ascii": ("vtk", {"binary": False}),
                   "vtu-binary": ("vtu", {"binary": True}), "vtk-binary": ("vtk", {"binary": True}),
                   "gmsh22": ("gmsh", {"fmt_version": "2.2"}), "gmsh4": ("gmsh", {"fmt_version": "4.1"}),
                   "dolfin-xml": ("dolfin", {})}


# Keywords meshio's writers take that have no meaning here; accepted so meshio code runs.
MESHIO_ONLY_OPTIONS = {
    "float_fmt": "meshio++ always writes floats in their shortest exact (round-trip) form",
}


def get_num_threads():
    """Threads one read or write may use for its large sections."""
    return _core.thread_count()


def set_num_threads(count):
    """Lets reads and writes use at most ``count`` threads; ``0`` or ``None`` restores the default
    (``MESHIOPLUSPLUS_NUM_THREADS`` when set, else every core). Results never depend on it."""
    if count is None:
        count = 0
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"set_num_threads expects a non-negative int or None, got {count!r}")
    _core.set_thread_count(count)


def _resolve_format(file_format):
    if file_format is None:
        return "", {}
    return _FORMAT_ALIASES.get(file_format, (file_format, {}))


def _is_buffer(target):
    return hasattr(target, "read") or hasattr(target, "write")


def read(filename, file_format=None):
    """Read a mesh. ``file_format`` is deduced from the extension when omitted.

    Arrays in the result adopt the C++ buffers (zero-copy, writeable).
    """
    format_name, _ = _resolve_format(file_format)
    if _is_buffer(filename):
        if not format_name:
            raise ValueError("reading from a buffer needs file_format")
        # The core reads files (memory-mapped); a buffer is spooled to one first.
        with tempfile.NamedTemporaryFile(suffix="." + format_name) as spool:
            shutil.copyfileobj(filename, spool)
            spool.flush()
            return from_core(_core.read(spool.name, format_name))
    path = os.fspath(filename)
    if not os.path.exists(path):
        raise FileNotFoundError(f"File {path} not found.")
    return from_core(_core.read(path, format_name))


def _option_text(name, value, default):
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        # meshio's None means "the format's default", except where the default is an
        # enabled feature (compression=None means no compression).
        return None if default == "" else "none"
    return str(value)


def write(filename, mesh, file_format=None, **options):
    """Write ``mesh``. Contiguous canonical arrays are handed to the core without a copy.

    The target is replaced atomically: on failure any existing file is left as it was.
    """
    format_name, implied = _resolve_format(file_format)
    if _is_buffer(filename):
        if not format_name:
            raise ValueError("writing to a buffer needs file_format")
        with tempfile.TemporaryDirectory() as folder:
            spool = os.path.join(folder, "mesh")
            write(spool, mesh, file_format, **options)
            with open(spool, "rb") as source:
                shutil.copyfileobj(source, filename)
        return
    path = os.fspath(filename)
    if not format_name:
        known = _core.formats()
        if not any(path.lower().endswith(ext) for row in known for ext in row["extensions"]):
            raise ValueError(f"cannot deduce the file format of {path!r}; pass file_format")
    specs = _write_option_specs(format_name or _format_of_path(path))
    text_options = {}
    for name, value in {**implied, **options}.items():
        if name in MESHIO_ONLY_OPTIONS:
            continue
        default = specs.get(name, "")
        text = _option_text(name, value, default)
        if text is not None:
            text_options[name] = text
    _core.write(path, to_core(mesh), format_name, text_options)


def _format_of_path(path):
    lowered = path.lower()
    best = ("", 0)
    for row in _FORMATS:
        for extension in row["extensions"]:
            if lowered.endswith(extension) and len(extension) > best[1]:
                best = (row["name"], len(extension))
    return best[0]


def _write_option_specs(format_name):
    for row in _FORMATS:
        if row["name"] == format_name:
            return {name: default for name, default, _ in row["write_options"]}
    return {}


def write_points_cells(filename, points, cells, point_data=None, cell_data=None, field_data=None,
                       point_sets=None, cell_sets=None, file_format=None, **options):
    mesh = Mesh(points, cells, point_data=point_data, cell_data=cell_data, field_data=field_data,
                point_sets=point_sets, cell_sets=cell_sets)
    write(filename, mesh, file_format=file_format, **options)
