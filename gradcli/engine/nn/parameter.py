"""``torch.nn.Parameter``: a Tensor that a Module registers as one of its parameters.

As in PyTorch it is a Tensor subclass made by aliasing the data it is given
(``Tensor._make_subclass``: same memory, same version counter, a leaf);
everything computed from it is a plain Tensor, in-place ops return the
Parameter itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..errors import TorchAttributeError, TorchRuntimeError, TorchTypeError
from ..tensor import Tensor


class Parameter(Tensor):
    """``nn.Parameter(data=None, requires_grad=True)``."""

    __slots__ = ()

    def __new__(cls, data: Any = None, requires_grad: bool = True) -> "Parameter":
        if data is None:
            data = Tensor._make(_empty_float())
        if not isinstance(data, Tensor):
            # PyTorch calls data.detach() on anything that is not a plain Tensor
            raise TorchAttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        return make_parameter(cls, data, requires_grad)

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        pass  # (everything happens in __new__, as in PyTorch)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        # torch.Tensor.__format__ formats the item only for an exact Tensor
        if spec:
            raise TorchTypeError(f"unsupported format string passed to {type(self).__name__}.__format__")
        return str(self)

    # ``del p.grad`` clears the gradient as it does for any tensor (PyTorch's getset gets a NULL);
    # ``del p.data`` and ``del p.requires_grad`` fail as they do there.
    grad = property(Tensor.grad.fget, Tensor.grad.fset, lambda self: Tensor.grad.fset(self, None))
    data = property(Tensor.data.fget, Tensor.data.fset, lambda self: _no_data_deletion())
    requires_grad = property(Tensor.requires_grad.fget, Tensor.requires_grad.fset,
                             lambda self: Tensor.requires_grad.fset(self, None))

    def __deepcopy__(self, memo: dict) -> "Parameter":
        found = memo.get(id(self))
        if found is not None:
            return found
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result


Parameter.__module__ = "torch.nn.parameter"


def make_parameter(cls: type, data: Tensor, requires_grad: bool) -> Parameter:
    """``Tensor._make_subclass(cls, data, requires_grad)``: ``data.detach()`` as a ``cls``."""
    t = data.detach()
    t.__class__ = cls
    if not isinstance(requires_grad, bool):
        raise TorchTypeError(
            f"_make_subclass(): argument 'require_grad' (position 3) must be bool, not {type(requires_grad).__name__}")
    if requires_grad and not t._dtype.is_floating_point:
        raise TorchRuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t._requires_grad = requires_grad
    return t


def _no_data_deletion() -> None:
    raise TorchRuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")


def _empty_float() -> np.ndarray:
    return np.zeros(0, dtype=dtypes.get_default_dtype().np)
