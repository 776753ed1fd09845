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
    wrappers = []   # (level number, the wrapper's opening)
    inner = t
    while inner._batched:
        number = _vmap_number(inner._level)
        wrappers.append((number, f"BatchedTensor(lvl={number}, bdim={inner._bdim}, value="))
        inner = inner._value
    # (a transform that has returned prints as PyTorch's dead level, -2: a tensor kept from inside it)
    tracking = [layer.number if layer.alive else -2 for layer in inner._layers]
    wrappers += [(number, f"GradTrackingTensor(lvl={number}, value=") for number in tracking]
    if tracking:
        text = tensor_repr(inner._data, inner._dtype.name, default_dtype=dtypes.get_default_dtype().name,
                           requires_grad=False, grad_fn=None, tangent=None)
    else:   # (vmap alone: the values as they are)
        text = repr(inner)
    for _, opening in sorted(wrappers):   # (innermost first)
        text = f"{opening}\n{_indented(text)}\n)"
    return text
