"""The elements a summarized print shows (torch's ``get_summarized_data``).

The formatter is built from these only, so a huge tensor costs no more than
the handful of elements that end up on screen.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def summarized_data(data: np.ndarray, edgeitems: Any) -> np.ndarray:
    """The first and last ``edgeitems`` entries along every long axis."""
    if type(edgeitems) is int and edgeitems > 0 and data.ndim >= 2:
        return _take_edges(data, edgeitems)
    return _summarize_like_torch(data, edgeitems)


def _take_edges(data: np.ndarray, edgeitems: int) -> np.ndarray:
    # Every sub-tensor at one depth has the same shape, so torch's recursive
    # choice is the same per axis: cut each long axis once. Basic slices are
    # views, so only the kept edges are ever copied (np.take would copy all).
    for axis, size in enumerate(data.shape):
        if size > 2 * edgeitems:
            before = (slice(None),) * axis
            head = data[before + (slice(0, edgeitems),)]
            tail = data[before + (slice(size - edgeitems, size),)]
            data = np.concatenate((head, tail), axis=axis)
    return data


def _summarize_like_torch(data: np.ndarray, edgeitems: Any) -> np.ndarray:
    """Step by step as torch does, for 1-d data and for odd ``edgeitems``.

    Odd values (0, negative, float, bool, ...) then behave, and fail, as in
    torch: slicing with a float raises Python's TypeError, a negative count
    leaves nothing to stack.
    """
    if data.ndim == 0:
        return data
    size = data.shape[0]
    if data.ndim == 1:
        if size > 2 * edgeitems:
            return np.concatenate((data[:edgeitems], data[-edgeitems:]))
        return data
    if not edgeitems:
        return np.empty((0,) * data.ndim, dtype=data.dtype)
    if size > 2 * edgeitems:
        rows = [data[i] for i in range(edgeitems)]
        rows += [data[i] for i in range(size - edgeitems, size)]
    else:
        rows = [data[i] for i in range(size)]
    parts = [_summarize_like_torch(row, edgeitems) for row in rows]
    if not parts:
        # torch.stack's own error, which torch raises for a negative edgeitems.
        raise RuntimeError("stack expects a non-empty TensorList")
    return np.stack(parts)
