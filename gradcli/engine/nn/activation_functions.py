"""The ``F.*`` activation functions that are Python functions in PyTorch.

They take ``inplace=`` and call the out-of-place or in-place op of
``activations.py``; their parameters and Python-level checks are PyTorch's,
so a wrong call fails with the same message (``relu() got an unexpected
keyword argument 'foo'``, ``ValueError: min_val cannot be greater than
max_val``, ``AttributeError: 'list' object has no attribute 'tanh'``).
"""

from __future__ import annotations

from typing import Any, Callable

from ..dispatch.signature import LazyParser
from ..errors import TorchTypeError, TorchValueError
from ..ops import pointwise_unary
from ..tensor import Tensor
from . import activations as A
from .reduction import attribute


def python_op(fn: Callable[[], Any]) -> Any:
    """Run a Python-level comparison on user values; Python's TypeError is the script's error."""
    try:
        return fn()
    except TypeError as error:
        raise TorchTypeError(str(error)) from None


def relu(input: Any, inplace: bool = False) -> Tensor:  # noqa: A002 - PyTorch's names
    return A.relu_(input) if inplace else pointwise_unary.RELU(input)


_RELU6 = LazyParser("relu6(Tensor input)")
_RELU6_ = LazyParser("relu6_(Tensor input)")


def relu6(input: Any, inplace: bool = False) -> Tensor:  # noqa: A002
    # ATen's relu6 is hardtanh(0, 6): its node is HardtanhBackward0
    _, b = (_RELU6_ if inplace else _RELU6).parse((input,), {})
    return (A.hardtanh_ if inplace else A.hardtanh)(b["input"], 0, 6)


def leaky_relu(input: Any, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    return (A.leaky_relu_ if inplace else A.leaky_relu)(input, negative_slope)


def elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    return (A.elu_ if inplace else A.elu)(input, alpha)


def selu(input: Any, inplace: bool = False) -> Tensor:  # noqa: A002
    return (A.selu_ if inplace else A.selu)(input)


def celu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    return (A.celu_ if inplace else A.celu)(input, alpha)


def silu(input: Any, inplace: bool = False) -> Tensor:  # noqa: A002
    return (A.silu_ if inplace else A.silu)(input)


def mish(input: Any, inplace: bool = False) -> Tensor:  # noqa: A002
    return (A.mish_ if inplace else A.mish)(input)


def hardsigmoid(input: Any, inplace: bool = False) -> Tensor:  # noqa: A002
    return (A.hardsigmoid_ if inplace else A.hardsigmoid)(input)


def hardswish(input: Any, inplace: bool = False) -> Tensor:  # noqa: A002
    return (A.hardswish_ if inplace else A.hardswish)(input)


def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    if python_op(lambda: min_val > max_val):
        raise TorchValueError("min_val cannot be greater than max_val")
    return (A.hardtanh_ if inplace else A.hardtanh)(input, min_val, max_val)


def _threshold(input: Any, threshold: float, value: float, inplace: bool = False) -> Tensor:  # noqa: A002
    """``F.threshold`` (named ``_threshold`` in PyTorch, which its errors show)."""
    return (A.threshold_ if inplace else A.threshold)(input, threshold, value)


def softsign(input: Any) -> Tensor:  # noqa: A002
    return input / (attribute(input, "abs")() + 1)


def tanhshrink(input: Any) -> Tensor:  # noqa: A002
    return input - attribute(input, "tanh")()


def tanh(input: Any) -> Tensor:  # noqa: A002
    return attribute(input, "tanh")()


def sigmoid(input: Any) -> Tensor:  # noqa: A002
    return attribute(input, "sigmoid")()


NAMESPACE: dict[str, Any] = {
    "relu": relu, "relu_": A.relu_, "relu6": relu6, "leaky_relu": leaky_relu,
    "leaky_relu_": A.leaky_relu_, "elu": elu, "elu_": A.elu_, "selu": selu, "selu_": A.selu_, "celu": celu,
    "celu_": A.celu_, "gelu": A.gelu, "silu": silu, "mish": mish, "softplus": A.softplus, "softsign": softsign,
    "hardtanh": hardtanh, "hardtanh_": A.hardtanh_, "hardsigmoid": hardsigmoid, "hardswish": hardswish,
    "logsigmoid": A.log_sigmoid, "threshold": _threshold, "threshold_": A.threshold_, "tanh": tanh,
    "sigmoid": sigmoid, "hardshrink": A.hardshrink, "softshrink": A.softshrink, "tanhshrink": tanhshrink,
}
