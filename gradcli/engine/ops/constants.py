"""Constant tensors that forwards and gradient formulas make: no graph inputs, no history."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor


def zeros_like(t: Tensor) -> Tensor:
    if t._batched:   # (a batched gradient, vmap over a backward pass: a batch of zeros)
        from ..batching.batched_tensor import physical, wrapped_as
        return wrapped_as(zeros_like(physical(t)), t)
    return Tensor._make(np.zeros_like(t._data), t._dtype)


def ones_like(t: Tensor) -> Tensor:
    return Tensor._make(np.ones_like(t._data), t._dtype)


def zero_scalar(g: Tensor) -> Tensor:
    """``at::zeros({}, grad.options())``: a 0-dim zero of ``g``'s dtype."""
    return Tensor._make(np.zeros((), dtype=g._dtype.np), g._dtype)
