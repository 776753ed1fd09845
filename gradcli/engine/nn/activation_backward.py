"""PyTorch's ``*_backward`` ops of the activations (see ``ops.backward_ops``).

A gradient taken with ``create_graph=True`` through ``elu`` prints
``grad_fn=<EluBackwardBackward0>`` and differentiates with PyTorch's
double-backward formula (0 at 0 for ``elu``), not with the derivative of a
composite formula.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.formulas import Deriv, d
from ..dispatch.publish import Catalog
from ..errors import TorchRuntimeError
from ..autograd.formulas import NOT_IMPLEMENTED
from ..ops.backward_ops import FLAT, call, grad_op, where, zeros
from ..tensor import Tensor

CATALOG = Catalog(vmap="pointwise")


# -- piecewise-linear activations: the second derivative is 0 ---------------------------------------

HARDTANH = grad_op(CATALOG, "hardtanh_backward", "HardtanhBackwardBackward0",
                   lambda b: where((b.self <= b.min_val) | (b.self >= b.max_val), 0.0, b.grad_output),
                   d(rule=FLAT)(zeros), linear_rule="where(self <= min_val or self >= max_val, 0, grad)")
LEAKY_RELU = grad_op(CATALOG, "leaky_relu_backward", "LeakyReluBackwardBackward0",
                     lambda b: where(b.self > 0, b.grad_output, b.grad_output * b.negative_slope),
                     d(rule=FLAT)(zeros), linear_rule="where(self > 0, grad, grad * negative_slope)")
SHRINK = {kind: grad_op(CATALOG, f"{kind}_backward", f"{kind.capitalize()}BackwardBackward0",
                        lambda b: where((b.self >= -b.lambd) & (b.self <= b.lambd), 0.0, b.grad_output),
                        d(rule=FLAT)(zeros), linear_rule="where(-lambd <= self <= lambd, 0, grad)")
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


ELU = grad_op(CATALOG, "elu_backward", "EluBackwardBackward0", _elu_value,
              d("grad_output", "self", rule="where(self < 0, grad * grad_output * d(elu's slope)/dself, 0)")(
                  _elu_double),
              linear_rule="grad * elu's slope at self (the rule of EluBackward0)")


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


GELU = grad_op(CATALOG, "gelu_backward", "GeluBackwardBackward0", _gelu_value,
               d("grad_output", "self", rule="grad * grad_output * pdf(self) * (2 - self^2)")(_gelu_double),
               linear_rule="grad * (cdf(self) + self * pdf(self)), N(0, 1)'s cdf and pdf")


def _softplus_value(b: Any) -> Tensor:
    scaled = b.self * b.beta
    z = scaled.exp()
    return where(scaled > b.threshold, b.grad_output, b.grad_output * z / (z + 1))


def _softplus_double(gg: Tensor, s: Any) -> Tensor:
    scaled = s.self * s.beta
    z = scaled.sigmoid()
    return gg * s.grad_output * z * (1 - z) * s.beta * (scaled < s.threshold).to(gg.dtype)


SOFTPLUS = grad_op(CATALOG, "softplus_backward", "SoftplusBackwardBackward0", _softplus_value,
                   d("grad_output", "self", rule="grad * grad_output * beta * z * (1 - z), z = sigmoid(beta * self);"
                                                 " 0 where beta * self >= threshold")(_softplus_double),
                   linear_rule="where(beta * self > threshold, grad, grad * sigmoid(beta * self))")

HARDSWISH = grad_op(
    CATALOG, "hardswish_backward", "HardswishBackwardBackward0",
    lambda b: where(b.self <= -3, 0.0, where(b.self < 3, b.grad_output * (b.self / 3 + 0.5), b.grad_output)),
    d("grad_output", "self", rule="where(-3 < self < 3, grad * grad_output / 3, 0)")(
        lambda gg, s: where((s.self > -3.0) & (s.self < 3.0), gg * s.grad_output / 3.0, 0.0)),
    linear_rule="where(self <= -3, 0, where(self < 3, grad * (self / 3 + 0.5), grad))")

# sigmoid(-x): PyTorch's kernel computes it stably from exp(-|x|)
LOG_SIGMOID = grad_op(
    CATALOG, "log_sigmoid_backward", "LogSigmoidBackwardBackward0", lambda b: b.grad_output * (-b.self).sigmoid(),
    d("grad_output", "self", rule="grad * grad_output * (sigmoid(self) - 1) * sigmoid(self)")(
        lambda gg, s: gg * s.grad_output * (s.self.sigmoid() - 1) * s.self.sigmoid()),
    linear_rule="grad * sigmoid(-self)")


def _not_implemented(name: str) -> Deriv:
    def formula(g: Tensor, s: Any) -> Tensor:
        raise TorchRuntimeError(f"derivative for aten::{name} is not implemented")
    return d(rule=NOT_IMPLEMENTED)(formula)


# PyTorch has no double backward for hardsigmoid: the gradient's node is <NotImplemented>.
_ONE_SIXTH_F = float(np.float32(1.0) / np.float32(6.0))  # the kernel's float literal, also for doubles
HARDSIGMOID = grad_op(
    CATALOG, "hardsigmoid_backward", "NotImplemented",
    lambda b: where((b.self > -3.0) & (b.self < 3.0), b.grad_output * _ONE_SIXTH_F, 0.0),
    _not_implemented("hardsigmoid_backward"), inputs=("self",))  # only the input is an edge of that node
