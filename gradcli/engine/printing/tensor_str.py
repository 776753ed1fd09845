"""``repr(tensor)`` as PyTorch writes it, from a NumPy array and a dtype name.

Mirrors torch/_tensor_str.py for dense CPU tensors: ``_str_intern`` (suffixes),
``_tensor_str`` (summarize, then format), the nested/vector/scalar renderers
and ``_add_suffixes`` (which wraps suffixes past the line width).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import TorchError, TorchOverflowError, TorchRuntimeError, TorchTypeError, TorchValueError
from .formatter import Formatter
from .options import OPTIONS, PrintOptions
from .summarize import summarized_data

_NUMPY_DTYPES = {
    "float32": np.float32,
    "float64": np.float64,
    "int64": np.int64,
    "int32": np.int32,
    "bool": np.bool_,
    "uint8": np.uint8,
}
_KINDS = {"float32": "float", "float64": "float", "int64": "int", "int32": "int", "bool": "bool", "uint8": "int"}

_PREFIX = "tensor("


def tensor_repr(
    data: np.ndarray,
    dtype: str,
    *,
    default_dtype: str = "float32",
    requires_grad: bool = False,
    grad_fn: str | None = None,
    tangent: str | None = None,
) -> str:
    """What ``repr(t)`` (and ``str(t)``) prints in PyTorch for this tensor.

    ``dtype`` is "float32", "float64", "int64", "int32", "uint8" or "bool" and ``data``
    holds the values in the matching NumPy dtype (any shape or strides).
    ``default_dtype`` is torch.get_default_dtype() ("float32" or "float64").
    ``grad_fn`` is the backward node's class name, e.g. "MulBackward0";
    ``requires_grad=True`` is only printed when there is no grad_fn.
    ``tangent`` is a dual tensor's tangent as ``f"{tangent}"`` writes it (forward AD).
    The current print options (see ``set_printoptions``) apply.
    """
    if dtype not in _NUMPY_DTYPES:
        raise ValueError(f"unsupported dtype {dtype!r}; expected one of {', '.join(_NUMPY_DTYPES)}")
    try:
        return _repr(data, dtype, default_dtype, requires_grad, grad_fn, tangent)
    except (TypeError, ValueError, OverflowError, RuntimeError) as error:
        if isinstance(error, TorchError) or _usual(OPTIONS):
            raise
        # torch.set_printoptions keeps any value; a bad one fails here, at a print, with the error
        # PyTorch's printer meets -- the script's error (PyTorch's), not a bug of the printer
        raise _AS_TORCH[next(c for c in _AS_TORCH if isinstance(error, c))](str(error)) from None


_AS_TORCH = {TypeError: TorchTypeError, ValueError: TorchValueError, OverflowError: TorchOverflowError,
             RuntimeError: TorchRuntimeError}


def _usual(opts: PrintOptions) -> bool:
    """Whether every option has a value of the kind torch documents (then an error is the printer's)."""
    def count(v: Any) -> bool:
        return type(v) is int and v >= 0
    # (a precision past C's int is one Python's own formatting refuses: "precision too big")
    return (count(opts.precision) and opts.precision < 2**31 and count(opts.edgeitems) and count(opts.linewidth)
            and type(opts.threshold) in (int, float) and opts.threshold == opts.threshold
            and opts.sci_mode in (None, True, False))


def _repr(data: np.ndarray, dtype: str, default_dtype: str, requires_grad: bool, grad_fn: str | None,
          tangent: str | None = None) -> str:
    array = np.asarray(data, dtype=_NUMPY_DTYPES[dtype])
    opts = OPTIONS
    indent = len(_PREFIX)
    suffixes = []
    # Same order as torch, so an invalid option fails at the same step.
    if array.size == 0:
        # Numpy's habit: the shape is shown unless it is (0,); the dtype is
        # shown for ints and bools too, since no element reveals it.
        if array.ndim != 1:
            suffixes.append(f"size={array.shape}")
        if dtype != default_dtype:
            suffixes.append(f"dtype=torch.{dtype}")
        body = "[]"
    else:
        if not opts.edgeitems:
            suffixes.append(f"size={array.shape}")
        if dtype not in (default_dtype, "int64", "bool"):
            suffixes.append(f"dtype=torch.{dtype}")
        body = _tensor_str(array, _KINDS[dtype], indent, opts)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        suffixes.append(f"tangent={tangent}")
    return _add_suffixes(_PREFIX + body, suffixes, indent, opts.linewidth)


def _tensor_str(array: np.ndarray, kind: str, indent: int, opts: PrintOptions) -> str:
    summarize = array.size > opts.threshold
    sample = summarized_data(array, opts.edgeitems) if summarize else array
    formatter = Formatter(sample, kind, opts.precision, opts.sci_mode)
    if array.ndim == 0:
        return formatter.format_all([array.item()])[0]
    # Unsummarized: one tolist() and plain lists from there on. Summarized:
    # stay on (cheap) NumPy views and convert only the edges that are shown.
    rows = array if summarize else array.tolist()
    return _nested_str(rows, array.ndim, indent, summarize, formatter, opts)


def _nested_str(
    rows: Any, dim: int, indent: int, summarize: bool, formatter: Formatter, opts: PrintOptions
) -> str:
    if dim == 1:
        return _vector_str(rows, indent, summarize, formatter, opts)
    edge = opts.edgeitems
    count = len(rows)

    def inner(i: int) -> str:
        return _nested_str(rows[i], dim - 1, indent + 1, summarize, formatter, opts)

    if summarize and count > 2 * edge:
        parts = [inner(i) for i in range(edge)]
        parts.append("...")
        parts += [inner(i) for i in range(count - edge, count)]
    else:
        parts = [inner(i) for i in range(count)]
    # Blocks of a k-d tensor are separated by k-1 line breaks.
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(parts) + "]"


def _vector_str(row: Any, indent: int, summarize: bool, formatter: Formatter, opts: PrintOptions) -> str:
    # Each element takes its width plus ", "; the line count is fixed first.
    element_length = formatter.width + 2
    per_line = max(1, math.floor((opts.linewidth - indent) / element_length))
    edge = opts.edgeitems
    if summarize and not edge:
        items = ["..."]
    elif summarize and len(row) > 2 * edge:
        items = formatter.format_all(_as_list(row[:edge]))
        items.append(" ...")
        items += formatter.format_all(_as_list(row[-edge:]))
    else:
        items = formatter.format_all(_as_list(row))
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _as_list(row: Any) -> list[Any]:
    return row.tolist() if isinstance(row, np.ndarray) else row


def _add_suffixes(text: str, suffixes: list[str], indent: int, linewidth: Any) -> str:
    """Append ``, suffix`` items and the closing parenthesis, wrapping like torch.

    torch measures the last line as (chars after the last newline) + 2, or the
    whole length + 2 when there is no newline; kept as is for identical wraps.
    """
    pieces = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            last_line_len += len(suffix) + 2
    pieces.append(")")
    return "".join(pieces)
