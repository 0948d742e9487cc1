"""File sequences: numbered mesh files (``out_0000.vtu``, ``out_0001.vtu`` …), one per time step,
read and written through the time-series shape every format with steps shares
(``reader.num_steps``, ``reader.times``, ``read_points_cells()``, ``read_data(k)``;
``write_points_cells``, ``write_data``). The C++ core finds the files and reads one per step
(include/meshioplusplus/file_sequence.hpp); docs/time-series.md, "File sequences"."""

import os

from . import _core
from ._format_extras._time_series import TimeSeriesReader, TimeSeriesWriter
from ._options import core_write_options
from ._exceptions import ReadError


class SequenceReader(TimeSeriesReader):
    """A file sequence as a time series. Each file is a whole mesh, so the mesh may change
    between steps: ``read_data(k)`` splits cell data over step k's blocks and ``reader.mesh`` /
    ``reader.cells`` become step k's (``read_mesh_at(k)`` gives it with its data)."""

    format_name = "file sequence"
    mesh_follows_step = True

    def __init__(self, source, times=None, file_format=None):
        if isinstance(source, (str, os.PathLike)):
            files, found_times = _core.find_file_sequence(os.fspath(source))
            self.filename = os.fspath(source)
        else:
            files, found_times = [os.fspath(name) for name in source], []
            if not files:
                raise ReadError("read_sequence: the list of files is empty")
            self.filename = files[0]
        if times is not None:
            found_times = [float(t) for t in times]
            if len(found_times) != len(files):
                raise ReadError(f"{self.filename}: read_sequence: {len(found_times)} times for {len(files)} files")
        self.files = list(files)
        self._reader = _core.open_file_sequence(self.files, list(found_times), file_format or "")
        self.num_steps = self._reader.num_steps
        self.times = [self._reader.time(k) for k in range(self.num_steps)]
        self.field_data = {}
        self.mesh = None
        self.cells = None

class SequenceWriter(TimeSeriesWriter):
    """One complete file per ``write_data`` (the pattern's number field filled in); the index
    (``index=``: a ``.series`` or ``.pvd``) is written at ``close()``. ``write_points_cells``
    may be called again between steps (adaptive runs). Step files are kept when the with-block
    ends with an error."""

    format_name = "file sequence"

    def __init__(self, pattern, file_format=None, index=None, first_number=0, **options):
        super().__init__(pattern)
        self._file_format = file_format or ""
        self._index = os.fspath(index) if index is not None else ""
        self._first_number = int(first_number)
        self._python_options = options

    def __enter__(self):
        format_name = self._file_format or _core.format_for_path(self.filename) or ""
        options = core_write_options(format_name, self._python_options)
        self._writer = _core.create_file_sequence(self.filename, self._file_format, options, self._index,
                                                  self._first_number)
        return self


def read_sequence(source, times=None, file_format=None):
    """A file sequence as a time-series reader: ``source`` a glob (``"out_*.vtu"``), a pattern
    with a number field (``"out_%04d.vtu"``, ``"out_{:04d}.vtu"``), a ParaView ``.series`` index,
    a ``.pvd`` or a list of files; ``times`` overrides the times found (by default the number
    in each name, or the index's)."""
    return SequenceReader(source, times=times, file_format=file_format)


def write_sequence(pattern, file_format=None, index=None, first_number=0, **options):
    """A time-series writer of one file per step: ``with write_sequence("out_{:04d}.vtu",
    index="out.vtu.series") as writer: writer.write_points_cells(...); writer.write_data(t, ...)``.
    ``options`` are the format's write options."""
    return SequenceWriter(pattern, file_format=file_format, index=index, first_number=first_number, **options)
