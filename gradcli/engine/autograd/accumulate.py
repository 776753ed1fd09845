"""Adding a gradient into a leaf's ``.grad`` (what AccumulateGrad does)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..tensor import Tensor


def accumulate_into_leaf(variable: "Tensor", grad: "Tensor | None", create_graph: bool) -> None:
    if grad is None or not variable.requires_grad:
        return  # a leaf detach_()ed after the graph was built gets nothing, as in PyTorch
    from ..ops.registry import record_identity
    old = variable._grad
    if old is None:
        if create_graph:
            # PyTorch keeps the graph of a gradient computed with create_graph=True;
            # the stored .grad is a copy whose node is CopyBackwards.
            variable._grad = record_identity(grad, "CopyBackwards", copy=True)
        else:
            variable._grad = grad.detach()._own_copy()
        return
    if create_graph:
        # Out of place (grad mode is on), so that the accumulated gradient stays differentiable.
        variable._grad = old + grad
    else:
        # In place, as PyTorch does under no grad mode, even into a .grad that has a graph
        # (it keeps its CopyBackwards): a reference to the old .grad sees the sum.
        old._data += grad._data.astype(old._data.dtype, copy=False)
        old._vc.value += 1
