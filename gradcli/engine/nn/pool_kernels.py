"""NumPy kernels of 2-d max and average pooling, bit for bit PyTorch's CPU loops.

The input is (P, H, W): every plane of every sample.  PyTorch visits each
window row by row and keeps the first largest value (a NaN wins over anything,
the last NaN over an earlier one); its average is the window's sum from 0.0 in
that same order, divided by the window's count.  Here every window is a
strided view of the padded input and the loops run over the kernel's
elements only, so the same additions happen in the same order.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

Ints = Sequence[int]


def output_size(size: int, kernel: int, pad: int, stride: int, dilation: int, ceil_mode: bool) -> int:
    """``pooling_output_shape`` (its checks are the caller's)."""
    out = (size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1  # (the last window must start inside the input or its left padding)
    return out


def _windows(a: np.ndarray, kernel: Ints, stride: Ints, dilation: Ints, out: Ints) -> np.ndarray:
    s_p, s_h, s_w = a.strides
    steps = (s_h * stride[0] if out[0] > 1 else 0, s_w * stride[1] if out[1] > 1 else 0,
             s_h * dilation[0] if kernel[0] > 1 else 0, s_w * dilation[1] if kernel[1] > 1 else 0)
    return as_strided(a, (a.shape[0], out[0], out[1], kernel[0], kernel[1]), (s_p, *steps), writeable=False)


def _extent(size: int, kernel: int, pad: int, stride: int, dilation: int, out: int) -> int:
    """How far the padded input must reach for the last window (ceil mode may run past it)."""
    return max(size + 2 * pad, (out - 1) * stride + dilation * (kernel - 1) + 1)


def max_pool(x: np.ndarray, kernel: Ints, stride: Ints, pad: Ints, dilation: Ints, out: Ints) -> tuple:
    """(values, indices into each H*W plane), shapes (P, OH, OW)."""
    p, h, w = x.shape
    eh = _extent(h, kernel[0], pad[0], stride[0], dilation[0], out[0])
    ew = _extent(w, kernel[1], pad[1], stride[1], dilation[1], out[1])
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    padded = np.full((p, eh, ew), low, dtype=x.dtype)
    padded[:, pad[0]:pad[0] + h, pad[1]:pad[1] + w] = x
    valid = np.zeros((1, eh, ew), dtype=bool)
    valid[:, pad[0]:pad[0] + h, pad[1]:pad[1] + w] = True
    # Each padded position's index into the plane (-1 outside it).
    where = np.full((1, eh, ew), -1, dtype=np.int64)
    where[:, pad[0]:pad[0] + h, pad[1]:pad[1] + w] = np.arange(h * w, dtype=np.int64).reshape(h, w)
    win = _windows(padded, kernel, stride, dilation, out).reshape(p, out[0], out[1], kernel[0] * kernel[1])
    spots = _windows(where, kernel, stride, dilation, out).reshape(1, out[0], out[1], -1)
    first = np.argmax(win, axis=-1)  # (the first largest, as PyTorch's `val > maxval` keeps it)
    if x.dtype.kind == "f":
        nans = np.isnan(win)
        if nans.any():
            last_nan = nans.shape[-1] - 1 - np.argmax(nans[..., ::-1], axis=-1)
            first = np.where(nans.any(axis=-1), last_nan, first)
    values = np.take_along_axis(win, first[..., None], axis=-1)[..., 0]
    # A window whose values are all the lowest (-inf): PyTorch keeps its first real position.
    lowest = values == low
    if lowest.any():
        first_valid = np.argmax(_windows(valid, kernel, stride, dilation, out).reshape(1, out[0], out[1], -1), -1)
        first = np.where(lowest, first_valid, first)
    spots = np.broadcast_to(spots, (p,) + spots.shape[1:])
    indices = np.take_along_axis(spots, first[..., None], axis=-1)[..., 0]
    return np.ascontiguousarray(values), indices


def max_pool_backward(g: np.ndarray, indices: np.ndarray, in_size: Ints) -> np.ndarray:
    """Each output's gradient added at its index, outputs in order (PyTorch's loop)."""
    p = g.shape[0]
    plane = in_size[0] * in_size[1]
    out = np.zeros(p * plane, dtype=g.dtype)
    per_plane = indices[0].size if p else 0
    flat = (indices.reshape(p, per_plane) + (np.arange(p, dtype=np.int64) * plane)[:, None]).reshape(-1)
    np.add.at(out, flat, np.ascontiguousarray(g).reshape(-1))
    return out.reshape((p,) + tuple(in_size))


def _counts(size: int, kernel: int, pad: int, stride: int, out: int, include_pad: bool) -> np.ndarray:
    """Each window's length along one dim: clipped at the padding's end, or also at the input's."""
    start = np.arange(out, dtype=np.int64) * stride - pad
    end = np.minimum(start + kernel, size + pad)
    if include_pad:
        return end - start
    return np.minimum(end, size) - np.maximum(start, 0)


def avg_divisors(in_size: Ints, kernel: Ints, stride: Ints, pad: Ints, out: Ints, include_pad: bool,
                 divisor: int | None) -> np.ndarray:
    if divisor is not None:
        return np.full((out[0], out[1]), divisor, dtype=np.int64)
    rows = _counts(in_size[0], kernel[0], pad[0], stride[0], out[0], include_pad)
    cols = _counts(in_size[1], kernel[1], pad[1], stride[1], out[1], include_pad)
    return rows[:, None] * cols[None, :]


def avg_pool(x: np.ndarray, kernel: Ints, stride: Ints, pad: Ints, out: Ints, divisors: np.ndarray) -> np.ndarray:
    p, h, w = x.shape
    eh = _extent(h, kernel[0], pad[0], stride[0], 1, out[0])
    ew = _extent(w, kernel[1], pad[1], stride[1], 1, out[1])
    padded = np.zeros((p, eh, ew), dtype=x.dtype)
    padded[:, pad[0]:pad[0] + h, pad[1]:pad[1] + w] = x
    total = np.zeros((p, out[0], out[1]), dtype=x.dtype)
    span_h, span_w = stride[0] * (out[0] - 1) + 1, stride[1] * (out[1] - 1) + 1
    for i in range(kernel[0]):  # (adding a padded 0.0 changes no sum that starts from 0.0)
        for j in range(kernel[1]):
            total += padded[:, i:i + span_h:stride[0], j:j + span_w:stride[1]]
    if x.dtype.kind == "f":
        return total / divisors.astype(x.dtype)
    return _c_division(total, divisors)


def _c_division(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C's integer division (towards zero)."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q).astype(a.dtype)


def avg_pool_backward(g: np.ndarray, in_size: Ints, kernel: Ints, stride: Ints, pad: Ints,
                      divisors: np.ndarray) -> np.ndarray:
    """Each output's share added over its window, outputs in row-major order as PyTorch adds them
    (the kernel's elements visited backwards, which is that order for every input pixel)."""
    p, oh, ow = g.shape
    h, w = in_size
    eh = _extent(h, kernel[0], pad[0], stride[0], 1, oh)
    ew = _extent(w, kernel[1], pad[1], stride[1], 1, ow)
    if g.dtype.kind == "f":
        share = g / divisors.astype(g.dtype)
    else:
        share = _c_division(g, divisors)
    out = np.zeros((p, eh, ew), dtype=g.dtype)
    span_h, span_w = stride[0] * (oh - 1) + 1, stride[1] * (ow - 1) + 1
    for i in reversed(range(kernel[0])):
        for j in reversed(range(kernel[1])):
            out[:, i:i + span_h:stride[0], j:j + span_w:stride[1]] += share
    return np.ascontiguousarray(out[:, pad[0]:pad[0] + h, pad[1]:pad[1] + w])
