"""PyTorch's batch norm for inputs (or incoming gradients) that are not contiguous (``Normalization.cpp``).

There PyTorch leaves its vectorised kernels for per-channel loops over a
TensorIterator (a serial walk in the iterator's order of dimensions) and
plain scalar arithmetic, compiled without fused multiply-adds:

* statistics: ``mean`` is ``at::mean`` over all but the channel dimension; the
  variance sum is accumulated in double from the double ``mean``; the running
  statistics are updated in double (``momentum`` a double) and rounded.
* output: ``((x - mean) * invstd) * w + b``.
* backward: ``sum`` is ``at::sum`` of the gradient; ``dotp`` accumulates the float
  products ``(x - mean) * dy`` in double; ``k = float(dotp) * invstd * invstd / n``,
  ``dx = (dy - sum/n - (x - mean) * k) * invstd * w`` (eval: ``dy * invstd * w`` with
  ``invstd`` from double), ``grad_weight = float(dotp * invstd)``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..kernels.summation import reorder_dimensions


def serial_order(operands: Sequence[np.ndarray]) -> list[int]:
    """The dimensions other than 1 (the channel), outermost first, in which a serial TensorIterator
    over one channel of ``operands`` walks (``reorder_dimensions``: smallest stride innermost)."""
    shape = operands[0].shape
    perm = [d for d in reversed(range(len(shape))) if d != 1]  # innermost first
    return list(reversed(reorder_dimensions(shape, [a.strides for a in operands], perm)))


def per_channel(a: np.ndarray, order: list[int]) -> np.ndarray:
    """(C, n): each channel's elements in the walk's order."""
    return np.transpose(a, [1] + order).reshape(a.shape[1], -1)


def _sequential_sum(values: np.ndarray) -> np.ndarray:
    total = np.zeros(values.shape[0], np.float64)
    for j in range(values.shape[1]):
        total = total + values[:, j]
    return total


def train_statistics(x: np.ndarray, mean: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(invstd, var_sum in double) of a channel-wise walk, given ``at::mean``'s ``mean``."""
    values = per_channel(x, serial_order([x])).astype(np.float64)
    centred = values - mean.astype(np.float64)[:, None]
    var_sum = _sequential_sum(centred * centred)
    count = values.shape[1]
    with np.errstate(all="ignore"):
        invstd = (1.0 / np.sqrt(var_sum / count + eps)).astype(x.dtype)
    return invstd, var_sum


def update_running(running_mean: np.ndarray | None, running_var: np.ndarray | None, mean: np.ndarray,
                   var_sum: np.ndarray, count: int, momentum: float) -> None:
    with np.errstate(all="ignore"):
        if running_mean is not None:
            running_mean[...] = momentum * mean.astype(np.float64) + (1 - momentum) * running_mean.astype(np.float64)
        if running_var is not None:
            running_var[...] = momentum * (var_sum / (count - 1)) + (1 - momentum) * running_var.astype(np.float64)


def _channel(v: np.ndarray, ndim: int) -> np.ndarray:
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def transform(x: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, mean: np.ndarray,
              invstd: np.ndarray) -> np.ndarray:
    """``((x - mean) * invstd) * w + b``, elementwise in the input's dtype."""
    f = x.dtype.type
    w = f(1) if weight is None else _channel(weight, x.ndim)
    b = f(0) if bias is None else _channel(bias, x.ndim)
    # (into a contiguous output, as PyTorch's empty_like(input, suggest_memory_format()))
    return np.ascontiguousarray(((x - _channel(mean, x.ndim)) * _channel(invstd, x.ndim)) * w + b)


def backward(dy: np.ndarray, x: np.ndarray, sums: np.ndarray, weight: np.ndarray | None, mean: np.ndarray,
             invstd: np.ndarray, train: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(grad_input, grad_weight, grad_bias); ``sums`` is ``at::sum`` of ``dy`` per channel."""
    f = x.dtype.type
    order = serial_order([x, dy])
    centred = per_channel(x, order) - mean[:, None]
    dot = _sequential_sum(centred * per_channel(dy, order))
    count = centred.shape[1]
    w = f(1) if weight is None else _channel(weight, x.ndim)
    inv = _channel(invstd, x.ndim)
    with np.errstate(all="ignore"):
        if train:
            k = dot.astype(x.dtype) * invstd * invstd / f(count)
            grad_mean = sums / f(count)
            gi = (x - _channel(mean, x.ndim)) * _channel(k, x.ndim)
            dx = (dy - _channel(grad_mean, x.ndim) - gi) * inv * w
        else:
            dx = dy * inv * w
        return dx, (dot * invstd.astype(np.float64)).astype(x.dtype), sums


def backward_eval_invstd(running_var: np.ndarray, eps: float) -> np.ndarray:
    with np.errstate(all="ignore"):
        return (1.0 / np.sqrt(running_var.astype(np.float64) + eps)).astype(running_var.dtype)
