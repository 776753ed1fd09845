"""PyTorch's ``*_backward`` ops of the fused pointwise losses: ``mse_loss_backward``,
``smooth_l1_loss_backward``, ``huber_loss_backward`` (see ``ops.backward_ops``).

The target's derivative is minus the input's, as in PyTorch's formulas.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from ..autograd.formulas import d
from ..dispatch.op import Op
from ..dispatch.publish import Catalog
from ..ops.backward_ops import grad_op, where
from ..tensor import Tensor

CATALOG = Catalog()


# -- pointwise losses (gradients for input and target) ------------------------------------------------

# What a mean reduction adds to the rule of a loss and of its gradient.
MEAN_NOTE = " (mean: / numel)"


def _loss_grad_op(name: str, node: str, value: Callable, double: Callable, rule: str, linear_rule: str) -> Op:
    """``<loss>_backward(grad_output, self, target, ...)``; the target's derivative is minus the input's.
    ``rule`` is the derivative for self in words and ``linear_rule`` the op itself (both start with grad)."""
    return grad_op(CATALOG, name, node, value, d("grad_output", "self", "target", rule=rule + MEAN_NOTE)(double),
                   inputs=("grad_output", "self", "target"),
                   extra={"target": d("grad_output", "self", "target", rule="-" + rule + MEAN_NOTE)(
                       lambda gg, s: -double(gg, s))},
                   linear_rule=linear_rule + MEAN_NOTE)


def norm(s: Any) -> float:
    """1/numel for the mean, else 1."""
    if s.reduction != 1:
        return 1.0
    n = 1
    for dim in s.self.shape:
        n *= dim
    return 1.0 / n if n else math.inf  # (C++'s double division; it only scales an empty gradient)


MSE = _loss_grad_op("mse_loss_backward", "MseLossBackwardBackward0",
                    lambda b: (b.self - b.target) * (2.0 * norm(b)) * b.grad_output,
                    lambda gg, s: gg * s.grad_output * (2.0 * norm(s)),
                    "grad * grad_output * 2", "grad * 2 * (self - target)")
SMOOTH_L1 = _loss_grad_op(
    "smooth_l1_loss_backward", "SmoothL1LossBackwardBackward0",
    lambda b: _smooth_l1_value(b.self - b.target, b.grad_output * norm(b), b.beta),
    lambda gg, s: gg * s.grad_output * ((s.self - s.target).abs() < s.beta).to(gg.dtype) / s.beta * norm(s),
    "grad * grad_output * (abs(self - target) < beta) / beta", "grad * clamp((self - target) / beta, -1, 1)")
HUBER = _loss_grad_op(
    "huber_loss_backward", "HuberLossBackwardBackward0",
    lambda b: _huber_value(b.self - b.target, b.grad_output, norm(b), b.delta),
    lambda gg, s: gg * s.grad_output * ((s.self - s.target).abs() < s.delta).to(gg.dtype) * norm(s),
    "grad * grad_output * (abs(self - target) < delta)", "grad * clamp(self - target, -delta, delta)")


def _smooth_l1_value(x: Tensor, scaled: Tensor, beta: float) -> Tensor:
    # |x| == beta takes the linear branch; NaN the quadratic one (NaN)
    return where(x <= -beta, -scaled, where(x >= beta, scaled, scaled * x / beta))


def _huber_value(x: Tensor, g: Tensor, n: float, delta: float) -> Tensor:
    return where(x < -delta, g * (-n * delta), where(x > delta, g * (n * delta), x * n * g))
