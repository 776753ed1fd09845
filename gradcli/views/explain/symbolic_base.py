"""What the symbolic forms are made of: the form type, object arrays of SymPy values, folds over axes."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import sympy as sp

Args = dict


@dataclass(frozen=True)
class SymbolicOp:
    compute: Callable[[Args], Any]
    pointwise: bool = False
    show: Callable[[Args], str] | None = None   # how an equation writes it (arguments as text)


class NoSymbolicForm(Exception):
    """This use of the op has no symbolic form here (an overload or argument the table lacks)."""


# -- arrays of expressions -----------------------------------------------------------------------

def number(value: Any) -> Any:
    """A Python or NumPy number as SymPy writes it: ``2``, ``1/10`` (for 0.1), ``0.123456789``."""
    if isinstance(value, (bool, np.bool_)):
        return sp.Integer(int(value))
    if isinstance(value, (int, np.integer)):
        return sp.Integer(int(value))
    if isinstance(value, sp.Basic):
        return value
    value = value if isinstance(value, np.floating) else float(value)
    if value != value:
        return sp.nan
    if math.isinf(value):
        return sp.oo if value > 0 else -sp.oo
    if float(value) == int(value) and abs(value) < 2 ** 53:
        return sp.Integer(int(value))
    text = repr(value) if not isinstance(value, np.floating) else repr(value.item() if value.dtype == np.float64
                                                                        else value)
    text = text.removeprefix("np.float32(").removeprefix("np.float16(").rstrip(")")
    digits = text.lower().split("e")[0].replace("-", "").replace(".", "").lstrip("0")
    if len(digits) <= 6:
        return sp.Rational(text)   # a short decimal, as the script wrote it
    return sp.Float(float(value), 17)


def obj(value: Any) -> np.ndarray:
    """``value`` (an expression, a number, an array) as an object array of SymPy values."""
    if isinstance(value, np.ndarray) and value.dtype == object:
        return value
    if isinstance(value, np.ndarray):
        out = np.empty(value.shape, dtype=object)
        for idx, v in np.ndenumerate(value):
            out[idx] = number(v)
        return out
    out = np.empty((), dtype=object)
    out[()] = value if isinstance(value, sp.Basic) else number(value)
    return out


def each(function: Callable, *arrays: Any) -> np.ndarray:
    """``function`` element by element over the broadcast arrays."""
    arrays = [obj(a) for a in arrays]   # (an integer or bool array too: its numbers as SymPy's)
    return obj(np.frompyfunc(function, len(arrays), 1)(*arrays))


def pointwise_form(function: Callable, *names: str) -> SymbolicOp:
    """A pointwise form over the tensor arguments ``names`` (default ``self``)."""
    names = names or ("self",)
    return SymbolicOp(lambda b: each(function, *[b[n] for n in names]), pointwise=True)


def scalar_argument(b: Args, name: str, default: Any = None) -> Any:
    value = b.get(name, default)
    if isinstance(value, np.ndarray):
        return value[()] if value.ndim == 0 else value
    return None if value is None else number(value)


# -- folds over axes --------------------------------------------------------------------------------

def axes_of(dim: Any, ndim: int) -> tuple[int, ...]:
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if ndim == 0:
        return ()
    return tuple(sorted({d % ndim for d in dims}))


def reduce_axes(function: Callable, a: np.ndarray, dim: Any, keepdim: bool) -> np.ndarray:
    """``function`` (of two values) folded over the axes ``dim``."""
    axes = axes_of(dim, a.ndim)
    out = a
    for axis in reversed(axes):
        out = np.frompyfunc(function, 2, 1).reduce(out, axis=axis, keepdims=keepdim)
        out = obj(out) if not isinstance(out, np.ndarray) else out
    return obj(out)
