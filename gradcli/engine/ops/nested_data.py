"""``torch.tensor``'s reading of nested Python data, in PyTorch's three passes (tensor_new.cpp):

1. the shape comes from the chain of first items alone (``[[1, 2], 3]`` has shape (2, 2));
2. the dtype comes from every item, promoted together;
3. the values are stored against that shape, and only then does a ragged or mixed item fail --
   with the message of the pass that meets it (``not a sequence``, ``expected sequence of length
   2 at dim 1 (got 1)``, ``must be real number, not list``).

An empty result stores nothing, so ``[[], [1]]`` is a (2, 0) tensor, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..dispatch.limits import check_size
from ..errors import TorchOverflowError, TorchRuntimeError, TorchTypeError, TorchValueError
from ..shape_rules import check_ndim
from ..tensor import Tensor
from ..warnings import warn_once

# PyTorch's tensor_new reads nested sequences 128 deep at most (its MAX_DIMS).
_MAX_NESTING = 128
# What PyTorch's PySequence_Check accepts among the values a script can make (a str is one too,
# which is why torch.tensor('a') fails for too many dimensions).
_SEQUENCES = (list, tuple, range, str, np.ndarray)


def infer_data(data: Any, target: "dtypes.DType | None" = None) -> tuple[np.ndarray, "dtypes.DType"]:
    """NumPy data and PyTorch's inferred dtype for nested Python data (lists, tuples, ranges,
    numbers, one-element tensors, ndarrays and NumPy scalars).

    As PyTorch's ``infer_scalar_type``: a Python float counts as the default dtype, an int as
    int64, a bool as bool, and a tensor, ndarray or NumPy scalar as its own dtype; the dtypes
    of the items are promoted together.  With ``target``, each Python value is converted
    straight to it (a float64 tensor of 0.1 holds the double 0.1, not a float32 rounding of it).
    """
    if isinstance(data, (np.ndarray, np.generic)):  # torch.tensor(ndarray): a copy, the array's dtype
        array = np.array(data, copy=True, order="C")
        dtype = dtypes.of_numpy(array.dtype)
        return (array, dtype) if target is None or target is dtype else (cast_values(array, target), dtype)
    if isinstance(data, (list, tuple)) and data and isinstance(data[0], np.ndarray):
        warn_once("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting "
                  "the list to a single numpy.ndarray with numpy.array() before converting to a tensor. (Triggered "
                  "internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:252.)")
    if isinstance(data, str):
        raise TorchTypeError("new(): invalid data type 'str'")
    shape = _sizes(data)
    if target is None:   # (a dtype asked for skips the inference: [None, []] of int32 is an empty tensor)
        found: list[dtypes.DType] = []
        _infer(data, 0, found)
        dtype = found[0] if found else dtypes.get_default_dtype()
        for other in found[1:]:
            dtype = dtypes.promote_types(dtype, other)
    else:
        dtype = target
    flat: list[Any] = []
    if 0 not in shape:
        _store(data, shape, 0, dtype, flat)
    return _to_array(flat, shape, dtype), dtype


def cast_values(array: np.ndarray, dtype: "dtypes.DType") -> np.ndarray:
    """``array`` in ``dtype``, floats truncated toward zero into an integer dtype (as C casts)."""
    if dtype.category == dtypes.INTEGRAL and array.dtype.kind == "f":
        return np.trunc(array).astype(dtype.np)
    return array.astype(dtype.np)


def _length(data: Any) -> int:
    try:
        return len(data)
    except OverflowError as error:   # (range(2**64): PyTorch's len() fails the same way)
        raise TorchOverflowError(str(error)) from None


def _sizes(data: Any) -> tuple[int, ...]:
    """Pass 1: the length of each first item, down to the first that is no sequence."""
    shape: list[int] = []
    while isinstance(data, _SEQUENCES) and not (isinstance(data, np.ndarray) and data.ndim == 0):
        shape.append(_length(data))
        if len(shape) > _MAX_NESTING:
            raise TorchValueError(f"too many dimensions '{type(data).__name__}'")
        check_size(tuple(shape))   # (the limits refuse range(2**62) before it is read)
        if shape[-1] == 0:
            break
        data = data[0]
    check_ndim(len(shape))
    return tuple(shape)


def _infer(data: Any, depth: int, found: list) -> None:
    """Pass 2: the dtype of every item (an ndarray's or a tensor's own dtype counts whole)."""
    if isinstance(data, Tensor):
        found.append(data._dtype)
    elif isinstance(data, (np.ndarray, np.generic)):
        found.append(dtypes.of_numpy(data.dtype))
    elif isinstance(data, (list, tuple, range)):
        if depth >= _MAX_NESTING:
            raise TorchValueError(f"too many dimensions '{type(data).__name__}'")
        if isinstance(data, range):   # (all ints: no need to visit a long range)
            found.append(dtypes.int64 if _length(data) else dtypes.get_default_dtype())
            return
        if not data:   # an empty sequence counts as the default dtype
            found.append(dtypes.get_default_dtype())
        for item in data:
            _infer(item, depth + 1, found)
    elif isinstance(data, bool):
        found.append(dtypes.bool_)
    elif isinstance(data, int):
        found.append(dtypes.int64)
    elif isinstance(data, float):
        found.append(dtypes.get_default_dtype())
    elif data is None or isinstance(data, dict):
        raise TorchRuntimeError(f"Could not infer dtype of {type(data).__name__}")
    else:
        raise TorchTypeError(f"new(): invalid data type '{type(data).__name__}'")


def _store(data: Any, shape: tuple[int, ...], dim: int, kind: "dtypes.DType", flat: list) -> None:
    """Pass 3: each value into ``flat``, checking every sequence against the shape of pass 1."""
    if dim == len(shape):
        flat.append(_scalar(data, kind))
        return
    if isinstance(data, Tensor):   # (iterated here, though pass 1 does not look inside one)
        data = data._data.tolist() if data.dim() else data.item()
    if isinstance(data, np.ndarray):
        data = data.tolist()
    if not isinstance(data, (list, tuple, range, str)):   # (a str is a sequence of characters here)
        raise TorchTypeError("not a sequence")
    length = _length(data)
    if length != shape[dim]:
        raise TorchValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {length})")
    for item in data:
        _store(item, shape, dim + 1, kind, flat)


def _scalar(data: Any, kind: "dtypes.DType") -> Any:
    """One stored value, failing as PyTorch's unpacking of a number of that kind does: a float
    kind reads a double (``must be real number``), an integer or bool kind an index."""
    floating = kind.is_floating_point
    if isinstance(data, Tensor):
        if floating:
            if data.numel() != 1:
                raise TorchValueError("only one element tensors can be converted to Python scalars")
        elif data.numel() != 1 or data._dtype.category not in (dtypes.INTEGRAL, dtypes.BOOL):
            raise TorchTypeError("only integer tensors of a single element can be converted to an index")
        return data.item()
    if isinstance(data, (np.ndarray, np.generic)) and data.ndim == 0:
        return data.item()
    if isinstance(data, (bool, int, float)):
        if not floating and kind is not dtypes.bool_ and isinstance(data, int) and not -2 ** 63 <= data < 2 ** 63:
            raise TorchValueError("Overflow when unpacking long long")
        return data
    name = type(data).__name__
    if floating:
        raise TorchTypeError(f"must be real number, not {name}")
    raise TorchTypeError(f"'{name}' object cannot be interpreted as an integer")


def _to_array(flat: list, shape: tuple[int, ...], dtype: "dtypes.DType") -> np.ndarray:
    """The stored values in ``dtype``: each Python number converted once, as PyTorch's C casts do
    (a float into an integer dtype truncates toward zero, an int64 wraps into a narrower one)."""
    if dtype is dtypes.bool_:
        return np.array([bool(v) for v in flat], dtype=np.bool_).reshape(shape)
    if dtype.category == dtypes.INTEGRAL and not any(isinstance(v, float) for v in flat):
        return np.array(flat, dtype=np.int64).reshape(shape).astype(dtype.np)
    # Python floats are doubles: round each once to the target dtype.
    try:
        values = np.array([float(v) for v in flat], dtype=np.float64).reshape(shape)
    except OverflowError as error:  # (an int past the largest double)
        raise TorchOverflowError(str(error)) from None
    return cast_values(values, dtype)
