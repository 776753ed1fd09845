"""Random factories inside vmap: what ``randomness=`` asks of them.

"error" refuses the draw with PyTorch's message; "same" draws once, the sample's shape, shared by
the batch; "different" draws the whole batch at once, batch first (PyTorch's order: the values of
sample i are row i of one draw of shape (B, *shape)), as a BatchedTensor of the innermost level.
The samplers check the mode again when they reach the generator (random.generator.resolve): a
"different" draw that did not come through here is refused there, naming the mode.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from ..errors import TorchRuntimeError
from . import state

RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
                "'different' randomness flags on vmap or perform the randomness operation out of vmap")


def draws(shape: tuple) -> tuple[tuple, int]:
    """The shape to draw, and the level to wrap the draw at (0: a plain tensor)."""
    if not state.depth:
        return tuple(shape), 0
    mode = state.randomness[-1]
    if mode == "error":
        raise TorchRuntimeError(RANDOM_ERROR)
    if mode == "same":
        return tuple(shape), 0
    return (state.sizes[-1],) + tuple(shape), state.depth


@contextlib.contextmanager
def batched_draw() -> Iterator[None]:
    """Around a draw sized by ``draws``: the generator lets it through in "different" mode."""
    state.batched_draws += 1
    try:
        yield
    finally:
        state.batched_draws -= 1


def wrapped(t: Any, level: int) -> Any:
    if not level:
        return t
    from .batched_tensor import BatchedTensor
    return BatchedTensor.wrap(t, 0, level)
