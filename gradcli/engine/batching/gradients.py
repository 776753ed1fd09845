"""torch.func's gradient transforms inside vmap: the backward pass runs on the physical tensors.

A function inside vmap gets BatchedTensors; its graph is recorded on their physical values, whose
batch samples never mix, so the gradient of the physical outputs (each seeded with its own
cotangent) by the physical inputs is the batch of per-sample gradients.  The gradients are then
wrapped as their inputs are.
"""

from __future__ import annotations

from typing import Any, Callable

from ..tensor import Tensor
from . import state
from .batched_tensor import BatchedTensor, physical, wrapped_as  # noqa: F401  (re-exported)


def batched_at_every_level(x: Tensor, upto: int | None = None) -> Tensor:
    """``x`` batched at every running vmap level up to ``upto`` (all of them by default), expanded
    over the batch of each level it is not batched at.

    A gradient transform inside vmap differentiates each sample alone: an input shared by the
    samples (vmap's in_dims=None, per-sample gradients of a model's parameters) must get one
    gradient per sample, not their sum, so it enters the function as a batch of its own copies
    (stride-0 views, no memory)."""
    if upto is None:
        upto = state.depth
    lower = 0
    if isinstance(x, BatchedTensor):
        lower = x._level
        invariant = x._invariant
        x = BatchedTensor.wrap(batched_at_every_level(x._value, lower - 1), x._bdim, lower)
        x._invariant = invariant
    for level in range(lower + 1, upto + 1):
        size = state.sizes[level - 1]
        x = BatchedTensor.wrap(x.unsqueeze(0).expand([size] + list(x.shape)), 0, level)
        x._invariant = True
    return x


def laid_out_as(c: Any, o: Any) -> Tensor:
    """The physical tensor of ``c`` with the batch dims where ``o``'s physical tensor has them
    (``c`` unbatched at a level of ``o`` is expanded over it)."""
    if not isinstance(o, BatchedTensor):
        # (a batched cotangent of an unbatched output, vmap(vjp_fn): the backward formulas then
        # run on batched gradients, through the batch rules, as PyTorch's batched backward does)
        return c
    level, bdim, size = o._level, o._bdim, o._batch_size
    if isinstance(c, BatchedTensor) and c._level == level:
        inner = c._value if c._bdim == bdim else c._value.movedim(c._bdim, bdim)
    else:
        shape = list(c.shape)
        inner = c.unsqueeze(bdim).expand(shape[:bdim] + [size] + shape[bdim:])
    return laid_out_as(inner, o._value)


def batched_grads(outputs: list, inputs: list, cotangents: list | None, grad: Callable) -> list:
    """``_grads`` of func.py for batched outputs, inputs or cotangents."""
    from ..ops.constants import ones_like, zeros_like
    outs = [physical(o) for o in outputs]
    if cotangents is None:
        seeds = [ones_like(o) for o in outs]
    else:
        seeds = [laid_out_as(c, o) for c, o in zip(cotangents, outputs)]
    ins = [physical(x) for x in inputs]
    found = grad(outs, ins, seeds, retain_graph=True, create_graph=True, allow_unused=True) \
        if outs else [None] * len(ins)
    return [wrapped_as(g if g is not None else zeros_like(x), original)
            for g, x, original in zip(found, ins, inputs)]
