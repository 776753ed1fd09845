"""``Flatten`` and ``Unflatten`` (``torch/nn/modules/flatten.py``)."""

from __future__ import annotations

from typing import Any

from ...errors import TorchTypeError
from ...tensor import Tensor
from .module import Module


class Flatten(Module):
    """``input.flatten(start_dim, end_dim)``."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """``input.unflatten(dim, unflattened_size)``."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, input: Any) -> None:  # noqa: A002
        if isinstance(input, (tuple, list)):
            for idx, elem in enumerate(input):
                if not isinstance(elem, int):
                    raise TorchTypeError("unflattened_size must be tuple of ints, "
                                         f"but found element of type {type(elem).__name__} at pos {idx}")
            return
        raise TorchTypeError(f"unflattened_size must be a tuple of ints, but found type {type(input).__name__}")

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


for _cls in (Flatten, Unflatten):
    _cls.__module__ = "torch.nn.modules.flatten"
