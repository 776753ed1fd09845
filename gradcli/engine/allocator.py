"""Asking glibc's allocator to keep freed memory for the next array.

A step of ``((A @ B).tanh() @ A).pow(2).mean()`` on 512x512 makes and frees a dozen 1 MB
arrays.  With glibc's defaults each is mapped fresh from the system and returned when freed, so
every new array costs a page fault per 4 kB page on first write: a few tens of thousands per
run, a fifth of the CPU time of such a workload.  Keeping up to ``KEEP`` bytes of freed memory
in the process (and serving arrays up to ``MMAP_ABOVE`` bytes from it) lets the next array reuse
pages already mapped.  PyTorch's CPU allocator does the same for its tensors.  Peak memory is
unchanged; memory freed at the end of a large step is returned only beyond ``KEEP``.

Only glibc has ``mallopt``; elsewhere this does nothing.
"""

from __future__ import annotations

KEEP = 128 << 20
PAD = 64 << 20
MMAP_ABOVE = 32 << 20

# mallopt's parameter numbers (malloc.h)
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3

_done = False


def keep_freed_memory() -> None:
    """Set glibc's trim and mmap thresholds once per process (ctypes is imported only here)."""
    global _done
    if _done:
        return
    _done = True
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):
        return  # not glibc
    mallopt(_M_TOP_PAD, PAD)
    mallopt(_M_TRIM_THRESHOLD, KEEP)
    mallopt(_M_MMAP_THRESHOLD, MMAP_ABOVE)
