"""Reading partitioned VTK XML files (.pvtu, .pvtp) one piece at a time, or with the points that
several pieces share merged (docs/vtk-xml.md). ``meshioplusplus.pvtu.read`` and
``meshioplusplus.pvtp.read`` take the options below; ``num_pieces(path)`` counts the pieces
without opening them."""

import os

from .. import _core
from .._conversion import from_core
from .._exceptions import MissingFileError
from .._options import with_array_limit


def make_reader(format_name):
    def read(filename, piece=None, merge_points=False, max_bytes=None):
        """Read a partitioned file: every piece appended into one mesh (points of different
        pieces kept apart), or only piece ``piece`` (0-based, in index order). ``merge_points``
        makes points at the same position one point (exact coordinates; the first one's point
        data is kept). A piece index out of range or a missing piece file is a ``ReadError``
        naming the index file and the piece."""
        path = os.fspath(filename)
        if not os.path.exists(path):
            raise MissingFileError(f"File {path} not found.")
        if piece is not None:
            piece = int(piece)
            if piece < 0:
                raise ValueError(f"piece must be >= 0, got {piece}")
        if piece is None and not merge_points:  # the whole file, as meshioplusplus.read gives it
            return with_array_limit(max_bytes, lambda: from_core(_core.read(path, format_name)))
        return with_array_limit(max_bytes, lambda: from_core(
            _core.read_partitioned(path, format_name, -1 if piece is None else piece, bool(merge_points))))

    def num_pieces(filename):
        """How many pieces the index file lists (the piece files are not opened)."""
        return _core.num_pieces(os.fspath(filename), format_name)

    read.__qualname__ = read.__name__ = "read"
    return read, num_pieces
