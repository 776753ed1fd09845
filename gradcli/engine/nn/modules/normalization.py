"""``LayerNorm`` (``torch/nn/modules/normalization.py``): weight ones, bias zeros, ``F.layer_norm``."""

from __future__ import annotations

import numbers
from typing import Any

from ...dispatch.publish import NAMESPACES
from ...tensor import Tensor
from ..activation_functions import python_op
from .. import init
from ..parameter import Parameter
from .linear import empty
from .module import Module


class LayerNorm(Module):
    """Normalises over the last ``len(normalized_shape)`` dimensions."""

    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = python_op(lambda: tuple(normalized_shape))
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(empty(self.normalized_shape, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return NAMESPACES["nn.functional"]["layer_norm"](input, self.normalized_shape, self.weight, self.bias,
                                                         self.eps)

    def extra_repr(self) -> str:
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, bias={use_bias}".format(
            **self.__dict__, use_bias=self.bias is not None)


LayerNorm.__module__ = "torch.nn.modules.normalization"
