"""``Conv1d`` and ``Conv2d`` (``torch/nn/modules/conv.py``): PyTorch's checks, parameters in its
order (``kaiming_uniform_(weight, a=sqrt(5))``, then the bias from the weight's fan-in), its repr."""

from __future__ import annotations

import math
import operator
from typing import Any

from ...callbacks import pythons_errors
from ...callbacks import arithmetic
from ...dispatch.publish import NAMESPACES
from ...errors import TorchValueError
from ...tensor import Tensor
from .. import init
from ..parameter import Parameter
from .linear import empty
from .module import Module

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(value: Any, n: int) -> tuple:
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


def _set_repr(values: tuple[str, ...]) -> str:
    # PyTorch prints a set of str, whose order changes with Python's string hashing: one of its orders
    return "{" + ", ".join(repr(v) for v in values) + "}"


class _ConvNd(Module):
    """What ``Conv1d`` and ``Conv2d`` share: the checks, the parameters, ``extra_repr``."""

    _dims = 0
    _function = ""

    @pythons_errors
    def _setup(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any, padding: Any,
               dilation: Any, groups: int, bias: bool, padding_mode: str, device: Any, dtype: Any) -> None:
        Module.__init__(self)
        n = self._dims
        kernel_size, stride, dilation = _ntuple(kernel_size, n), _ntuple(stride, n), _ntuple(dilation, n)
        if not isinstance(padding, str):
            padding = _ntuple(padding, n)
        # (Python's own operators, as in PyTorch's Python code: 'a' % 1 is string formatting, and fails so)
        if arithmetic(operator.le, groups, 0):
            raise TorchValueError("groups must be a positive integer")
        if arithmetic(operator.mod, in_channels, groups) != 0:
            raise TorchValueError("in_channels must be divisible by groups")
        if arithmetic(operator.mod, out_channels, groups) != 0:
            raise TorchValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise TorchValueError(f"Invalid padding string {padding!r}, should be one of "
                                      f"{_set_repr(('valid', 'same'))}")
            if padding == "same" and any(s != 1 for s in stride):
                raise TorchValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            modes = _set_repr(("reflect", "zeros", "circular", "replicate"))
            raise TorchValueError(f"padding_mode must be one of {modes}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = False
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(padding, str):
            pads = [0, 0] * n
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(n - 1, -1, -1)):
                    total = d * (k - 1)
                    pads[2 * i] = total // 2
                    pads[2 * i + 1] = total - total // 2
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(padding) for _ in range(2)]
        self.weight = Parameter(empty((out_channels, in_channels // groups, *kernel_size), dtype=dtype,
                                      device=device))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        n = self._dims
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:  # noqa: A002
        functional = NAMESPACES["nn.functional"]
        conv = functional[self._function]
        if self.padding_mode != "zeros":
            padded = functional["pad"](input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, (0,) * self._dims, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvNd):
    """A 1-d convolution over (N, C, L) or (C, L)."""

    _dims = 1
    _function = "conv1d"

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        self._setup(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                    device, dtype)


class Conv2d(_ConvNd):
    """A 2-d convolution over (N, C, H, W) or (C, H, W)."""

    _dims = 2
    _function = "conv2d"

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        self._setup(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                    device, dtype)


CLASSES = (Conv1d, Conv2d)
for _cls in CLASSES:
    _cls.__module__ = "torch.nn.modules.conv"
