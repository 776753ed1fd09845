"""``Dropout`` (``torch/nn/modules/dropout.py``): ``F.dropout`` in training mode, the input itself in eval."""

from __future__ import annotations

from ...dispatch.publish import NAMESPACES
from ...errors import TorchValueError
from ...tensor import Tensor
from ..activation_functions import python_op
from .module import Module


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if python_op(lambda: p < 0 or p > 1):
            raise TorchValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeroes elements with probability ``p`` and scales the rest by ``1 / (1 - p)``."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return NAMESPACES["nn.functional"]["dropout"](input, self.p, self.training, self.inplace)


for _cls in (_DropoutNd, Dropout):
    _cls.__module__ = "torch.nn.modules.dropout"
