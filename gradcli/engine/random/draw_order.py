"""Which element gets the k-th draw.

torch's random kernels walk their output with TensorIterator, which orders
dimensions by stride: the k-th value goes to the k-th element in memory
as PyTorch's CPU kernels do.  NumPy arrays carry real strides, so the engine reads the
order off ``out.strides``; a caller mirroring torch's layout (say, a
transposed tensor) passes an array with the same stride pattern, e.g.
``np.empty_like(x, order="K")``.
"""

from __future__ import annotations

import numpy as np

from ..kernels.summation import reorder_dimensions


def memory_order_axes(out: np.ndarray) -> list[int]:
    """Axes by decreasing ``|stride|``: the walk order of TensorIterator.

    Ties keep their order; torch has no negative strides, and NumPy ones are
    walked by increasing index.
    """
    return sorted(range(out.ndim), key=lambda d: -abs(out.strides[d]))


def memory_order_view(out: np.ndarray) -> np.ndarray:
    """A view of ``out`` whose C-order walk visits elements in memory order."""
    if out.ndim < 2 or out.flags.c_contiguous:
        return out
    return out.transpose(memory_order_axes(out))


def fill(out: np.ndarray, values: np.ndarray) -> None:
    """Store flat ``values`` into ``out`` in memory order (with a cast)."""
    view = memory_order_view(out)
    view[...] = values.reshape(view.shape)


def is_contiguous(out: np.ndarray) -> bool:
    """torch's ``is_contiguous()``: row-major (sizes-1 dims don't count)."""
    return bool(out.flags.c_contiguous)


def empty_like(x: np.ndarray, dtype: object = None) -> np.ndarray:
    """torch's ``empty_like(x)`` layout: x's stride order, densely packed.

    A dense input (contiguous, transposed, channels-last) keeps its strides, so
    ``rand_like(x.t())`` fills in x's storage order; any other keeps the order of
    ``infer_dense_strides`` (ATen's TensorUtils.cpp): dims sorted by stride with a
    stable insertion sort in which a 0 stride (an expanded dim) compares as a tie,
    so ``rand_like(v.expand(4, 3))`` is row-major like torch's and not NumPy's
    column-major ``empty_like(order="K")``.
    """
    innermost_first = list(range(x.ndim - 1, -1, -1))
    perm = reorder_dimensions(x.shape, ([abs(s) for s in x.strides],), innermost_first)
    outer_first = perm[::-1]
    packed = np.empty([x.shape[d] for d in outer_first], dtype=x.dtype if dtype is None else dtype)
    return packed.transpose(np.argsort(outer_first))
