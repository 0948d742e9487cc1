"""meshio's ``meshio.__about__``: the package version (meshio++'s own, not meshio's)."""

from ._version import __version__  # noqa: F401
