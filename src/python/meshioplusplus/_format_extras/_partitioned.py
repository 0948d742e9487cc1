"""Reading partitioned VTK XML files (.pvtu, .pvtp) one piece at a time, or with the points that
several pieces share merged (docs/vtk-xml.md). ``meshioplusplus.pvtu.read`` and
``meshioplusplus.pvtp.read`` take the options below; ``num_pieces(path)`` counts the pieces
without opening them."""

import os

from .. import _core
from .._conversion import from_core
from .._exceptions import MissingFileError
from .._helpers import read as _read


def make_reader(format_name):
    def read(filename, piece=None, merge_points=False, max_bytes=None):
        """Read a partitioned file: every piece appended into one mesh (points of different
        pieces kept apart), or only piece ``piece`` (0-based, in index order). ``merge_points``
        makes points at the same position one point (exact coordinates; the first one's point
        data is kept). A piece index out of range or a missing piece file is a ``ReadError``
        naming the index file and the piece."""
        if piece is None and not merge_points:
            return _read(filename, file_format=format_name, max_bytes=max_bytes)
        path = os.fspath(filename)
        if not os.path.exists(path):
            raise MissingFileError(f"File {path} not found.")
        if piece is not None:
            piece = int(piece)
            if piece < 0:
                raise ValueError(f"piece must be >= 0, got {piece}")
        previous = _core.max_array_bytes()
        if max_bytes is not None:
            _core.set_max_array_bytes(int(max_bytes))
        try:
            return from_core(_core.read_partitioned(path, format_name, -1 if piece is None else piece,
                                                    bool(merge_points)))
        finally:
            _core.set_max_array_bytes(previous)

    def num_pieces(filename):
        """How many pieces the index file lists (the piece files are not opened)."""
        return _core.num_pieces(os.fspath(filename), format_name)

    read.__qualname__ = read.__name__ = "read"
    return read, num_pieces
