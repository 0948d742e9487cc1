"""meshio's ``meshio.xdmf.time_series`` (``meshioplusplus.xdmf.time_series``): the
``TimeSeriesReader``/``TimeSeriesWriter`` classes (the same as ``meshioplusplus.xdmf.
TimeSeriesReader``/``TimeSeriesWriter``, on the core's time-series interface) and the names
meshio's module imports, which code subclassing the reader imports from it (OpenGeoSys'
ogstools: ``ReadError``, ``cell_data_from_raw``, ``xdmf_to_numpy_type``).

meshio's reader is XML-level Python (``reader.collection``, ``_read_data_item``); ours reads
in C++, so subclasses that override those internals, or replace ``translate_mixed_cells``
here, do not change what it reads (docs/meshio-compatibility.md)."""

from .._exceptions import ReadError, WriteError  # noqa: F401
from .._format_extras.xdmf import TimeSeriesReader, TimeSeriesWriter  # noqa: F401
from .._mesh import CellBlock  # noqa: F401
from . import xdmf_common
from .common import cell_data_from_raw, raw_from_cell_data, write_xml  # noqa: F401
from .xdmf_common import (  # noqa: F401
    attribute_type,
    dtype_to_format_string,
    numpy_to_xdmf_dtype,
    translate_mixed_cells,
    xdmf_to_numpy_type,
)

__all__ = ["TimeSeriesReader", "TimeSeriesWriter"]

_FROM_COMMON = ("meshio_to_xdmf_type", "meshio_type_to_xdmf_index", "xdmf_to_meshio_type")


def __getattr__(name):
    """The topology tables of ``xdmf_common``, made there on first use (PEP 562)."""
    if name not in _FROM_COMMON:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value = getattr(xdmf_common, name)
    return value
