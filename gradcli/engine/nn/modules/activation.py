"""The activation modules (``torch/nn/modules/activation.py``): each forward calls its
``torch.nn.functional`` function (or ``torch.sigmoid``/``torch.tanh``, as PyTorch does)."""

from __future__ import annotations

from typing import Any

from ...device import TorchAssertionError
from ...dispatch.publish import FUNCTIONS, NAMESPACES
from ...errors import TorchValueError
from ...tensor import Tensor
from ...warnings import warn
from ..activation_functions import python_op
from .module import Module


def F(name: str) -> Any:
    """``torch.nn.functional.<name>``, as published."""
    return NAMESPACES["nn.functional"][name]


def _inplace_only(inplace: bool) -> str:
    return "inplace=True" if inplace else ""


def _inplace_suffix(inplace: bool) -> str:
    return ", inplace=True" if inplace else ""


class Threshold(Module):
    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return F("threshold")(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self.inplace)}"


class ReLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F("relu")(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_only(self.inplace)


class Hardtanh(Module):
    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None) -> None:
        super().__init__()
        if min_value is not None:
            warn("keyword argument `min_value` is deprecated and renamed to `min_val`", "FutureWarning")
            min_val = min_value
        if max_value is not None:
            warn("keyword argument `max_value` is deprecated and renamed to `max_val`", "FutureWarning")
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if python_op(lambda: self.max_val <= self.min_val):
            raise TorchAssertionError(f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F("hardtanh")(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_suffix(self.inplace)}"


class ReLU6(Hardtanh):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_only(self.inplace)


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return FUNCTIONS["sigmoid"](input)


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return FUNCTIONS["tanh"](input)


class _InplaceActivation(Module):
    """An activation whose only option is ``inplace`` (SiLU, Mish, SELU, ...)."""

    _function = ""
    _shows_inplace = True

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F(self._function)(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_only(self.inplace) if self._shows_inplace else ""


class Hardsigmoid(_InplaceActivation):
    _function = "hardsigmoid"
    _shows_inplace = False


class SiLU(_InplaceActivation):
    _function = "silu"


class Mish(_InplaceActivation):
    _function = "mish"


class Hardswish(_InplaceActivation):
    _function = "hardswish"
    _shows_inplace = False


class SELU(_InplaceActivation):
    _function = "selu"


class ELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F("elu")(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class CELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F("celu")(input, self.alpha, self.inplace)

    extra_repr = ELU.extra_repr


class GELU(Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F("gelu")(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={repr(self.approximate)}"


class Hardshrink(Module):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F("hardshrink")(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Module):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F("softshrink")(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F("leaky_relu")(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace_suffix(self.inplace)}"


class LogSigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F("logsigmoid")(input)


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F("softplus")(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Softsign(Module):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F("softsign")(input)


class Tanhshrink(Module):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F("tanhshrink")(input)


class _SoftmaxLike(Module):
    _function = ""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F(self._function)(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(_SoftmaxLike):
    _function = "softmin"


class Softmax(_SoftmaxLike):
    _function = "softmax"


class LogSoftmax(_SoftmaxLike):
    _function = "log_softmax"


class Softmax2d(Module):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if input.dim() not in (3, 4):
            raise TorchValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F("softmax")(input, -3, _stacklevel=5)


CLASSES = (Threshold, ReLU, Hardtanh, ReLU6, Sigmoid, Tanh, Hardsigmoid, SiLU, Mish, Hardswish, SELU, ELU, CELU,
           GELU, Hardshrink, Softshrink, LeakyReLU, LogSigmoid, Softplus, Softsign, Tanhshrink, Softmin, Softmax,
           LogSoftmax, Softmax2d)
for _cls in CLASSES + (_InplaceActivation, _SoftmaxLike):
    _cls.__module__ = "torch.nn.modules.activation"
