"""Pointwise ops of one tensor: ``exp``, ``sin``, ``abs``, ``relu``, ``round``, ... one ``defop`` each.

Gradient formulas follow PyTorch's derivatives.yaml, written with Tensor
operations so they can be differentiated again.  Where PyTorch behaves
specially at an awkward point (``abs`` at 0, ``sign`` of NaN, ``relu`` of a
NaN), the formula copies that on purpose.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..autograd.formulas import d
from ..dispatch.op import METHOD, Op
from ..dispatch.promotion import arr, float_dtype
from ..dispatch.op import POINTWISE
from ..dispatch.publish import Catalog
from ..errors import TorchRuntimeError, no_kernel
from ..kernels import elementwise, select, sleef, sleef_f32, vml_sqrt
from ..kernels.float32_math import erf, wide
from ..tensor import Tensor
from . import backward_ops
from .comparison import WHERE
from .constants import zeros_like

CATALOG = Catalog(jvp=POINTWISE, vmap="pointwise")
defop = CATALOG.defop

LN2 = math.log(2.0)
LN10 = math.log(10.0)
# The rule of the ops that are flat wherever they have a slope (floor, sign, round, ...).
STEP = "0 (the op is piecewise constant)"


def _refusing(fn: Callable, kernel: str, kinds: str) -> Callable:
    """``fn``, but arrays of the NumPy kinds in ``kinds`` ("b" bool, "i" ints) fail as PyTorch's kernel."""
    def forward(a: np.ndarray) -> Any:
        if a.dtype.kind in kinds:
            raise no_kernel(kernel, dtypes.from_numpy(a.dtype))
        return fn(a)
    return forward


def _sig(name: str) -> str:
    return f"{name}(Tensor input, *, Tensor? out=None)"


def _float_unary(fn: Callable) -> Callable[[dict], Any]:
    def forward(b: dict) -> Any:
        x = b["self"]
        return fn(arr(x, float_dtype(x)))
    return forward


def _same_unary(fn: Callable) -> Callable[[dict], Any]:
    def forward(b: dict) -> Any:
        return fn(b["self"]._data)
    return forward


def sigmoid_kernel(a: np.ndarray) -> np.ndarray:
    # PyTorch: 1 / (1 + exp(-x)) in the input's dtype; float32 with SLEEF's exp in the
    # vector blocks (see sleef.py), otherwise a correctly rounded exp
    if a.dtype == np.float32 and 0 < a.size <= sleef.EXACT_LIMIT:
        return sleef.sigmoid(a)
    one = a.dtype.type(1)
    return one / (one + wide(np.exp)(-a))


def _sleef_vec(vector: Callable, scalar: str, double: Callable) -> Callable:
    """A ``cpu_kernel_vec`` op: float32 through SLEEF's vector routine and glibc's scalar tails
    (see kernels/elementwise.py), other dtypes through NumPy in double."""
    def kernel(a: np.ndarray) -> np.ndarray:
        if a.dtype == np.float32:
            return elementwise.cpu_kernel_vec(a, vector, scalar, double)
        return wide(double)(a)
    return kernel


def _sleef_vml(vector: Callable, double: Callable) -> Callable:
    """A ``vml`` op without MKL: float32 through SLEEF's vector routine on every element."""
    def kernel(a: np.ndarray) -> np.ndarray:
        if a.dtype == np.float32:
            return elementwise.vml_map(a, vector, double)
        return wide(double)(a)
    return kernel


def _backward_op(op: Any, g: Tensor, **args: Any) -> Tensor:
    """PyTorch's ``tanh_backward``, ``sigmoid_backward``, ``threshold_backward`` (see backward_ops)."""
    return backward_ops.call(op, g, **args)


def unary(name: str, fn: Callable, node: str, deriv: Any, float_only: bool = True,
          **kw: Any) -> Op:
    forward = _float_unary(fn) if float_only else _same_unary(fn)
    return defop(name, _sig(name), forward, node=node, derivs={"self": deriv}, inplace=True, **kw)


def _no_bool_neg(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.bool_:
        raise TorchRuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
            "mask, use the `~` or `logical_not()` operator instead.")
    return np.negative(a)


unary("exp", wide(np.exp), "ExpBackward0", d("result", rule="grad * result")(lambda g, s: g * s.result))
unary("exp2", _sleef_vec(sleef_f32.exp2f, "exp2f", np.exp2), "Exp2Backward0",
      d("result", rule="grad * result * log(2)")(lambda g, s: g * s.result * LN2))
unary("expm1", _sleef_vml(sleef_f32.expm1f, np.expm1), "Expm1Backward0",
      d("result", rule="grad * (result + 1)")(lambda g, s: g * (s.result + 1)))
unary("log", wide(np.log), "LogBackward0", d("self", rule="grad / self")(lambda g, s: g / s.self))
unary("log2", wide(np.log2), "Log2Backward0",
      d("self", rule="grad / (self * log(2))")(lambda g, s: g / (s.self * LN2)))
unary("log10", wide(np.log10), "Log10Backward0",
      d("self", rule="grad / (self * log(10))")(lambda g, s: g / (s.self * LN10)))
unary("log1p", _sleef_vml(sleef_f32.log1pf, np.log1p), "Log1PBackward0",
      d("self", rule="grad / (self + 1)")(lambda g, s: g / (s.self + 1)))
# MKL VML (not correctly rounded) for float32 and float64: see kernels/vml_sqrt.py
unary("sqrt", vml_sqrt.sqrt, "SqrtBackward0",
      d("result", rule="grad / (2 * result)")(lambda g, s: g / (2 * s.result)))
unary("rsqrt", lambda a: 1 / np.sqrt(a), "RsqrtBackward0",
      d("result", rule="-0.5 * grad * result^3")(lambda g, s: -0.5 * g * s.result.pow(3)))
unary("sin", wide(np.sin), "SinBackward0", d("self", rule="grad * cos(self)")(lambda g, s: g * s.self.cos()))
unary("cos", wide(np.cos), "CosBackward0", d("self", rule="grad * -sin(self)")(lambda g, s: g * -s.self.sin()))
unary("tan", wide(np.tan), "TanBackward0",
      d("result", rule="grad * (1 + result^2)")(lambda g, s: g * (1 + s.result.pow(2))))
unary("asin", wide(np.arcsin), "AsinBackward0",
      d("self", rule="grad / sqrt(1 - self^2)")(lambda g, s: g * (-s.self * s.self + 1).rsqrt()))
unary("acos", wide(np.arccos), "AcosBackward0",
      d("self", rule="-grad / sqrt(1 - self^2)")(lambda g, s: g * -(-s.self * s.self + 1).rsqrt()))
unary("atan", wide(np.arctan), "AtanBackward0",
      d("self", rule="grad / (1 + self^2)")(lambda g, s: g / (s.self * s.self + 1)))
unary("sinh", _sleef_vec(sleef_f32.sinhf, "sinhf", np.sinh), "SinhBackward0",
      d("self", rule="grad * cosh(self)")(lambda g, s: g * s.self.cosh()))
unary("cosh", _sleef_vec(sleef_f32.coshf, "coshf", np.cosh), "CoshBackward0",
      d("self", rule="grad * sinh(self)")(lambda g, s: g * s.self.sinh()))
unary("tanh", wide(np.tanh), "TanhBackward0",
      d("result", rule="grad * (1 - result^2)")(lambda g, s: _backward_op(backward_ops.TANH, g, self=s.result)))
unary("sigmoid", sigmoid_kernel, "SigmoidBackward0",
      d("result", rule="grad * result * (1 - result)")(
          lambda g, s: _backward_op(backward_ops.SIGMOID, g, self=s.result)), also_in=("nn.functional",))
unary("erf", erf, "ErfBackward0",
      d("self", rule="grad * 2 / sqrt(pi) * exp(-self^2)")(
          lambda g, s: g * (2 / math.sqrt(math.pi)) * (-s.self * s.self).exp()))
unary("reciprocal", lambda a: 1 / a, "ReciprocalBackward0",
      d("result", rule="-grad * result^2")(lambda g, s: -g * (s.result * s.result)))
unary("neg", _no_bool_neg, "NegBackward0", d(rule="-grad")(lambda g, s: -g), float_only=False,
      operators={"__neg__": METHOD})
# abs's gradient is grad * self.sgn() in PyTorch (SgnBackward0 in a create_graph graph)
unary("abs", _refusing(np.abs, "abs_cpu", "b"), "AbsBackward0",
      d("self", rule="grad * sign(self)")(lambda g, s: g * s.self.sgn()),
      float_only=False,
      operators={"__abs__": METHOD})


def _sign(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.bool_:
        return a.copy()
    # PyTorch's sign of NaN is 0 (so abs's gradient there is 0 too)
    return np.where(np.isnan(a), a.dtype.type(0), np.sign(a)) if a.dtype.kind == "f" else np.sign(a)


def _relu(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.bool_:
        raise TorchRuntimeError("Boolean inputs not supported for relu")
    # x < 0 ? 0 : x, so relu(-0.0) is -0.0 and NaN stays NaN, as in PyTorch
    return select.relu(a)


unary("sign", _sign, "SignBackward0", d(rule=STEP)(lambda g, s: zeros_like(g)), float_only=False)
unary("sgn", _sign, "SgnBackward0", d(rule=STEP)(lambda g, s: zeros_like(g)), float_only=False)
unary("floor", _refusing(np.floor, "floor_vml_cpu", "b"), "FloorBackward0", d(rule=STEP)(lambda g, s: zeros_like(g)),
      float_only=False)
unary("ceil", _refusing(np.ceil, "ceil_vml_cpu", "b"), "CeilBackward0", d(rule=STEP)(lambda g, s: zeros_like(g)),
      float_only=False)
unary("trunc", _refusing(np.trunc, "trunc_vml_cpu", "b"), "TruncBackward0", d(rule=STEP)(lambda g, s: zeros_like(g)),
      float_only=False)
unary("frac", _refusing(lambda a: a - np.trunc(a), "frac_cpu", "bi"), "FracBackward0", d(rule="grad")(lambda g, s: g),
      float_only=False, jvp_passes_tangent=True)
# PyTorch's threshold_backward: blocked where result <= 0, so a NaN input passes its gradient.
RELU = unary("relu", _relu, "ReluBackward0",
      d("result", rule="where(result <= 0, 0, grad)")(
          lambda g, s: _backward_op(backward_ops.THRESHOLD, g, self=s.result, threshold=0)), float_only=False)


def _round_forward(b: dict) -> Any:
    a = b["self"]._data
    if a.dtype.kind != "f" and ("decimals" in b or a.dtype == np.bool_):
        # integers round to themselves, but not through an explicit decimals= (nor bool at all)
        kernel = "round_cpu" if b.get("decimals") else "round_vml_cpu"
        raise no_kernel(kernel, b["self"]._dtype)
    decimals = b.get("decimals", 0)
    if not decimals:
        return np.round(a) if a.dtype.kind == "f" else a.copy()
    if abs(decimals) > (38 if a.dtype == np.float32 else 308):
        # PyTorch's kernel scales by 10**|decimals| in the input's type: past its range that is inf
        # (or 0 for decimals = -2**63, whose negation overflows), and every element is NaN
        return np.full_like(a, np.nan)
    return np.round(a, decimals)


defop("round", ["round(Tensor input, *, Tensor? out=None)",
                "round(Tensor input, *, int decimals, Tensor? out=None)"], _round_forward,
      node=lambda b: "RoundBackward1" if "decimals" in b else "RoundBackward0",
      derivs={"self": d(rule=STEP)(lambda g, s: zeros_like(g))}, inplace=True)


def _square_forward(b: dict) -> Any:
    b["exponent"] = 2   # (what its PowBackward0 node shows as _saved_exponent)
    a = b["self"]._data
    if a.dtype == np.bool_:
        a = a.astype(np.int64)
    return a * a


# square is pow(x, 2) in PyTorch, hence PowBackward0 and `_saved_exponent`.
defop("square", _sig("square"), _square_forward, node="PowBackward0", exposes=("exponent",),
      derivs={"self": d("self", rule="grad * 2 * self")(lambda g, s: g * 2 * s.self)}, inplace=True)



# -- logit ------------------------------------------------------------------------------------------

def _logit_forward(b: dict) -> Any:
    x = b["self"]
    if not x._dtype.is_floating_point:
        a = arr(x, dtypes.get_default_dtype())
    else:
        a = x._data
    eps = b["eps"]
    if eps is not None:
        a = np.clip(a, a.dtype.type(eps), a.dtype.type(1 - eps))
    one = a.dtype.type(1)
    return np.log(a / (one - a))


def _logit_grad(g: Tensor, s: Any) -> Tensor:
    x = s.self
    if s.eps is None:
        # NaN outside [0, 1]
        return WHERE((x < 0) | (x > 1), float("nan"), g / (x * (1 - x)))
    return WHERE((x < s.eps) | (x > 1 - s.eps), 0.0, g / (x * (1 - x)))


LOGIT = defop("logit", "logit(Tensor input, float? eps=None, *, Tensor? out=None)", _logit_forward,
              node="LogitBackward0", inplace=True,
              derivs={"self": d("self", rule="grad / (self * (1 - self)); with eps: 0 outside [eps, 1 - eps]")(
                  _logit_grad)})
