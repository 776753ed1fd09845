"""Gradients as the trace writes them: the values when there are few, shape and summary otherwise."""

from __future__ import annotations

from typing import Any

import numpy as np

# A tensor of at most this many elements is written out in full.
SMALL = 8


def number(value: Any, digits: int = 4) -> str:
    """One element, short: ``4.5``, ``0.25``, ``1024``, ``1e-05``, ``nan``, ``True``."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (complex, np.complexfloating)):
        return f"{complex(value):.{digits}g}".strip("()")
    text = f"{float(value):.{digits}g}"
    return "0" if text == "-0" else text


def nested(array: np.ndarray, digits: int = 4) -> str:
    """``[[4.5, 4.5], [4.5, 4.5]]`` (a 0-d array is its number)."""
    if array.ndim == 0:
        return number(array.item(), digits)
    return "[" + ", ".join(nested(part, digits) for part in array) + "]"


def shape_text(shape: Any) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def tensor_text(tensor: Any) -> str:
    """A gradient (an engine Tensor, or None): its values, or its shape and a summary."""
    if tensor is None:
        return "None"
    array = tensor._data
    if array.size <= SMALL:
        return nested(array)
    dtype = str(tensor._dtype).removeprefix("torch.")
    summary = f"shape {shape_text(array.shape)} {dtype}"
    if array.dtype.kind in "fiu":
        finite = array[np.isfinite(array)] if array.dtype.kind == "f" else array
        if finite.size:
            summary += (f", min {number(finite.min())}, mean {number(finite.mean(dtype=np.float64))}, "
                        f"max {number(finite.max())}")
        if finite.size < array.size:
            summary += f", {array.size - finite.size} not finite"
    first = ", ".join(number(v) for v in array.flat[:4])
    return f"{summary} (first {first}, ...)"


def index_text(shape: tuple, flat_index: int) -> str:
    """Element ``flat_index`` of a tensor of ``shape`` as a subscript: ``[0, 1]`` (``""`` for a 0-d one)."""
    if not shape:
        return ""
    return "[" + ", ".join(str(i) for i in np.unravel_index(flat_index, shape)) + "]"
