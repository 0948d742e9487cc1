"""meshio's ``meshio._files`` (``_meshio_names/files.py`` has the implementation)."""

from ._meshio_names.files import is_buffer, open_file  # noqa: F401
