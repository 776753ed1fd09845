"""Pointwise ops: one ``defop`` each, with PyTorch's node name and gradient formula.

Gradient formulas follow PyTorch's derivatives.yaml, written with Tensor
operations so they can be differentiated again.  Where PyTorch behaves
specially at an awkward point (``abs`` at 0, ``pow`` with a zero base, ties
in ``maximum``), the formula copies that on purpose.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..errors import TorchNotImplementedError, TorchRuntimeError
from ..tensor import Tensor, wrap_scalar
from ..dispatch.promotion import arr, binary_arrays, float_dtype, promote
from ..kernels import sleef
from .registry import binary_dunder, d, defop, inplace_dunder

LN2 = math.log(2.0)
LN10 = math.log(10.0)


def no_kernel(name: str, dtype: Any) -> TorchNotImplementedError:
    """PyTorch's error for a dtype its CPU kernel was not built for."""
    return TorchNotImplementedError(f"\"{name}\" not implemented for '{dtype.legacy_name}'")


def _refusing(fn: Callable, kernel: str, kinds: str) -> Callable:
    """``fn``, but arrays of the NumPy kinds in ``kinds`` ("b" bool, "i" ints) fail as PyTorch's kernel."""
    def forward(a: np.ndarray) -> Any:
        if a.dtype.kind in kinds:
            raise no_kernel(kernel, dtypes.from_numpy(a.dtype))
        return fn(a)
    return forward


def zeros_like(t: Tensor) -> Tensor:
    return Tensor._make(np.zeros_like(t._data), t._dtype)


def ones_like(t: Tensor) -> Tensor:
    return Tensor._make(np.ones_like(t._data), t._dtype)


def _sig(name: str) -> str:
    return f"{name}(Tensor input, *, Tensor? out=None)"


# -- unary ops ------------------------------------------------------------------------------

def _float_unary(fn: Callable) -> Callable[[dict], Any]:
    def forward(b: dict) -> Any:
        x = b["self"]
        return fn(arr(x, float_dtype(x)))
    return forward


def _same_unary(fn: Callable) -> Callable[[dict], Any]:
    def forward(b: dict) -> Any:
        return fn(b["self"]._data)
    return forward


def wide(fn: Callable) -> Callable:
    """``fn`` evaluated in float64 and rounded back for float32 input: NumPy's float32 exp, log,
    tanh, ... are often a unit in the last place off where PyTorch's are correctly rounded
    (exp agrees bit for bit with PyTorch for 60% of inputs in float32, 99% this way)."""
    def evaluate(a: np.ndarray) -> np.ndarray:
        return fn(a.astype(np.float64)).astype(np.float32) if a.dtype == np.float32 else fn(a)
    return evaluate


def _sigmoid(a: np.ndarray) -> np.ndarray:
    # PyTorch: 1 / (1 + exp(-x)) in the input's dtype; float32 with SLEEF's exp in the
    # vector blocks (see sleef.py), otherwise a correctly rounded exp
    if a.dtype == np.float32 and 0 < a.size <= sleef.EXACT_LIMIT:
        return sleef.sigmoid(a)
    one = a.dtype.type(1)
    return one / (one + wide(np.exp)(-a))


def _grad_op(name: str, g: Tensor, **args: Any) -> Tensor:
    """PyTorch's ``tanh_backward``, ``sigmoid_backward``, ``threshold_backward`` (see grad_ops)."""
    from . import grad_ops
    return grad_ops.call(getattr(grad_ops, name), g, **args)


def unary(name: str, fn: Callable, node: str, deriv: Any, float_only: bool = True,
          **kw: Any) -> None:
    forward = _float_unary(fn) if float_only else _same_unary(fn)
    defop(name, _sig(name), forward, node=node, derivs={"self": deriv}, inplace=True, **kw)


def _erf(a: np.ndarray) -> np.ndarray:
    # math.erf is exact to the last bit; vectorised through frompyfunc.
    out = np.frompyfunc(math.erf, 1, 1)(a.astype(np.float64))
    return np.asarray(out, dtype=np.float64).astype(a.dtype)


def _no_bool_neg(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.bool_:
        raise TorchRuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
            "mask, use the `~` or `logical_not()` operator instead.")
    return np.negative(a)


unary("exp", wide(np.exp), "ExpBackward0", d("result")(lambda g, s: g * s.result))
unary("exp2", wide(np.exp2), "Exp2Backward0", d("result")(lambda g, s: g * s.result * LN2))
unary("expm1", wide(np.expm1), "Expm1Backward0", d("result")(lambda g, s: g * (s.result + 1)))
unary("log", wide(np.log), "LogBackward0", d("self")(lambda g, s: g / s.self))
unary("log2", wide(np.log2), "Log2Backward0", d("self")(lambda g, s: g / (s.self * LN2)))
unary("log10", wide(np.log10), "Log10Backward0", d("self")(lambda g, s: g / (s.self * LN10)))
unary("log1p", wide(np.log1p), "Log1PBackward0", d("self")(lambda g, s: g / (s.self + 1)))
unary("sqrt", np.sqrt, "SqrtBackward0", d("result")(lambda g, s: g / (2 * s.result)))
unary("rsqrt", lambda a: 1 / np.sqrt(a), "RsqrtBackward0",
      d("result")(lambda g, s: -0.5 * g * s.result.pow(3)))
unary("sin", wide(np.sin), "SinBackward0", d("self")(lambda g, s: g * s.self.cos()))
unary("cos", wide(np.cos), "CosBackward0", d("self")(lambda g, s: g * -s.self.sin()))
unary("tan", wide(np.tan), "TanBackward0", d("result")(lambda g, s: g * (1 + s.result.pow(2))))
unary("asin", wide(np.arcsin), "AsinBackward0", d("self")(lambda g, s: g * (-s.self * s.self + 1).rsqrt()))
unary("acos", wide(np.arccos), "AcosBackward0", d("self")(lambda g, s: g * -(-s.self * s.self + 1).rsqrt()))
unary("atan", wide(np.arctan), "AtanBackward0", d("self")(lambda g, s: g / (s.self * s.self + 1)))
unary("sinh", wide(np.sinh), "SinhBackward0", d("self")(lambda g, s: g * s.self.cosh()))
unary("cosh", wide(np.cosh), "CoshBackward0", d("self")(lambda g, s: g * s.self.sinh()))
unary("tanh", wide(np.tanh), "TanhBackward0", d("result")(lambda g, s: _grad_op("TANH", g, self=s.result)))
unary("sigmoid", _sigmoid, "SigmoidBackward0",
      d("result")(lambda g, s: _grad_op("SIGMOID", g, self=s.result)), also_in=("nn.functional",))
unary("erf", _erf, "ErfBackward0",
      d("self")(lambda g, s: g * (2 / math.sqrt(math.pi)) * (-s.self * s.self).exp()))
unary("reciprocal", lambda a: 1 / a, "ReciprocalBackward0",
      d("result")(lambda g, s: -g * (s.result * s.result)))
unary("neg", _no_bool_neg, "NegBackward0", d()(lambda g, s: -g), float_only=False,
      dunders=("__neg__",))
# abs's gradient is grad * self.sgn() in PyTorch (SgnBackward0 in a create_graph graph)
unary("abs", _refusing(np.abs, "abs_cpu", "b"), "AbsBackward0", d("self")(lambda g, s: g * s.self.sgn()), float_only=False,
      dunders=("__abs__",))
def _sign(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.bool_:
        return a.copy()
    # PyTorch's sign of NaN is 0 (so abs's gradient there is 0 too)
    return np.where(np.isnan(a), a.dtype.type(0), np.sign(a)) if a.dtype.kind == "f" else np.sign(a)


def _relu(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.bool_:
        raise TorchRuntimeError("Boolean inputs not supported for relu")
    # x < 0 ? 0 : x, so relu(-0.0) is -0.0 and NaN stays NaN, as in PyTorch
    return np.where(a < 0, a.dtype.type(0), a)


unary("sign", _sign, "SignBackward0", d()(lambda g, s: zeros_like(g)), float_only=False)
unary("sgn", _sign, "SgnBackward0", d()(lambda g, s: zeros_like(g)), float_only=False)
unary("floor", _refusing(np.floor, "floor_vml_cpu", "b"), "FloorBackward0", d()(lambda g, s: zeros_like(g)),
      float_only=False)
unary("ceil", _refusing(np.ceil, "ceil_vml_cpu", "b"), "CeilBackward0", d()(lambda g, s: zeros_like(g)),
      float_only=False)
unary("trunc", _refusing(np.trunc, "trunc_vml_cpu", "b"), "TruncBackward0", d()(lambda g, s: zeros_like(g)),
      float_only=False)
unary("frac", _refusing(lambda a: a - np.trunc(a), "frac_cpu", "bi"), "FracBackward0", d()(lambda g, s: g),
      float_only=False)
# PyTorch's threshold_backward: blocked where result <= 0, so a NaN input passes its gradient.
unary("relu", _relu, "ReluBackward0",
      d("result")(lambda g, s: _grad_op("THRESHOLD", g, self=s.result, threshold=0)), float_only=False)
FUNCTIONS_ALIASES = {"negative": "neg", "absolute": "abs", "arcsin": "asin", "arccos": "acos",
                     "arctan": "atan", "fix": "trunc"}


def _round_forward(b: dict) -> Any:
    a = b["self"]._data
    if a.dtype.kind != "f" and ("decimals" in b or a.dtype == np.bool_):
        # integers round to themselves, but not through an explicit decimals= (nor bool at all)
        kernel = "round_cpu" if b.get("decimals") else "round_vml_cpu"
        raise no_kernel(kernel, b["self"]._dtype)
    decimals = b.get("decimals", 0)
    if not decimals:
        return np.round(a) if a.dtype.kind == "f" else a.copy()
    return np.round(a, decimals)


defop("round", ["round(Tensor input, *, Tensor? out=None)",
                "round(Tensor input, *, int decimals, Tensor? out=None)"], _round_forward,
      node=lambda b: "RoundBackward1" if "decimals" in b else "RoundBackward0",
      derivs={"self": d()(lambda g, s: zeros_like(g))}, inplace=True)


def _square_forward(b: dict) -> Any:
    a = b["self"]._data
    if a.dtype == np.bool_:
        a = a.astype(np.int64)
    return a * a


# square is pow(x, 2) in PyTorch, hence PowBackward0 and `_saved_exponent`.
defop("square", _sig("square"), lambda b: _square_forward(b), node="PowBackward0",
      derivs={"self": d("self")(lambda g, s: g * 2 * s.self)}, inplace=True)


# -- binary arithmetic --------------------------------------------------------------------------

def _arith(fn: Callable, name: str) -> Callable[[dict], Any]:
    def forward(b: dict) -> Any:
        if name == "sub":
            _sub_check(b["self"], b["other"])
        x, y, rt = binary_arrays(b["self"], b["other"])
        alpha = b.get("alpha", 1)
        if alpha != 1:
            _check_alpha(alpha, rt, name)
            y = y * rt.np.type(alpha)
        if rt is dtypes.bool_ and name == "add":
            return np.logical_or(x, y)
        return fn(x, y)
    return forward


def _sub_check(x: Tensor, y: Tensor) -> None:
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
            derivs={"self": d()(lambda g, s: g), "other": d()(_times_alpha)})
SUB = defop("sub", _BINARY.format("sub"), _arith(np.subtract, "sub"), node="SubBackward0",
            inputs=("self", "other"), numbers_as_tensors=True, inplace=True, exposes=("alpha",),
            derivs={"self": d()(lambda g, s: g), "other": d()(lambda g, s: -_times_alpha(g, s))})
RSUB = defop("rsub", _BINARY.format("rsub"), lambda b: _arith(np.subtract, "sub")(
                 {"self": b["other"], "other": b["self"], "alpha": b.get("alpha", 1)}),
             node=lambda b: "RsubBackward1" if b["other"]._wrapped else "RsubBackward0",
             inputs=("self", "other"), scalar_inputs=("other",), numbers_as_tensors=True, method=False,
             exposes=("alpha",),
             derivs={"self": d()(lambda g, s: -_times_alpha(g, s)), "other": d()(lambda g, s: g)})
MUL = defop("mul", "mul(Tensor input, Tensor other, *, Tensor? out=None)", _arith(np.multiply, "mul"),
            node="MulBackward0", inputs=("self", "other"), numbers_as_tensors=True, inplace=True,
            derivs={"self": d("other")(lambda g, s: g * s.other),
                    "other": d("self")(lambda g, s: g * s.self)})


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


defop("div", ["div(Tensor input, Tensor other, *, Tensor? out=None)",
              "div(Tensor input, Tensor other, *, str? rounding_mode, Tensor? out=None)"], _div_forward,
      # an explicit rounding_mode=None is still the Tensor_mode overload
      node=lambda b: "DivBackward2" if "rounding_mode" in b else "DivBackward0",
      inputs=("self", "other"), numbers_as_tensors=True, inplace=True,
      derivs={"self": d("other")(lambda g, s: zeros_like(g) if s.__dict__.get("rounding_mode") else g / s.other),
              "other": d("self", "other")(
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


defop("floor_divide", "floor_divide(Tensor input, Tensor other, *, Tensor? out=None)",
      _floor_divide_forward, node="NotImplemented", inputs=("self", "other"), numbers_as_tensors=True,
      scalar_inputs=("other",), required_edges_only=True,
      inplace=True, derivs={"self": d()(_not_implemented("floor_divide")),
                            "other": d()(_not_implemented("floor_divide"))})


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
defop("remainder", "remainder(Tensor input, Tensor other, *, Tensor? out=None)", _remainder_forward,
      node=lambda b: "NotImplemented" if b["self"]._wrapped else
      "RemainderBackward0" if b["other"]._wrapped else "RemainderBackward1",
      inputs=("self", "other"), scalar_inputs=("self", "other"), numbers_as_tensors=True, inplace=True,
      saves=lambda b: set() if b["self"]._wrapped else {"self", "other"},  # NotImplemented keeps nothing
      derivs={"self": d()(lambda g, s: g),
              "other": d("self", "other")(lambda g, s: _not_implemented("remainder")(g, s) if not hasattr(s, "self")
                                          else -g * (s.self / s.other).floor())})


def _fmod_forward(b: dict) -> Any:
    x, y, _ = binary_arrays(b["self"], b["other"])
    if x.dtype.kind in "iub":
        _check_int_zero(x, y)
    return np.fmod(x, y)


defop("fmod", "fmod(Tensor input, Tensor other, *, Tensor? out=None)", _fmod_forward,
      node=lambda b: "FmodBackward0" if b["other"]._wrapped else "FmodBackward1",
      inputs=("self", "other"), scalar_inputs=("other",), numbers_as_tensors=True, inplace=True,
      derivs={"self": d()(lambda g, s: g),
              "other": d("self", "other")(lambda g, s: -g * (s.self / s.other).trunc())})


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
    if exp._wrapped and rt.is_floating_point:
        # PyTorch's pow_tensor_scalar_optimized_kernel multiplies for these exponents, rounding
        # at each step: x ** 3 is x * x * x, not a correctly rounded power.
        e = y.item()
        if e == 3:
            return x * x * x
        if e == -2:
            return x.dtype.type(1) / (x * x)
    # Other float32 powers: PyTorch's std::pow / SLEEF powf are (nearly) correctly rounded,
    # NumPy's float32 power is not (x.pow(tensor([1, 2, 3])) differed in ~20% of elements).
    if x.dtype == np.float32:
        return np.power(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
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
    from .extras import mul_scalar, sub_scalar
    e = s.other
    if e._wrapped:
        value = e.item()
        if value == 0 and not isinstance(value, bool):  # a bool Scalar is no 0.0 to pow_backward
            return zeros_like(g)
        return g * mul_scalar(s.self.pow(value - 1), value)
    return WHERE_FN(e == 0.0, _zero_like(g), g * (e * s.self.pow(sub_scalar(e, 1))))


def _zero_like(g: Tensor) -> Tensor:
    """``at::zeros({}, grad.options())``: a 0-dim zero that is no graph input."""
    return Tensor._make(np.zeros((), dtype=g._data.dtype), g._dtype)


def _pow_exponent_grad(g: Tensor, s: Any) -> Tensor:
    # d/d exponent of base**exponent is result*log(base); PyTorch masks it to 0 where the
    # base is 0 and the exponent is >= 0 (instead of 0*-inf = nan).
    from .extras import mul_scalar
    base = s.self
    if base._wrapped:
        value = base.item()
        scaled = mul_scalar(s.result, math.log(value) if value > 0 else (-math.inf if value == 0 else math.nan))
        if value == 0:
            scaled = WHERE_FN(s.other >= 0, _zero_like(g), scaled)
        return g * scaled
    return g * WHERE_FN((s.other >= 0) & (base == 0.0), _zero_like(g), s.result * base.log())


POW = defop("pow", "pow(Tensor input, Tensor exponent, *, Tensor? out=None)",
            lambda b: _pow_forward({"self": b["self"], "other": b["exponent"]}),
            node=lambda b: _pow_node({"self": b["self"], "other": b["exponent"]}),
            inputs=("self", "exponent"), scalar_inputs=("self", "exponent"), numbers_as_tensors=True,
            inplace=True, saves=_pow_saves,
            derivs={"self": d("self", "exponent")(
                        lambda g, s: _pow_self_grad(g, _PowView(s))),
                    "exponent": d("self", "exponent", "result")(
                        lambda g, s: _pow_exponent_grad(g, _PowView(s)))})


class _PowView:
    """Saved values of pow under the names the helpers use."""

    def __init__(self, s: Any) -> None:
        self.self = s.self
        self.other = s.exponent
        self.result = getattr(s, "result", None)


def _rpow(self: Tensor, other: Any) -> Any:
    if not isinstance(other, (int, float, Tensor)):
        return NotImplemented
    return POW_FN(other if isinstance(other, Tensor) else wrap_scalar(other), self)


def _rtruediv(self: Tensor, other: Any) -> Any:
    # PyTorch computes `2 / x` as reciprocal(x) * 2, hence MulBackward0.
    if not isinstance(other, (int, float, Tensor)):
        return NotImplemented
    return self.reciprocal() * other


def _rsub(self: Tensor, other: Any) -> Any:
    if not isinstance(other, (int, float, Tensor)):
        return NotImplemented
    return RSUB_FN(self, other)


# -- binary float ops --------------------------------------------------------------------------

def _atan2_forward(b: dict) -> Any:
    x, y = b["self"], b["other"]
    rt = promote(x, y)
    if not rt.is_floating_point:
        rt = dtypes.get_default_dtype()
    a1, a2, _ = binary_arrays(x, y, rt)
    return np.arctan2(a1, a2)


def _atan2_grad(which: str) -> Callable:
    def formula(g: Tensor, s: Any) -> Tensor:
        denom = s.self * s.self + s.other * s.other
        num = s.other if which == "self" else -s.self
        grad = g * num / denom
        return grad.masked_fill(denom == 0, 0.0)
    return formula


defop("atan2", "atan2(Tensor input, Tensor other, *, Tensor? out=None)", _atan2_forward,
      node="Atan2Backward0", inputs=("self", "other"), inplace=True,
      derivs={"self": d("self", "other")(_atan2_grad("self")),
              "other": d("self", "other")(_atan2_grad("other"))})


def _hypot_forward(b: dict) -> Any:
    a1, a2, rt = binary_arrays(b["self"], b["other"])
    if not rt.is_floating_point:
        raise no_kernel("hypot_cpu", rt)
    return np.hypot(a1, a2)


defop("hypot", "hypot(Tensor input, Tensor other, *, Tensor? out=None)", _hypot_forward,
      node="HypotBackward0", inputs=("self", "other"), inplace=True,
      derivs={"self": d("self", "result")(lambda g, s: g * s.self / s.result),
              "other": d("other", "result")(lambda g, s: g * s.other / s.result)})


def _keep_first_on_ties(out: np.ndarray, a1: np.ndarray, a2: np.ndarray) -> np.ndarray:
    """PyTorch's scalar kernels (std::max/min) keep the first operand on a tie of +0 and -0, NumPy's
    the second.  (PyTorch's vector kernels, from 16 float32 or 8 float64 elements, do as NumPy.)"""
    if out.dtype.kind != "f":
        return out
    tie = (a1 == a2) & ~np.isnan(a1)
    return np.where(tie, np.broadcast_to(a1, out.shape), out)


def _minmax(fn: Callable) -> Callable[[dict], Any]:
    def forward(b: dict) -> Any:
        a1, a2, _ = binary_arrays(b["self"], b["other"])
        return _keep_first_on_ties(fn(a1, a2), a1, a2)
    return forward


def _tie_split(first: bool, greater: bool) -> Callable:
    # PyTorch's formula: where(self == other, grad / 2, grad).masked_fill_(<the other won>, 0), so
    # ties share the gradient, a NaN passes it to both sides, and a loser gets +0 (not -0 or nan).
    def formula(g: Tensor, s: Any) -> Tensor:
        a, b = (s.self, s.other) if first else (s.other, s.self)
        lost = (a < b) if greater else (a > b)
        return WHERE_FN(a == b, g / 2, g).masked_fill(lost, 0)
    return formula


defop("maximum", "maximum(Tensor input, Tensor other, *, Tensor? out=None)", _minmax(np.maximum),
      node="MaximumBackward0", inputs=("self", "other"),
      derivs={"self": d("self", "other")(_tie_split(True, True)),
              "other": d("self", "other")(_tie_split(False, True))})
defop("minimum", "minimum(Tensor input, Tensor other, *, Tensor? out=None)", _minmax(np.minimum),
      node="MinimumBackward0", inputs=("self", "other"),
      derivs={"self": d("self", "other")(_tie_split(True, False)),
              "other": d("self", "other")(_tie_split(False, False))})


def _lerp_meta(b: dict) -> None:
    start = b["self"]
    # lerp does not promote: end, and a weight tensor with dims, must have self's dtype
    for name in ("end", "weight"):
        t = b[name]
        if t._dtype is not start._dtype and not t._wrapped and (name == "end" or t.ndim):
            raise TorchRuntimeError(f"expected dtype {start._dtype.c_name} for `{name}` but got dtype "
                                    f"{t._dtype.c_name}")


def _lerp_forward(b: dict) -> Any:
    start, end, weight = b["self"], b["end"], b["weight"]
    _lerp_meta(b)
    from ..shape_rules import broadcast_all
    broadcast_all([start.shape, end.shape, weight.shape])
    if not start._dtype.is_floating_point:
        raise no_kernel("lerp_kernel_scalar" if weight._wrapped else "lerp_kernel_tensor", start._dtype)
    rt = promote(start, end, weight)  # a 0-dim double weight of 0-dim floats makes a double
    s_, e_ = arr(start, rt), arr(end, rt)
    w = arr(weight, rt)
    # PyTorch's formula, which is exact at both ends.
    return np.where(np.abs(w) < 0.5, s_ + w * (e_ - s_), e_ - (e_ - s_) * (1 - w))


def _lerp_self_grad(g: Tensor, s: Any) -> Tensor:
    w = s.weight
    if w._wrapped:  # a Scalar weight: PyTorch computes 1 - weight.toDouble()
        return g * (1.0 - float(w.item()))
    # PyTorch's `1 - weight` on a tensor is ones_like(weight).sub_(weight): bool minus bool
    _sub_check(w, w)
    return g * (1 - w)


defop("lerp", "lerp(Tensor input, Tensor end, Tensor weight, *, Tensor? out=None)", _lerp_forward,
      node=lambda b: "LerpBackward0" if b["weight"]._wrapped else "LerpBackward1",
      inputs=("self", "end", "weight"), scalar_inputs=("weight",), numbers_as_tensors=True, inplace=True,
      meta=_lerp_meta,
      derivs={"self": d("weight")(_lerp_self_grad),
              "end": d("weight")(lambda g, s: g * s.weight),
              "weight": d("self", "end")(lambda g, s: g * (s.end - s.self))})


# -- clamp ---------------------------------------------------------------------------------------

def _clamp_forward(b: dict) -> Any:
    x, lo, hi = b["self"], b.get("min"), b.get("max")
    if lo is None and hi is None:
        raise TorchRuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    parts = [t for t in (x, lo, hi) if isinstance(t, Tensor)]
    from ..shape_rules import broadcast_all
    broadcast_all([t.shape for t in parts])
    rt = promote(*parts)
    scalars = all(t is None or t._wrapped for t in (lo, hi))
    if rt is dtypes.bool_ and (scalars or (lo is not None and hi is not None)):
        kernel = "clamp_cpu" if not scalars else "clamp_scalar_cpu" if lo is not None and hi is not None \
            else "clamp_min_scalar_cpu" if lo is not None else "clamp_max_scalar_cpu"
        raise no_kernel(kernel, rt)
    a = arr(x, rt)
    if lo is not None:
        # std::max / std::min keep the input on a tie (clamp(-0., 0., 0.) is -0.), NumPy's do not
        low = arr(lo, rt)
        if lo._data.ndim or not lo._wrapped:
            a = _keep_first_on_ties(np.maximum(a, low), a, low)
        else:
            a = np.where((a < low) | np.isnan(low), low, a)
    if hi is not None:
        h = arr(hi, rt)
        # std::min keeps the input on a tie (clamp(-0., max=0.) is -0.); np.minimum would not
        if hi._data.ndim or not hi._wrapped:
            a = _keep_first_on_ties(np.minimum(a, h), a, h)
        else:
            a = np.where((a > h) | np.isnan(h), h, a)
    return np.asarray(a)


# PyTorch's clamp_backward / clamp_backward_min_max: `where`, never a product with a mask (so a
# blocked gradient is +0 even where it was nan or negative); with both tensor bounds and
# min > max the result is max, so the gradient goes to max.
# The masks are combined in place, as PyTorch does: so a bound that broadcasts beyond self's
# comparison fails in backward with PyTorch's in-place shape error.
def _clamp_self_grad(g: Tensor, s: Any) -> Tensor:
    x = s.self
    mask = None
    if s.min is not None:
        mask = x >= s.min
    if s.max is not None:
        upper = x <= s.max
        mask = upper if mask is None else mask.logical_and_(upper)
    return WHERE_FN(mask, g, _zero_like(g))


def _clamp_min_grad(g: Tensor, s: Any) -> Tensor:
    mask = s.self < s.min
    if s.max is not None:
        mask = mask.logical_and_(s.min < s.max)
    return WHERE_FN(mask, g, _zero_like(g))


def _clamp_max_grad(g: Tensor, s: Any) -> Tensor:
    mask = s.self > s.max
    if s.min is not None:
        mask = mask.logical_or_(s.max < s.min)
    return WHERE_FN(mask, g, _zero_like(g))


_CLAMP_SIGS = ["clamp(Tensor input, Tensor? min=None, Tensor? max=None, *, Tensor? out=None)"]
CLAMP = defop("clamp", _CLAMP_SIGS, _clamp_forward,
              node=lambda b: "ClampBackward1" if all(t is None or t._wrapped for t in (b["min"], b["max"]))
              else "ClampBackward0",
              inputs=("self", "min", "max"), numbers_as_tensors=True, inplace=True,
              scalar_inputs=("min", "max"), joint_scalars=True,
              derivs={"self": d("self", "min", "max")(_clamp_self_grad),
                      "min": d("self", "min", "max")(_clamp_min_grad),
                      "max": d("self", "min", "max")(_clamp_max_grad)})
defop("clip", [s.replace("clamp(", "clip(") for s in _CLAMP_SIGS], _clamp_forward,
      node=CLAMP.node, inputs=CLAMP.inputs, numbers_as_tensors=True, inplace=True, derivs=CLAMP.derivs,
      scalar_inputs=CLAMP.scalar_inputs, joint_scalars=True)


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
    from ..shape_rules import broadcast_all
    broadcast_all([cond._data.shape, x._data.shape, y._data.shape])  # in PyTorch's operand order
    a1, a2, _ = binary_arrays(x, y)
    return np.where(cond._data, a1, a2)


# PyTorch's overloads, in its order (they make its "invalid combination" messages).
WHERE = defop("where", ["where(Tensor condition)",
                        "where(Tensor condition, Tensor input, Tensor other, *, Tensor? out=None)",
                        "where(Tensor condition, Scalar self, Tensor other)",
                        "where(Tensor condition, Tensor input, Scalar other)",
                        "where(Tensor condition, Scalar self, Scalar other)"],
              lambda b: _where_forward(b), node="WhereBackward0", inputs=("self", "other"), method=False,
              derivs={"self": d("condition")(lambda g, s: WHERE_FN(s.condition, g, _zero_like(g))),
                      "other": d("condition")(lambda g, s: WHERE_FN(s.condition, _zero_like(g), g))})


_WHERE_METHOD: Any = None


def _where_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``x.where(condition, y)`` is ``torch.where(condition, x, y)``."""
    global _WHERE_METHOD
    if _WHERE_METHOD is None:
        from ..dispatch.signature import ArgParser
        _WHERE_METHOD = ArgParser(["where(Tensor input, Tensor condition, Tensor other)",
                                   "where(Tensor input, Tensor condition, Scalar other)"], method=True)
    _, b = _WHERE_METHOD.parse((self,) + args, kwargs)
    return WHERE_FN(b["condition"], self, b["other"])


# -- comparisons and logic (never differentiable) ----------------------------------------------

def _compare(fn: Callable) -> Callable[[dict], Any]:
    def forward(b: dict) -> Any:
        a1, a2, _ = binary_arrays(b["self"], b["other"])
        return fn(a1, a2)
    return forward


_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
        "ge": np.greater_equal}
_CMP_DUNDER = {"eq": "__eq__", "ne": "__ne__", "lt": "__lt__", "le": "__le__", "gt": "__gt__",
               "ge": "__ge__"}
COMPARE_OPS = {}
for _name, _fn in _CMP.items():
    # A Tensor and a Scalar overload; numbers only for `other` (torch.lt(2, x) is refused).  The
    # in-place forms are differentiable (zero gradients): x.lt_(0) is LtBackward0 in PyTorch.
    COMPARE_OPS[_name] = defop(_name, [f"{_name}(Tensor input, Tensor other, *, Tensor? out=None)",
                                       f"{_name}(Tensor input, Scalar other, *, Tensor? out=None)"],
                               _compare(_fn), inputs=("self", "other"), numbers_as_tensors="other",
                               inplace=True, scalar_inputs=("other",),
                               node=lambda b, n=_name.capitalize(): None if "_inplace" not in b else
                               f"{n}Backward{0 if b['other']._wrapped else 1}",
                               derivs={"self": d()(lambda g, s: zeros_like(g)),
                                       "other": d()(lambda g, s: Tensor._make(
                                           np.zeros(s.other_sym_sizes, s.other_dtype.np), s.other_dtype))})
_ALIASES_CMP = {"greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le",
                "not_equal": "ne"}


def _logical(fn: Callable) -> Callable[[dict], Any]:
    def forward(b: dict) -> Any:
        return fn(b["self"]._data.astype(bool), b["other"]._data.astype(bool))
    return forward


for _name, _fn in (("logical_and", np.logical_and), ("logical_or", np.logical_or),
                   ("logical_xor", np.logical_xor)):
    defop(_name, f"{_name}(Tensor input, Tensor other, *, Tensor? out=None)", _logical(_fn),
          inputs=("self", "other"), inplace=True)
defop("logical_not", _sig("logical_not"), lambda b: np.logical_not(b["self"]._data), inplace=True)


def _bitwise(fn: Callable, name: str) -> Callable[[dict], Any]:
    def forward(b: dict) -> Any:
        a1, a2, rt = binary_arrays(b["self"], b["other"])
        if rt.is_floating_point:
            raise TorchRuntimeError(f"\"{name}_cpu\" not implemented for '{rt.legacy_name}'")
        return fn(a1, a2)
    return forward


for _name, _fn, _dunder in (("bitwise_and", np.bitwise_and, "__and__"),
                            ("bitwise_or", np.bitwise_or, "__or__"),
                            ("bitwise_xor", np.bitwise_xor, "__xor__")):
    _op = defop(_name, f"{_name}(Tensor input, Tensor other, *, Tensor? out=None)",
                _bitwise(_fn, _name), inputs=("self", "other"), numbers_as_tensors=True, inplace=True)


def _bitwise_not(b: dict) -> Any:
    a = b["self"]._data
    if a.dtype.kind == "f":
        raise TorchRuntimeError(f"\"bitwise_not_cpu\" not implemented for '{b['self']._dtype.legacy_name}'")
    return np.invert(a)


defop("bitwise_not", _sig("bitwise_not"), _bitwise_not, inplace=True, dunders=("__invert__",))


def _unary_predicate(fn: Callable) -> Callable[[dict], Any]:
    return lambda b: fn(b["self"]._data)


for _name, _fn in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite),
                   ("isposinf", np.isposinf), ("isneginf", np.isneginf), ("signbit", np.signbit)):
    defop(_name, f"{_name}(Tensor input)", _unary_predicate(_fn))


# -- the operator protocol -----------------------------------------------------------------------

def _install_dunders() -> None:
    from .registry import FUNCTIONS, METHOD_NAMES, OPS
    global POW_FN, RSUB_FN, WHERE_FN
    POW_FN = FUNCTIONS["pow"]
    RSUB_FN = lambda a, b: FUNCTIONS["rsub"](a, b)  # noqa: E731
    WHERE_FN = FUNCTIONS["where"]
    T = Tensor
    T.__add__ = binary_dunder(OPS["add"])
    T.__radd__ = binary_dunder(OPS["add"])
    T.__iadd__ = inplace_dunder(OPS["add"])
    T.__sub__ = binary_dunder(OPS["sub"])
    T.__rsub__ = _rsub
    T.__isub__ = inplace_dunder(OPS["sub"])
    T.__mul__ = binary_dunder(OPS["mul"])
    T.__rmul__ = binary_dunder(OPS["mul"])
    T.__imul__ = inplace_dunder(OPS["mul"])
    T.__truediv__ = binary_dunder(OPS["div"])
    T.__rtruediv__ = _rtruediv
    T.__itruediv__ = inplace_dunder(OPS["div"])
    T.__floordiv__ = binary_dunder(OPS["floor_divide"])
    T.__rfloordiv__ = binary_dunder(OPS["floor_divide"], reflected=True)
    T.__ifloordiv__ = inplace_dunder(OPS["floor_divide"])
    T.__mod__ = binary_dunder(OPS["remainder"])
    T.__rmod__ = binary_dunder(OPS["remainder"], reflected=True)
    T.__imod__ = inplace_dunder(OPS["remainder"])
    T.__pow__ = _pow_dunder
    T.__rpow__ = _rpow
    T.__ipow__ = _ipow_dunder
    for name, dunder in _CMP_DUNDER.items():
        setattr(T, dunder, binary_dunder(OPS[name]))
    T.__and__ = binary_dunder(OPS["bitwise_and"])
    T.__rand__ = binary_dunder(OPS["bitwise_and"])
    T.__iand__ = inplace_dunder(OPS["bitwise_and"])
    T.__or__ = binary_dunder(OPS["bitwise_or"])
    T.__ror__ = binary_dunder(OPS["bitwise_or"])
    T.__ior__ = inplace_dunder(OPS["bitwise_or"])
    T.__xor__ = binary_dunder(OPS["bitwise_xor"])
    T.__rxor__ = binary_dunder(OPS["bitwise_xor"])
    T.__ixor__ = inplace_dunder(OPS["bitwise_xor"])
    T.__pos__ = lambda self: self
    T.where = _where_method
    METHOD_NAMES.add("where")
    T.__script_attrs__ = T.__script_attrs__ | {"where"}


def _pow_dunder(self: Tensor, other: Any, modulo: Any = None) -> Any:
    if not isinstance(other, (Tensor, int, float)):
        return NotImplemented
    return POW_FN(self, other)


def _ipow_dunder(self: Tensor, other: Any) -> Any:
    if not isinstance(other, (Tensor, int, float)):
        return NotImplemented
    return self.pow_(other)


POW_FN: Callable = None  # type: ignore[assignment]
RSUB_FN: Callable = None  # type: ignore[assignment]
WHERE_FN: Callable = None  # type: ignore[assignment]
_install_dunders()
