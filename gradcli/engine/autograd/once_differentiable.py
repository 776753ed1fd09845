"""``@once_differentiable``: a Function's backward that may not itself be differentiated.

As PyTorch does it: the backward runs under no_grad, and when the graph is
being built (``create_graph=True``) and an incoming gradient requires grad,
its results come back through an ``Error`` node, so a second backward through
them fails with PyTorch's message instead of silently giving a wrong
derivative.
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import TorchRuntimeError
from ..tensor import Tensor
from . import grad_mode
from .node import Node, node_class
from .views import gradient_edge

MESSAGE = "trying to differentiate twice a function that was marked with @once_differentiable"


class _ErrorNode(Node):
    """PyTorch's ``Error`` node: running it raises its message."""

    __slots__ = ("_message", "_meta")
    rule = "none: a @once_differentiable backward may not be differentiated (raises)"

    def __init__(self, next_functions: tuple, message: str, meta: list) -> None:
        super().__init__(next_functions)
        self._message = message
        self._meta = meta

    @property
    def num_outputs(self) -> int:
        return len(self._meta)

    def input_metadata(self, index: int) -> tuple | None:
        return self._meta[index]

    def apply(self, grads: list, create_graph: bool) -> list:
        raise TorchRuntimeError(self._message)


Error = node_class("Error", base=_ErrorNode)


def once_differentiable(fn: Callable) -> Callable:
    """Decorate a Function's ``backward`` (``torch.autograd.function.once_differentiable``)."""

    def wrapper(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        previous = grad_mode._enabled
        grad_mode._set(False)
        try:
            outputs = fn(ctx, *args, **kwargs)
        finally:
            grad_mode._set(previous)
        if not grad_mode._enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        return _delayed_error(outputs if isinstance(outputs, tuple) else (outputs,))

    wrapper.__name__ = getattr(fn, "__name__", "wrapper")
    wrapper.__qualname__ = getattr(fn, "__qualname__", wrapper.__name__)
    wrapper.__doc__ = getattr(fn, "__doc__", None)
    return wrapper


def _delayed_error(values: tuple) -> tuple:
    """PyTorch's DelayedError: aliases of ``values`` whose node is an ``Error`` node (each input a
    detached copy that requires grad, so that the aliases have a node at all)."""
    leaves = []
    for v in values:
        if isinstance(v, Tensor):
            v = v.detach()
            v._requires_grad = True
        leaves.append(v)
    tensors = [v for v in leaves if isinstance(v, Tensor)]
    node = Error(tuple(gradient_edge(t) for t in tensors), MESSAGE,
                 [(t._data.shape, t._dtype) for t in tensors])
    out = []
    nr = 0
    for v in leaves:
        if isinstance(v, Tensor):
            alias = Tensor._make(v._data, v._dtype)
            alias._grad_fn, alias._output_nr = node, nr
            nr += 1
            v = alias
        out.append(v)
    return tuple(out)
