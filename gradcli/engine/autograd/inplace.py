"""A tensor's history across an in-place change: PyTorch's checks before, the rewiring after.

Before the write, ``check_inplace_allowed`` refuses what PyTorch refuses (a leaf
that requires grad, a view of one, a view made in a way that forbids it) and
``EdgeHolder`` keeps self's edge as it was; after the write, ``rebase_history``
makes the in-place op's node the tensor's new history (through its base's
``CopySlices`` when it is a view).
"""

from __future__ import annotations

from typing import Any

from ..errors import TorchRuntimeError
from ..tensor import Tensor
from .node import move_retain_hook
from .views import check_view_rebase, rebase_view


class EdgeHolder:
    """Stands in for ``self`` as it was before the in-place write (its graph edge)."""

    __slots__ = ("_grad_fn", "_output_nr", "_requires_grad", "_dtype", "shape", "_accumulator_of", "_data")
    _view_fn = None
    _wrapped = False

    def __init__(self, t: Tensor) -> None:
        self._data = t._data  # only its shape is read
        self._grad_fn = t._grad_fn
        self._output_nr = t._output_nr
        self._requires_grad = t._requires_grad
        self._dtype = t._dtype
        self.shape = t.shape
        self._accumulator_of = t

    def _grad_accumulator(self) -> Any:
        return self._accumulator_of._grad_accumulator()


def check_inplace_allowed(target: Tensor) -> None:
    """PyTorch's ``check_inplace``, for an in-place op that autograd will record."""
    base = target._base
    if target._view_fn is not None:
        check_view_rebase(target, indirect=False)
        if base._grad_fn is None and target.requires_grad:  # (the view may require grad on its own)
            raise TorchRuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if target._grad_fn is None and target._requires_grad:
        raise TorchRuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def rebase_history(target: Tensor, node: Any) -> None:
    """Make ``node`` the new history of ``target`` after an in-place op."""
    if target._view_fn is not None:
        rebase_view(target, node)
        return
    old = target._grad_fn, target._output_nr
    target._grad_fn = node
    target._output_nr = 0
    move_retain_hook(target, *old)
