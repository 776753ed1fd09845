"""Whether a vmap is running, and how it treats random ops (read by the runner and the samplers)."""

from __future__ import annotations

# How many vmaps are running: the runner looks for batched inputs only when this is not 0.
depth = 0
# The randomness= of each running vmap, innermost last ("error", "same" or "different").
randomness: list[str] = []
# The batch size of each running vmap, outermost (level 1) first.
sizes: list[int] = []
# Draws sized for a whole batch now running (randomness="different": batching/randomness.py).
batched_draws = 0
# How many of torch.func's gradient transforms (grad, vjp, jacrev, ...) are running, and how many
# were when each vmap began: a function inside vmap sees requires_grad only for a transform
# inside that vmap (the script's own graph is outside it, as PyTorch's levels hide it).
grad_depth = 0
grad_depth_at: list[int] = []
# PyTorch's level numbers, the lvl= its wrappers print: every running torch.func transform takes
# the next one (jacfwd two: PyTorch's is a vmap over jvp), so the innermost has the highest.
levels = 0
vmap_numbers: list[int] = []   # each running vmap's, outermost first


class GradLayer:
    """A running gradient transform (grad, vjp, jacrev, jvp, jacfwd): tensors made while it runs
    print inside its ``GradTrackingTensor(lvl=number, ...)`` until it returns."""

    __slots__ = ("number", "alive")

    def __init__(self, number: int) -> None:
        self.number = number
        self.alive = True


def tracks_inside(level: int) -> bool:
    return level <= len(grad_depth_at) and grad_depth > grad_depth_at[level - 1]


def reset() -> None:
    """No vmap running (a fresh session; a vmap always undoes its own entry on the way out)."""
    global depth, grad_depth, batched_draws, levels
    depth = grad_depth = batched_draws = levels = 0
    randomness.clear()
    vmap_numbers.clear()
    sizes.clear()
    grad_depth_at.clear()
