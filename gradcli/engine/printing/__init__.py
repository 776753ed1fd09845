"""The tensor printer: PyTorch's repr of a tensor, and its print options.

Knows nothing of gradcli's Tensor class: the caller passes a NumPy array, the
dtype name and the autograd facts to show.
"""

from .options import get_printoptions, printoptions, reset_printoptions, set_printoptions
from .tensor_str import tensor_repr

__all__ = [
    "get_printoptions",
    "printoptions",
    "reset_printoptions",
    "set_printoptions",
    "tensor_repr",
]
