"""The leaves' end of the graph: AccumulateGrad adds a gradient into ``.grad`` (and ``zero_grads`` resets it)."""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import TorchRuntimeError
from ..shape_rules import broadcast_shapes, list_str
from ..tensor import Tensor
from . import observe
from .node import NODE_ATTRS, Node
from .record import record_identity


class AccumulateGrad(Node):
    """The node that adds a gradient into a leaf's ``.grad``."""

    __slots__ = ("variable",)
    __script_attrs__ = NODE_ATTRS | {"variable"}
    rule = "adds grad into .grad of the leaf (.grad = grad when it is None)"

    def __init__(self, variable: Tensor) -> None:
        super().__init__(())
        # Runs as soon as it is ready, like PyTorch (its sequence number is the largest).
        self._seq = float("inf")
        self.variable = variable

    def input_metadata(self, index: int) -> tuple | None:
        return None

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def apply(self, grads: list, create_graph: bool) -> list:
        tracer = observe.tracer
        if tracer is None:
            accumulate_into_leaf(self.variable, grads[0], create_graph)
        else:
            old = self.variable._grad
            before = None if old is None else old.detach().clone()  # the sum may land in place
            accumulate_into_leaf(self.variable, grads[0], create_graph)
            tracer.accumulated(self.variable, before, self.variable._grad)
        return []


AccumulateGrad.__module__ = "builtins"


def accumulate_into_leaf(variable: Tensor, grad: Tensor | None, create_graph: bool) -> None:
    if grad is None or not variable.requires_grad:
        return  # a leaf detach_()ed after the graph was built gets nothing, as in PyTorch
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
        _check_in_place_add(old, grad)
        old._data += grad._data.astype(old._data.dtype, copy=False)
        old._vc.value += 1


def _check_in_place_add(old: Tensor, grad: Tensor) -> None:
    """PyTorch's ``.grad += grad`` checks: a leaf reshaped in place under no_grad (``x.t_()``) after its
    .grad was made gets a gradient of its new shape."""
    shape = broadcast_shapes(old.shape, grad.shape)
    if shape != tuple(old.shape):
        raise TorchRuntimeError(f"output with shape {list_str(old.shape)} doesn't match the broadcast shape "
                                f"{list_str(shape)}")


def zero_grads(params: Iterable[Tensor], set_to_none: bool) -> None:
    """``zero_grad`` of a Module and of an optimizer: each tensor's ``.grad`` set to None, or (``set_to_none
    =False``) taken out of its graph and zeroed in place, as PyTorch's both do."""
    for p in params:
        if p.grad is not None:
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad._set_requires_grad(False, "")
                p.grad.zero_()
