"""PyTorch's CPU layer-norm kernels (``layer_norm_kernel.cpp``, ``moments_utils.h``), bit for bit.

PyTorch 2.13 runs its AVX2 build of these kernels (also on AVX512 machines:
they are not registered for AVX512), so a vector is 8 floats or 4 doubles.
The order of operations, and where the compiler fused a multiply and an add
into one rounding, were read off the compiled kernels:

* ``RowwiseMoments``: Welford over chunks of 16 vectors per lane
  (``m1 = fma(x - m1, 1/(j+1), m1)``, ``m2 = fma(x - m1', x - m1, m2)``), the
  chunks merged in a binary cascade by ``AddMomentsVec`` (``m1 += c*d``;
  ``m2 = fma(m0*d, c*d, m2 + m2b)``), the leftover elements by a scalar Welford
  (no fma), then the lanes one by one by the scalar ``AddMoments``
  (``m1 = fma(d, c, m1)``; ``m2 += fma(d*d*c, m0, m2b)``).
* forward: ``y = fma((x - mean) * rstd, gamma, beta)``, ``rstd = 1/sqrt(var + eps)``.
* backward per row: ``ds``/``db`` are vector reductions (main loop unfused, the
  masked tail fused, then AVX2's horizontal tree for floats or a left fold for
  doubles); ``b = fms(db, mean, ds)*a*a*a/N``, ``c = -mean*b - db*a/N`` (fused),
  ``dx = fma(b, x, a*dy*gamma) + c``; ``dgamma``/``dbeta`` accumulate per thread
  (``fma(dy, fma(a, x, -a*mean), buf)``) and the thread buffers are added last.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..kernels.exactfp import fma32, fma64
from ..kernels.summation import NUM_THREADS

CHUNK = 16


def lanes(dtype: np.dtype) -> int:
    """Elements in one AVX2 vector."""
    return 32 // np.dtype(dtype).itemsize


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Fused multiply-add in the operands' dtype (float32 or float64)."""
    dtype = np.result_type(a, b, c)
    return (fma32 if dtype == np.float32 else fma64)(a, b, c)


def _ceil_log2(x: int) -> int:
    return 1 if x <= 2 else int(x - 1).bit_length()


def rowwise_moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and (biased) variance of each row of ``x`` (M, N), as ``RowwiseMoments``."""
    rows, n_all = x.shape
    f = x.dtype.type
    width = lanes(x.dtype)
    n = n_all // width
    m = -(-n // CHUNK)
    depth = _ceil_log2(m)
    zero = np.zeros((rows, width), x.dtype)
    m0s = [0] * depth
    m1s = [zero] * depth
    m2s = [zero] * depth
    c_vecs = [f(1) / f(i + 1) for i in range(CHUNK)]

    def add_moments_vec(m0_add: int, m1_add: np.ndarray, m2_add: np.ndarray, k: int) -> None:
        total = m0s[k] + m0_add
        c = f(0) if total == 0 else f(m0_add) / f(total)
        delta = m1_add - m1s[k]
        cd = c * delta
        m2s[k] = fma(f(m0s[k]) * delta, cd, m2s[k] + m2_add)
        m1s[k] = m1s[k] + cd
        m0s[k] = total

    for i in range(m):
        base = i * CHUNK * width
        count = min(CHUNK, n - i * CHUNK)
        m1v, m2v = zero, zero
        for j in range(count):
            xv = x[:, base + j * width: base + (j + 1) * width]
            delta = xv - m1v
            m1v = fma(delta, c_vecs[j], m1v)
            m2v = fma(xv - m1v, delta, m2v)
        add_moments_vec(count, m1v, m2v, 0)
        mask, j = i + 1, 1
        while j < depth and (mask & 1) == 0:
            add_moments_vec(m0s[j - 1], m1s[j - 1], m2s[j - 1], j)
            m0s[j - 1], m1s[j - 1], m2s[j - 1] = 0, zero, zero
            mask >>= 1
            j += 1
    for i in range(1, depth):
        add_moments_vec(m0s[i], m1s[i], m2s[i], 0)
    m0 = 0
    m1 = np.zeros(rows, x.dtype)
    m2 = np.zeros(rows, x.dtype)
    for i in range(n * width, n_all):
        xi = x[:, i]
        delta = xi - m1
        m0 += 1
        m1 = m1 + delta / f(m0)
        m2 = m2 + (xi - m1) * delta
    for i in range(width):
        total = m0 + n
        c = f(0) if total == 0 else f(n) / f(total)
        delta = m1s[0][:, i] - m1
        m1 = fma(delta, c, m1)
        m2 = m2 + fma(delta * delta * c, f(m0), m2s[0][:, i])
        m0 = total
    return m1, m2 / f(n_all)


def layer_norm_forward(x: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None,
                       eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(y, mean, rstd) for ``x`` viewed as (M, N) rows."""
    f = x.dtype.type
    with np.errstate(all="ignore"):
        mean, var = rowwise_moments(x)
        rstd = f(1) / np.sqrt(var + f(eps))
        t = (x - mean[:, None]) * rstd[:, None]
        gamma = np.ones(x.shape[1], x.dtype) if weight is None else weight
        beta = np.zeros(x.shape[1], x.dtype) if bias is None else bias
        return fma(t, gamma, beta), mean, rstd


def _tree_sum(v: np.ndarray) -> np.ndarray:
    """AVX2's horizontal float sum: lanes i and i+4, then pairs two apart, then neighbours."""
    w = v[:, :4] + v[:, 4:]
    return (w[:, 0] + w[:, 2]) + (w[:, 1] + w[:, 3])


def _fold(v: np.ndarray, size: int) -> np.ndarray:
    acc = v[:, 0]
    for i in range(1, size):
        acc = acc + v[:, i]
    return acc


def _reduce_all(term: Callable[[int, int], tuple[np.ndarray, np.ndarray | None]], n: int, width: int,
                dtype: np.dtype) -> np.ndarray:
    """``vec::map*_reduce_all`` with ``+`` for each row: ``term(lo, hi)`` gives (p, q) for p*q (q None: p)."""
    def value(p: np.ndarray, q: np.ndarray | None) -> np.ndarray:
        return p if q is None else p * q

    if n < width:
        return _fold(value(*term(0, n)), n)
    acc = value(*term(0, width))
    d = width
    while d < n - (n % width):
        acc = acc + value(*term(d, d + width))
        d += width
    if n - d > 0:
        p, q = term(d, n)
        k = n - d
        acc = acc.copy()
        acc[:, :k] = acc[:, :k] + p if q is None else fma(p, q, acc[:, :k])
    return _tree_sum(acc) if dtype == np.float32 else _fold(acc, width)


def thread_ranges(count: int, threads: int = NUM_THREADS) -> list[tuple[int, int]]:
    """How ``at::parallel_for(0, count, 1)`` splits its range over the threads."""
    if count <= 1 or threads <= 1:
        return [(0, count)]
    chunk = -(-count // threads)
    return [(t * chunk, min(count, (t + 1) * chunk)) for t in range(threads) if t * chunk < count]


def layer_norm_backward(dy: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray,
                        weight: np.ndarray | None, need: tuple[bool, bool, bool]
                        ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """(dx, dgamma, dbeta) of rows (M, N); ``need`` says which to compute."""
    rows, n = x.shape
    f = x.dtype.type
    width = lanes(x.dtype)
    scale = f(1) / f(n)
    dx = dgamma = dbeta = None
    with np.errstate(all="ignore"):
        if need[1] or need[2]:
            dgamma = np.zeros(n, x.dtype)
            dbeta = np.zeros(n, x.dtype)
            for lo, hi in thread_ranges(rows):
                buf_g = np.zeros(n, x.dtype)
                buf_b = np.zeros(n, x.dtype)
                for i in range(lo, hi):
                    buf_g = fma(dy[i], fma(rstd[i], x[i], -rstd[i] * mean[i]), buf_g)
                    buf_b = buf_b + dy[i]
                dgamma = dgamma + buf_g
                dbeta = dbeta + buf_b
        if need[0]:
            if weight is None:
                ds = _reduce_all(lambda lo, hi: (dy[:, lo:hi], x[:, lo:hi]), n, width, x.dtype)
                db = _reduce_all(lambda lo, hi: (dy[:, lo:hi], None), n, width, x.dtype)
                gamma = np.ones(n, x.dtype)
            else:
                ds = _reduce_all(lambda lo, hi: (dy[:, lo:hi] * x[:, lo:hi], weight[lo:hi]), n, width, x.dtype)
                db = _reduce_all(lambda lo, hi: (dy[:, lo:hi], weight[lo:hi]), n, width, x.dtype)
                gamma = weight
            a = rstd
            bb = fma(db, mean, -ds) * a * a * a * scale
            c = fma(-mean, bb, -(db * a * scale))
            dx = fma(bb[:, None], x, a[:, None] * dy * gamma) + c[:, None]
    return dx, (dgamma if need[1] else None), (dbeta if need[2] else None)
