"""How PyTorch 2.13's CPU kernels spread a unary float op over a tensor, and which routine
each element gets (measured against it; see ``sleef_f32``):

* ``cpu_kernel_vec`` ops (``sinh``, ``cosh``, ``exp2``, ...): the vector routine (SLEEF) on
  blocks of two vectors of each contiguous run, the scalar lambda -- glibc's ``sinhf`` ... --
  on the rest (``sleef.vector_mask`` tells which element is which, thread split included).
* ``vml`` ops without MKL (``expm1``, ``log1p``): ``vec::map`` over the contiguous data (a
  strided input is first copied to a buffer), partial vectors through the vector routine
  too, so every element gets SLEEF's value.

What the other unary/binary float ops are (measured on PyTorch 2.13, MKL 2024.2, AVX512):

* MKL VML (closed source, HA mode), float32 and float64: sin, cos, tan, asin, acos, atan, exp,
  log, log2, log10, erf, erfc, erfinv, sqrt, tanh -- and so ``x ** 0.5`` (PyTorch's sqrt
  kernel).  Their last bits depend on MKL's code path (MKL_CBWR changes all but float32
  sin/cos); no open algorithm reproduces them, so they stay on NumPy in double.
* glibc through a plain scalar loop: asinh, acosh (both dtypes).
* SLEEF u10 in ``cpu_kernel_vec``: float64 sinh/cosh/exp2, atanh, atan2, pow (tensor exponents
  and scalar exponents other than 2, 3, -2, 0.5, -0.5, -1), hypot (u05); SLEEF u10 via vml:
  float64 expm1/log1p.  Reproducible the same way; not yet done.
* Exact formulas: rsqrt = 1/sqrt (correctly rounded sqrt), reciprocal, x**2 = x*x,
  x**3 = x*x*x, x**-2 = 1/(x*x).

Arrays above ``EXACT_LIMIT`` elements stay on NumPy in double (correctly rounded, which
agrees with SLEEF's u10 routines for ~99.7% of elements) because the emulation is slower.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from . import libm, sleef

F32 = np.float32

# Above this many elements the emulated SLEEF paths give way to NumPy in double.
EXACT_LIMIT = 1 << 18
# The emulation runs on slices of this many elements: its ~200 temporaries stay in cache.
_CHUNK = 8192


def _chunked(vector: Callable[[np.ndarray], np.ndarray], a: np.ndarray) -> np.ndarray:
    flat = np.ascontiguousarray(a, F32).reshape(-1)
    if flat.size <= _CHUNK:
        return vector(flat)
    out = np.empty_like(flat)
    for start in range(0, flat.size, _CHUNK):
        out[start:start + _CHUNK] = vector(flat[start:start + _CHUNK])
    return out


def cpu_kernel_vec(a: np.ndarray, vector: Callable[[np.ndarray], np.ndarray], scalar: str,
                   fallback: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """A float32 unary ``cpu_kernel_vec`` op: ``vector`` (SLEEF) on the vector blocks, glibc's
    ``scalar`` on the tails; ``fallback`` is the double-precision NumPy function."""
    if a.size == 0:
        return np.empty(a.shape, F32)
    if a.size > EXACT_LIMIT:
        return fallback(a.astype(np.float64)).astype(F32)
    mask = sleef.vector_mask(a)
    if mask.all():
        return _chunked(vector, a).reshape(a.shape)
    out = np.empty(a.shape, F32)
    tails = ~mask
    out[tails] = libm.call(scalar, a[tails], fallback)
    if mask.any():
        out[mask] = _chunked(vector, a[mask])
    return out


def vml_map(a: np.ndarray, vector: Callable[[np.ndarray], np.ndarray],
            fallback: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """A float32 unary op through ``at::vml`` without MKL: ``vector`` on every element."""
    if a.size > EXACT_LIMIT:
        return fallback(a.astype(np.float64)).astype(F32)
    return _chunked(vector, a).reshape(a.shape)
