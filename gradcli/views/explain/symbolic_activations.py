"""The symbolic forms of torch.nn.functional's activations (kinks as Iverson brackets, PyTorch's choices)."""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from . import symbolic_functions as fn
from .symbolic_base import Args, SymbolicOp, each, number, pointwise_form as _pw

gt, ge = fn.greater, fn.at_least   # [a > b], [a ≥ b]


def _gelu(b: Args) -> np.ndarray:
    if b.get("approximate", "none") == "tanh":
        k = sp.sqrt(2 / sp.pi)
        return each(lambda x: x / 2 * (1 + sp.tanh(k * (x + sp.Rational("0.044715") * x ** 3))), b["self"])
    return each(lambda x: x / 2 * (1 + sp.erf(x / sp.sqrt(2))), b["self"])


def _elu(b: Args, alpha: Any, scale: Any, input_scale: Any) -> np.ndarray:
    return each(lambda x: scale * x * gt(x, 0) + scale * alpha * (sp.exp(input_scale * x) - 1) * ge(0, x), b["self"])


def _softplus(b: Args) -> np.ndarray:
    beta, threshold = number(b.get("beta", 1)), number(b.get("threshold", 20))
    return each(lambda x: x * gt(beta * x, threshold) + sp.log(1 + sp.exp(beta * x)) / beta * ge(threshold, beta * x),
                b["self"])


def _hardtanh(b: Args) -> np.ndarray:
    low, high = number(b.get("min_val", -1)), number(b.get("max_val", 1))
    # PyTorch's gradient is 0 on the bounds
    return each(lambda x: low * ge(low, x) + high * ge(x, high) + x * gt(x, low) * gt(high, x), b["self"])


def _leaky_relu(b: Args) -> np.ndarray:
    slope = number(b.get("negative_slope", 0.01))
    return each(lambda x: x * gt(x, 0) + slope * x * ge(0, x), b["self"])


def _threshold(b: Args) -> np.ndarray:
    threshold, value = number(b["threshold"]), number(b["value"])
    return each(lambda x: x * gt(x, threshold) + value * ge(threshold, x), b["self"])


def _hardshrink(b: Args) -> np.ndarray:
    lambd = number(b.get("lambd", 0.5))
    return each(lambda x: x * (1 - ge(x, -lambd) * ge(lambd, x)), b["self"])


def _softshrink(b: Args) -> np.ndarray:
    lambd = number(b.get("lambd", 0.5))
    return each(lambda x: (x - lambd) * gt(x, lambd) + (x + lambd) * gt(-lambd, x), b["self"])


def _hardsigmoid(x: Any) -> Any:
    return gt(x, -3) * gt(3, x) * (x / 6 + sp.Rational(1, 2)) + ge(x, 3)


def _hardswish(x: Any) -> Any:
    # PyTorch's gradient: 0 below -3, x/3 + 1/2 up to 3 (both ends included), 1 above
    return ge(x, -3) * ge(3, x) * x * (x + 3) / 6 + x * gt(x, 3)


def _activations() -> dict[str, SymbolicOp]:
    def elu(b: Args) -> np.ndarray:
        return _elu(b, number(b.get("alpha", 1)), number(b.get("scale", 1)), number(b.get("input_scale", 1)))

    def celu(b: Args) -> np.ndarray:
        alpha = number(b.get("alpha", 1))
        return _elu(b, alpha, sp.Integer(1), 1 / alpha)

    forms = {
        "hardtanh": SymbolicOp(_hardtanh, True), "leaky_relu": SymbolicOp(_leaky_relu, True),
        "elu": SymbolicOp(elu, True), "celu": SymbolicOp(celu, True), "gelu": SymbolicOp(_gelu, True),
        "silu": _pw(lambda x: x * fn.sigmoid(x)), "mish": _pw(lambda x: x * sp.tanh(sp.log(1 + sp.exp(x)))),
        "softplus": SymbolicOp(_softplus, True), "log_sigmoid": _pw(lambda x: -sp.log(1 + sp.exp(-x))),
        "hardsigmoid": _pw(_hardsigmoid), "hardswish": _pw(_hardswish),
        "threshold": SymbolicOp(_threshold, True), "hardshrink": SymbolicOp(_hardshrink, True),
        "softshrink": SymbolicOp(_softshrink, True),
    }
    # the in-place forms F.relu_ and friends record ops of their own with the same arguments
    for name in ("hardtanh", "leaky_relu", "elu", "celu", "silu", "mish", "hardsigmoid", "hardswish", "threshold"):
        forms[f"_{name}_inplace"] = forms[name]
    return forms
