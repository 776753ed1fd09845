"""Float ``pow``, ``atan2`` and ``hypot`` as PyTorch 2.13's CPU kernels compute them (measured, AVX512).

* ``pow(Tensor, Scalar)`` (``x ** 1.5``, ``x.pow(4)``): exponent 0 fills ones, 1 copies; 0.5,
  -0.5 and -1 are the sqrt, rsqrt (``1 / sqrt(x)``, two roundings) and reciprocal kernels; 2, 3
  and -2 multiply (``x*x``, ``x*x*x``, ``1/(x*x)``).  Any other exponent is a unary
  ``cpu_kernel_vec``: the vector blocks ``Sleef_powf16_u10(x, float(e))`` (the exponent rounded
  to the tensor's dtype), the scalar tails ``std::pow(x, double(e))``, i.e. glibc's double
  ``pow`` (rounded to float for a float tensor).
* ``pow(Tensor, Tensor)``, and ``pow(Scalar, Tensor)`` (the scalar wrapped in a 0-dim tensor
  unless it is 1, which fills ones): a binary ``cpu_kernel_vec`` of the promoted operands, SLEEF
  ``powf16_u10`` / ``powd8_u10`` on the vector blocks, glibc's ``powf`` / ``pow`` on the rest.
* ``atan2`` and ``hypot``: the same with ``atan2f16_u10`` / ``atan2d8_u10`` and ``hypotf16_u05``
  / ``hypotd8_u05``, glibc's ``atan2f`` / ``atan2`` and ``hypotf`` / ``hypot`` on the rest.

``binary_loops`` says which elements are which.  Arrays above ``EXACT_LIMIT`` elements are
computed by NumPy in double instead (correctly rounded: it agrees with SLEEF's u10 and u05
routines for all but a few elements in a thousand) because the emulation is slower.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from . import binary_loops, sleef, sleef_pow, sleef_pow64, vml_sqrt
from .binary_loops import chunked, scalar2

F32 = np.float32
F64 = np.float64

# Above this many elements NumPy (in double) replaces the emulated SLEEF and glibc paths.
EXACT_LIMIT = 1 << 18

_VECTOR = {
    ("pow", F32): sleef_pow.powf,
    ("atan2", F32): sleef_pow.atan2f,
    ("hypot", F32): sleef_pow.hypotf,
    ("pow", F64): sleef_pow64.pow,
    ("atan2", F64): sleef_pow64.atan2,
    ("hypot", F64): sleef_pow64.hypot,
}
_SCALAR = {"pow": "pow", "atan2": "atan2", "hypot": "hypot"}
_NUMPY = {"pow": np.power, "atan2": np.arctan2, "hypot": np.hypot}


def _double(fn: Callable, x: np.ndarray, y: Any) -> np.ndarray:
    with np.errstate(all="ignore"):
        return fn(np.asarray(x, F64), np.asarray(y, F64)).astype(np.asarray(x).dtype)


def _vector(name: str, dt: np.dtype) -> Optional[Callable]:
    return _VECTOR.get((name, np.dtype(dt).type))


def binary(name: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``pow``/``atan2``/``hypot`` of two float arrays of one dtype (they broadcast), as PyTorch's
    ``cpu_kernel_vec`` computes them."""
    dt = x.dtype
    shape = np.broadcast_shapes(x.shape, y.shape)
    vector = _vector(name, dt)
    if vector is None or int(np.prod(shape)) > EXACT_LIMIT or 0 in shape:
        return _double(_NUMPY[name], x, y).reshape(shape)
    libm_name = _SCALAR[name] + ("f" if dt == F32 else "")

    def scalar(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return scalar2(libm_name, a, b, _NUMPY[name])

    return binary_loops.cpu_kernel_vec(x, y, vector, scalar)


def pow_scalar(x: np.ndarray, e: float) -> np.ndarray:
    """``pow(Tensor, Scalar)`` of a float array ``x`` and a Python number ``e``."""
    dt = x.dtype.type
    # the squares and cubes of every polynomial first: no error state to set up (NumPy's is
    # "ignore" all along, see dispatch/promotion.py; errstate is kept below for the casts)
    if e == 2:
        return x * x
    if e == 3:
        return x * x * x
    one = dt(1)
    with np.errstate(all="ignore"):
        e_vec = dt(e)  # the vector loop's Vec(exp): the exponent in the tensor's dtype
    with np.errstate(all="ignore"):
        if e == 0:
            return np.ones(x.shape, dt)
        if e == 1:
            return x.copy()
        if e == 0.5:
            return vml_sqrt.sqrt(x)  # PyTorch's sqrt kernel, MKL's (x.pow(0.5) == x.sqrt() there)
        if e == -0.5:
            return (one / np.sqrt(x)).astype(dt, copy=False)
        if e == -1:
            return (one / x).astype(dt, copy=False)
        if e == 2:
            return x * x
        if e == 3:
            return x * x * x
        if e == -2:
            return (one / (x * x)).astype(dt, copy=False)
    vector = _vector("pow", dt)
    if vector is None or x.size > EXACT_LIMIT or x.size == 0:
        return _double(np.power, x, e)
    mask = sleef.vector_mask(x)
    if x.ndim == 0:
        mask = np.zeros((), bool)
    out = np.empty(x.shape, dt)
    tails = ~mask
    if tails.any():
        # std::pow(float, double) computes in double: glibc's pow, rounded once more
        wide = scalar2("pow", x[tails].astype(F64), float(e), np.power)
        out[tails] = wide.astype(dt)
    if mask.any():
        xs = np.ascontiguousarray(x[mask])
        out[mask] = chunked(vector, xs, np.full(xs.shape, e_vec))
    return out
