"""Recycled memory for the arrays that batch calls return.

A fresh array of a few MB costs one page fault per 4 KiB page when it is first
written, and for a W1 batch that is more than the parse itself (measured: 8.1 ->
4.2 us per record when the memory is reused). TensorFlow's allocator keeps freed
memory for the next step; this pool does the same for tfnano: all the outputs of
one call are carved out of one block, and when the last array using the block is
garbage, the block goes back to the pool for the next call of about the same size.

Each array of at least MIN_BYTES gets a block of its own (sized to it, at most 1/8
more), so that an output kept after its batch (the labels of every batch of an epoch)
pins only its own memory, never its siblings'. Smaller arrays are np.empty (as fast
at that size). At most IDLE_LIMIT bytes are kept idle. Thread-safe.
"""
import math
import threading

import numpy as np

from .._native import ffi

MIN_BYTES = 256 << 10
HUGE_BYTES = 4 << 20  # numpy's threshold for huge pages
IDLE_LIMIT = 128 << 20
ALIGN = 64


def _size_class(nbytes):
    """nbytes rounded up to 1/8 of its power of two, so that batches whose padded
    lengths differ a little still reuse each other's blocks (at most 12.5 % slack)."""
    step = max(1 << max(nbytes.bit_length() - 4, 0), ALIGN)
    return -(-nbytes // step) * step


class _Pool:
    def __init__(self, idle_limit):
        self._free = {}
        self._idle = 0
        self._live = 0  # bytes of blocks handed out whose arrays are still alive
        self._limit = idle_limit
        # Re-entrant: a block can come back from a garbage-collector run that starts
        # while this thread holds the lock.
        self._lock = threading.RLock()
        self._new = ffi.new_allocator(should_clear_after_alloc=False)

    def take(self, nbytes):
        """An uninitialised, writable uint8 array of at least nbytes."""
        size = _size_class(nbytes)
        with self._lock:
            blocks = self._free.get(size)
            block = blocks.pop() if blocks else None
            if block is not None:
                self._idle -= size
            self._live += size
        if block is None:
            # big blocks from numpy's allocator, which asks the kernel for huge pages
            # (madvise) from 4 MiB on: fresh memory then faults in 2 MiB at a time,
            # not 4 KiB (a W3 pad output of 200 MB: 1.4 -> 0.3 us per row)
            block = (np.empty(size, dtype=np.uint8) if size >= HUGE_BYTES
                     else self._new("char[]", size))
        address = ffi.from_buffer(block) if isinstance(block, np.ndarray) else block
        handle = ffi.gc(ffi.cast("char *", address),
                        lambda _ptr, block=block, size=size: self._give_back(block, size))
        return np.frombuffer(ffi.buffer(handle, size), dtype=np.uint8)

    def _give_back(self, block, size):
        with self._lock:
            self._live -= size
            if self._idle + size <= self._limit:
                self._free.setdefault(size, []).append(block)
                self._idle += size

    def idle_bytes(self):
        return self._idle

    def live_bytes(self):
        """Bytes of pooled blocks that arrays still use."""
        return self._live


POOL = _Pool(IDLE_LIMIT)


class Carver:
    """The output arrays of one call: each big one in a pooled block of its own, the
    small ones np.empty.

    Usage: add() each (shape, dtype) and keep the returned index; then arrays()."""

    def __init__(self):
        self._specs = []
        self._total = 0

    def add(self, shape, dtype):
        dtype = np.dtype(dtype)
        shape = tuple(int(d) for d in shape)
        nbytes = math.prod(shape) * dtype.itemsize  # (np.prod costs ~5 us a call)
        self._specs.append((shape, dtype, self._total, nbytes))
        self._total += -(-nbytes // ALIGN) * ALIGN
        return len(self._specs) - 1

    def arrays(self):
        take = POOL.take
        return [np.empty(shape, dtype) if nbytes < MIN_BYTES
                else take(nbytes)[:nbytes].view(dtype).reshape(shape)
                for shape, dtype, _, nbytes in self._specs]
