"""The dtypes gradcli supports, the default dtype, and PyTorch's type promotion.

Promotion follows PyTorch's three priority levels: tensors with dimensions
decide first; 0-dim tensors matter only when they are of a higher category
(bool < integer < floating); Python numbers ("wrapped numbers") matter only
when they are of a higher category than everything else, and then give the
default dtype of their category (int64 for ints, the default float dtype for
floats).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import TorchNotImplementedError, TorchTypeError

# Categories, ordered: a higher category wins in promotion.
BOOL, INTEGRAL, FLOATING = 0, 1, 2


class DType:
    """A tensor element type: prints as ``torch.float32``."""

    __slots__ = ("name", "np", "category", "itemsize", "legacy_name", "c_name", "__weakref__")
    __script_attrs__ = frozenset({"is_floating_point", "is_signed", "itemsize", "is_complex"})

    def __init__(self, name: str, np_dtype: type, category: int, legacy_name: str, c_name: str) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.category = category
        self.itemsize = self.np.itemsize
        # The name PyTorch uses in messages such as "[torch.FloatTensor [3]]".
        self.legacy_name = legacy_name
        # The C++ type name other messages use ("expected dtype long int", "dtype 'double'").
        self.c_name = c_name

    @property
    def is_floating_point(self) -> bool:
        return self.category == FLOATING

    @property
    def is_complex(self) -> bool:
        return False

    @property
    def is_signed(self) -> bool:
        return self.category != BOOL and self.np.kind != "u"

    def __repr__(self) -> str:
        return "torch." + self.name

    __str__ = __repr__

    def __reduce__(self) -> str:
        return self.name


DType.__module__ = "torch"
DType.__qualname__ = "dtype"
# Python's own messages use the C tp_name, which follows __name__: "'torch.dtype' object is
# not callable"; the repr <class 'torch.dtype'> comes from __module__ and __qualname__.
DType.__name__ = "torch.dtype"

float32 = DType("float32", np.float32, FLOATING, "Float", "float")
float64 = DType("float64", np.float64, FLOATING, "Double", "double")
int64 = DType("int64", np.int64, INTEGRAL, "Long", "long int")
int32 = DType("int32", np.int32, INTEGRAL, "Int", "int")
bool_ = DType("bool", np.bool_, BOOL, "Bool", "bool")
# The generators' saved state is a uint8 tensor (torch.ByteTensor).
uint8 = DType("uint8", np.uint8, INTEGRAL, "Byte", "unsigned char")

ALL: tuple[DType, ...] = (float32, float64, int64, int32, bool_, uint8)
BY_NAME: dict[str, DType] = {d.name: d for d in ALL}
# torch.float is torch.float32, torch.long is torch.int64, ...
ALIASES: dict[str, DType] = {
    **BY_NAME, "float": float32, "double": float64, "long": int64, "int": int32,
}
_BY_NP: dict[np.dtype, DType] = {d.np: d for d in ALL}

# Names of real PyTorch dtypes gradcli does not support, for a clear error.
UNSUPPORTED_NAMES = frozenset({
    "float16", "half", "bfloat16", "complex64", "complex128", "cfloat", "cdouble",
    "int8", "int16", "short", "uint16", "uint32", "uint64", "complex32",
    "chalf", "float8_e4m3fn", "float8_e5m2", "qint8", "quint8", "qint32",
})


def from_numpy(np_dtype: np.dtype) -> DType:
    found = _BY_NP.get(np_dtype)  # (an ndarray's dtype is a key as it is; a name or type is not)
    return found if found is not None else _BY_NP[np.dtype(np_dtype)]


# What PyTorch can make a tensor of (from NumPy); gradcli has fewer dtypes (see ``of_numpy``).
_PYTORCH_KINDS = ("float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, "
                  "uint16, uint8, and bool")
_PYTORCH_NAMES = {np.dtype(n): torch_name for n, torch_name in (
    ("float16", "float16"), ("complex64", "complex64"), ("complex128", "complex128"), ("int16", "int16"),
    ("int8", "int8"), ("uint16", "uint16"), ("uint32", "uint32"), ("uint64", "uint64"))}


def of_numpy(np_dtype: np.dtype) -> DType:
    """The torch dtype of an ndarray's dtype, with PyTorch's error for one it cannot hold (and
    gradcli's for one PyTorch has but gradcli does not)."""
    try:
        return from_numpy(np_dtype)
    except KeyError:
        pass
    if np_dtype in _PYTORCH_NAMES:
        raise TorchNotImplementedError(f"gradcli does not support torch.{_PYTORCH_NAMES[np_dtype]} yet")
    raise TorchTypeError(f"can't convert np.ndarray of type numpy.{np_dtype.type.__name__}. The only supported "
                         f"types are: {_PYTORCH_KINDS}.")


_default_float = float32


def get_default_dtype() -> DType:
    return _default_float


def set_default_dtype(d: object) -> None:
    global _default_float
    if not isinstance(d, DType):
        raise TorchTypeError(
            f"set_default_dtype(): argument 'd' (position 1) must be torch.dtype, not {type(d).__name__}")
    if d.category != FLOATING:
        raise TorchTypeError("only floating-point types are supported as the default type")
    _default_float = d
    _RESULT_TYPES.clear()  # promotion with Python floats depends on the default
    _PAIR_TYPES.clear()


# The 5x5 promotion table for tensors of the same priority.
def promote_types(a: DType, b: DType) -> DType:
    if a is b:
        return a
    if a.category != b.category:
        return a if a.category > b.category else b
    return a if a.itemsize >= b.itemsize else b


def scalar_dtype(value: object) -> DType:
    """The dtype a Python number becomes on its own (``torch.tensor(value)``)."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    return _default_float


def _default_of(d: DType) -> DType:
    return {FLOATING: _default_float, INTEGRAL: int64, BOOL: bool_}[d.category]


def result_type(operands: list) -> DType:
    """PyTorch's result dtype for ``operands``: Tensors and Python numbers.

    Tensors need the attributes ``_dtype``, ``_data`` and ``_wrapped`` (a
    Python number turned into a 0-dim tensor keeps the lowest priority).
    The answer depends only on each operand's dtype and priority, so it is
    worked out once per combination of those (``_RESULT_TYPES``).
    """
    key = tuple(_promotion_key(x) for x in operands)
    found = _RESULT_TYPES.get(key)
    if found is None:
        found = _RESULT_TYPES[key] = _promoted(key)
    return found


def pair_result_type(a: Any, b: Any) -> DType:
    """``result_type([a, b])`` for two tensors, the common case, without building a list."""
    key = (a._dtype, 2 if a._wrapped else (1 if a._data.ndim == 0 else 0),
           b._dtype, 2 if b._wrapped else (1 if b._data.ndim == 0 else 0))
    found = _PAIR_TYPES.get(key)
    if found is None:
        found = _PAIR_TYPES[key] = _promoted(((key[0], key[1]), (key[2], key[3])))
    return found


# (dtype, priority) of each operand -> result; a handful of entries in practice.
_RESULT_TYPES: dict[tuple, DType] = {}
_PAIR_TYPES: dict[tuple, DType] = {}


def _promotion_key(x: Any) -> tuple[DType, int]:
    """An operand's dtype and priority: 0 a tensor with dimensions, 1 a 0-dim tensor, 2 a
    Python number (or one wrapped into a tensor)."""
    if isinstance(x, (bool, int, float)):
        return scalar_dtype(x), 2
    return x._dtype, 2 if x._wrapped else (1 if x._data.ndim == 0 else 0)


def _promoted(key: tuple) -> DType:
    dim_t: DType | None = None
    zero_t: DType | None = None
    wrapped: DType | None = None
    for d, level in key:
        if level == 0:
            dim_t = d if dim_t is None else promote_types(dim_t, d)
        elif level == 1:
            zero_t = d if zero_t is None else promote_types(zero_t, d)
        else:
            wrapped = d if wrapped is None else promote_types(wrapped, d)
    result = dim_t
    for lower, is_wrapped in ((zero_t, False), (wrapped, True)):
        if lower is None:
            continue
        if result is None:
            result = _default_of(lower) if is_wrapped else lower
        elif lower.category > result.category:
            # A lower-priority operand of a higher category lifts the result to
            # its category; a Python number brings that category's default
            # dtype (int64, or the default float), a 0-dim tensor its own.
            result = _default_of(lower) if is_wrapped else lower
    assert result is not None
    return result


def can_cast(src: DType, dst: DType) -> bool:
    """PyTorch's rule for in-place and ``out=``: no cast to a lower category."""
    return src.category <= dst.category


# c10's checked_convert: a Scalar written into a tensor of a dtype must fit it.  The names are the
# C++ types its message uses; an unsigned type also takes the negatives that wrap (-255 for uint8).
_C_TYPES = {"int64": "int64_t", "int32": "int", "uint8": "uint8_t", "float32": "float", "float64": "double"}
_INT_RANGES = {"int64": (-2 ** 63, 2 ** 63 - 1), "int32": (-2 ** 31, 2 ** 31 - 1), "uint8": (-255, 255)}
_FLOAT_RANGES = {"int64": (-2.0 ** 63, 2.0 ** 63), "int32": (-2.0 ** 31, 2.0 ** 31 - 1), "uint8": (0.0, 255.0),
                 "float32": (-3.4028234663852886e38, 3.4028234663852886e38)}


def check_scalar_fits(value: object, dtype: DType) -> None:
    """PyTorch's refusal of a Python number that ``dtype`` cannot hold (``torch.full((2,), 2**63)``,
    ``fill_`` of an int32 tensor with 2**40): ``value cannot be converted to type int64_t without
    overflow``; an int outside uint64/int64 fails as PyTorch's Scalar unpacking fails."""
    import math

    from .errors import TorchOverflowError, TorchRuntimeError
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        if value >= 2 ** 64:
            raise TorchOverflowError("int too big to convert")
        if value < -2 ** 63:
            raise TorchOverflowError("can't convert negative int to unsigned")
        if dtype is bool_:   # (any other number is a bool; only the unpacking above fails)
            return
        bounds = _INT_RANGES.get(dtype.name)
        if bounds is None or bounds[0] <= value <= bounds[1]:
            return
    elif isinstance(value, float) and dtype is not bool_:
        bounds = _FLOAT_RANGES.get(dtype.name)
        if bounds is None:
            return
        if math.isinf(value) and dtype.category == FLOATING:
            return  # (a float type holds infinities; NaN compares false below)
        if not math.isnan(value) and bounds[0] <= value <= bounds[1]:
            return
        if math.isnan(value) and dtype.category == FLOATING:
            return
    else:
        return
    raise TorchRuntimeError(f"value cannot be converted to type {_C_TYPES[dtype.name]} without overflow")


def scalar_as(value: Any, dtype: DType) -> Any:
    """A Python number as one element of ``dtype`` (PyTorch's ``Scalar.to<scalar_t>()``): refused as
    ``check_scalar_fits`` refuses it, else converted as C++ converts it (-1 in uint8 is 255, 2.0**63
    in int64 wraps), not refused as NumPy refuses it."""
    check_scalar_fits(value, dtype)
    if dtype is bool_:
        return bool(value)
    if dtype.is_floating_point:
        return float(value)
    with np.errstate(invalid="ignore", over="ignore"):
        source = np.float64(value) if isinstance(value, float) else np.int64(value)
        return source.astype(dtype.np)
