"""Exceptions raised by meshio++ (the C++ core raises these same classes)."""


class MeshioError(Exception):
    """Base class of every meshio++ I/O error (meshio-compatible name)."""


class ReadError(MeshioError):
    """A file could not be read.

    Attributes set by the core: ``path``, ``format``, ``reason``, ``byte_offset`` and
    ``line`` (``None`` where not applicable).
    """

    path = None
    format = None
    reason = None
    byte_offset = None
    line = None


class WriteError(MeshioError):
    """A mesh could not be written; any existing file at the target is left intact."""

    path = None
    format = None


class MissingFileError(ReadError, FileNotFoundError):
    """The file to read does not exist. meshio raises ``ReadError`` here, Python code expects
    ``FileNotFoundError``: this is both."""


class UnknownFormatError(ReadError, WriteError, ValueError):
    """No format could be deduced from a path, or a format name is unknown. meshio raises
    ``ReadError`` when a path's extension is unknown (also on write) and ``WriteError`` for an
    unknown writer name; this is an instance of both (and of ``ValueError``, as before)."""


class CorruptionError(MeshioError):
    """meshio's ``CorruptionError`` (``meshio._exceptions``), for code that catches it. The core
    reports data that does not decode as a ``ReadError`` naming the place, so it never raises
    this one."""
