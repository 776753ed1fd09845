"""Arithmetic: ``+ - * / // % **`` and their functions (``add``, ``sub``, ``mul``, ``div``, ...).

Each op computes in the dtype PyTorch promotes to, and its node and formula
are PyTorch's, including which operands are graph inputs: ``x ** 2`` takes 2
as a Scalar (one next function), ``2 / x`` is ``reciprocal(x) * 2`` (hence
``MulBackward0``).  The operators skip argument parsing (see
``dispatch.forms``).  The Scalar overloads PyTorch's C++ composites call
(``AddBackward1``, ``MulBackward1``, ...) are ops of their own here too.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..autograd.formulas import NOT_IMPLEMENTED, d
from ..dispatch.forms import operand
from ..dispatch.op import BINARY, INPLACE, REFLECTED
from ..dispatch.promotion import arr, binary_arrays, promote
from ..dispatch.op import POINTWISE
from ..dispatch.publish import Catalog
from ..dispatch.runner import run
from ..errors import TorchRuntimeError, TorchValueError, no_kernel
from ..kernels import binary_float
from ..kernels.exactfp import fma32, fma64
from ..tensor import Tensor, wrap_scalar
from .comparison import WHERE
from .constants import zero_scalar, zeros_like

CATALOG = Catalog(jvp=POINTWISE, vmap="pointwise")
defop = CATALOG.defop


def _arith(fn: Callable, name: str) -> Callable[[dict], Any]:
    def forward(b: dict) -> Any:
        if name == "sub":
            sub_check(b["self"], b["other"])
        x, y, rt = binary_arrays(b["self"], b["other"])
        alpha = b.get("alpha", 1)
        if alpha != 1:
            _check_alpha(alpha, rt, name)
            if rt.is_floating_point:
                # PyTorch's kernel is one fused multiply-add, other * alpha + self (sub adds
                # -alpha), in its vector blocks and scalar tails alike
                a = rt.np.type(alpha)
                return fma(y, -a if name == "sub" else a, x)
            y = y * rt.np.type(alpha)
        if rt is dtypes.bool_ and name == "add":
            return np.logical_or(x, y)
        return fn(x, y)
    return forward


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a * b + c`` rounded once, in the (floating) dtype of the operands."""
    return fma32(a, b, c) if np.result_type(a, b, c) == np.float32 else fma64(a, b, c)


def sub_check(x: Tensor, y: Tensor) -> None:
    # PyTorch's sub_check, before broadcasting; a Python bool counts as a bool tensor.
    if x._dtype is dtypes.bool_ and y._dtype is dtypes.bool_:
        raise TorchRuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
            "`logical_xor()` operator instead.")
    if x._dtype is dtypes.bool_ or y._dtype is dtypes.bool_:
        raise TorchRuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
            "mask, use the `~` or `logical_not()` operator instead.")


def _check_alpha(alpha: Any, rt: Any, name: str) -> None:
    if isinstance(alpha, float) and not rt.is_floating_point:
        raise TorchRuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number.")


def _times_alpha(g: Tensor, s: Any) -> Tensor:
    return g if s.alpha == 1 else g * s.alpha


_BINARY = "{}(Tensor input, Tensor other, *, Scalar alpha=1, Tensor? out=None)"

ADD = defop("add", _BINARY.format("add"), _arith(np.add, "add"), node="AddBackward0",
            inputs=("self", "other"), numbers_as_tensors=True, inplace=True, exposes=("alpha",),
            operators={"__add__": BINARY, "__radd__": BINARY, "__iadd__": INPLACE},
            derivs={"self": d(rule="grad")(lambda g, s: g), "other": d(rule="grad * alpha")(_times_alpha)})
SUB = defop("sub", _BINARY.format("sub"), _arith(np.subtract, "sub"), node="SubBackward0",
            inputs=("self", "other"), numbers_as_tensors=True, inplace=True, exposes=("alpha",),
            operators={"__sub__": BINARY, "__isub__": INPLACE},
            derivs={"self": d(rule="grad")(lambda g, s: g),
                    "other": d(rule="-grad * alpha")(lambda g, s: -_times_alpha(g, s))})
RSUB = defop("rsub", _BINARY.format("rsub"), lambda b: _arith(np.subtract, "sub")(
                 {"self": b["other"], "other": b["self"], "alpha": b.get("alpha", 1)}),
             node=lambda b: "RsubBackward1" if b["other"]._wrapped else "RsubBackward0",
             inputs=("self", "other"), scalar_inputs=("other",), numbers_as_tensors=True, method=False,
             exposes=("alpha",),
             derivs={"self": d(rule="-grad * alpha")(lambda g, s: -_times_alpha(g, s)),
                     "other": d(rule="grad")(lambda g, s: g)})
MUL = defop("mul", "mul(Tensor input, Tensor other, *, Tensor? out=None)", _arith(np.multiply, "mul"),
            node="MulBackward0", inputs=("self", "other"), numbers_as_tensors=True, inplace=True,
            operators={"__mul__": BINARY, "__rmul__": BINARY, "__imul__": INPLACE},
            derivs={"self": d("other", rule="grad * other")(lambda g, s: g * s.other),
                    "other": d("self", rule="grad * self")(lambda g, s: g * s.self)})


def _div_forward(b: dict) -> Any:
    x, y = b["self"], b["other"]
    rt = promote(x, y)
    if not rt.is_floating_point:
        rt = dtypes.get_default_dtype()
    mode = b.get("rounding_mode")
    a1, a2, _ = binary_arrays(x, y, rt if mode is None else None)
    if mode is None:
        return a1 / a2
    if mode in ("floor", "trunc") and a1.dtype == np.bool_:
        raise no_kernel(f"div_{mode}_cpu", dtypes.bool_)
    if mode == "floor":
        return _floor_divide(a1, a2)
    if mode == "trunc":
        if a1.dtype.kind in "iub":
            _check_int_zero(a1, a2)
            q = np.abs(a1) // np.abs(a2)
            return np.where((a1 < 0) != (a2 < 0), -q, q).astype(a1.dtype)
        return np.trunc(a1 / a2)
    raise TorchRuntimeError(
        f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'")


DIV = defop("div", ["div(Tensor input, Tensor other, *, Tensor? out=None)",
              "div(Tensor input, Tensor other, *, str? rounding_mode, Tensor? out=None)"], _div_forward,
      # an explicit rounding_mode=None is still the Tensor_mode overload
      node=lambda b: "DivBackward2" if "rounding_mode" in b else "DivBackward0",
      exposes={"DivBackward2": ("rounding_mode",)},
      inputs=("self", "other"), numbers_as_tensors=True, inplace=True,
      operators={"__truediv__": BINARY, "__itruediv__": INPLACE},
      derivs={"self": d("other", rule="grad / other (0 with a rounding_mode)")(
                  lambda g, s: zeros_like(g) if s.__dict__.get("rounding_mode") else g / s.other),
              "other": d("self", "other", rule="-grad * self / other^2 (0 with a rounding_mode)")(
                  lambda g, s: zeros_like(g) if s.__dict__.get("rounding_mode")
                  else -g * ((s.self / s.other) / s.other))})


def _check_int_zero(x: np.ndarray, y: np.ndarray) -> None:
    # PyTorch's integer kernels fail on the first zero divisor they meet: none in an empty result
    if y.dtype.kind in "iub" and not np.all(y) and np.broadcast(x, y).size:
        raise TorchRuntimeError("ZeroDivisionError")


def _floor_divide(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iub":
        _check_int_zero(x, y)
    return np.floor_divide(x, y)


def _floor_divide_forward(b: dict) -> Any:
    x, y, rt = binary_arrays(b["self"], b["other"])
    if rt is dtypes.bool_:
        raise no_kernel("div_floor_cpu", rt)
    return _floor_divide(x, y)


def _not_implemented(name: str) -> Callable:
    def formula(g: Tensor, s: Any) -> Tensor:
        suffix = "_" if getattr(s, "_inplace", False) else ""  # aten::floor_divide_ for the in-place form
        raise TorchRuntimeError(f"derivative for aten::{name}{suffix} is not implemented")
    return formula


FLOOR_DIVIDE = defop("floor_divide", "floor_divide(Tensor input, Tensor other, *, Tensor? out=None)",
      _floor_divide_forward, node="NotImplemented", inputs=("self", "other"), numbers_as_tensors=True,
      scalar_inputs=("other",), required_edges_only=True,
      operators={"__floordiv__": BINARY, "__rfloordiv__": REFLECTED, "__ifloordiv__": INPLACE},
      inplace=True, derivs={"self": d(rule=NOT_IMPLEMENTED)(_not_implemented("floor_divide")),
                            "other": d(rule=NOT_IMPLEMENTED)(_not_implemented("floor_divide"))})


def _remainder_forward(b: dict) -> Any:
    x, y, rt = binary_arrays(b["self"], b["other"])
    if rt is dtypes.bool_:
        raise no_kernel("remainder_cpu", rt)
    if x.dtype.kind in "iu":
        _check_int_zero(x, y)
    # PyTorch's kernel: fmod, moved into the divisor's sign unless it is 0 (so a zero keeps
    # the dividend's sign, where NumPy's remainder gives it the divisor's).
    mod = np.fmod(x, y)
    return np.where((mod != 0) & ((y < 0) != (mod < 0)), mod + y, mod)


# `2 % x` is remainder(Scalar, Tensor), which has no derivative in PyTorch: a NotImplemented node.
REMAINDER = defop("remainder", "remainder(Tensor input, Tensor other, *, Tensor? out=None)", _remainder_forward,
      node=lambda b: "NotImplemented" if b["self"]._wrapped else
      "RemainderBackward0" if b["other"]._wrapped else "RemainderBackward1",
      inputs=("self", "other"), scalar_inputs=("self", "other"), numbers_as_tensors=True, inplace=True,
      operators={"__mod__": BINARY, "__rmod__": REFLECTED, "__imod__": INPLACE},
      jvp_passes_tangent=lambda b: b["other"]._wrapped and not b["self"]._wrapped,
      saves=lambda b: set() if b["self"]._wrapped else {"self", "other"},  # NotImplemented keeps nothing
      derivs={"self": d(rule="grad")(lambda g, s: g),
              "other": d("self", "other", rule="-grad * floor(self / other)",
                         node_rules={"NotImplemented": NOT_IMPLEMENTED})(
                  lambda g, s: _not_implemented("remainder")(g, s) if not hasattr(s, "self")
                  else -g * (s.self / s.other).floor())})


def _fmod_forward(b: dict) -> Any:
    x, y, _ = binary_arrays(b["self"], b["other"])
    if x.dtype.kind in "iub":
        _check_int_zero(x, y)
    return np.fmod(x, y)


FMOD = defop("fmod", "fmod(Tensor input, Tensor other, *, Tensor? out=None)", _fmod_forward,
      node=lambda b: "FmodBackward0" if b["other"]._wrapped else "FmodBackward1",
      inputs=("self", "other"), scalar_inputs=("other",), numbers_as_tensors=True, inplace=True,
      jvp_passes_tangent=lambda b: b["other"]._wrapped,
      derivs={"self": d(rule="grad")(lambda g, s: g),
              "other": d("self", "other", rule="-grad * trunc(self / other)")(
                  lambda g, s: -g * (s.self / s.other).trunc())})


# -- pow ----------------------------------------------------------------------------------------

def _pow_forward(b: dict) -> Any:
    base, exp = b["self"], b["other"]
    x, y, rt = binary_arrays(base, exp)
    if rt.category == dtypes.INTEGRAL and exp._wrapped and np.any(y < 0):
        raise TorchRuntimeError("Integers to negative integer powers are not allowed.")  # the Scalar overload only
    if rt is dtypes.bool_:
        if not exp._wrapped:
            raise no_kernel("pow", rt)  # bool ** True is fine, two bool tensors are not
        x, y = x.astype(np.int64), y.astype(np.int64)
        return np.power(x, y).astype(np.bool_)
    if rt.category == dtypes.INTEGRAL and np.any(y < 0):
        # PyTorch's powi: a negative power is 1 for base 1, +-1 for base -1, else 0
        x, y = np.broadcast_arrays(x, y)
        odd = (np.abs(y) % 2) == 1
        negative = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0)).astype(x.dtype)
        return np.where(y < 0, negative, np.power(x, np.maximum(y, 0)))
    if x.dtype in (np.float32, np.float64):
        # PyTorch's kernels: SLEEF on the vector blocks, glibc on the tails (see binary_float)
        if exp._wrapped:
            return binary_float.pow_scalar(x, exp._data.item())
        if base._wrapped and base._data.item() == 1:
            return np.ones(np.broadcast_shapes(x.shape, y.shape), x.dtype)
        return binary_float.binary("pow", x, y)
    return np.power(x, y)


def _pow_node(b: dict) -> str:
    if b["other"]._wrapped:
        return "PowBackward0"
    if b["self"]._wrapped:
        return "PowBackward2"
    return "PowBackward1"


def _pow_saves(b: dict) -> set:
    # PowBackward0 (a number exponent) keeps no result; PowBackward1 and 2 do.
    return {"self", "exponent"} if b["exponent"]._wrapped else {"self", "exponent", "result"}


def _pow_self_grad(g: Tensor, s: Any) -> Tensor:
    # PyTorch's pow_backward / pow_backward_self, op for op (their Scalar arithmetic is the
    # C++ Scalar overloads: MulBackward1, SubBackward1), so create_graph gradients match.
    e = s.other
    if e._wrapped:
        value = e.item()
        if value == 0 and not isinstance(value, bool):  # a bool Scalar is no 0.0 to pow_backward
            return zeros_like(g)
        return g * mul_scalar(s.self.pow(value - 1), value)
    return WHERE(e == 0.0, zero_scalar(g), g * (e * s.self.pow(sub_scalar(e, 1))))


def _pow_exponent_grad(g: Tensor, s: Any) -> Tensor:
    # d/d exponent of base**exponent is result*log(base); PyTorch masks it to 0 where the
    # base is 0 and the exponent is >= 0 (instead of 0*-inf = nan).
    base = s.self
    if base._wrapped:
        value = base.item()
        scaled = mul_scalar(s.result, math.log(value) if value > 0 else (-math.inf if value == 0 else math.nan))
        if value == 0:
            scaled = WHERE(s.other >= 0, zero_scalar(g), scaled)
        return g * scaled
    return g * WHERE((s.other >= 0) & (base == 0.0), zero_scalar(g), s.result * base.log())


POW = defop("pow", "pow(Tensor input, Tensor exponent, *, Tensor? out=None)",
            lambda b: _pow_forward({"self": b["self"], "other": b["exponent"]}),
            node=lambda b: _pow_node({"self": b["self"], "other": b["exponent"]}),
            inputs=("self", "exponent"), scalar_inputs=("self", "exponent"), numbers_as_tensors=True,
            inplace=True, saves=_pow_saves,
            derivs={"self": d("self", "exponent", rule="grad * exponent * self^(exponent - 1)")(
                        lambda g, s: _pow_self_grad(g, _PowView(s))),
                    "exponent": d("self", "exponent", "result", rule="grad * result * log(self)")(
                        lambda g, s: _pow_exponent_grad(g, _PowView(s)))})


class _PowView:
    """Saved values of pow under the names the helpers use."""

    def __init__(self, s: Any) -> None:
        self.self = s.self
        self.other = s.exponent
        self.result = getattr(s, "result", None)


def _rpow(self: Tensor, other: Any) -> Any:
    other = operand(other)
    if other is None:
        return NotImplemented
    return POW(other if isinstance(other, Tensor) else wrap_scalar(other), self)


def _rtruediv(self: Tensor, other: Any) -> Any:
    # PyTorch computes `2 / x` as reciprocal(x) * 2, hence MulBackward0 (for an ndarray too: the
    # product is then NumPy's, see numpy_bridge)
    if isinstance(other, np.ndarray):
        try:
            return self.reciprocal() * other
        except ValueError as error:   # (NumPy's refusal, which PyTorch's `n / t` shows as it is)
            raise TorchValueError(str(error)) from None
    other = operand(other)
    if other is None:
        return NotImplemented
    return self.reciprocal() * other


def _rsub(self: Tensor, other: Any) -> Any:
    other = operand(other)
    if other is None:
        return NotImplemented
    return RSUB(self, other)



# -- Scalar overloads (what PyTorch's C++ composites call) ----------------------------------------
# (1 - label_smoothing) * nll in C++ multiplies by a Scalar, not a tensor: MulBackward1

def _scalar_forward(fn: Any) -> Any:
    def forward(b: dict) -> Any:
        t = b["self"]
        a = arr(t, t._dtype)
        return fn(a, a.dtype.type(b["other"]))
    return forward


def _no_bool_subtract(a: np.ndarray, b: Any) -> np.ndarray:
    if a.dtype == np.bool_:  # pow's gradient at a bool exponent: exponent - 1 fails as in PyTorch
        raise TorchRuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
            "mask, use the `~` or `logical_not()` operator instead.")
    return np.subtract(a, b)


MUL_SCALAR = defop("_mul_scalar", "_mul_scalar(Tensor input, Scalar other)", _scalar_forward(np.multiply),
                   node="MulBackward1", function=False, method=False,
                   derivs={"self": d(rule="grad * other")(lambda g, s: g * s.other)})
DIV_SCALAR = defop("_div_scalar", "_div_scalar(Tensor input, Scalar other)", _scalar_forward(np.divide),
                   node="DivBackward1", function=False, method=False,
                   derivs={"self": d(rule="grad / other")(lambda g, s: g / s.other)})
ADD_SCALAR = defop("_add_scalar", "_add_scalar(Tensor input, Scalar other)", _scalar_forward(np.add),
                   node="AddBackward1", function=False, method=False, derivs={"self": d(rule="grad")(lambda g, s: g)})
SUB_SCALAR = defop("_sub_scalar", "_sub_scalar(Tensor input, Scalar other)", _scalar_forward(_no_bool_subtract),
                   node="SubBackward1", function=False, method=False, derivs={"self": d(rule="grad")(lambda g, s: g)})


def add_scalar(t: Tensor, value: float) -> Tensor:
    return run(ADD_SCALAR, {"self": t, "other": value})


def sub_scalar(t: Tensor, value: float) -> Tensor:
    return run(SUB_SCALAR, {"self": t, "other": value})


def mul_scalar(t: Tensor, value: float) -> Tensor:
    return run(MUL_SCALAR, {"self": t, "other": value})


def div_scalar(t: Tensor, value: float) -> Tensor:
    return run(DIV_SCALAR, {"self": t, "other": value})


# -- operators that are no plain op call ----------------------------------------------------------

def _pow_operator(self: Tensor, other: Any, modulo: Any = None) -> Any:
    other = operand(other)
    if other is None:
        return NotImplemented
    return POW(self, other)


def _ipow_operator(self: Tensor, other: Any) -> Any:
    other = operand(other)
    if other is None:
        return NotImplemented
    return self.pow_(other)


def _pos_operator(self: Tensor) -> Tensor:
    return self


CATALOG.register(_rsub, operators=("__rsub__",))
CATALOG.register(_rtruediv, operators=("__rtruediv__",))
CATALOG.register(_pow_operator, operators=("__pow__",))
CATALOG.register(_rpow, operators=("__rpow__",))
CATALOG.register(_ipow_operator, operators=("__ipow__",))
CATALOG.register(_pos_operator, operators=("__pos__",))
