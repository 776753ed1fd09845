"""Uniform floats: ``torch.rand``, ``Tensor.uniform_``, ``rand_like`` (ATen's uniform kernel).

Each element takes fresh draws in memory order: one 32-bit draw for float32,
two for float64.  Bounds go through the AVX2 kernel's fused multiply-add.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import draw_order
from ..kernels.exactfp import fma32, fma64
from .generator import Generator, resolve

FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def float_dtype(dtype: Any) -> np.dtype:
    """float32 or float64, else TypeError (other dtypes are not reproduced)."""
    dt = np.dtype(dtype)
    if dt not in FLOAT_DTYPES:
        raise TypeError(f"gradcli's random engine does not sample {dt}")
    return dt


def uniform_values(n: int, dtype: Any, low: float, high: float, gen: Generator) -> np.ndarray:
    """``n`` values of ``uniform_(low, high)`` in draw order (1-D)."""
    dt = float_dtype(dtype)
    if dt == np.float32:
        x = gen.uniform_f32(n)
        if low == 0.0 and high == 1.0:
            return x  # fma(x, 1, 0) == x for x in [0, 1)
        a, b = np.float32(low), np.float32(high)
        d = np.float32(b - a)
        v = fma32(x, d, a)
    else:
        x = gen.uniform_f64(n)
        if low == 0.0 and high == 1.0:
            return x
        a, b = float(low), float(high)
        v = fma64(x, np.float64(b - a), np.float64(a))
    # torch keeps the range half-open: a value that rounds up to `high` is `low`
    v[v == b] = a
    return v


def uniform(
    shape: tuple[int, ...],
    dtype: Any = np.float32,
    low: float = 0.0,
    high: float = 1.0,
    *,
    generator: Generator | None = None,
) -> np.ndarray:
    """A new C-contiguous array of ``uniform_(low, high)`` values.

    Backs ``torch.rand(size, dtype=)`` (low=0, high=1) and
    ``torch.empty(size, dtype=).uniform_(low, high)``.  ``dtype`` is float32
    or float64.  Draws: 1 per float32 element, 2 per float64 element, none for
    an empty shape.

    The caller validates bounds; torch's messages (with ``{}`` as torch formats
    doubles, e.g. ``2``, ``3e+38``):

    - ``RuntimeError: uniform_ expects to return a [from, to) range, but found
      from=2 > to=1``
    - ``RuntimeError: from is out of bounds for float`` / ``to is out of
      bounds for float`` (``double`` for float64) when a bound exceeds the
      dtype's finite range
    - ``RuntimeError: uniform_ expects to-from <= std::numeric_limits<Float>::max(),
      but found to=3e+38 and from=-3e+38 which result in to-from to exceed the limit``
    - integer dtypes: ``NotImplementedError: "check_uniform_bounds" not
      implemented for 'Long'``
    """
    out = np.empty(shape, dtype=float_dtype(dtype))
    uniform_(out, low, high, generator=generator)
    return out


def uniform_(
    out: np.ndarray, low: float = 0.0, high: float = 1.0, *, generator: Generator | None = None
) -> None:
    """Fill ``out`` (float32/float64) in place, like ``Tensor.uniform_``.

    Values go in memory order (``draw_order.memory_order_view``), so a transposed
    view gets its k-th draw at storage offset k, as in torch.  For
    ``rand_like(x)`` allocate ``out`` with x's strides
    (``np.empty_like(x, order="K")``) and call this.
    """
    if out.size == 0:
        return
    values = uniform_values(out.size, out.dtype, low, high, resolve(generator))
    draw_order.fill(out, values)
