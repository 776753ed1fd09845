"""PyTorch's ``*_backward`` functions as ops of their own.

The gradient of ``relu`` is not composed from ``where``/``mul`` in PyTorch: it is
``threshold_backward(grad, result, 0)``, an op with a node of its own.  So a
gradient taken with ``create_graph=True`` prints ``grad_fn=<ThresholdBackwardBackward0>``,
and its derivatives are PyTorch's double-backward formulas (derivatives.yaml),
which differ from the derivative of a composite formula at kinks (``elu``'s
second derivative is 0 at 0) and in rounding.

Each op's value is its gradient formula evaluated without recording; its
derivative with respect to ``grad_output`` is the op itself again (a gradient
is linear in the incoming gradient), the one with respect to the input is the
double-backward formula.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..autograd import grad_mode
from ..errors import TorchRuntimeError
from ..tensor import Tensor
from .registry import FUNCTIONS, Deriv, Op, d, defop, run


class _Values:
    """Bound arguments as attributes (the way formulas read saved values)."""

    def __init__(self, bound: dict) -> None:
        self.__dict__.update(bound)


def grad_op(name: str, node: str, value: Callable[[Any], Tensor], input_deriv: Deriv,
            inputs: tuple[str, ...] = ("grad_output", "self"), extra: dict[str, Deriv] | None = None) -> Op:
    """The op ``name`` (node ``node``): ``value(args)`` computes it; ``input_deriv`` is its
    derivative with respect to ``self`` (the tensor the first derivative was taken at), ``extra``
    overrides or adds derivatives (``target``, or ``grad_output`` when it is not the op itself)."""
    def forward(b: dict) -> Any:
        with grad_mode.no_grad():
            return value(_Values(b))._data

    op: Op

    def again(g: Tensor, s: Any) -> Tensor:
        return run(op, {**s.__dict__, "grad_output": g})
    # what the value reads besides grad_output (weight is no graph input, but is read)
    needs = tuple(k for k in ("self", "target", "weight") if k in inputs or k == "weight")
    derivs = {"self": input_deriv, **(extra or {})}
    if "grad_output" in inputs:
        derivs.setdefault("grad_output", d(*needs)(again))
    op = defop(name, f"{name}(Tensor grad_output, Tensor input)", forward, node=node, inputs=inputs,
               function=False, method=False, derivs=derivs)
    return op


def call(op: Op, grad_output: Tensor, **args: Any) -> Tensor:
    return run(op, {"grad_output": grad_output, **args})


def where(cond: Tensor, a: Any, b: Any) -> Tensor:
    return FUNCTIONS["where"](cond, a, b)


def zeros(g: Tensor, s: Any) -> Tensor:
    return g * 0


# -- piecewise-linear activations: the second derivative is 0 ---------------------------------------

THRESHOLD = grad_op("threshold_backward", "ThresholdBackwardBackward0",
                    lambda b: where(b.self <= b.threshold, 0.0, b.grad_output), d()(zeros))
HARDTANH = grad_op("hardtanh_backward", "HardtanhBackwardBackward0",
                   lambda b: where((b.self <= b.min_val) | (b.self >= b.max_val), 0.0, b.grad_output), d()(zeros))
LEAKY_RELU = grad_op("leaky_relu_backward", "LeakyReluBackwardBackward0",
                     lambda b: where(b.self > 0, b.grad_output, b.grad_output * b.negative_slope), d()(zeros))
SHRINK = {kind: grad_op(f"{kind}_backward", f"{kind.capitalize()}BackwardBackward0",
                        lambda b: where((b.self >= -b.lambd) & (b.self <= b.lambd), 0.0, b.grad_output), d()(zeros))
          for kind in ("hardshrink", "softshrink")}


# -- elu (also selu, celu) ---------------------------------------------------------------------------

def _elu_value(b: Any) -> Tensor:
    g, x = b.grad_output, b.self
    if b.is_result:
        return where(x <= 0, g * b.input_scale * (x + b.alpha * b.scale), g * b.scale)
    return where(x <= 0, g * (b.input_scale * b.alpha * b.scale) * (x * b.input_scale).exp(), g * b.scale)


def _elu_double(gg: Tensor, s: Any) -> Tensor:
    # PyTorch's elu_double_backward: masked by x < 0, so 0 at x = 0
    negative = (s.self < 0).to(gg.dtype)
    if s.is_result:
        return gg * s.grad_output * s.input_scale * negative
    inner = call(ELU, gg * s.grad_output * s.input_scale, self=s.self, alpha=s.alpha, scale=s.scale,
                 input_scale=s.input_scale, is_result=False)
    return inner * negative


ELU = grad_op("elu_backward", "EluBackwardBackward0", _elu_value, d("grad_output", "self")(_elu_double))


# -- smooth activations --------------------------------------------------------------------------------

SQRT1_2 = 0.70710678118654752440
_2_SQRTPI = 1.12837916709551257390
TANH_BETA = 2 ** 0.5 * _2_SQRTPI * 0.5
TANH_KAPPA = 0.044715


def _gelu_value(b: Any) -> Tensor:
    g, x = b.grad_output, b.self
    if b.approximate == "tanh":
        x_sq = x * x
        t = ((x + x_sq * x * TANH_KAPPA) * TANH_BETA).tanh()
        inner_derivative = (1 + 3 * TANH_KAPPA * x_sq) * TANH_BETA
        return g * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * inner_derivative)
    cdf = ((x * SQRT1_2).erf() + 1) * 0.5
    pdf = (x * x * -0.5).exp() * (_2_SQRTPI * SQRT1_2 * 0.5)
    return g * (cdf + x * pdf)


def _gelu_double(gg: Tensor, s: Any) -> Tensor:
    x = s.self
    if s.approximate == "tanh":
        x_sq = x * x
        t = ((x + x_sq * x * TANH_KAPPA) * TANH_BETA).tanh()
        u1 = (1 + 3 * TANH_KAPPA * x_sq) * TANH_BETA
        u2 = x * (6 * TANH_KAPPA * TANH_BETA)
        second = (1 - t * t) * (u1 + x * 0.5 * (u2 - 2 * t * u1 * u1))
    else:
        pdf = (x * x * -0.5).exp() * (_2_SQRTPI * SQRT1_2 * 0.5)
        second = pdf * 2 - x * x * pdf
    return gg * s.grad_output * second


GELU = grad_op("gelu_backward", "GeluBackwardBackward0", _gelu_value, d("grad_output", "self")(_gelu_double))


def _softplus_value(b: Any) -> Tensor:
    scaled = b.self * b.beta
    z = scaled.exp()
    return where(scaled > b.threshold, b.grad_output, b.grad_output * z / (z + 1))


def _softplus_double(gg: Tensor, s: Any) -> Tensor:
    scaled = s.self * s.beta
    z = scaled.sigmoid()
    return gg * s.grad_output * z * (1 - z) * s.beta * (scaled < s.threshold).to(gg.dtype)


SOFTPLUS = grad_op("softplus_backward", "SoftplusBackwardBackward0", _softplus_value,
                   d("grad_output", "self")(_softplus_double))

HARDSWISH = grad_op(
    "hardswish_backward", "HardswishBackwardBackward0",
    lambda b: where(b.self <= -3, 0.0, where(b.self < 3, b.grad_output * (b.self / 3 + 0.5), b.grad_output)),
    d("grad_output", "self")(lambda gg, s: where((s.self > -3.0) & (s.self < 3.0), gg * s.grad_output / 3.0, 0.0)))

# sigmoid(-x): PyTorch's kernel computes it stably from exp(-|x|)
LOG_SIGMOID = grad_op(
    "log_sigmoid_backward", "LogSigmoidBackwardBackward0", lambda b: b.grad_output * (-b.self).sigmoid(),
    d("grad_output", "self")(lambda gg, s: gg * s.grad_output * (s.self.sigmoid() - 1) * s.self.sigmoid()))


def _not_implemented(name: str) -> Deriv:
    def formula(g: Tensor, s: Any) -> Tensor:
        raise TorchRuntimeError(f"derivative for aten::{name} is not implemented")
    return d()(formula)


# PyTorch has no double backward for hardsigmoid: the gradient's node is <NotImplemented>.
_ONE_SIXTH_F = float(np.float32(1.0) / np.float32(6.0))  # the kernel's float literal, also for doubles
HARDSIGMOID = grad_op(
    "hardsigmoid_backward", "NotImplemented",
    lambda b: where((b.self > -3.0) & (b.self < 3.0), b.grad_output * _ONE_SIXTH_F, 0.0),
    _not_implemented("hardsigmoid_backward"), inputs=("self",))  # only the input is an edge of that node

# sigmoid and tanh take their result: sigmoid_backward(grad, result), tanh_backward(grad, result)
SIGMOID = grad_op("sigmoid_backward", "SigmoidBackwardBackward0",
                  lambda b: b.grad_output * (1 - b.self) * b.self,
                  d("grad_output", "self")(lambda gg, s: gg * s.grad_output * (-2 * s.self + 1)))
TANH = grad_op("tanh_backward", "TanhBackwardBackward0",
               lambda b: b.grad_output * (1 - b.self * b.self),
               d("grad_output", "self")(lambda gg, s: gg * s.grad_output * -2 * s.self))


# -- softmax / log_softmax (of the result) -----------------------------------------------------------

SOFTMAX = grad_op(
    "_softmax_backward_data", "SoftmaxBackwardDataBackward0",
    lambda b: (b.grad_output - (b.grad_output * b.self).sum(b.dim, keepdim=True)) * b.self,
    d("grad_output", "self")(
        lambda gg, s: s.grad_output * gg - (s.self * s.grad_output).sum(s.dim, keepdim=True) * gg
        - s.grad_output * (s.self * gg).sum(s.dim, keepdim=True)))
LOG_SOFTMAX = grad_op(
    "_log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0",
    lambda b: b.grad_output - b.self.exp() * b.grad_output.sum(b.dim, keepdim=True),
    d("grad_output", "self")(lambda gg, s: -gg * s.self.exp() * s.grad_output.sum(s.dim, keepdim=True)))


# -- pointwise losses (gradients for input and target) ------------------------------------------------

def _loss_grad_op(name: str, node: str, value: Callable, double: Callable) -> Op:
    """``<loss>_backward(grad_output, self, target, ...)``; the target's derivative is minus the input's."""
    return grad_op(name, node, value, d("grad_output", "self", "target")(double),
                   inputs=("grad_output", "self", "target"),
                   extra={"target": d("grad_output", "self", "target")(lambda gg, s: -double(gg, s))})


def norm(s: Any) -> float:
    """1/numel for the mean, else 1."""
    if s.reduction != 1:
        return 1.0
    n = 1
    for dim in s.self.shape:
        n *= dim
    return 1.0 / n


MSE = _loss_grad_op("mse_loss_backward", "MseLossBackwardBackward0",
                    lambda b: (b.self - b.target) * (2.0 * norm(b)) * b.grad_output,
                    lambda gg, s: gg * s.grad_output * (2.0 * norm(s)))
SMOOTH_L1 = _loss_grad_op(
    "smooth_l1_loss_backward", "SmoothL1LossBackwardBackward0",
    lambda b: _smooth_l1_value(b.self - b.target, b.grad_output * norm(b), b.beta),
    lambda gg, s: gg * s.grad_output * ((s.self - s.target).abs() < s.beta).to(gg.dtype) / s.beta * norm(s))
HUBER = _loss_grad_op(
    "huber_loss_backward", "HuberLossBackwardBackward0",
    lambda b: _huber_value(b.self - b.target, b.grad_output, norm(b), b.delta),
    lambda gg, s: gg * s.grad_output * ((s.self - s.target).abs() < s.delta).to(gg.dtype) * norm(s))


def _smooth_l1_value(x: Tensor, scaled: Tensor, beta: float) -> Tensor:
    # |x| == beta takes the linear branch; NaN the quadratic one (NaN)
    return where(x <= -beta, -scaled, where(x >= beta, scaled, scaled * x / beta))


def _huber_value(x: Tensor, g: Tensor, n: float, delta: float) -> Tensor:
    return where(x < -delta, g * (-n * delta), where(x > delta, g * (n * delta), x * n * g))
