"""What every loss shares: the ``reduction=`` argument (PyTorch's ``torch.nn._reduction``,
with the legacy ``size_average``/``reduce`` and their warnings), the target-size warning,
and the Python-level checks ``torch.nn.functional`` makes before calling C++.

The ``F.*`` losses are Python functions in PyTorch, so a bad argument fails
there with Python's own errors (``AttributeError: 'list' object has no
attribute 'size'``); those are reproduced as deliberate errors here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd import grad_mode
from ..errors import TorchAttributeError, TorchRuntimeError, TorchValueError
from ..kernels.summation import torch_sum
from ..shape_rules import broadcast_shapes
from ..tensor import Tensor
from ..warnings import warn

NONE, MEAN, SUM = 0, 1, 2


def get_enum(reduction: Any) -> int:
    """``torch.nn._reduction.get_enum``."""
    if reduction == "none":
        return NONE
    if reduction == "mean":
        return MEAN
    if reduction == "elementwise_mean":
        warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.")
        return MEAN
    if reduction == "sum":
        return SUM
    raise TorchValueError(f"{reduction} is not a valid value for reduction")


def legacy_string(size_average: Any, reduce: Any) -> str:
    """``legacy_get_string``: the old boolean pair as a reduction name, with its warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = "mean" if size_average and reduce else "sum" if reduce else "none"
    warn(f"size_average and reduce args will be deprecated, please use reduction='{result}' instead.")
    return result


def reduction_of(size_average: Any, reduce: Any, reduction: Any) -> Any:
    """The reduction name a loss uses: the legacy pair wins when either is given."""
    if size_average is not None or reduce is not None:
        return legacy_string(size_average, reduce)
    return reduction


def size_of(value: Any) -> Any:
    """``value.size()`` as Python would evaluate it inside ``torch.nn.functional``."""
    if isinstance(value, Tensor):
        return value.size()
    raise TorchAttributeError(f"'{type(value).__name__}' object has no attribute 'size'")


def attribute(value: Any, name: str) -> Any:
    """``getattr`` with the AttributeError Python gives for a non-tensor."""
    if isinstance(value, Tensor):
        return getattr(value, name)
    raise TorchAttributeError(f"'{type(value).__name__}' object has no attribute '{name}'")


def warn_size_mismatch(input: Any, target: Any) -> None:  # noqa: A002 - PyTorch's name
    target_size = size_of(target)
    input_size = size_of(input)
    if target_size != input_size:
        warn(f"Using a target size ({target_size}) that is different to the input size ({input_size}). "
             "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
             "same size.")


def broadcast_pair(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """``torch.broadcast_tensors(a, b)``: a tensor already of the common shape is returned as is."""
    shape = broadcast_shapes(tuple(a.shape), tuple(b.shape))
    return (a if tuple(a.shape) == shape else a.expand(shape),
            b if tuple(b.shape) == shape else b.expand(shape))


def no_grad_argument(t: Tensor | None, name: str, function: str) -> None:
    """PyTorch refuses, before running, an argument its formula cannot differentiate."""
    if t is not None and grad_mode._enabled and t.requires_grad:
        raise TorchRuntimeError(
            f"The function '{function}' is not differentiable with respect to argument '{name}'. This input "
            "cannot have requires_grad True.")


def reduce_array(a: np.ndarray, reduction: int) -> np.ndarray:
    """Mean or sum in the array's own dtype (mean of nothing is NaN, as in PyTorch)."""
    if reduction == NONE:
        return a
    if reduction == SUM:
        return torch_sum(a)
    if a.size == 0:
        return np.asarray(np.nan, dtype=a.dtype)
    return np.asarray(torch_sum(a) / a.dtype.type(a.size))


def grad_norm(s: Any, value: float = 1.0) -> float:
    """The factor a loss's gradient carries: ``value / numel`` for the mean, else ``value``."""
    if s.reduction == MEAN:
        n = 1
        for d in s.self_sym_sizes:
            n *= d
        return value / n
    return value


def invalid_reduction(reduction: Any) -> TorchValueError:
    return TorchValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
