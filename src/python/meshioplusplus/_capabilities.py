"""The Python side of the format registry (``src/cpp/formats/registry.cpp`` is the C++ side):
what a format module adds beyond the core's read and write, registered by the module itself and
looked up by whoever needs it. This module sits at the bottom of the package and imports
nothing from it, so every floor can use it and no floor has to import a floor above:

- format modules (``_format_extras/<name>.py``) call ``register(name, ...)`` when imported;
- read/write dispatch (``_dispatch``) asks ``capability(name)`` for a partitioned reader, a
  writer of several meshes, or an option translator, instead of importing format modules;
- the per-format namespaces (``_formats``) add each capability's ``namespace`` names, its
  ``lazy_namespace`` names (made on first use) and its ``submodules``
  (``meshioplusplus.<format>.<name>``, e.g. meshio's ``meshio.xdmf.common``);
- ``Mesh.read`` / ``Mesh.write`` reach the public ``read`` / ``write`` through
  ``entry_point(name)``, which the top of the package registers once it has defined them.

Adding a format's Python extras is one module that calls ``register`` and one line in
``_format_extras/__init__.py`` importing it (docs/adding-a-format.md).
"""

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Optional


@dataclass
class FormatCapabilities:
    """What one format adds on the Python side; every field is optional."""

    #: names added to ``meshioplusplus.<format>`` (e.g. ``TimeSeriesWriter``, ``read_blocks``)
    namespace: Dict[str, Any] = field(default_factory=dict)
    #: names of ``meshioplusplus.<format>`` made on first use: ``{name: make}``, ``make()``
    #: returning the value (tables that are costly to build, e.g. ``gmsh.gmsh_to_meshio_type``)
    lazy_namespace: Dict[str, Callable[[], Any]] = field(default_factory=dict)
    #: modules importable as ``meshioplusplus.<format>.<name>`` and reachable as attributes of
    #: the namespace (meshio's private sub-modules: ``vtk._vtk_42``, ``xdmf.common`` …)
    submodules: Dict[str, Any] = field(default_factory=dict)
    #: ``reader(path, piece=None, merge_points=False, max_bytes=None) -> Mesh`` for files made of
    #: pieces (.pvtu, .pvtp): ``read(path, piece=k)`` and ``read(path, merge_points=True)``
    partitioned_reader: Optional[Callable[..., Any]] = None
    #: ``writer(path, meshes, **options)`` for ``write(path, [mesh, ...])`` (a .vtm of datasets)
    multi_mesh_writer: Optional[Callable[..., Any]] = None
    #: ``translate(options) -> options``: meshio keywords this format accepts with a meaning of
    #: its own (or none), turned into the core's write options before they are checked
    translate_options: Optional[Callable[[Dict[str, Any]], Dict[str, Any]]] = None
    #: ``after_read(path, mesh)``: meshio's view of what the core read, where the two differ
    #: (Gmsh 2.2 physical groups are regions but not cell sets); called after every core read
    #: of a file this format may be, so it checks the file itself
    after_read: Optional[Callable[[str, Any], None]] = None
    #: ``python_read(path) -> Mesh or None``: reads the files of this format the core does not
    #: (USD's binary layers through usd-core); None hands the file to the core
    python_read: Optional[Callable[[str], Any]] = None
    #: time-series classes with meshio's shapes (also in ``namespace``)
    time_series_reader: Optional[type] = None
    time_series_writer: Optional[type] = None


_CAPABILITIES: Dict[str, FormatCapabilities] = {}
_MERGED = ("namespace", "lazy_namespace", "submodules")  # registering again adds to these
_NOTHING = FormatCapabilities()
_ENTRY_POINTS: Dict[str, Callable[..., Any]] = {}


def register(format_name: str, **fields: Any) -> FormatCapabilities:
    """Record what ``format_name`` adds (the fields of ``FormatCapabilities``). Registering a
    format twice merges the fields; time-series classes join the namespace under meshio's names."""
    entry = _CAPABILITIES.setdefault(format_name, FormatCapabilities())
    for name, value in fields.items():
        if not hasattr(_NOTHING, name):
            raise TypeError(f"register({format_name!r}): unknown capability {name!r}")
        if name in _MERGED:
            getattr(entry, name).update(value)
        else:
            setattr(entry, name, value)
    if entry.time_series_reader is not None:
        entry.namespace.setdefault("TimeSeriesReader", entry.time_series_reader)
    if entry.time_series_writer is not None:
        entry.namespace.setdefault("TimeSeriesWriter", entry.time_series_writer)
    return entry


def capability(format_name: str) -> FormatCapabilities:
    """What ``format_name`` registered (an empty record for a format that registered nothing)."""
    return _CAPABILITIES.get(format_name, _NOTHING)


def registered_formats():
    """Names of the formats that registered capabilities, in registration order."""
    return list(_CAPABILITIES)


def set_entry_point(name: str, function: Callable[..., Any]) -> None:
    """The package's top registers its public ``read`` and ``write`` here (see the module text)."""
    _ENTRY_POINTS[name] = function


def entry_point(name: str) -> Callable[..., Any]:
    try:
        return _ENTRY_POINTS[name]
    except KeyError:
        raise ImportError(f"meshioplusplus.{name} is not registered yet: import meshioplusplus first") from None
