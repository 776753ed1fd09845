"""Tensor factories: tensor, ones, zeros, full, empty, eye, arange, linspace, the
``*_like`` and ``new_*`` forms, and the legacy ``torch.Tensor(...)`` constructor.

Factories make leaves; ``requires_grad=True`` is checked against the dtype
with PyTorch's message.  Every factory checks the size it makes against the limits
(``limits.check_size``, by its dtype) before allocating.  Their signatures are parsed on
first use (``LazyParser``), so start-up pays for none of them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..batching.batched_tensor import per_element
from .. import dtypes
from ..device import check_cpu
from ..dispatch.limits import check_size
from ..dispatch.memory import write_into
from ..dispatch.publish import Catalog
from ..dispatch.python_signature import signed
from ..dispatch.signature import LazyParser
from ..errors import TorchRuntimeError, TorchTypeError
from ..kernels.exactfp import fma32, fma64
from ..tensor import Tensor
from ..warnings import warn
from .nested_data import cast_values, infer_data
from .numpy_bridge import from_numpy

CATALOG = Catalog()


def leaf(data: np.ndarray, dtype: "dtypes.DType", requires_grad: bool) -> Tensor:
    t = Tensor._make(data, dtype)
    if requires_grad:
        if not dtype.is_floating_point:
            raise TorchRuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
    return t


_OPTIONS = "dtype? dtype=None, layout? layout=None, device? device=None, bool pin_memory=False, " \
           "bool requires_grad=False"


def _parser(*sigs: str) -> LazyParser:
    return LazyParser(*sigs)


# -- torch.tensor ----------------------------------------------------------------------------------

_TENSOR = _parser(f"tensor(any data, *, {_OPTIONS})")


@signed(_TENSOR)
def tensor(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _TENSOR.parse(args, kwargs)
    check_cpu(b["device"])
    data = b["data"]
    if isinstance(data, Tensor):
        warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
             "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).")
        array, dtype = data._data.copy(), data._dtype
    else:
        array, dtype = infer_data(data, b["dtype"])
    check_size(array.shape)
    target = b["dtype"] or dtype
    if array.dtype != target.np:
        array = cast_values(array, target)
    return leaf(array, target, b["requires_grad"])


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``torch.as_tensor``: the data itself where it already is a tensor (or an ndarray of the
    dtype asked for, whose memory the tensor then shares), else a copy as ``torch.tensor``."""
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data._dtype else data.to(dtype)
    if isinstance(data, np.ndarray):
        check_cpu(device)
        shared = from_numpy(data)
        return shared if dtype is None or dtype is shared._dtype else shared.to(dtype)
    return tensor(data, dtype=dtype, device=device)


def legacy_tensor_constructor(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.Tensor(data)`` (default float dtype) or ``torch.Tensor(2, 3)`` (uninitialised: zeros)."""
    if kwargs and set(kwargs) - {"device"}:
        raise TorchTypeError(f"new() got an unexpected keyword argument '{next(iter(kwargs))}'")
    dtype = dtypes.get_default_dtype()
    if not args:
        return leaf(np.zeros((0,), dtype=dtype.np), dtype, False)
    if len(args) == 1 and isinstance(args[0], (list, tuple, range, Tensor, np.ndarray)) and not _all_ints(args):
        data = args[0]
        if isinstance(data, Tensor):
            return data
        if isinstance(data, np.ndarray) and data.dtype == dtype.np:
            return from_numpy(data)  # the array's memory, as PyTorch shares it
        array, _ = infer_data(data)
        return leaf(array.astype(dtype.np), dtype, False)
    if _all_ints(args) or (len(args) == 1 and isinstance(args[0], (tuple, list)) and _all_ints(args[0])):
        shape = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else tuple(args)
        check_size(shape, dtype.itemsize)
        return leaf(np.zeros(shape, dtype=dtype.np), dtype, False)
    raise TorchTypeError(
        f"new(): data must be a sequence (got {type(args[0]).__name__})")


def _all_ints(values: Any) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


# -- constant-filled factories ------------------------------------------------------------------

def _filled(name: str, fill: Any) -> Any:
    parser = _parser(f"{name}(int[] size, *, Tensor? out=None, {_OPTIONS})")

    def factory(*args: Any, **kwargs: Any) -> Tensor:
        _, b = parser.parse(args, kwargs)
        check_cpu(b["device"])
        shape = b["size"]
        dtype = b["dtype"] or dtypes.get_default_dtype()
        check_size(shape, dtype.itemsize)
        t = leaf(np.full(shape, fill, dtype=dtype.np), dtype, b["requires_grad"])
        return _maybe_out(t, b["out"])
    factory.__name__ = factory.__qualname__ = name
    return signed(parser)(factory)


def _maybe_out(t: Tensor, out: Any) -> Tensor:
    if out is None:
        return t
    if out.shape != t.shape:
        out._data = np.empty(t.shape, dtype=out._dtype.np)
    write_into(out, t._data)
    return out


_FULL = _parser(f"full(int[] size, Scalar fill_value, *, Tensor? out=None, {_OPTIONS})")


@signed(_FULL)
def full(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _FULL.parse(args, kwargs)
    check_cpu(b["device"])
    shape = b["size"]
    value = b["fill_value"]
    dtype = b["dtype"] or dtypes.scalar_dtype(value)
    check_size(shape, dtype.itemsize)
    return _maybe_out(leaf(np.full(shape, dtypes.scalar_as(value, dtype), dtype=dtype.np), dtype, b["requires_grad"]),
                      b["out"])


_EYE = _parser(f"eye(int n, int? m=None, *, Tensor? out=None, {_OPTIONS})")


@signed(_EYE)
def eye(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _EYE.parse(args, kwargs)
    check_cpu(b["device"])
    n, m = b["n"], b["m"]
    m = n if m is None else m
    if n < 0:
        raise TorchRuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise TorchRuntimeError(f"m must be greater or equal to 0, got {m}")
    dtype = b["dtype"] or dtypes.get_default_dtype()
    check_size((n, m), dtype.itemsize)
    return _maybe_out(leaf(np.eye(n, m, dtype=dtype.np), dtype, b["requires_grad"]), b["out"])


_ARANGE = _parser(f"arange(Scalar end, *, Tensor? out=None, {_OPTIONS})",
                  f"arange(Scalar start, Scalar end, *, Tensor? out=None, {_OPTIONS})",
                  f"arange(Scalar start, Scalar end, Scalar step=1, *, Tensor? out=None, {_OPTIONS})")


@signed(_ARANGE)
def arange(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _ARANGE.parse(args, kwargs)
    check_cpu(b["device"])
    start, end, step = b.get("start", 0), b["end"], b.get("step", 1)
    is_float = any(isinstance(v, float) for v in (start, end, step))
    dtype = b["dtype"] or (dtypes.get_default_dtype() if is_float else dtypes.int64)
    # PyTorch's arange kernel: an int bound as the result's type first, then its checks in order
    for value in (start, end, step):
        if isinstance(value, int):
            dtypes.check_scalar_fits(value, dtype if dtype.category == dtypes.INTEGRAL else dtypes.float64)
    if not (step > 0 or step < 0):  # (a NaN step too)
        raise TorchRuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise TorchRuntimeError(f"unsupported range: {_c_scalar(start)} -> {_c_scalar(end)}")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise TorchRuntimeError("upper bound and lower bound inconsistent with step sign")
    count = math.ceil((end - start) / step)
    if count > 2 ** 63 - 1:
        raise TorchRuntimeError("invalid size, possible overflow?")
    check_size((count,), dtype.itemsize)
    if dtype.is_floating_point or is_float:
        values = start + np.arange(count, dtype=np.float64) * step
    else:
        values = start + np.arange(count, dtype=np.int64) * step
    return _maybe_out(leaf(values.astype(dtype.np), dtype, b["requires_grad"]), b["out"])


def _c_scalar(value: Any) -> str:
    """A Scalar as c10 prints it in a message: an int as it is, a double as ``std::ostream`` shows it
    (six significant digits: 1.23457e+06, nan, inf)."""
    if isinstance(value, float):
        return "%g" % value
    return str(int(value))


_LINSPACE = _parser(f"linspace(Scalar start, Scalar end, int steps, *, Tensor? out=None, {_OPTIONS})")


@signed(_LINSPACE)
def linspace(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _LINSPACE.parse(args, kwargs)
    check_cpu(b["device"])
    start, end, steps = b["start"], b["end"], b["steps"]
    if steps < 0:
        raise TorchRuntimeError("number of steps must be non-negative")
    dtype = b["dtype"] or dtypes.get_default_dtype()
    check_size((steps,), dtype.itemsize)
    return _maybe_out(leaf(_linspace_values(start, end, steps, dtype), dtype, b["requires_grad"]), b["out"])


def _linspace_values(start: Any, end: Any, steps: int, dtype: "dtypes.DType") -> np.ndarray:
    """PyTorch's CPU linspace: the first half counts up from start, the second down from end."""
    if steps == 0:
        return np.zeros((0,), dtype=dtype.np)
    if steps == 1:
        return np.array([start], dtype=np.float64).astype(dtype.np)
    if not dtype.is_floating_point:
        step = (end - start) / (steps - 1)
        idx = np.arange(steps, dtype=np.float64)
        vals = np.where(idx < steps // 2, start + step * idx, end - step * (steps - idx - 1))
        return vals.astype(dtype.np)
    # PyTorch's vectorised kernel uses fused multiply-adds: start + step*i for the
    # first half, end - step*(steps-1-i) for the second (hence -5.55e-17, not 0).
    fma = fma32 if dtype.np == np.float32 else fma64
    t = dtype.np.type
    s, e = t(start), t(end)
    step = (e - s) / t(steps - 1)
    idx = np.arange(steps)
    half = steps // 2
    up = fma(np.full(steps, step, dtype=dtype.np), idx.astype(dtype.np), np.full(steps, s, dtype=dtype.np))
    down = fma(np.full(steps, -step, dtype=dtype.np), (steps - 1 - idx).astype(dtype.np),
               np.full(steps, e, dtype=dtype.np))
    return np.where(idx < half, up, down).astype(dtype.np)


# PyTorch's four overloads (a 0-dim tensor or a number for each end), in its order.
_LOGSPACE = _parser(*(f"logspace({a} start, {b} end, int steps, float base=10.0, *, Tensor? out=None, {_OPTIONS})"
                      for a, b in (("Tensor", "Tensor"), ("Scalar", "Tensor"), ("Tensor", "Scalar"),
                                   ("Scalar", "Scalar"))))


@signed(_LOGSPACE)
def logspace(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _LOGSPACE.parse(args, kwargs)
    check_cpu(b["device"])
    start, end, steps = b["start"], b["end"], b["steps"]
    for name, value in (("start", start), ("end", end)):
        if isinstance(value, Tensor) and value.ndim != 0:
            raise TorchRuntimeError(f"logspace only supports 0-dimensional start and end tensors, but got {name} "
                                    f"with {value.ndim} dimension(s).")
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    if steps < 0:
        raise TorchRuntimeError("number of steps must be non-negative")
    check_size((steps,))
    dt = b["dtype"] or dtypes.get_default_dtype()
    exps = _linspace_values(start, end, steps, dtypes.float64)
    return _maybe_out(leaf(np.power(float(b["base"]), exps).astype(dt.np), dt, b["requires_grad"]), b["out"])


# -- *_like and new_* ------------------------------------------------------------------------------

def _like(name: str, fill: Any) -> Any:
    parser = _parser(f"{name}(Tensor input, *, {_OPTIONS}, any memory_format=None)")

    def factory(*args: Any, **kwargs: Any) -> Tensor:
        _, b = parser.parse(args, kwargs)
        check_cpu(b["device"])
        src = b["input"]
        dtype = b["dtype"] or src._dtype
        check_size(src._data.shape, dtype.itemsize)  # (an expanded input holds less than this)
        return leaf(np.full(src._data.shape, fill, dtype=dtype.np), dtype, b["requires_grad"])
    factory.__name__ = factory.__qualname__ = name
    return signed(parser)(factory)


_FULL_LIKE = _parser(f"full_like(Tensor input, Scalar fill_value, *, {_OPTIONS}, any memory_format=None)")


@signed(_FULL_LIKE)
def full_like(*args: Any, **kwargs: Any) -> Tensor:
    _, b = _FULL_LIKE.parse(args, kwargs)
    src = b["input"]
    dtype = b["dtype"] or src._dtype
    check_size(src._data.shape, dtype.itemsize)
    return leaf(_filled_array(src._data.shape, b["fill_value"], dtype), dtype, b["requires_grad"])


def _filled_array(shape: tuple[int, ...], value: Any, dtype: dtypes.DType) -> np.ndarray:
    """``shape`` filled with a script's scalar, refused as PyTorch refuses one ``dtype`` cannot hold."""
    return np.full(shape, dtypes.scalar_as(value, dtype), dtype=dtype.np)


def _new(name: str, fill: Any) -> Any:
    parser = LazyParser(f"{name}(Tensor input, int[] size, *, {_OPTIONS})", method=True)

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        _, b = parser.parse((self,) + args, kwargs)
        shape = b["size"]
        dtype = b["dtype"] or self._dtype
        check_size(shape, dtype.itemsize)
        return leaf(np.full(shape, fill, dtype=dtype.np), dtype, b["requires_grad"])
    method.__name__ = method.__qualname__ = name
    return signed(parser, method=True)(method)


_NEW_FULL = LazyParser(f"new_full(Tensor input, int[] size, Scalar fill_value, *, {_OPTIONS})", method=True)


@signed(_NEW_FULL, method=True)
def _new_full(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    _, b = _NEW_FULL.parse((self,) + args, kwargs)
    dtype = b["dtype"] or self._dtype
    check_size(b["size"], dtype.itemsize)
    return leaf(_filled_array(b["size"], b["fill_value"], dtype), dtype, b["requires_grad"])


def _new_tensor(self: Tensor, data: Any, dtype: Any = None, device: Any = None,
                requires_grad: bool = False) -> Tensor:
    t = tensor(data, dtype=dtype or self._dtype, requires_grad=requires_grad) if not isinstance(data, Tensor) \
        else data.detach()._own_copy().to(dtype or self._dtype)
    return t


def _legacy_new(cls: type, *args: Any, **kwargs: Any) -> Tensor:
    return legacy_tensor_constructor(*args, **kwargs)


CATALOG.register(staticmethod(_legacy_new), operators=("__new__",))  # torch.Tensor(...) is a factory too
for _name, _fn in (
        ("tensor", tensor), ("as_tensor", as_tensor), ("ones", _filled("ones", 1)), ("zeros", _filled("zeros", 0)),
        ("empty", _filled("empty", 0)), ("full", full), ("eye", eye), ("arange", arange), ("linspace", linspace),
        ("logspace", logspace), ("ones_like", per_element(_like("ones_like", 1))),
        ("zeros_like", per_element(_like("zeros_like", 0))), ("empty_like", per_element(_like("empty_like", 0))),
        ("full_like", per_element(full_like))):
    CATALOG.register(_fn, _name, torch=True)
for _name, _fn in (("new_ones", _new("new_ones", 1)), ("new_zeros", _new("new_zeros", 0)),
                   ("new_empty", _new("new_empty", 0)), ("new_full", _new_full), ("new_tensor", _new_tensor)):
    CATALOG.register(_fn, _name, method=True)
