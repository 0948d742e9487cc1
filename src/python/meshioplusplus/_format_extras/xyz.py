"""XYZ point clouds' read option: ``meshioplusplus.xyz.read(path, columns="x,y,z,nx,ny,nz,_,i")``
names the columns of a file whose layout neither a header line nor its extension tells
(``_`` skips a column); ``meshioplusplus.read`` takes the header's or the extension's layout."""

import os

from .. import _core
from .._capabilities import entry_point, register
from .._conversion import from_core
from .._options import with_array_limit

__all__ = ["read"]


def read(filename, columns=None, max_bytes=None):
    """An XYZ-family file as a Mesh; ``columns``: the columns' names, a list or comma separated."""
    if not isinstance(filename, (str, bytes, os.PathLike)):
        return entry_point("read")(filename, file_format="xyz", max_bytes=max_bytes)
    if columns is not None and not isinstance(columns, str):
        columns = ",".join(columns)
    path = os.fspath(filename)
    return with_array_limit(max_bytes, lambda: from_core(_core.read_xyz(path, columns or "")))


register("xyz", namespace={"read": read})
