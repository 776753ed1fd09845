"""Activation functions of ``torch.nn.functional`` that PyTorch implements natively.

Each is one op with PyTorch's node name (``LeakyReluBackward0``,
``EluBackward0``, ...).  PyTorch gives some in-place forms a node of their
own (``leaky_relu_`` is ``LeakyReluBackward1``, its formula reads the
result), so those are separate ops here too.  Gradient formulas follow
PyTorch's backward kernels, including where they pass or block the gradient
at the awkward points: ``hardtanh`` blocks it at both bounds, ``leaky_relu``
uses the slope at 0, ``elu`` uses ``alpha`` at 0, and NaN inputs take the
branch PyTorch's comparisons give them.

The ``F.*`` wrappers (Python functions in PyTorch, with ``inplace=``) are in
``nn_activations.py``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..errors import TorchNotImplementedError, TorchRuntimeError
from ..tensor import Tensor
from .pointwise import wide
from .registry import FUNCTIONS, OPS, Op, d, defop, run, run_inplace
from .signature import LazyParser

# Transcendental functions as PyTorch's kernels compute them for float32: each correctly rounded,
# the arithmetic around them in float32 (see pointwise.wide).
EXP, EXPM1, LOG1P, TANH = wide(np.exp), wide(np.expm1), wide(np.log1p), wide(np.tanh)

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def where(cond: Tensor, a: Any, b: Any) -> Tensor:
    return FUNCTIONS["where"](cond, a, b)


def floating(t: Tensor, kernel: str) -> np.ndarray:
    """``t``'s data, or PyTorch's "not implemented" error for integer and bool inputs."""
    if not t._dtype.is_floating_point:
        raise TorchNotImplementedError(f"\"{kernel}\" not implemented for '{t._dtype.legacy_name}'")
    return t._data


def _scalar(a: np.ndarray, value: Any) -> Any:
    """A Python number in the array's dtype (PyTorch's ``Scalar.to<scalar_t>()``)."""
    return a.dtype.type(value)


def entry(op: Op, sig: str, inplace: bool = False) -> Callable:
    """A function form of ``op`` parsed by ``sig`` (not installed anywhere by itself)."""
    parser = LazyParser(sig)

    def call(*args: Any, **kwargs: Any) -> Any:
        _, bound = parser.parse(args, kwargs)
        bound["self"] = bound.pop("input")
        return run_inplace(op, bound) if inplace else run(op, bound)
    call.__name__ = call.__qualname__ = parser.name
    return call


def pair(name: str, sig_args: str, forward: Callable, node: str, deriv: Any, inplace_node: str | None = None,
         inplace_deriv: Any = None, public: bool = False, method: bool = False) -> tuple[Callable, Callable | None]:
    """The out-of-place op and (when PyTorch has one) its in-place op, as call forms; ``public``
    also makes them ``torch.<name>`` / ``torch.<name>_``, ``method`` a Tensor method."""
    kw = dict(function=public, method=method)
    op = defop(name, f"{name}({sig_args})", forward, node=node, derivs={"self": deriv}, **kw)
    if public:
        out_fn = FUNCTIONS[name]
    else:
        out_fn = entry(op, f"{name}({sig_args})")
    if inplace_node is None:
        return out_fn, None
    iop = defop(f"_{name}_inplace", f"_{name}_inplace({sig_args})", forward, node=inplace_node,
                function=False, method=False, derivs={"self": inplace_deriv or deriv})
    in_fn = entry(iop, f"{name}_({sig_args})", inplace=True)
    if public:
        FUNCTIONS[name + "_"] = in_fn
    return out_fn, in_fn


# -- relu6 / hardtanh ---------------------------------------------------------------------------

def _hardtanh_forward(b: dict) -> Any:
    a = b["self"]._data
    if a.dtype == np.bool_:
        raise TorchRuntimeError("Bool inputs not supported for hardtanh")
    lo, hi = _scalar(a, b["min_val"]), _scalar(a, b["max_val"])
    # PyTorch's clamp: x < lo ? lo : (x > hi ? hi : x), so NaN and -0.0 stay as they are
    return np.where(a < lo, lo, np.where(a > hi, hi, a))


def _hardtanh_grad(g: Tensor, s: Any) -> Tensor:
    x = s.self
    # Blocked at both bounds and outside; NaN passes (both comparisons are false).
    return where((x <= s.min_val) | (x >= s.max_val), 0.0, g)


hardtanh, hardtanh_ = pair("hardtanh", "Tensor input, Scalar min_val=-1, Scalar max_val=1", _hardtanh_forward,
                           "HardtanhBackward0", d("self")(_hardtanh_grad), "HardtanhBackward0")


# -- leaky_relu ---------------------------------------------------------------------------------

def _leaky_relu_forward(b: dict) -> Any:
    a = floating(b["self"], "leaky_relu_cpu")
    return np.where(a > 0, a, a * _scalar(a, b["negative_slope"]))


def _leaky_relu_grad(g: Tensor, s: Any) -> Tensor:
    return where(s.self > 0, g, g * s.negative_slope)


def _leaky_relu_result_grad(g: Tensor, s: Any) -> Tensor:
    if s.negative_slope < 0:
        raise TorchRuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
            "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
            "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
            "in-place leakRelu backward calculation with negative slope")
    return where(s.result > 0, g, g * s.negative_slope)


leaky_relu, leaky_relu_ = pair("leaky_relu", "Tensor input, Scalar negative_slope=0.01", _leaky_relu_forward,
                               "LeakyReluBackward0", d("self")(_leaky_relu_grad), "LeakyReluBackward1",
                               d("result")(_leaky_relu_result_grad))


# -- elu / selu / celu -------------------------------------------------------------------------

def _elu_array(a: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    t = a.dtype.type
    negcoef = t(alpha) * t(scale)
    return np.where(a <= 0, EXPM1(a * t(input_scale)) * negcoef, a * t(scale))


def _elu_forward(b: dict) -> Any:
    a = floating(b["self"], "elu_cpu")
    return _elu_array(a, b["alpha"], b["scale"], b["input_scale"])


def _elu_grad(alpha: float, scale: float, input_scale: float, g: Tensor, x: Tensor) -> Tensor:
    # x enters the exp only where x < 0: PyTorch's second derivative is masked by x < 0, so it
    # is 0 at x = 0 although the first derivative there is alpha * scale
    negative = where(x < 0, x, 0.0)
    return where(x <= 0, g * (input_scale * alpha * scale) * (negative * input_scale).exp(), g * scale)


def _elu_result_grad(alpha: float, scale: float, input_scale: float, g: Tensor, y: Tensor) -> Tensor:
    if alpha < 0:
        raise TorchRuntimeError(
            "In-place elu backward calculation is triggered with a negative slope which is not supported. This is "
            "caused by calling in-place forward function with a negative slope, please call out-of-place version "
            "instead.")
    return where(y <= 0, g * input_scale * (where(y < 0, y, 0.0) + alpha * scale), g * scale)


_ELU_SIG = "Tensor input, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1"
elu, elu_ = pair("elu", _ELU_SIG, _elu_forward, "EluBackward0",
                 d("self")(lambda g, s: _elu_grad(s.alpha, s.scale, s.input_scale, g, s.self)),
                 "EluBackward1",
                 d("result")(lambda g, s: _elu_result_grad(s.alpha, s.scale, s.input_scale, g, s.result)))


def _selu(inplace: bool) -> Callable:
    """``torch.selu`` / ``torch.selu_``: ATen's elu with SELU's constants (so the node saves them)."""
    parser = LazyParser("selu_(Tensor input)" if inplace else "selu(Tensor input)")
    op = OPS["_elu_inplace" if inplace else "elu"]

    def call(*args: Any, **kwargs: Any) -> Tensor:
        _, b = parser.parse(args, kwargs)
        bound = {"self": b["input"], "alpha": SELU_ALPHA, "scale": SELU_SCALE, "input_scale": 1}
        return run_inplace(op, bound) if inplace else run(op, bound)
    call.__name__ = call.__qualname__ = parser.name
    return call


selu, selu_ = _selu(False), _selu(True)
FUNCTIONS["selu"], FUNCTIONS["selu_"] = selu, selu_


def _celu_forward(b: dict) -> Any:
    alpha = b["alpha"]
    if alpha == 0:
        raise TorchRuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _elu_array(floating(b["self"], "elu_cpu"), alpha, 1.0, 1.0 / alpha)


celu, celu_ = pair("celu", "Tensor input, Scalar alpha=1.0", _celu_forward, "CeluBackward0",
                   d("self")(lambda g, s: _elu_grad(s.alpha, 1.0, 1.0 / s.alpha, g, s.self)), "CeluBackward1",
                   d("result")(lambda g, s: _elu_result_grad(s.alpha, 1.0, 1.0 / s.alpha, g, s.result)),
                   public=True)


# -- gelu ----------------------------------------------------------------------------------------

_SQRT1_2 = 0.70710678118654752440
_2_SQRTPI = 1.12837916709551257390
_TANH_BETA = math.sqrt(2.0) * _2_SQRTPI * 0.5
_TANH_KAPPA = 0.044715


def _gelu_forward(b: dict) -> Any:
    a = floating(b["self"], "GeluKernelImpl")
    mode = b["approximate"]
    if mode not in ("none", "tanh"):
        raise TorchRuntimeError("approximate argument must be either none or tanh.")
    t = a.dtype.type
    if mode == "tanh":
        inner = t(_TANH_BETA) * (a + t(_TANH_KAPPA) * (a * a * a))
        return t(0.5) * a * (t(1) + TANH(inner))
    from .pointwise import _erf
    return a * t(0.5) * (t(1) + _erf(a * t(_SQRT1_2)))


def _gelu_grad(g: Tensor, s: Any) -> Tensor:
    x = s.self
    if s.approximate == "tanh":
        x_sq = x * x
        inner = (x + x_sq * x * _TANH_KAPPA) * _TANH_BETA
        t = inner.tanh()
        left = x * 0.5
        right = t + 1
        right_derivative = left * (1 - t * t) * ((1 + 3 * _TANH_KAPPA * x_sq) * _TANH_BETA)
        return g * (right * 0.5 + right_derivative)
    cdf = ((x * _SQRT1_2).erf() + 1) * 0.5
    pdf = (x * x * -0.5).exp() * (_2_SQRTPI * _SQRT1_2 * 0.5)
    return g * (cdf + x * pdf)


gelu, _ = pair("gelu", "Tensor input, *, str approximate='none'", _gelu_forward, "GeluBackward0",
               d("self")(_gelu_grad))


# -- silu / mish / softplus / logsigmoid ---------------------------------------------------------

def _silu_forward(b: dict) -> Any:
    a = floating(b["self"], "silu_cpu")
    return a / (a.dtype.type(1) + EXP(-a))


def _silu_grad(g: Tensor, s: Any) -> Tensor:
    sig = s.self.sigmoid()
    return g * sig * (1 + s.self * (1 - sig))


silu, silu_ = pair("silu", "Tensor input", _silu_forward, "SiluBackward0", d("self")(_silu_grad), "SiluBackward0")


def _softplus_array(a: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    scaled = a * _scalar(a, beta)
    return np.where(scaled > threshold, a, LOG1P(EXP(scaled)) / _scalar(a, beta))


def _mish_forward(b: dict) -> Any:
    a = floating(b["self"], "mish_cpu")
    return a * TANH(LOG1P(EXP(a)))


def _mish_grad(g: Tensor, s: Any) -> Tensor:
    x = s.self
    t = softplus(x).tanh()
    return g * (t + x * x.sigmoid() * (1 - t * t))


mish, mish_ = pair("mish", "Tensor input", _mish_forward, "MishBackward0", d("self")(_mish_grad), "MishBackward0")


def _softplus_forward(b: dict) -> Any:
    a = floating(b["self"], "softplus_cpu")
    return _softplus_array(a, b["beta"], b["threshold"])


def _softplus_grad(g: Tensor, s: Any) -> Tensor:
    scaled = s.self * s.beta
    # At beta * x == threshold PyTorch's second derivative is already 0 (it masks with <)
    z = where(scaled < s.threshold, scaled, scaled.detach()).exp()
    # Linear above the threshold: the gradient there is exactly g.
    return where(scaled > s.threshold, g, g * z / (z + 1))


softplus, _ = pair("softplus", "Tensor input, Scalar beta=1, Scalar threshold=20", _softplus_forward,
                   "SoftplusBackward0", d("self")(_softplus_grad))


def _log_sigmoid_forward(b: dict) -> Any:
    a = floating(b["self"], "log_sigmoid_cpu")
    return np.minimum(a, _scalar(a, 0)) - LOG1P(EXP(-np.abs(a)))


def _log_sigmoid_grad(g: Tensor, s: Any) -> Tensor:
    # PyTorch's kernel computes sigmoid(-x) stably from exp(-|x|); written as sigmoid(-x) its
    # derivative is PyTorch's double backward, also at x = 0 where |x| has none.
    return g * (-s.self).sigmoid()


log_sigmoid, _ = pair("log_sigmoid", "Tensor input", _log_sigmoid_forward, "LogSigmoidBackward0",
                      d("self")(_log_sigmoid_grad))


# -- hardsigmoid / hardswish ---------------------------------------------------------------------

def _hardsigmoid_forward(b: dict) -> Any:
    a = floating(b["self"], "hardsigmoid_cpu")
    t = a.dtype.type
    return np.minimum(np.maximum(a + t(3), t(0)), t(6)) / t(6)


# PyTorch's kernel multiplies by the float literal 1.0f / 6.0f, also for doubles
_ONE_SIXTH_F = float(np.float32(1.0) / np.float32(6.0))


def _hardsigmoid_grad(g: Tensor, s: Any) -> Tensor:
    x = s.self
    return where((x > -3.0) & (x < 3.0), g * _ONE_SIXTH_F, 0.0)


hardsigmoid, hardsigmoid_ = pair("hardsigmoid", "Tensor input", _hardsigmoid_forward, "HardsigmoidBackward0",
                                 d("self")(_hardsigmoid_grad), "HardsigmoidBackward0")


def _hardswish_forward(b: dict) -> Any:
    a = floating(b["self"], "hardswish_cpu")
    t = a.dtype.type
    return a * np.minimum(np.maximum(a + t(3), t(0)), t(6)) / t(6)


def _hardswish_grad(g: Tensor, s: Any) -> Tensor:
    x = s.self
    return where(x <= -3, 0.0, where(x < 3, g * (x / 3 + 0.5), g))


hardswish, hardswish_ = pair("hardswish", "Tensor input", _hardswish_forward, "HardswishBackward0",
                             d("self")(_hardswish_grad), "HardswishBackward0")


# -- threshold ----------------------------------------------------------------------------------

def _threshold_forward(b: dict) -> Any:
    a = b["self"]._data
    if a.dtype == np.bool_:
        raise TorchNotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    return np.where(a <= _scalar(a, b["threshold"]), _scalar(a, b["value"]), a)


def _threshold_grad(g: Tensor, s: Any) -> Tensor:
    return where(s.self <= s.threshold, 0.0, g)


threshold, threshold_ = pair("threshold", "Tensor input, Scalar threshold, Scalar value", _threshold_forward,
                             "ThresholdBackward0", d("self")(_threshold_grad), "ThresholdBackward1",
                             public=True)


# -- hardshrink / softshrink ------------------------------------------------------------------------

def _hardshrink_forward(b: dict) -> Any:
    a = floating(b["self"], "hardshrink_cpu")
    lambd = _scalar(a, b["lambd"])
    return np.where((a >= -lambd) & (a <= lambd), a.dtype.type(0), a)


def _softshrink_forward(b: dict) -> Any:
    a = floating(b["self"], "softshrink_check")
    lambd = b["lambd"]
    if not 0 <= lambd <= np.finfo(a.dtype).max:
        raise TorchRuntimeError(f"lambda must be in range [0, {float(np.finfo(a.dtype).max):g}] for input dtype "
                                f"{b['self']._dtype.legacy_name}, but found {lambd:g}")
    lam = _scalar(a, lambd)
    # x * 0 inside the band: -0.0 for negative x, as PyTorch's kernel gives
    return np.where(a > lam, a - lam, np.where(a < -lam, a + lam, a * a.dtype.type(0)))


def _shrink_grad(g: Tensor, s: Any) -> Tensor:
    x = s.self
    return where((x >= -s.lambd) & (x <= s.lambd), 0.0, g)


hardshrink, _ = pair("hardshrink", "Tensor input, Scalar lambd=0.5", _hardshrink_forward, "HardshrinkBackward0",
                     d("self")(_shrink_grad), public=True, method=True)
softshrink, _ = pair("softshrink", "Tensor input, Scalar lambd=0.5", _softshrink_forward, "SoftshrinkBackward0",
                     d("self")(_shrink_grad))


def relu_(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """``torch.relu_``: the in-place form the op table gives only as a method."""
    _, bound = _RELU_.parse((input,), {})
    return bound["input"].relu_()


_RELU_ = LazyParser("relu_(Tensor input)")
FUNCTIONS["relu_"] = relu_
