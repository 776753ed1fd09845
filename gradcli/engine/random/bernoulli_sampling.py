"""Bernoulli draws and dropout's noise (ATen's bernoulli_scalar_kernel)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import draw_order
from .generator import Generator, resolve


def _tensor_p_values(p: np.ndarray, gen: Generator) -> np.ndarray:
    """``u < p`` per element of ``p`` (already in iteration order, 1-D).

    float64 ``p`` compares a float64 uniform (2 draws); any other float dtype
    compares a float32 uniform (1 draw) with ``p`` converted to float32.
    """
    if p.dtype == np.float64:
        return gen.uniform_f64(p.size) < p
    return gen.uniform_f32(p.size) < p.astype(np.float32)


def bernoulli(
    p: float | np.ndarray,
    shape: tuple[int, ...] | None = None,
    dtype: Any = None,
    *,
    generator: Generator | None = None,
) -> np.ndarray:
    """A new C-contiguous array of Bernoulli draws.

    - ``bernoulli(p_array)``: ``torch.bernoulli(p)``, with p's shape and dtype.
      Drawn in row-major order of the result (torch allocates it contiguous,
      whatever p's strides).
    - ``bernoulli(p_float, shape, dtype)``: ``torch.empty(shape,
      dtype=).bernoulli_(p)``, i.e. ``torch.bernoulli(x, p=p)`` for a
      contiguous ``x`` (for a strided ``x`` use ``bernoulli_(empty_like(x), p)``).

    The caller checks ``0 <= p <= 1``: for an array torch says ``RuntimeError:
    Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this
    error message be improved?  If so, please report an enhancement request
    to PyTorch.)``; for a float see ``bernoulli_``.
    """
    if isinstance(p, np.ndarray):
        out = np.empty(p.shape if shape is None else shape, dtype=dtype or p.dtype)
    else:
        if shape is None:
            raise TypeError("bernoulli with a float p needs a shape")
        out = np.empty(shape, dtype=dtype or np.float32)
    bernoulli_(out, p, generator=generator)
    return out


def bernoulli_(
    out: np.ndarray, p: float | np.ndarray, *, generator: Generator | None = None
) -> None:
    """``Tensor.bernoulli_(p)`` in memory order of ``out``; any output dtype.

    - ``p`` a Python float: a float64 uniform (2 draws) per element, whatever
      ``out``'s dtype (torch's ``bernoulli_(double)``).  The caller checks the
      range: ``RuntimeError: bernoulli_ expects p to be in [0, 1], but got p=1.5``.
    - ``p`` an array: broadcast to ``out``'s shape; the uniform's width follows
      ``p``'s dtype (see ``_tensor_p_values``).

    Also backs ``torch.bernoulli(x, p=0.3)`` (``out`` allocated like ``x``).
    """
    if out.size == 0:
        return
    gen = resolve(generator)
    if isinstance(p, np.ndarray):
        # Walk out in memory order, and p along the same axis permutation.
        axes = draw_order.memory_order_axes(out)
        view = out.transpose(axes)
        p_walk = np.broadcast_to(p, out.shape).transpose(axes)
        view[...] = _tensor_p_values(p_walk.reshape(-1), gen).reshape(view.shape)
    else:
        draw_order.fill(out, gen.uniform_f64(out.size) < float(p))


def dropout_noise(
    x: np.ndarray, p: float, *, generator: Generator | None = None
) -> np.ndarray | None:
    """The noise ``F.dropout(x, p, training=True)`` multiplies ``x`` by.

    Returns ``None`` for ``p == 0`` (torch returns ``x`` itself and draws
    nothing), zeros for ``p == 1`` (no draws either), and otherwise
    ``bernoulli_(empty_like(x), 1 - p) / (1 - p)``: a float64 uniform per
    element in x's memory order, the scale rounded to x's dtype first.
    The result has x's dtype and strides; the output is ``x * noise`` and its
    gradient ``grad * noise``.  An empty ``x`` draws nothing.  The caller
    checks ``p``: ``ValueError: dropout probability has to be between 0 and 1,
    but got 1.5``.
    """
    if p == 0:
        return None
    noise = draw_order.empty_like(x)
    if p == 1:
        noise[...] = 0
        return noise
    keep = 1.0 - p
    bernoulli_(noise, keep, generator=generator)
    noise /= np.asarray(keep, dtype=noise.dtype)
    return noise

