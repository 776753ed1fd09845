"""``where``, comparisons (and ``allclose``, ``isclose``, ``equal``), logical and bitwise ops,
and the ``isnan`` family.

Only ``where`` is differentiable (its gradient is a ``where`` again); the
in-place comparisons record a node with zero gradients, as PyTorch's do
(``x.lt_(0)`` is ``LtBackward0``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..autograd.formulas import d
from ..dispatch.op import BINARY, INPLACE, METHOD
from ..dispatch.promotion import binary_arrays
from ..dispatch.op import LINEAR
from ..dispatch.publish import Catalog
from ..dispatch.python_signature import signed
from ..dispatch.signature import LazyParser
from ..errors import TorchRuntimeError
from ..kernels import select
from ..shape_rules import broadcast_all, broadcast_shapes
from ..tensor import Tensor
from .constants import zero_scalar, zeros_like

CATALOG = Catalog(jvp=LINEAR, vmap="pointwise")
defop = CATALOG.defop


# -- where ---------------------------------------------------------------------------------------

def _where_forward(b: dict) -> Any:
    if "self" not in b:
        # where(condition) is nonzero(condition, as_tuple=True): one int64 index tensor per dim
        return tuple(np.asarray(i, dtype=np.int64) for i in np.nonzero(np.atleast_1d(b["condition"]._data)))
    cond, x, y = b["condition"], b["self"], b["other"]
    if cond._dtype is not dtypes.bool_:
        raise TorchRuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{cond._dtype.legacy_name}")
    broadcast_all([cond._data.shape, x._data.shape, y._data.shape])  # in PyTorch's operand order
    a1, a2, _ = binary_arrays(x, y)
    # A +0 on one side (relu's and threshold_backward's where, a gradient masked to zero) is
    # selected by bit masks, several times faster than np.where's branch per element, with
    # the same bits and layout (kernels/select.py)
    if a2.dtype.kind in "fiu" and _plus_zero(a1):
        return select.zero_where(cond._data, a2)
    return np.where(cond._data, a1, a2)


def _plus_zero(a: np.ndarray) -> bool:
    return a.ndim == 0 and a == 0 and not np.signbit(a)


# PyTorch's overloads, in its order (they make its "invalid combination" messages).
WHERE = defop("where", ["where(Tensor condition)",
                        "where(Tensor condition, Tensor input, Tensor other, *, Tensor? out=None)",
                        "where(Tensor condition, Scalar self, Tensor other)",
                        "where(Tensor condition, Tensor input, Scalar other)",
                        "where(Tensor condition, Scalar self, Scalar other)"],
              _where_forward, node="WhereBackward0", inputs=("self", "other"), method=False,
              derivs={"self": d("condition", rule="where(condition, grad, 0)")(
                          lambda g, s: WHERE(s.condition, g, zero_scalar(g))),
                      "other": d("condition", rule="where(condition, 0, grad)")(
                          lambda g, s: WHERE(s.condition, zero_scalar(g), g))})

_WHERE_METHOD = LazyParser("where(Tensor input, Tensor condition, Tensor other)",
                           "where(Tensor input, Tensor condition, Scalar other)", method=True)


@signed(_WHERE_METHOD, method=True)
def where_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``x.where(condition, y)`` is ``torch.where(condition, x, y)``."""
    _, b = _WHERE_METHOD.parse((self,) + args, kwargs)
    return WHERE(b["condition"], self, b["other"])


CATALOG.register(where_method, "where", method=True)


# -- comparisons (never differentiable, but for the in-place forms) ------------------------------

def _compare(fn: Callable) -> Callable[[dict], Any]:
    def forward(b: dict) -> Any:
        a1, a2, _ = binary_arrays(b["self"], b["other"])
        return fn(a1, a2)
    return forward


def _zeros_of_other(g: Tensor, s: Any) -> Tensor:
    return Tensor._make(np.zeros(s.other_sym_sizes, s.other_dtype.np), s.other_dtype)


def _comparison(name: str, fn: Callable) -> Any:
    # A Tensor and a Scalar overload; numbers only for `other` (torch.lt(2, x) is refused).  The
    # in-place forms are differentiable (zero gradients): x.lt_(0) is LtBackward0 in PyTorch.
    title = name.capitalize()
    return defop(name, [f"{name}(Tensor input, Tensor other, *, Tensor? out=None)",
                        f"{name}(Tensor input, Scalar other, *, Tensor? out=None)"],
                 _compare(fn), inputs=("self", "other"), numbers_as_tensors="other", inplace=True,
                 scalar_inputs=("other",), operators={f"__{name}__": BINARY}, array_operands=name == "eq",
                 node=lambda b: None if "_inplace" not in b else f"{title}Backward{0 if b['other']._wrapped else 1}",
                 derivs={"self": d(rule="0 (a comparison is piecewise constant)")(lambda g, s: zeros_like(g)),
                         "other": d(rule="0 (a comparison is piecewise constant)")(_zeros_of_other)})


EQ, NE, LT, LE, GT, GE = (_comparison(name, fn) for name, fn in (
    ("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
    ("ge", np.greater_equal)))


# -- logic and bits -----------------------------------------------------------------------------

def _logical(fn: Callable) -> Callable[[dict], Any]:
    def forward(b: dict) -> Any:
        x, y = b["self"]._data, b["other"]._data
        if x.shape != y.shape:
            broadcast_shapes(x.shape, y.shape)  # (PyTorch's error, before NumPy's)
        return fn(x.astype(bool), y.astype(bool))
    return forward


for _name, _fn in (("logical_and", np.logical_and), ("logical_or", np.logical_or),
                   ("logical_xor", np.logical_xor)):
    defop(_name, f"{_name}(Tensor input, Tensor other, *, Tensor? out=None)", _logical(_fn),
          inputs=("self", "other"), inplace=True)
defop("logical_not", "logical_not(Tensor input, *, Tensor? out=None)", lambda b: np.logical_not(b["self"]._data),
      inplace=True)


def _bitwise(fn: Callable, name: str) -> Callable[[dict], Any]:
    def forward(b: dict) -> Any:
        a1, a2, rt = binary_arrays(b["self"], b["other"])
        if rt.is_floating_point:
            raise TorchRuntimeError(f"\"{name}_cpu\" not implemented for '{rt.legacy_name}'")
        return fn(a1, a2)
    return forward


for _name, _fn, _symbol in (("bitwise_and", np.bitwise_and, "and"), ("bitwise_or", np.bitwise_or, "or"),
                            ("bitwise_xor", np.bitwise_xor, "xor")):
    defop(_name, f"{_name}(Tensor input, Tensor other, *, Tensor? out=None)", _bitwise(_fn, _name),
          inputs=("self", "other"), numbers_as_tensors=True, inplace=True,
          operators={f"__{_symbol}__": BINARY, f"__r{_symbol}__": BINARY, f"__i{_symbol}__": INPLACE})


def _bitwise_not(b: dict) -> Any:
    a = b["self"]._data
    if a.dtype.kind == "f":
        raise TorchRuntimeError(f"\"bitwise_not_cpu\" not implemented for '{b['self']._dtype.legacy_name}'")
    return np.invert(a)


defop("bitwise_not", "bitwise_not(Tensor input, *, Tensor? out=None)", _bitwise_not, inplace=True,
      operators={"__invert__": METHOD})


# -- predicates -----------------------------------------------------------------------------------

def _unary_predicate(fn: Callable) -> Callable[[dict], Any]:
    return lambda b: fn(b["self"]._data)


for _name, _fn in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite),
                   ("isposinf", np.isposinf), ("isneginf", np.isneginf), ("signbit", np.signbit)):
    defop(_name, f"{_name}(Tensor input)", _unary_predicate(_fn))


# -- whole-tensor comparisons (Python functions of PyTorch's, no ops) ------------------------------

def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
             equal_nan: bool = False) -> bool:
    if input._batched or other._batched:   # (inside vmap: fine only for values it never batched)
        input, other = _unbatched_pair(input, other)
        if input is None:
            raise TorchRuntimeError("vmap over torch.allclose isn't supported yet. Please file an issue at "
                                    "https://github.com/pytorch/pytorch/issues if you need this feature.")
    _same_dtype_check(input, other)
    a, b, _ = binary_arrays(input, other)
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _unbatched_pair(a: Tensor, b: Tensor) -> tuple:
    """Both as their one sample (jacfwd's primal: vmap batched it, PyTorch does not), or (None, None)."""
    from ..batching.batched_tensor import one_sample
    a, b = (one_sample(t) if t._batched else t for t in (a, b))
    return (a, b) if a is not None and b is not None else (None, None)


def _same_dtype_check(input: Tensor, other: Tensor) -> None:  # noqa: A002
    if input._dtype is not other._dtype:  # isclose does not promote
        raise TorchRuntimeError(f"{input._dtype.legacy_name} did not match {other._dtype.legacy_name}")


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
            equal_nan: bool = False) -> Tensor:
    _same_dtype_check(input, other)
    if input._batched or other._batched:   # (inside vmap)
        return _isclose_by_ops(input, other, rtol, atol, equal_nan)
    a, b, _ = binary_arrays(input, other)
    return Tensor._make(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _isclose_by_ops(a: Tensor, b: Tensor, rtol: float, atol: float, equal_nan: bool) -> Tensor:
    """isclose as PyTorch's own kernel composes it (TensorCompare.cpp), for batched operands."""
    close = a == b
    if equal_nan and a._dtype.is_floating_point:
        close = close | (a.isnan() & b.isnan())
    if rtol == 0 and atol == 0:
        return close
    actual = (a - b).abs()
    return close | (actual.isfinite() & (actual <= (b * rtol).abs() + atol))


def equal(input: Tensor, other: Tensor) -> bool:  # noqa: A002
    if input._batched or other._batched:   # (inside vmap: fine only for values it never batched)
        input, other = _unbatched_pair(input, other)
        if input is None:
            raise TorchRuntimeError("Batching rule not implemented for aten::equal. We could not generate a "
                                    "fallback.")
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


_CLOSE = "(Tensor input, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False)"
CATALOG.register(allclose, torch=True, method=True, sigs="allclose" + _CLOSE)
CATALOG.register(isclose, torch=True, method=True, sigs="isclose" + _CLOSE)
CATALOG.register(equal, torch=True, method=True, sigs="equal(Tensor input, Tensor other)")
