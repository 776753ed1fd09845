"""Forward helpers shared by the pointwise ops: dtype promotion and broadcasting.

Every forward computes in the result dtype PyTorch would use (float32 math
stays float32), after checking that the shapes broadcast with PyTorch's
message rather than NumPy's.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..dtypes import DType
from ..tensor import Tensor
from ..shape_rules import broadcast_shapes, numel
from .. import budget as limits

# PyTorch gives inf/nan silently where NumPy would warn.
np.seterr(all="ignore")


def arr(t: Tensor, dt: DType) -> np.ndarray:
    """``t``'s data in dtype ``dt`` (no copy when it already is)."""
    a = t._data
    if a.dtype == dt.np:
        return a
    if a.size * dt.itemsize > limits.watch_above:   # (an expanded view converts to a full copy)
        limits.check_count(a.size, dt.itemsize)
    return a.astype(dt.np)


def float_dtype(t: Tensor) -> DType:
    """The dtype a float-only op computes in: integers and bools go to the default float."""
    return t._dtype if t._dtype.is_floating_point else dtypes.get_default_dtype()


def promote(*tensors: Tensor) -> DType:
    if len(tensors) == 2:
        return dtypes.pair_result_type(tensors[0], tensors[1])
    return dtypes.result_type(list(tensors))


def check_broadcast(*tensors: Tensor) -> None:
    shape = tensors[0]._data.shape
    for t in tensors[1:]:
        if t._data.shape != shape:
            shape = broadcast_shapes(shape, t._data.shape)


def binary_arrays(a: Tensor, b: Tensor, dt: DType | None = None) -> tuple[np.ndarray, np.ndarray, DType]:
    """Both operands as arrays of their common dtype (or ``dt``), shapes checked."""
    x, y = a._data, b._data
    count = x.size
    if x.shape != y.shape:
        count = numel(broadcast_shapes(x.shape, y.shape))
    rt = dtypes.pair_result_type(a, b) if dt is None else dt
    if count * rt.itemsize > limits.watch_above:  # the result's size, before the kernel makes it
        limits.check_count(count, rt.itemsize)
    want = rt.np
    return (x if x.dtype == want else _converted(x, want)), (y if y.dtype == want else _converted(y, want)), rt


def _converted(a: np.ndarray, want: np.dtype) -> np.ndarray:
    """``a`` in dtype ``want``.  An expanded operand is converted before it is broadcast again:
    ``astype`` would lay its copy out with the broadcast dims innermost, and NumPy's loops give the
    result the layout of their operands, where PyTorch, which converts inside its iterator, lays
    out the result by the operands' own strides (``x.expand(2, -1, -1) == 0`` plus a float: the
    result is contiguous).  (Read-only: the operands of a pointwise kernel are only read.)"""
    if 0 in a.strides:
        compact = a[tuple(slice(0, 1) if st == 0 else slice(None) for st in a.strides)]
        return np.broadcast_to(compact.astype(want), a.shape)
    return a.astype(want)
