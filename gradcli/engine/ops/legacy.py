"""The legacy names older lessons use: ``torch.autograd.Variable``, the typed tensor classes
(``torch.FloatTensor`` ...) and ``Tensor.type``.

- ``Variable(t, requires_grad=False)`` returns a Tensor, as PyTorch does since 0.4: ``t``
  detached (sharing its memory), then ``requires_grad`` set; ``isinstance(x, Variable)`` holds
  for every tensor.
- ``torch.FloatTensor`` ... are ``torch.tensortype`` classes: calling one is PyTorch's legacy
  constructor for its dtype (``FloatTensor([1, 2])`` from data, ``FloatTensor(2, 3)`` or
  ``FloatTensor(torch.Size([2]))`` from sizes -- uninitialised memory in PyTorch, zeros here --,
  ``FloatTensor(t)`` for a tensor of that dtype), ``isinstance(t, torch.FloatTensor)`` checks
  the dtype, and the tensors made are plain ``torch.Tensor`` objects.
- ``t.type()`` names the tensor's type (``'torch.FloatTensor'``); ``t.type(torch.DoubleTensor)``,
  ``t.type('torch.DoubleTensor')`` and ``t.type(torch.float64)`` convert (``t`` itself when the
  dtype is already that one).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..device import parse_device
from ..dispatch.limits import check_size
from ..dispatch.python_signature import signed
from ..dispatch.runner import run
from ..dispatch.signature import LazyParser, _is_int_like, py_type_name, python_type_dtype
from ..dtypes import DType
from ..errors import TorchRuntimeError, TorchTypeError, TorchValueError
from ..size import Size
from ..tensor import Tensor
from ..warnings import warn
from .conversions import convert
from .factories import infer_data, leaf
from .numpy_bridge import from_numpy
from .shape import ALIAS
from ..dispatch.publish import Catalog

CATALOG = Catalog()

_CUDA_INIT = (
    "Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two shared libraries: a "
    "CPU library and a CUDA library; this error has occurred because you are trying to use some CUDA "
    "functionality, but the CUDA library has not been loaded by the dynamic linker for some reason.  The CUDA "
    "library MUST be loaded, EVEN IF you don't directly use any symbols from the CUDA library! One common culprit "
    "is a lack of -Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic library "
    "dependencies if you don't depend on any of their symbols.  You can check if this has occurred by using ldd "
    "on your binary to see if there is a dependency on *_cuda.so library.")


# -- torch.autograd.Variable ------------------------------------------------------------------

class _VariableMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor)


_VARIABLE_ARGS = ("data", "requires_grad", "volatile", "_grad_fn", "name")


def _as_flag(value: Any) -> bool:
    """A C ``char`` argument (``PyArg_Parse`` format ``b``): any integer, nothing else."""
    if isinstance(value, (int, np.integer)):
        return bool(value)
    raise TorchTypeError(f"'{py_type_name(value)}' object cannot be interpreted as an integer")


class Variable(metaclass=_VariableMeta):
    """``torch.autograd.Variable(data=None, requires_grad=False, volatile=False)``: a Tensor."""

    __slots__ = ()
    __script_attrs__ = frozenset()

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
        if len(args) > len(_VARIABLE_ARGS):
            raise TorchTypeError(f"function takes at most {len(_VARIABLE_ARGS)} arguments ({len(args)} given)")
        given = dict(zip(_VARIABLE_ARGS, args))
        for key, value in kwargs.items():
            if key not in _VARIABLE_ARGS:
                raise TorchTypeError(f"'{key}' is an invalid keyword argument for this function")
            if key in given:
                raise TorchTypeError(f"argument for function given by name ('{key}') and position "
                                     f"({_VARIABLE_ARGS.index(key) + 1})")
            given[key] = value
        data = given.get("data")
        requires_grad = _as_flag(given.get("requires_grad", False))
        volatile = _as_flag(given.get("volatile", False))
        if volatile:
            warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.")
            if requires_grad:
                raise TorchValueError("Variable can't be volatile and require_grad at the same time!")
        if given.get("_grad_fn") is not None:
            raise TorchRuntimeError(
                "_grad_fn argument to legacy Variable constructor is no longer supported.  Instead, please invoke "
                "your _grad_fn to produce a variable with it as the _grad_fn.")
        if data is None:
            dtype = dtypes.get_default_dtype()
            out = Tensor._make(np.zeros((0,), dtype=dtype.np), dtype)
        elif isinstance(data, Tensor):
            out = data.detach()
        else:
            raise TorchTypeError(f"Variable data has to be a tensor, but got {py_type_name(data)}")
        if requires_grad:
            if not out._dtype.is_floating_point:
                raise TorchRuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            out._set_requires_grad(True, "")
        return out


Variable.__module__ = "torch.autograd.variable"


# -- torch.FloatTensor and the other typed classes ----------------------------------------------

class tensortype(type):  # noqa: N801 - PyTorch's name
    """The class of ``torch.FloatTensor`` and its siblings: a constructor and an isinstance check."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj._dtype is cls.dtype

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:
        return legacy_new(cls.dtype, *args, **kwargs)


tensortype.__module__ = "torch"
tensortype.__name__ = tensortype.__qualname__ = "tensortype"


def _typed_class(name: str, dtype: DType) -> type:
    cls = tensortype(name, (), {"__slots__": (), "dtype": dtype, "is_cuda": False, "is_sparse": False,
                                "__script_attrs__": frozenset({"dtype", "is_cuda", "is_sparse"})})
    cls.__module__ = "torch"
    return cls


TYPED_CLASSES: dict[str, type] = {
    f"{dtype.legacy_name}Tensor": _typed_class(f"{dtype.legacy_name}Tensor", dtype)
    for dtype in (dtypes.float32, dtypes.float64, dtypes.int64, dtypes.int32, dtypes.bool_, dtypes.uint8)
}

_NEW_OVERLOADS = (" * (*, torch.device device = None)", " * (torch.Storage storage)", " * (Tensor other)",
                  " * (tuple of ints size, *, torch.device device = None)",
                  " * (object data, *, torch.device device = None)")


def _options(dtype: DType) -> str:
    return (f"TensorOptions(dtype={dtype.c_name}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def _bad_keywords(args: tuple, kwargs: dict) -> TorchTypeError:
    """PyTorch's overload listing for ``new()`` with keywords it does not take."""
    got = [py_type_name(a) for a in args] + [f"{k}={py_type_name(v)}" for k, v in kwargs.items()]
    bad = ", ".join(k for k in kwargs if k != "device")
    # PyTorch notes the keywords beside the overloads whose positional count fits the call
    noted = {3, 4} if args and all(_is_int_like(a) for a in args) else ({0} if len(args) <= 1 else set())
    lines = []
    for i, overload in enumerate(_NEW_OVERLOADS):
        lines.append(overload)
        if i in noted:
            lines.append(f"      didn't match because some of the keywords were incorrect: {bad}")
    return TorchTypeError(f"new() received an invalid combination of arguments - got ({', '.join(got)}), but "
                          "expected one of:\n" + "\n".join(lines) + "\n")


def _first_bad_leaf(data: Any, dtype: DType) -> Exception | None:
    """PyTorch's error for data whose shape it can infer but whose items are no numbers.

    The shape comes from the first items (a string there is "too many dimensions"); then each
    leaf converts to the dtype (a float: "must be real number", an integer: "cannot be
    interpreted as an integer").
    """
    probe, ndim = data, 0
    while isinstance(probe, (list, tuple, range)):
        ndim += 1
        if not len(probe):
            break
        probe = probe[0]
        if isinstance(probe, str):
            return TorchValueError("too many dimensions 'str'")
    stack = [(data, 0)]
    while stack:
        item, depth = stack.pop(0)
        if depth < ndim:
            if not isinstance(item, (list, tuple, range, str)):
                return TorchTypeError("not a sequence")
            stack[:0] = [(x, depth + 1) for x in item]  # (a string is a sequence of strings there)
        elif not isinstance(item, (int, float, bool, np.generic, Tensor)):
            if dtype.is_floating_point:
                return TorchTypeError(f"must be real number, not {py_type_name(item)}")
            return TorchTypeError(f"'{py_type_name(item)}' object cannot be interpreted as an integer")
    return None


def _invalid_types(args: tuple) -> TorchTypeError:
    got = ", ".join(py_type_name(a) for a in args)
    lines = list(_NEW_OVERLOADS)
    if len(args) == 2 and not any(isinstance(a, (list, tuple)) for a in args):
        marked = ", ".join(f"!{py_type_name(a)}!" for a in args)
        lines.insert(1, f"      didn't match because some of the arguments have invalid types: ({marked})")
    return TorchTypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one "
                          "of:\n" + "\n".join(lines) + "\n")


def legacy_new(dtype: DType, /, *args: Any, **kwargs: Any) -> Tensor:
    """PyTorch's legacy constructor for ``dtype`` (``torch.FloatTensor(...)``), its overloads in its order."""
    if set(kwargs) - {"device"}:
        raise _bad_keywords(args, kwargs)
    device = kwargs.get("device")
    if device is not None:
        kind = parse_device(device).type
        if kind != "cpu":
            raise TorchRuntimeError(f"legacy constructor expects device type: cpu but device type: {kind} was passed")
    if not args:
        return leaf(np.zeros((0,), dtype=dtype.np), dtype, False)
    first = args[0]
    if len(args) == 1 and isinstance(first, Tensor):
        if first._dtype is not dtype:
            raise TorchTypeError(f"expected {_options(dtype)} (got {_options(first._dtype)})")
        return run(ALIAS, {"self": first})  # (a view: AliasBackward0 when it requires grad)
    if _is_int_like(first) or isinstance(first, Size):
        sizes = tuple(first) if isinstance(first, Size) else args
        if isinstance(first, Size) and len(args) > 1:
            raise _bad_keywords(args, kwargs)
        for j, value in enumerate(sizes):
            if not _is_int_like(value):
                raise TorchTypeError("new(): argument 'size' failed to unpack the object at pos "
                                     f"{j + 1} with error \"type must be tuple of ints,but got {py_type_name(value)}\"")
        shape = tuple(int(v) for v in sizes)
        for v in shape:
            if v < 0:
                listed = ", ".join(map(str, shape))
                raise TorchRuntimeError(f"Trying to create tensor with negative dimension {v}: [{listed}]")
        check_size(shape)
        return leaf(np.zeros(shape, dtype=dtype.np), dtype, False)  # (uninitialised memory in PyTorch)
    if len(args) > 1:
        raise _invalid_types(args)
    if isinstance(first, str):
        raise TorchTypeError("new(): invalid data type 'str'")
    if isinstance(first, np.ndarray):
        shared = from_numpy(first)  # the array's memory when its dtype is this one, as PyTorch shares it
        return shared if shared._dtype is dtype else convert(shared, dtype).detach()
    if not isinstance(first, (list, tuple, range)):
        raise TorchTypeError(f"new(): data must be a sequence (got {py_type_name(first)})")
    bad = _first_bad_leaf(first, dtype)
    if bad is not None:
        raise bad
    array, _ = infer_data(first, dtype)
    check_size(array.shape)
    return leaf(np.asarray(array, dtype=dtype.np), dtype, False)


# -- Tensor.type ---------------------------------------------------------------------------------

_TYPE = LazyParser("type(Tensor self, any? dtype=None, bool non_blocking=False, *, any? memory_format=None)",
                   method=True)
_TYPE_NAMES = {f"torch.{name}": cls.dtype for name, cls in TYPED_CLASSES.items()}


def type_name(t: Tensor) -> str:
    """``'torch.FloatTensor'``: PyTorch's name for the tensor's (CPU) type."""
    return f"torch.{t._dtype.legacy_name}Tensor"


def _type_of_name(name: str) -> DType:
    if name == "torch.Tensor":
        return dtypes.get_default_dtype()
    if name.startswith("torch.cuda."):
        raise TorchRuntimeError(_CUDA_INIT)
    found = _TYPE_NAMES.get(name)
    if found is None:
        raise TorchValueError(f"invalid type: '{name}'")
    return found


@signed(_TYPE, method=True)
def _type(self: Tensor, *args: Any, **kwargs: Any) -> Any:
    """``Tensor.type(dtype=None, non_blocking=False)``: a name, or the tensor converted (``to``)."""
    _, b = _TYPE.parse((self, *args), kwargs)
    target = b["dtype"]
    if target is None:
        return type_name(self)
    stand_in = None if isinstance(target, type) else python_type_dtype(target)  # (the shorthand's long)
    if stand_in is not None:
        dtype = stand_in
    elif isinstance(target, DType):
        dtype = target
    elif isinstance(target, type):
        module = getattr(target, "__module__", "")
        name = target.__qualname__ if module == "builtins" else f"{module}.{target.__qualname__}"  # its tp_name
        dtype = _type_of_name("torch.Tensor" if target is Tensor else name)
    elif isinstance(target, str):
        dtype = _type_of_name(target)
    else:
        raise TorchTypeError("dtype must be a type, str, or dtype object")
    return self if dtype is self._dtype else convert(self, dtype)


def _is_signed(self: Tensor) -> bool:
    """``Tensor.is_signed()``: a method in PyTorch (``torch.dtype.is_signed`` is the property)."""
    return self._dtype.is_signed


def _byte(self: Tensor, memory_format: Any = None) -> Tensor:
    """``Tensor.byte()``: a uint8 copy (integers wrap, as C casts do)."""
    return convert(self, dtypes.uint8)


CATALOG.register(_type, "type", method=True)
CATALOG.register(_is_signed, "is_signed", method=True)
CATALOG.register(_byte, "byte", method=True)
