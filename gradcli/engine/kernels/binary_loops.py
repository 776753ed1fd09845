"""Which elements of a binary ``cpu_kernel_vec`` op get the vector routine, and the scalar routines.

PyTorch's elementwise loops (TensorIterator + ``cpu_kernel_vec``, ATen's Loops.h), as measured
on PyTorch 2.13 (AVX512):

* The iteration: the operands' dimensions are sorted by their strides (``reorder_dimensions``:
  an operand broadcast along one of two dimensions has no say), the output is allocated in that
  order, and neighbouring dimensions that all operands step through evenly are merged
  (``coalesce_dimensions``).  The innermost merged dimension is the run ``loop2d`` is called
  with, row by row; above ``GRAIN_SIZE`` elements the rows are split between the threads.
* A run is vectorised when every operand is contiguous along it, or one input is a broadcast
  scalar along it (stride 0, e.g. the 0-dim tensor ``2 ** t`` wraps the 2 in) and the others
  are contiguous.  Blocks of two vectors (32 floats, 16 doubles) go through the vector routine
  (SLEEF); the remainder of each run, and every element of a run that is not vectorised, goes
  through the scalar lambda (glibc's ``powf``, ``atan2f``, ``hypotf`` ... called through ctypes).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Optional, Sequence

import numpy as np

from .libm import _library
from .summation import vectorised_elements

# The emulated SLEEF routines run on slices of this many elements (their temporaries stay in cache).
CHUNK = 8192


def _should_swap(strides: Sequence[Sequence[int]], shape: Sequence[int], d0: int, d1: int) -> int:
    """``reorder_dimensions``' comparison: 1 if ``d0`` iterates slower than ``d1``, -1 if faster,
    0 if no operand decides (equal strides of equal sizes, or broadcasts)."""
    for st in strides:
        s0, s1 = st[d0], st[d1]
        if s0 == 0 or s1 == 0:
            continue
        if s0 != s1:
            return 1 if s0 > s1 else -1
        if shape[d0] > shape[d1]:
            return 1
    return 0


def _iteration(shape: Sequence[int], strides: Sequence[Sequence[int]], itemsize: int) -> tuple[list, int, bool]:
    """The dimensions slowest first, the length of the coalesced runs, and whether they are
    vectorised, for inputs of these byte strides (the output allocated by TensorIterator)."""
    nd = len(shape)
    perm = list(range(nd - 1, -1, -1))  # fastest first
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = _should_swap(strides, shape, perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    sizes = [shape[d] for d in perm]
    out, step = [], itemsize
    for n in sizes:
        out.append(step)
        step *= n
    ops = [out] + [[st[d] for d in perm] for st in strides]
    prev = 0
    for dim in range(1, nd):
        if sizes[prev] == 1 or sizes[dim] == 1 or all(sizes[prev] * s[prev] == s[dim] for s in ops):
            if sizes[prev] == 1:
                for s in ops:
                    s[prev] = s[dim]
            sizes[prev] *= sizes[dim]
        else:
            prev += 1
            if prev != dim:
                for s in ops:
                    s[prev] = s[dim]
                sizes[prev] = sizes[dim]
    inner = [s[0] for s in ops[1:]]
    dense = all(s == itemsize for s in inner)
    one_scalar = inner.count(0) == 1 and all(s in (0, itemsize) for s in inner)
    return perm[::-1], sizes[0], dense or one_scalar or sizes[0] == 1


def vector_mask(shape: Sequence[int], inputs: Sequence[np.ndarray], itemsize: int, vectors: int = 2) -> np.ndarray:
    """Boolean array of ``shape``: True where the vector routine computes the element.

    ``inputs`` are the operands as the kernel reads them (their strides are what counts; they
    broadcast to ``shape``), ``itemsize`` the computation dtype's."""
    shape = tuple(shape)
    n = math.prod(shape)
    if n == 0 or not shape:
        return np.zeros(shape, bool)
    strides = [[abs(s) for s in np.broadcast_to(a, shape).strides] for a in inputs]
    order, inner, vectorised = _iteration(shape, strides, itemsize)
    if not vectorised:
        return np.zeros(shape, bool)
    mask = vectorised_elements(n, inner, vectors * (64 // itemsize))
    return np.transpose(mask.reshape(tuple(shape[d] for d in order)), np.argsort(order))


# -- glibc's scalar functions ----------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _libm2(name: str, double: bool) -> Optional[Callable]:
    """libm's two-argument ``name`` as a NumPy object ufunc, or None where libm cannot be loaded."""
    lib = _library()
    fn = getattr(lib, name, None) if lib is not None else None
    if fn is None:
        return None
    import ctypes
    ctype = ctypes.c_double if double else ctypes.c_float
    fn.restype = ctype
    fn.argtypes = [ctype, ctype]
    return np.frompyfunc(fn, 2, 1)


def scalar2(name: str, x: np.ndarray, y: Any, fallback: Callable) -> np.ndarray:
    """glibc's ``name`` (``powf``, ``pow``, ``atan2f`` ...) of each pair of elements, in the dtype of
    ``x``; ``fallback`` (NumPy, in double) where libm cannot be loaded."""
    x = np.asarray(x)
    dt = x.dtype
    if x.size == 0:
        return np.empty(x.shape, dt)
    fn = _libm2(name, dt == np.float64)
    if fn is None:
        return fallback(x.astype(np.float64), np.asarray(y, np.float64)).astype(dt)
    return np.asarray(fn(x, y), dtype=dt).reshape(np.broadcast_shapes(x.shape, np.shape(y)))


def chunked(vector: Callable, *args: np.ndarray) -> np.ndarray:
    """``vector`` over 1-D arrays of one length, a slice of ``CHUNK`` elements at a time."""
    n = args[0].size
    if n <= CHUNK:
        return vector(*args)
    out = np.empty(n, args[0].dtype)
    for s in range(0, n, CHUNK):
        out[s:s + CHUNK] = vector(*(a[s:s + CHUNK] for a in args))
    return out


def cpu_kernel_vec(x: np.ndarray, y: np.ndarray, vector: Callable, scalar: Callable) -> np.ndarray:
    """A binary ``cpu_kernel_vec`` op of arrays of one float dtype (they broadcast): ``vector`` on
    the vector blocks, ``scalar`` on the rest (both take and return 1-D arrays)."""
    shape = np.broadcast_shapes(x.shape, y.shape)
    xb, yb = np.broadcast_to(x, shape), np.broadcast_to(y, shape)
    mask = vector_mask(shape, (x, y), x.dtype.itemsize)
    if mask.all():
        return chunked(vector, xb.reshape(-1), yb.reshape(-1)).reshape(shape)
    out = np.empty(shape, x.dtype)
    tails = ~mask
    out[tails] = scalar(xb[tails], yb[tails])
    if mask.any():
        out[mask] = chunked(vector, xb[mask], yb[mask])
    return out
