"""``torch.autograd.forward_ad.make_dual``, and the module's members a script sees."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd import forward_ad
from ..autograd.forward_ad import set_tangent, suspended, tangent_of
from ..errors import TorchAttributeError, TorchRuntimeError, TorchValueError
from ..ops.shape import VIEW
from ..tensor import Tensor


def _dtype_name(t: Tensor) -> str:
    return f"torch.{t._dtype.name}"


def make_dual(tensor: Any, tangent: Any, *, level: Any = None) -> Tensor:
    """A view of ``tensor`` whose tangent is ``tangent`` (kept as it is when its layout is the
    primal's, else copied into that layout)."""
    if level is not None and (forward_ad._level is None or level != 0):
        raise TorchRuntimeError("Invalid level given to _make_dual")
    if forward_ad._level is None:
        raise TorchRuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure "
                                "to enter_dual_level() first.")
    if not isinstance(tensor, Tensor):
        raise TorchAttributeError(f"'{type(tensor).__name__}' object has no attribute 'is_floating_point'")
    if not tensor._dtype.is_floating_point:
        raise TorchValueError(f"Expected primal to be floating point or complex, but got: {_dtype_name(tensor)}")
    if not isinstance(tangent, Tensor):
        raise TorchAttributeError(f"'{type(tangent).__name__}' object has no attribute 'is_floating_point'")
    if not tangent._dtype.is_floating_point:
        raise TorchValueError(f"Expected tangent to be floating point or complex, but got: {_dtype_name(tangent)}")
    if tensor._batched or tangent._batched:   # (inside vmap)
        return _batched_dual(tensor, tangent)
    if tangent_of(tensor) is not None:
        raise TorchRuntimeError("Making a dual Tensor based on a Tensor that already has a forward gradient at "
                                "the same level 0 is not supported.")
    if tangent._data.shape != tensor._data.shape:
        raise TorchRuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, this "
            f"is not supported. Tensor is of size {_sizes(tensor)} while the given forward gradient is of size "
            f"{_sizes(tangent)}.")
    if tangent.stride() != tensor.stride() or tangent.storage_offset() != 0:
        copy = np.empty_like(tensor._data, dtype=tangent._data.dtype)
        copy[...] = tangent._data
        tangent = Tensor._make(copy, tangent._dtype) if not tangent.requires_grad else tangent.clone()
    with suspended():
        dual = VIEW(tensor, list(tensor.shape))
    set_tangent(dual, tangent)
    return dual


def _batched_dual(tensor: Tensor, tangent: Tensor) -> Tensor:
    """make_dual inside vmap: the dual is made of the physical tensors, the primal first batched at
    every level (a batch of tangents for one primal: vmap over jvp's tangents)."""
    from ..batching.gradients import batched_at_every_level, laid_out_as, physical, wrapped_as
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise TorchRuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, this "
            f"is not supported. Tensor is of size {_sizes(tensor)} while the given forward gradient is of size "
            f"{_sizes(tangent)}.")
    primal = batched_at_every_level(tensor)
    dual = wrapped_as(make_dual(physical(primal), laid_out_as(tangent, primal)), primal)
    level, source = dual, primal   # (the primal's values, the same in every sample where they were)
    while level._batched:
        level._invariant = source._invariant
        level, source = level._value, source._value
    return dual


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(n) for n in t.shape) + "]"


def members() -> dict[str, Any]:
    """``torch.autograd.forward_ad``'s members a script may use."""
    return {"dual_level": forward_ad.dual_level, "make_dual": make_dual, "unpack_dual": forward_ad.unpack_dual,
            "enter_dual_level": forward_ad.enter_dual_level, "exit_dual_level": forward_ad.exit_dual_level,
            "UnpackedDualTensor": forward_ad.UnpackedDualTensor}
