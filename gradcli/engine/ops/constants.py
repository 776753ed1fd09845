"""Constant tensors that forwards and gradient formulas make: no graph inputs, no history."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor


def zeros_like(t: Tensor) -> Tensor:
    return Tensor._make(np.zeros_like(t._data), t._dtype)


def ones_like(t: Tensor) -> Tensor:
    return Tensor._make(np.ones_like(t._data), t._dtype)


def zero_scalar(g: Tensor) -> Tensor:
    """``at::zeros({}, grad.options())``: a 0-dim zero of ``g``'s dtype."""
    return Tensor._make(np.zeros((), dtype=g._data.dtype), g._dtype)
