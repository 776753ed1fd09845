"""Correctly rounded fused multiply-add for NumPy arrays.

NumPy has no fma, and ``a*b + c`` rounds twice.  These emulate IEEE fma
(one rounding, to nearest even) exactly, for the general operand ranges of
``uniform_(a, b)`` and ``normal_(mean, std)``.  The hot float32 normal kernel
uses a cheaper scheme whose exactness is proven separately (see
``avx_mathfun``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

_F64 = np.float64
_I64 = np.int64


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knuth's TwoSum: ``s = fl(a+b)`` and the exact error ``a + b - s``."""
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    return s, err


def _round_to_odd(s: np.ndarray, err: np.ndarray) -> np.ndarray:
    """Turn ``s = RN(x)`` with ``x = s + err`` into round-to-odd of ``x``.

    When ``x`` is inexact and ``s`` is even, the odd neighbour on ``err``'s
    side is the round-to-odd value.  Moving one unit of the bit pattern
    up grows ``|s|`` whatever its sign, so the step is +1 when ``err`` has
    ``s``'s sign and -1 otherwise.  ``s`` is never 0 here (an exact zero sum
    has no error), and non-finite lanes are left alone.
    """
    bits = s.view(_I64)
    fix = (err != 0) & ((bits & 1) == 0) & np.isfinite(s)
    if fix.any():
        step = np.where(np.signbit(err) == np.signbit(s), 1, -1)
        bits = bits.copy()
        bits[fix] += step[fix]
        s = bits.view(_F64)
    return s


def fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``fmaf(a, b, c)`` elementwise: float32 in, float32 out, one rounding.

    The product of two floats is exact in double (24+24 <= 53 bits).  The sum
    ``p + c`` made round-to-odd at 53 bits and rounded to 24 bits is the exact
    sum rounded once, because 53 >= 24 + 2 (Boldo and Melquiond, "Emulation of
    FMA and correctly rounded sums", 2008).  The plain double sum already is,
    but where it lands exactly on a float32 midpoint or is subnormal as a
    float32, so only those rare lanes are redone round-to-odd.
    Operands broadcast; the result is a new float32 array.
    """
    return _chunked(_fma32_kernel, np.float32, a, b, c)


# A double whose low 29 bits are 1000...0 lies on a midpoint of the float32 grid (for a
# normal float32); below 2**-125 the float32 grid is (or may round into) the subnormal one.
_LOW29 = _I64((1 << 29) - 1)
_MID29 = _I64(1 << 28)
_TINY32 = _F64(2.0 ** -125)


def _fma32_kernel(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        p = a.astype(_F64) * b
        c64 = c.astype(_F64)
        s = p + c64
        risky = (s.view(_I64) & _LOW29) == _MID29
        risky |= (np.abs(s) < _TINY32) & (s != 0)  # an exact zero sum is exact
        if risky.any():
            lanes_p = np.broadcast_to(p, s.shape)[risky]
            lanes_c = np.broadcast_to(c64, s.shape)[risky]
            s[risky] = _round_to_odd(*_two_sum(lanes_p, lanes_c))
        return s.astype(np.float32)


# Temporaries of this many doubles stay below malloc's mmap threshold, so
# large inputs do not pay a page fault per fresh temporary.
_CHUNK = 8192


def _chunked(kernel: Any, dtype: Any, *operands: Any) -> np.ndarray:
    """Apply ``kernel`` to broadcast operands, a slice of ``_CHUNK`` at a time.

    Operands of one element stay 0-d (broadcast inside the kernel) instead of
    being expanded to the full size.
    """
    arrs = [np.asarray(x, dtype=dtype) for x in operands]
    shape = np.broadcast_shapes(*(x.shape for x in arrs))
    size = math.prod(shape)
    flat = []
    for x in arrs:
        if x.size == 1:
            flat.append(x.reshape(()))
        else:
            flat.append(np.broadcast_to(x, shape).reshape(-1))
    out = np.empty(size, dtype=dtype)
    for start in range(0, size, _CHUNK):
        parts = [x if x.ndim == 0 else x[start : start + _CHUNK] for x in flat]
        if all(x.ndim == 0 for x in parts):
            parts[0] = parts[0].reshape(1)  # results must be arrays, not scalars
        out[start : start + _CHUNK] = kernel(*parts)
    return out.reshape(shape)


# Operands inside these bounds make Dekker's product and the sums below exact
# (no overflow of the splitting constant, no underflow of the error terms).
_SAFE_HI = 2.0**480
_SAFE_LO = 2.0**-480
_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's constant for binary64


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLIT * x
    hi = c - (c - x)
    return hi, x - hi


def _safe(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    ax = np.abs(x)
    return (ax == 0) | ((ax >= lo) & (ax <= hi))


def fma_scalar(a: float, b: float, c: float) -> float:
    """Exact ``fma(a, b, c)`` for Python floats (the slow, obviously right way)."""
    if not (np.isfinite(a) and np.isfinite(b)):
        return a * b + c  # the exact product is infinite or NaN as well
    if not np.isfinite(c):
        return c
    from fractions import Fraction  # rare lanes only; keep it off the import path

    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        # exact zero: -0 only when both terms are -0 (IEEE sum-of-zeros rule)
        return (a * b) + c if (a * b == 0 and c == 0) else 0.0
    try:
        return float(exact)  # int/int true division rounds correctly
    except OverflowError:
        return float("inf") if exact > 0 else float("-inf")


def fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``fma(a, b, c)`` elementwise in float64 with a single rounding.

    Dekker's exact product ``a*b = uh + ul``, then Boldo and Melquiond's
    algorithm: ``(th, tl) = TwoSum(c, uh)``, ``v = RO(tl + ul)``,
    ``RN(th + v)``.  Lanes with extreme magnitudes (where the error terms
    could overflow or underflow) go through exact rational arithmetic.
    Operands broadcast; the result is a new float64 array.
    """
    return _chunked(_fma64_kernel, _F64, a, b, c)


def _fma64_kernel(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        ah, al = _split(a)
        bh, bl = _split(b)
        uh = a * b
        ul = ((ah * bh - uh) + ah * bl + al * bh) + al * bl
        th, tl = _two_sum(c, uh)
        vs, ve = _two_sum(tl, ul)
        out = th + _round_to_odd(vs, ve)
        # (-0)*b + (-0) is -0, which the sums above turn into +0.
        zero = (uh == 0) & (c == 0)
        if zero.any():
            out = np.where(zero, uh + c, out)
    ok = _safe(a, _SAFE_LO, _SAFE_HI) & _safe(b, _SAFE_LO, _SAFE_HI)
    ok &= _safe(c, 2.0**-900, 2.0**960)
    if not ok.all():
        a, b, c = np.broadcast_arrays(a, b, c)
        out = np.array(out, copy=True)
        for idx in zip(*np.nonzero(~ok)):
            out[idx] = fma_scalar(float(a[idx]), float(b[idx]), float(c[idx]))
    return out
