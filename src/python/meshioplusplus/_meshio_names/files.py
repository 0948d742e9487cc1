"""meshio's ``meshio._files`` (re-exported by ``meshioplusplus._files``): telling a file object
from a path, and opening either the same way."""

from contextlib import contextmanager

__all__ = ["is_buffer", "open_file"]


def is_buffer(obj, mode):
    """True if ``obj`` is a file object usable in ``mode`` (it reads for "r", writes for "w")."""
    return ("r" in mode and hasattr(obj, "read")) or ("w" in mode and hasattr(obj, "write"))


@contextmanager
def open_file(path_or_buf, mode="r"):
    """A context manager giving a file object: ``path_or_buf`` itself when it is one (left open),
    else the path opened in ``mode`` (closed on exit)."""
    if is_buffer(path_or_buf, mode):
        yield path_or_buf
    else:
        with open(path_or_buf, mode) as f:
            yield f
