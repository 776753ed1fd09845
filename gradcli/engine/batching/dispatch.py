"""Where an op call meets batched inputs: find the level, run the op's batch rule, wrap the results.

The runner calls ``batched_level`` only while a vmap runs (``state.depth``).  A rule (rules.py)
gets the bound arguments and the level and returns physical results; ``run_batched`` wraps each
as a BatchedTensor of that level (batch first unless the rule says where it is).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..errors import TorchNotImplementedError, TorchRuntimeError
from ..tensor import Tensor
from .batched_tensor import BatchedTensor

if TYPE_CHECKING:
    from ..dispatch.op import Op


def batched_level(bound: dict) -> int:
    """The innermost vmap level among the arguments (0 when none is batched)."""
    level = 0
    for value in bound.values():
        if isinstance(value, BatchedTensor):
            if value._level > level:
                level = value._level
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, BatchedTensor) and item._level > level:
                    level = item._level
                elif isinstance(item, tuple):  # (index's (dim, tensor) pairs)
                    for inner in item:
                        if isinstance(inner, BatchedTensor) and inner._level > level:
                            level = inner._level
    return level


class Placed:
    """A rule's result whose batch is not its first dimension (advanced indexing)."""

    def __init__(self, value: Any, bdim: int) -> None:
        self.value = value
        self.bdim = bdim


def wrap(result: Any, level: int, returns: Callable | None = None) -> Any:
    """Physical results as the batched tensors of ``level`` (batch first); ``returns``: the op's
    named tuple of results (torch.return_types.max)."""
    if isinstance(result, Placed):
        return BatchedTensor.wrap(result.value, result.bdim, level)
    if isinstance(result, BatchedTensor) and result._level == level:
        return result   # (a rule that answered with logical ops already has this level's tensors)
    if isinstance(result, Tensor):
        return BatchedTensor.wrap(result, 0, level)
    if isinstance(result, list):
        return [wrap(r, level) for r in result]
    if isinstance(result, tuple):
        items = [wrap(r, level) for r in result]
        return returns(*items) if returns is not None else tuple(items)
    return result


def run_batched(op: "Op", bound: dict, level: int, inner: Callable[["Op", dict], Any], inplace: bool = False) -> Any:
    """``op`` on ``bound`` whose arguments are batched at ``level``, by its batch rule; ``inner``
    runs the rewritten call (the runner itself, so deeper levels and autograd follow)."""
    from .rules import rule_for
    rule = rule_for(op)
    if rule is None:
        raise TorchNotImplementedError(f"gradcli does not support vmap over {_public_name(op)} yet")
    if "out" in bound and bound["out"] is not None:
        raise TorchRuntimeError(f"gradcli does not support vmap over {_public_name(op)} with out= yet")
    invariant = _all_invariant(op, bound, level)
    if inplace:
        from .rules import inplace_rule
        target = inplace_rule(op, bound, level, inner, rule)
        target._invariant = invariant
        return target
    result = wrap(rule(op, bound, level, inner), level, op.returns)
    if invariant:
        for out in result if isinstance(result, (tuple, list)) else (result,):
            if isinstance(out, BatchedTensor) and out._level == level:
                out._invariant = True
    return result


def _all_invariant(op: "Op", bound: dict, level: int) -> bool:
    """Whether every input batched at ``level`` has all its samples the same (then so has a
    deterministic op's result)."""
    if op.vmap == "random_of_batch":
        return False
    for value in bound.values():
        items = value if isinstance(value, (list, tuple)) else (value,)
        for item in items:
            if isinstance(item, BatchedTensor) and item._level == level and not item._invariant:
                return False
    return True


def run_batched_view_inplace(op: "Op", bound: dict, level: int) -> Any:
    """An in-place view op (``t_``, ``squeeze_``) on a batched tensor: its out-of-place view, which
    the batched tensor then becomes (its physical value and batch dim)."""
    from ..dispatch.runner import run_wrapped
    target = bound["self"]
    if not (isinstance(target, BatchedTensor) and target._level == level):
        raise TorchRuntimeError(f"vmap: {op.name}_ on a tensor that is not batched, with batched arguments, is not "
                                "possible")
    view = run_batched(op, dict(bound), level, run_wrapped)
    target._value, target._bdim = view._value, view._bdim
    return target


def _public_name(op: "Op") -> str:
    name = op.name.lstrip("_")
    return f"torch.{name}" if op.function else f"Tensor.{name}"
