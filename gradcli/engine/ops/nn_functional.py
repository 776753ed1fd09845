"""``torch.nn.functional``: activations, ``linear``, losses and dropout.

Functions PyTorch implements natively get their own op (and node name:
``LeakyReluBackward0``, ``MseLossBackward0``, ...); functions PyTorch
composes from other ops are composed the same way here, so their nodes
match too (``l1_loss`` ends in ``MeanBackward0``, ``cross_entropy`` in
``NllLossBackward0`` over ``LogSoftmaxBackward0``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import TorchRuntimeError
from ..tensor import Tensor
from .arith import arr, float_dtype
from .registry import FUNCTIONS, NAMESPACES, d, defop, run

F: dict[str, Any] = NAMESPACES.setdefault("nn.functional", {})


def _softplus_forward(b: dict) -> Any:
    x = b["self"]
    a = arr(x, float_dtype(x))
    beta, threshold = b["beta"], b["threshold"]
    scaled = a * a.dtype.type(beta)
    return np.where(scaled > threshold, a, np.log1p(np.exp(scaled)) / a.dtype.type(beta))


def _softplus_backward(g: Tensor, s: Any) -> Tensor:
    x = s.self
    z = (x * s.beta).exp()
    return (g * z / (z + 1)).masked_fill(x * s.beta > s.threshold, 0.0) + g * (x * s.beta > s.threshold)


defop("softplus", "softplus(Tensor input, Scalar beta=1, Scalar threshold=20)", _softplus_forward,
      node="SoftplusBackward0", method=False, also_in=("nn.functional",),
      derivs={"self": d("self")(_softplus_backward)})
del FUNCTIONS["softplus"]  # torch.softplus is not public; F.softplus is


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002 - PyTorch's names
    return input.relu_() if inplace else FUNCTIONS["relu"](input)


def _implicit_softmax_dim(ndim: int) -> int:
    from ..warnings import warn
    warn("Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X as "
         "an argument.")
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    if dim is None:
        dim = _implicit_softmax_dim(input.ndim)
    return FUNCTIONS["softmax"](input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    if dim is None:
        dim = _implicit_softmax_dim(input.ndim)
    return FUNCTIONS["log_softmax"](input, dim, dtype=dtype)


F.update({
    "relu": relu, "softmax": softmax, "log_softmax": log_softmax, "tanh": FUNCTIONS["tanh"],
    "sigmoid": FUNCTIONS["sigmoid"],
})
__all__ = ["F", "math", "TorchRuntimeError", "run"]
