"""meshio's ``meshio.xdmf.main`` (``meshioplusplus.xdmf.main``): ``read``/``write`` and the
``XdmfReader``/``XdmfWriter`` classes, on the core's XDMF reader and writer. The classes keep
meshio's constructor signatures and ``XdmfReader(f).read()``; meshio's XML-level methods
(``read_xdmf2``, ``_read_data_item``, ``write_points`` …) are not there: the parsing is C++."""

import os
import pathlib

from .._capabilities import entry_point
from .._exceptions import WriteError
from .xdmf_common import numpy_to_xdmf_dtype, xdmf_to_numpy_type  # noqa: F401

__all__ = ["read", "write", "XdmfReader", "XdmfWriter"]

_DATA_FORMATS = ("XML", "Binary", "HDF")


def read(filename):
    """Read an XDMF 2 or 3 file."""
    return XdmfReader(filename).read()


class XdmfReader:
    """``XdmfReader(filename).read()`` -> the mesh of an XDMF file."""

    def __init__(self, filename):
        self.filename = filename

    def read(self):
        return entry_point("read")(self.filename, "xdmf")


class XdmfWriter:
    """Writes ``mesh`` to ``filename`` on construction, as meshio's does. ``data_format``
    "HDF" (an .h5 beside the file), "XML" (inline) or "Binary"; ``compression`` "gzip" or
    None and ``compression_opts`` (gzip level) for HDF heavy data."""

    def __init__(self, filename, mesh, data_format="HDF", compression="gzip", compression_opts=4):
        if data_format not in _DATA_FORMATS:
            raise WriteError(f"Unknown XDMF data format '{data_format}' (use 'XML', 'Binary', or 'HDF'.)")
        self.filename = pathlib.Path(filename) if isinstance(filename, (str, os.PathLike)) else filename
        self.data_format = data_format
        self.compression = compression
        self.compression_opts = None if compression is None else compression_opts
        options = {"data_format": data_format, "compression": compression}
        if compression is not None:
            options["compression_opts"] = compression_opts
        entry_point("write")(filename, mesh, "xdmf", **options)


def write(*args, **kwargs):
    """Write an XDMF file: ``write(filename, mesh, data_format="HDF", compression="gzip",
    compression_opts=4)``."""
    XdmfWriter(*args, **kwargs)
