"""glibc's float32 math functions, as PyTorch's scalar loops call them (``std::exp(float)`` ...).

The scalar tail of a vectorised kernel and every element of a strided one go through
``std::expf`` / ``erff`` / ``tanhf`` / ``log1pf`` / ``expm1f`` / ``sinhf`` ...: glibc's own, which
are not always correctly rounded, so they are called here through ctypes (loaded on first
use: the library search costs start-up time).  Where libm cannot be loaded the value
is computed in double and rounded, which agrees but for a few inputs in a thousand.
glibc's double functions are Python's ``math`` module's already.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Optional

import numpy as np

F32 = np.float32

_DOUBLE_FALLBACK = {"expf": math.exp, "erff": math.erf, "tanhf": math.tanh, "log1pf": math.log1p,
                    "expm1f": math.expm1}


@functools.lru_cache(maxsize=None)
def _library() -> Any:
    """glibc's libm through ctypes, loaded on first use; None where it cannot be loaded."""
    import ctypes
    try:
        return ctypes.CDLL("libm.so.6")
    except OSError:
        import ctypes.util
        try:
            return ctypes.CDLL(ctypes.util.find_library("m") or "libm.so")
        except OSError:
            return None


@functools.lru_cache(maxsize=None)
def float_function(name: str) -> Optional[Callable[[np.ndarray], Any]]:
    """libm's float function ``name`` (``"expf"``) as a NumPy object ufunc, or None where libm (or
    the function) cannot be loaded."""
    lib = _library()
    fn = getattr(lib, name, None) if lib is not None else None
    if fn is None:
        return None
    import ctypes
    fn.restype = ctypes.c_float
    fn.argtypes = [ctypes.c_float]
    return np.frompyfunc(fn, 1, 1)


@functools.lru_cache(maxsize=None)
def _rounded_double(name: str) -> Callable[[np.ndarray], Any]:
    double = _DOUBLE_FALLBACK[name]
    return np.frompyfunc(lambda v: F32(double(float(v))), 1, 1)


def call(name: str, x: np.ndarray, fallback: Optional[Callable[[np.ndarray], np.ndarray]] = None) -> np.ndarray:
    """glibc's ``name`` (``"expf"``, ``"sinhf"``, ...) of each element of a float32 array, as a scalar
    loop's ``std::exp(float)`` ... calls it.  Where libm cannot be loaded: ``fallback`` (a NumPy
    function) in double, or without one the ``math`` module's function, each rounded to float32."""
    x = np.asarray(x, F32)
    if not x.size:
        return x.copy()
    fn = float_function(name)
    if fn is None:
        if fallback is not None:
            return fallback(x.astype(np.float64)).astype(F32)
        fn = _rounded_double(name)
    return np.asarray(fn(x), dtype=F32).reshape(x.shape)


def call_double(fn: Callable[[float], float], x: np.ndarray) -> np.ndarray:
    """A ``math`` function (glibc's double one) of each element of a float64 array."""
    flat = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
    out = np.fromiter(map(_safe(fn), flat.tolist()), dtype=np.float64, count=flat.size)
    return out.reshape(np.shape(x))


@functools.lru_cache(maxsize=None)
def _safe(fn: Callable[[float], float]) -> Callable[[float], float]:
    """``fn`` returning what C returns where Python raises (overflow: inf, domain: nan)."""
    def value(v: float) -> float:
        try:
            return fn(v)
        except OverflowError:
            return math.inf
        except ValueError:
            return -math.inf if v == -1.0 and fn is math.log1p else math.nan
    return value
