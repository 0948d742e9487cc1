"""Where the core's arrays are allocated: a Python-facing handle on the C++ allocator hook.

Every array a reader returns is allocated once, through the allocator current at that moment.
``allocator_installed`` makes a Python pair serve those allocations for the duration of a
block — page-locked memory for GPU transfers (see ``pinned_reads`` in ``_gpu``), or a
counting allocator in tests. Arrays allocated inside stay valid after the block and are
returned to their own allocator whenever they die.
"""

import contextlib

import numpy as np

from . import _core


@contextlib.contextmanager
def allocator_installed(alloc, free=None, *, deferred_arrays=False):
    """Serve the core's allocations from ``alloc(nbytes) -> obj`` inside the block.

    ``obj`` must expose a writable buffer of at least ``nbytes`` through the buffer protocol
    (a numpy array or CuPy's ``PinnedMemoryPointer`` do); it is kept alive while the array
    lives, then handed to ``free(obj)`` if given. Blocks nest; on exit — also by exception —
    the previous allocator is restored. The hook is process-wide: reads in other threads
    during the block use it too.

    Reads inside the block make every array at once (a structured grid's implied points and
    cells included), so that all of them come from ``alloc`` — unless ``deferred_arrays=True``:
    an isolated read's worker, which ships such arrays to its caller as recipes.
    """
    global _blocks_open
    token = _core.install_python_allocator(alloc, free)
    counted = not deferred_arrays
    _blocks_open += counted
    try:
        yield
    finally:
        _blocks_open -= counted
        _core.restore_allocator(token)


_blocks_open = 0


def python_allocator_active():
    """Whether an ``allocator_installed`` block that wants every array at once is open (in any
    thread): reads then make every array now, so that all of them come from that allocator."""
    return _blocks_open > 0


def allocation_owner(array):
    """The object a Python allocator returned for the memory behind ``array``, or None."""
    array = np.asarray(array)
    if array.size == 0:
        return None
    return _core.python_allocation_owner(array.__array_interface__["data"][0])


def allocator_stats():
    """Live buffers and bytes currently held through Python allocators."""
    return dict(_core.python_allocator_stats())
