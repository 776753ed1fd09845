"""Dtype conversions, copies and fills: ``to``, ``float()``, ``clone``, ``copy_``, ``zero_``, ``fill_``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..autograd.formulas import d
from ..autograd.grad_mode import no_grad
from ..device import Device, check_cpu
from ..dispatch.memory import repeats, same_memory
from ..dispatch.op import SHARED, UNIQUE, UNTOUCHED, CHECKED
from ..dispatch.op import LINEAR
from ..dispatch.publish import Catalog
from ..dispatch.runner import run
from ..dispatch.invalid_arguments import format_invalid_args
from ..dispatch.signature import py_type_name, python_type_dtype
from ..dtypes import DType
from ..errors import TorchRuntimeError, TorchTypeError
from ..shape_rules import broadcast_shapes, is_expandable_to
from ..tensor import Tensor
from ..warnings import warn
from .indexing import EXPANDED_WARNING

CATALOG = Catalog(jvp=LINEAR, vmap="pointwise")
defop = CATALOG.defop


# The rule of a tensor every element of which the op writes over.
OVERWRITTEN = "0 (the op overwrites self)"


def _zeros(g: Tensor) -> Tensor:
    # PyTorch's zeros_like(grad): +0 everywhere (g * 0 would give -0 for a negative gradient)
    from .constants import zeros_like
    return zeros_like(g)


def _to_copy_forward(b: dict) -> Any:
    return b["self"]._data.astype(b["dtype"].np, copy=True)


TO_COPY = defop("_to_copy", "_to_copy(Tensor input, *, dtype dtype)", _to_copy_forward,
                node="ToCopyBackward0", method=False, integer_result_ok=True,
                derivs={"self": d(rule="grad converted back to self's dtype")(lambda g, s: g.to(s.self_dtype))})


def convert(t: Tensor, dtype: DType, copy: bool = False) -> Tensor:
    """``t.to(dtype)``: the tensor itself when nothing changes, as in PyTorch."""
    if dtype is t._dtype and not copy:
        return t
    if not dtype.is_floating_point:
        # PyTorch records nothing for a copy to integers: the input's history is not even read
        # (a stale view of a multi-output op converts without an error)
        with no_grad():
            return run(TO_COPY, {"self": t, "dtype": dtype})
    return run(TO_COPY, {"self": t, "dtype": dtype})


def _to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``Tensor.to(dtype)``, ``.to(device)``, ``.to(device, dtype)``, ``.to(other)``."""
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TorchTypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if python_type_dtype(dtype) is not None:
        dtype = python_type_dtype(dtype)
    if dtype is not None and not isinstance(dtype, DType):
        given = {"dtype": dtype, **({"device": device} if device is not None else {})}
        raise TorchTypeError(format_invalid_args("to", args, given, _TO_OPTIONS, py_type_name))
    for a in args:
        if python_type_dtype(a) is not None:
            a = python_type_dtype(a)
        if isinstance(a, DType):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a._dtype
        elif isinstance(a, bool):
            copy = a if dtype is not None else copy
        elif isinstance(a, (str, Device)):
            device = a
        else:
            raise TorchTypeError(
                "to() received an invalid combination of arguments - got "
                f"({', '.join(type(x).__name__ for x in args)}), but expected one of:\n"
                + "".join(f" * {option}\n" for option in _TO_OPTIONS))
    check_cpu(device)
    return convert(self, dtype or self._dtype, copy)


_TO_OPTIONS = ("(torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, "
               "*, torch.memory_format memory_format = None)",
               "(torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
               "torch.memory_format memory_format = None)",
               "(Tensor tensor, bool non_blocking = False, bool copy = False, *, "
               "torch.memory_format memory_format = None)")


def _caster(dtype: DType, name: str) -> Any:
    def cast(self: Tensor, memory_format: Any = None) -> Tensor:
        return convert(self, dtype)
    cast.__name__ = name
    return cast


def _type_as(self: Tensor, other: Tensor) -> Tensor:
    if not isinstance(other, Tensor):
        raise TorchTypeError(
            f"type_as(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    return convert(self, other._dtype)


# -- clone / contiguous ------------------------------------------------------------------------

CLONE = defop("clone", "clone(Tensor input, *, any memory_format=None)",
              lambda b: np.array(b["self"]._data, copy=True, order="C"), node="CloneBackward0",
              derivs={"self": d(rule="grad")(lambda g, s: g)})


def _contiguous(self: Tensor, memory_format: Any = None) -> Tensor:
    # An already contiguous tensor is returned itself (same grad_fn), as in PyTorch.
    if self.is_contiguous() if self._batched else self._data.flags.c_contiguous:
        return self   # (inside vmap: by the logical layout)
    return run(CLONE, {"self": self, "memory_format": None})


# -- copy_, fill_, zero_ -----------------------------------------------------------------------

def _copy_forward(b: dict) -> Any:
    dst, src = b["self"], b["src"]
    if not is_expandable_to(src.shape, dst.shape):
        broadcast_shapes(dst.shape, src.shape)
        raise TorchRuntimeError(
            f"output with shape [{', '.join(map(str, dst.shape))}] doesn't match the broadcast shape "
            f"[{', '.join(map(str, np.broadcast_shapes(dst.shape, src.shape)))}]")
    return np.broadcast_to(src._data.astype(dst._dtype.np, copy=False), dst._data.shape)


defop("copy", "copy(Tensor input, Tensor src, bool non_blocking=False)", _copy_forward,
      node="CopyBackwards", inputs=("self", "src"), numbers_as_tensors=True, function=False,
      method=False, inplace=True, inplace_broadcasts=False, grad_only_into_float=True,
      # x.copy_(x) returns at once, having written nothing (not even into an expanded x)
      inplace_memory=lambda b: UNTOUCHED if same_memory(b["self"], b["src"]) else CHECKED,
      derivs={"self": d(rule=OVERWRITTEN)(lambda g, s: _zeros(g)),
              "src": d(rule="grad converted to src's dtype")(lambda g, s: g.to(s.src_dtype))})


def _fill_forward(b: dict) -> Any:
    t, value = b["self"], b["value"]
    if value._data.ndim != 0:
        raise TorchRuntimeError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {value._data.ndim} dimensions.")
    if value._wrapped:
        dtypes.check_scalar_fits(value._data.item(), t._dtype)
    return np.full(t._data.shape, value._data, dtype=t._dtype.np)


defop("fill", "fill(Tensor input, Tensor value)", _fill_forward,
      node=lambda b: "FillBackward2" if b["value"]._wrapped else "FillBackward3",
      inputs=("self", "value"), numbers_as_tensors=True, method=False, inplace=True, scalar_inputs=("value",),
      inplace_broadcasts=False, vmap="fill",
      # fill_ of a number may write memory that elements share; fill_ of a tensor may not (it
      # copies a value that aliases self from a clone, so no overlap check either)
      inplace_memory=lambda b: SHARED if b["value"]._wrapped else UNIQUE,
      derivs={"self": d(rule=OVERWRITTEN)(lambda g, s: _zeros(g)), "value": d(rule="sum(grad)")(lambda g, s: g.sum())})

defop("zero", "zero(Tensor input)", lambda b: np.zeros_like(b["self"]._data), node="ZeroBackward0",
      function=False, method=False, inplace=True, inplace_broadcasts=False, inplace_memory=SHARED,
      derivs={"self": d(rule=OVERWRITTEN)(lambda g, s: _zeros(g))})


def _masked_fill_forward(b: dict) -> Any:
    t, mask, value = b["self"], b["mask"], b["value"]
    if mask._dtype is not dtypes.bool_:
        raise TorchRuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {mask._dtype.legacy_name}")
    if value._data.ndim != 0:
        raise TorchRuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._data.ndim} dimension(s).")
    broadcast_shapes(t._data.shape, mask._data.shape)
    if value._wrapped:
        dtypes.check_scalar_fits(value._data.item(), t._dtype)
    if b.get("_inplace") and repeats(t._data):
        warn(EXPANDED_WARNING.format("masked_fill_", "mask] = scalar", 2450))
    return np.where(mask._data, value._data.astype(t._dtype.np), t._data)


# (the Number overload binds nothing -- a number is taken as a tensor value by the first -- but
# PyTorch's messages list it)
defop("masked_fill", ["masked_fill(Tensor input, Tensor mask, Tensor value)",
                      "masked_fill(Tensor input, Tensor mask, Scalar value)"], _masked_fill_forward,
      node=lambda b: "MaskedFillBackward0" if b["value"]._wrapped else "MaskedFillBackward1",
      inputs=("self", "value"), numbers_as_tensors=("value",), inplace=True, scalar_inputs=("value",),
      inplace_broadcasts=False, inplace_memory=SHARED, vmap="masked_fill",  # (PyTorch warns when self is expanded)
      derivs={"self": d("mask", rule="where(mask, 0, grad)")(lambda g, s: g.masked_fill(s.mask, 0)),
              "value": d("mask", rule="sum(where(mask, grad, 0))")(lambda g, s: (g * s.mask).sum())})


CATALOG.register(_to, "to", method=True)
for _dtype, _name in ((dtypes.float32, "float"), (dtypes.float64, "double"), (dtypes.int64, "long"),
                      (dtypes.int32, "int"), (dtypes.bool_, "bool")):
    CATALOG.register(_caster(_dtype, _name), _name, method=True)
CATALOG.register(_type_as, "type_as", method=True, sigs="type_as(Tensor input, Tensor other)")
CATALOG.register(_contiguous, "contiguous", method=True)
