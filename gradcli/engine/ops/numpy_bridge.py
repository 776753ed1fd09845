"""The bridge with NumPy, as PyTorch's tutorials teach it: tensors and ndarrays that share memory.

``t.numpy()`` is an ndarray over the tensor's own memory and
``torch.from_numpy(a)`` a tensor over the array's: a change through either
shows in the other.  ``torch.tensor(a)`` copies (dtype from the array), and
``np.array(t)`` / ``np.asarray(t)`` read a tensor through ``__array__``.
A tensor's ``_data`` *is* an ndarray, so sharing is just handing it over.

Operators with an ndarray are NumPy's, as in PyTorch: ``t + n`` is refused by
the tensor, so NumPy computes ``np.add(t, n)`` over ``t.__array__()`` (which
refuses a tensor that requires grad) and hands the result back through
``__array_wrap__`` as a tensor -- NumPy's dtype promotion, no graph.  The
tensor's high ``__array_priority__`` makes ``n - t`` NumPy's refusal.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dispatch.publish import Catalog
from ..dtypes import of_numpy
from ..errors import TorchRuntimeError, TorchTypeError, TorchValueError
from ..tensor import Tensor
from ..warnings import warn_once

CATALOG = Catalog()

_NOT_WRITABLE = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This means writing "
    "to this tensor will result in undefined behavior. You may want to copy the array to protect its data or make "
    "it writable before converting it to a tensor. This type of warning will be suppressed for the rest of this "
    "program. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:213.)")


def from_numpy(array: Any) -> Tensor:
    """``torch.from_numpy(a)``: a tensor over ``a``'s memory."""
    if not isinstance(array, np.ndarray):
        raise TorchTypeError(f"expected np.ndarray (got {_type_name(array)})")
    dtype = of_numpy(array.dtype)
    if any(stride < 0 for stride in array.strides):
        raise TorchValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative strides are not "
            "currently supported. (You can probably work around this by making a copy of your array  with "
            "array.copy().) ")
    if not array.flags.writeable:
        warn_once(_NOT_WRITABLE)
    if not array.dtype.isnative:
        array = array.view(array.dtype.newbyteorder("="))  # (NumPy's own order; the bytes stay shared)
    return Tensor._make(array, dtype)


def tensor_numpy(self: Tensor, *, force: bool = False) -> np.ndarray:
    """``t.numpy()``: an ndarray over the tensor's memory (a new array object each call)."""
    if self.requires_grad and not force:
        raise TorchRuntimeError(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    return self._data.view()


def tensor_array(self: Tensor, dtype: Any = None, copy: Any = None) -> np.ndarray:
    """``np.array(t)`` / ``np.asarray(t)`` (NumPy's ``__array__`` protocol): ``t.numpy()``."""
    array = tensor_numpy(self) if dtype is None else tensor_numpy(self).astype(dtype, copy=False)
    return array.copy() if copy else array


def tensor_array_wrap(self: Tensor, array: np.ndarray, context: Any = None, return_scalar: bool = False) -> Tensor:
    """NumPy's result of a ufunc over tensors, back as a tensor (PyTorch's: a bool result as uint8)."""
    if array.dtype == np.bool_:
        array = array.astype("uint8")  # (PyTorch's workaround, "torch has no built-in bool tensor")
    return from_numpy(np.asarray(array))


def _type_name(value: object) -> str:
    cls = type(value)
    module = getattr(cls, "__module__", "builtins")
    return cls.__name__ if module in ("builtins", "torch") else f"{module}.{cls.__name__}"


CATALOG.register(from_numpy, "from_numpy", torch=True)
CATALOG.register(tensor_numpy, "numpy", method=True)
CATALOG.register(tensor_array, operators=("__array__",))
CATALOG.register(tensor_array_wrap, operators=("__array_wrap__",))
