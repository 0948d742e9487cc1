"""Arrays in memory the C++ core allocated (64-byte aligned, through the allocator hook),
which is what every array a read returns lives in."""

import numpy as np

import meshioplusplus as mio


def core_allocated(shape, dtype, values):
    """A new array of ``shape``/``dtype`` filled with ``values``, in a core-allocated buffer."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    # block_bases of k zero counts allocates k + 1 int64 in one core buffer.
    raw = mio._core.block_bases([0] * max(0, -(-nbytes // 8) - 1))
    array = raw.view(np.uint8)[:nbytes].view(dtype).reshape(shape)
    array[...] = values
    return array
