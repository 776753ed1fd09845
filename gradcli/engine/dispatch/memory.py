"""The memory an in-place write touches: PyTorch's overlap checks, and the write itself.

NumPy arrays carry real strides, so a tensor that repeats memory (an expanded
view) and two tensors that share part of it can be told exactly as
PyTorch's ``has_internal_overlap`` and ``get_overlap_status`` tell them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import TorchRuntimeError
from ..tensor import Tensor

INTERNAL_OVERLAP_MESSAGE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation.")
PARTIAL_OVERLAP_MESSAGE = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
    "single memory location. Please clone() the tensor before performing the operation.")


def same_memory(a: Tensor, b: Any) -> bool:
    """Whether ``b`` is a tensor over exactly ``a``'s elements (``x.copy_(x)``)."""
    if not isinstance(b, Tensor):
        return False
    x, y = a._data, b._data
    return (x.__array_interface__["data"][0] == y.__array_interface__["data"][0] and x.shape == y.shape
            and x.strides == y.strides)


def repeats(a: np.ndarray) -> bool:
    """Whether several elements of ``a`` share memory (a stride 0 over more than one element)."""
    return a.size > 0 and any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape))


def _dense(a: np.ndarray) -> bool:
    """PyTorch's is_non_overlapping_and_dense: the strides are a permutation of contiguous ones."""
    dims = sorted((st, n) for st, n in zip(a.strides, a.shape) if n != 1)
    expected = a.itemsize
    for st, n in dims:
        if st != expected:
            return False
        expected *= n
    return True


def overlap_status(a: np.ndarray, b: np.ndarray) -> str:
    """PyTorch's get_overlap_status: "full", "partial", "no", or "too hard" (not dense)."""
    if a.size == 0 or b.size == 0 or not np.may_share_memory(a, b):
        return "no"
    if not _dense(a) or not _dense(b):
        return "too hard"
    a0, b0 = a.__array_interface__["data"][0], b.__array_interface__["data"][0]
    a1, b1 = a0 + a.size * a.itemsize, b0 + b.size * b.itemsize
    if (a0, a1) == (b0, b1):
        return "full" if a.strides == b.strides else "partial"
    return "partial" if a0 < b1 and b0 < a1 else "no"


def check_no_partial_overlap(target: Tensor, inputs: list) -> None:
    a = target._data
    for t in inputs:
        if t is not target and overlap_status(a, t._data) == "partial":
            raise TorchRuntimeError(PARTIAL_OVERLAP_MESSAGE)


def write_into(target: Tensor, array: np.ndarray, allow_overlap: bool = False) -> None:
    """Write ``array`` into ``target``'s memory and bump its version."""
    data = target._data
    if data.size == 0:
        target._vc.value += 1  # nothing to write, not even into an expanded tensor
        return
    if not data.flags.writeable and allow_overlap:
        alias = _writable_alias(data)
        if alias is not None:
            # only the elements that change are written, as the kernel writes only what it
            # indexes: writing all would let an untouched copy overwrite a shared element
            changed = ~((alias == array) | (np.isnan(alias) & np.isnan(array)) if alias.dtype.kind == "f"
                        else alias == array)
            alias[changed] = np.broadcast_to(array, alias.shape)[changed]
            target._vc.value += 1
            return
    if not data.flags.writeable:
        raise TorchRuntimeError(INTERNAL_OVERLAP_MESSAGE)
    np.copyto(data, array, casting="unsafe")
    target._vc.value += 1


def _writable_alias(a: np.ndarray) -> np.ndarray | None:
    """A writable array on the same memory as the read-only ``a`` (an expanded tensor)."""
    root = a
    while True:  # (as_strided's result hangs on its array through a helper object)
        base = getattr(root, "base", None)
        if not isinstance(base, np.ndarray):
            base = getattr(base, "base", None)
        if not isinstance(base, np.ndarray):
            break
        root = base
    if not root.flags.writeable or not root.flags.c_contiguous:
        return None
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return np.ndarray(a.shape, a.dtype, buffer=root, offset=offset, strides=a.strides)
