"""A tensor inside torch.func's transforms as PyTorch prints it: in the wrappers of the levels
it lives at, ``GradTrackingTensor(lvl=2, value=`` around ``BatchedTensor(lvl=1, bdim=0, value=``
around the plain values, outermost (highest level) first, each inner one indented.

gradcli keeps no wrapper objects for gradient transforms: a tensor remembers which of them were
running when it was made (``Tensor._layers``; a transform's results leave its layer behind, as
PyTorch unwraps them), and a BatchedTensor its vmap level.  Under a
gradient transform the innermost values print bare (PyTorch would show the script's own
requires_grad/grad_fn there, for an input that has them).
"""

from __future__ import annotations

from typing import Any

from .. import dtypes
from ..batching import state


def _vmap_number(level: int) -> int:
    return state.vmap_numbers[level - 1] if level <= len(state.vmap_numbers) else level


def _indented(text: str) -> str:
    # (each line of the value indented, blank lines left blank)
    return "\n".join(("    " + line) if line else line for line in text.split("\n"))


def wrapped_repr(t: Any) -> str:
    """``t`` (a tensor made inside a transform, or a BatchedTensor) in its wrappers."""
    from .tensor_str import tensor_repr
    chain = []   # the BatchedTensors, outermost (highest level) first
    inner = t
    while inner._batched:
        chain.append(inner)
        inner = inner._value
    data, dropped, wrappers = inner._data, [], []
    for j, batched in enumerate(chain):
        if batched._invariant:   # (PyTorch did not batch it: one sample, no wrapper)
            dropped.append(_physical_dim(batched._bdim, chain[j + 1:]))
            continue
        # (its bdim counts the dims of the levels outside it: a dropped one is no longer there)
        outer = [_logical_dim_of(d, chain[j + 1:]) for d in dropped]
        bdim = batched._bdim - sum(1 for d in outer if d is not None and d < batched._bdim)
        number = _vmap_number(batched._level)
        wrappers.append((number, f"BatchedTensor(lvl={number}, bdim={bdim}, value="))
    if dropped:
        data = data[tuple(0 if d in dropped else slice(None) for d in range(data.ndim))]
    # (a transform that has returned prints as PyTorch's dead level, -2: a tensor kept from inside it)
    tracking = [layer.number if layer.alive else -2 for layer in inner._layers]
    wrappers += [(number, f"GradTrackingTensor(lvl={number}, value=") for number in tracking]
    if tracking or dropped:
        text = tensor_repr(data, inner._dtype.name, default_dtype=dtypes.get_default_dtype().name,
                           requires_grad=False if tracking else inner.requires_grad, grad_fn=None, tangent=None)
    else:   # (vmap alone: the values as they are)
        text = repr(inner)
    for _, opening in sorted(wrappers):   # (innermost first)
        text = f"{opening}\n{_indented(text)}\n)"
    return text


def _physical_dim(dim: int, inner: list) -> int:
    """A dim of the logical tensor just outside ``inner`` (BatchedTensors, outermost first) as a
    dim of the physical tensor inside them all."""
    for batched in inner:
        dim = dim if dim < batched._bdim else dim + 1
    return dim


def _logical_dim_of(dim: int, inner: list) -> int | None:
    """The inverse: a physical dim in the logical tensor just outside ``inner`` (None: a batch dim)."""
    for batched in reversed(inner):
        if dim == batched._bdim:
            return None
        dim = dim if dim < batched._bdim else dim - 1
    return dim
