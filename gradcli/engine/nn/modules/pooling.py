"""``MaxPool1d``, ``MaxPool2d``, ``AvgPool1d``, ``AvgPool2d`` (``torch/nn/modules/pooling.py``): the
arguments kept as PyTorch keeps them (a stride of None is the kernel size; AvgPool1d's as 1-tuples),
the functional op in ``forward``, PyTorch's repr."""

from __future__ import annotations

from typing import Any

from ...dispatch.publish import NAMESPACES
from ...tensor import Tensor
from .module import Module


class _MaxPoolNd(Module):
    """What PyTorch's max pooling layers share: their arguments and repr."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """The largest value of each window along the last dim."""

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return NAMESPACES["nn.functional"]["max_pool1d"](input, self.kernel_size, self.stride, self.padding,
                                                         self.dilation, ceil_mode=self.ceil_mode,
                                                         return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """The largest value of each window."""

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return NAMESPACES["nn.functional"]["max_pool2d"](input, self.kernel_size, self.stride, self.padding,
                                                         self.dilation, ceil_mode=self.ceil_mode,
                                                         return_indices=self.return_indices)


class _AvgPoolNd(Module):
    """What PyTorch's average pooling layers share: their repr."""

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def _single(value: Any) -> Any:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


class AvgPool1d(_AvgPoolNd):
    """The mean of each window along the last dim."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return NAMESPACES["nn.functional"]["avg_pool1d"](input, self.kernel_size, self.stride, self.padding,
                                                         self.ceil_mode, self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    """The mean of each window."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: Any = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return NAMESPACES["nn.functional"]["avg_pool2d"](input, self.kernel_size, self.stride, self.padding,
                                                         self.ceil_mode, self.count_include_pad,
                                                         self.divisor_override)


CLASSES = (MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d)
for _cls in (_MaxPoolNd, _AvgPoolNd, *CLASSES):
    _cls.__module__ = "torch.nn.modules.pooling"
