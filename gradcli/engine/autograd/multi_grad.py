"""``torch.autograd.graph.register_multi_grad_hook``: one hook over several tensors' gradients.

As PyTorch builds it: a hook on each tensor.  In mode ``"all"`` the first of them to fire in a
backward call counts how many of the tensors' nodes that call will run; when the last of those
gradients has arrived, ``fn`` gets the list of them (None for a tensor whose gradient that call
does not compute).  In mode ``"any"`` ``fn`` gets the first gradient of each call.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .. import callbacks
from ..errors import TorchAssertionError, TorchAttributeError, TorchTypeError, TorchValueError
from ..tensor import Tensor
from . import engine

MODES = ("all", "any")


class MultiHandle:
    """What ``register_multi_grad_hook`` returns: ``remove()`` takes every hook away."""

    __script_attrs__ = frozenset({"remove"})

    def __init__(self, handles: tuple) -> None:
        self._handles = handles

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()

    def __enter__(self) -> "MultiHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()

    def __repr__(self) -> str:
        return f"<torch.autograd.graph._MultiHandle object at {id(self):#x}>"


MultiHandle.__module__ = "torch.autograd.graph"
MultiHandle.__name__ = MultiHandle.__qualname__ = "_MultiHandle"


def _tensor(t: Any) -> Tensor:
    if not isinstance(t, Tensor):   # (PyTorch's Python code reads t.requires_grad first)
        raise TorchAttributeError(f"'{type(t).__name__}' object has no attribute 'requires_grad'")
    return t


def _node_of(t: Tensor) -> Any:
    """The node a tensor's gradient goes into: its grad_fn, or a leaf's gradient accumulator."""
    if _tensor(t).grad_fn is not None:
        return t.grad_fn
    if not t.requires_grad:
        raise TorchAssertionError("Expected gradient function to be set")   # (PyTorch's own assertion)
    return t._grad_accumulator()


def register_multi_grad_hook(tensors: Sequence[Tensor], fn: Callable, *, mode: str = "all") -> MultiHandle:
    if mode not in MODES:
        raise TorchValueError(f"Expects mode to be one of {MODES} but got {mode}")
    if not hasattr(type(tensors), "__iter__"):
        raise TorchTypeError(f"'{type(tensors).__name__}' object is not iterable")
    tensors = list(tensors)
    if mode == "all":
        nodes = [_node_of(t) for t in tensors]
        counts: dict[int, int] = {}
        expected: dict[int, int] = {}
        buffers: dict[int, list] = {}

        def inner_hook_for(index: int) -> Callable[[Tensor], None]:
            def inner_hook(grad: Tensor) -> None:
                task = engine.current_task_id()
                seen = counts.get(task, 0)
                if seen == 0:
                    expected[task] = sum(1 for n in nodes if engine.will_execute(n))
                    buffers[task] = [None] * len(tensors)
                counts[task] = seen + 1
                buffers[task][index] = grad
                if seen == expected[task] - 1:
                    grads = buffers.pop(task)
                    del counts[task], expected[task]
                    callbacks.call(fn, grads)
            return inner_hook
        handles = tuple(t.register_hook(inner_hook_for(i)) for i, t in enumerate(tensors))
    else:
        ran: set[int] = set()

        def first_only(grad: Tensor) -> None:
            task = engine.current_task_id()
            if task in ran:
                return
            ran.add(task)
            callbacks.call(fn, grad)
        handles = tuple(t.register_hook(first_only) for t in tensors if _tensor(t).requires_grad)
    return MultiHandle(handles)
