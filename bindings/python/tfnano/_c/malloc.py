"""Keeps glibc from handing freed heap memory back to the OS after every batch.

A batch of big string values (64 images of 100 KiB) becomes 64 bytes objects, each
malloc'ed below glibc's 128 KiB mmap threshold, so from the heap. When the batch is
dropped its 6 MB are freed at once, the free top of the heap passes the 128 KiB trim
threshold and glibc returns it to the OS (sbrk, or madvise in a thread's arena); the
next batch then page-faults its way back in, one fault per 4 KiB page. Measured on
the W4 image pipeline: 12 page faults and ~30 us of CPU per record, a third of the
pipeline.

glibc raises both thresholds by itself once the process frees a big mmapped block
(up to 32 MiB and 64 MiB); ``tune()`` sets them to those same ceilings at once. The
cost is that up to 64 MiB of free heap per arena stays mapped instead of going back
to the OS. Only on glibc, once per process, and not at all with
TFNANO_MALLOC_TUNING=0 in the environment.
"""
import os

MMAP_THRESHOLD = 32 << 20  # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD  # what glibc's own adjustment pairs with it
_M_TRIM_THRESHOLD = -1  # mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3

_state = None  # None: not tried yet; then True (set) or False (not possible / off)


def tune():
    """Sets glibc's mmap and trim thresholds to their dynamic ceilings, once.
    Returns True when they are set (by this call or an earlier one)."""
    global _state
    if _state is None:
        _state = _set()
    return _state


def _set():
    if os.environ.get("TFNANO_MALLOC_TUNING", "1") == "0":
        return False
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False
        import ctypes
        libc = ctypes.CDLL(None)
        return (libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 and
                libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1)
    except (AttributeError, OSError, ValueError):
        return False
