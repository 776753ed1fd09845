"""``torch.tensor`` of nested Python data against live PyTorch: the same values, dtype and shape,
or the same error type and message.

Random nested data (seeded): lists and tuples of mixed depth and length, with bools, ints, floats,
big ints, ranges, one-element and longer tensors, None and strings among them; most of it ragged,
since what a ragged item meets first (its shape, its dtype or its storing) is what decides the
message.  Skipped unless torch is importable.
"""

from __future__ import annotations

import random
from typing import Any, Callable

import pytest

torch = pytest.importorskip("torch")

from gradcli.engine import api  # noqa: E402
from gradcli.engine.errors import TorchError  # noqa: E402

T = api.TORCH
pytestmark = pytest.mark.filterwarnings("ignore:To copy construct")


def leaf(rng: random.Random, lib: Callable) -> Any:
    """One item that is no list: mostly numbers, now and then something else."""
    roll = rng.random()
    if roll < 0.25:
        return rng.choice([True, False])
    if roll < 0.55:
        return rng.randint(-5, 5)
    if roll < 0.8:
        return rng.choice([0.5, -1.25, 3.0])
    return rng.choice([lambda: 2 ** 70, lambda: range(rng.randint(0, 2)), lambda: lib([1.5]),
                       lambda: lib([1, 2]), lambda: lib(3), lambda: None, lambda: "ab"])()


def nested(rng: random.Random, depth: int, lib: Callable) -> Any:
    if depth <= 0 or rng.random() < 0.15:
        return leaf(rng, lib)
    items = [nested(rng, depth - 1 if rng.random() < 0.85 else depth - 2, lib) for _ in range(rng.randint(0, 3))]
    return tuple(items) if rng.random() < 0.2 else items


def outcome(build: Callable[[], Any]) -> tuple:
    try:
        t = build()
    except (TorchError, TypeError, ValueError, RuntimeError, OverflowError) as error:
        name = type(error).__name__.removeprefix("Torch")
        return ("error", "RuntimeError" if name == "Error" else name, str(error))
    return ("tensor", str(t.dtype), tuple(t.shape), t.tolist())


@pytest.mark.parametrize("seed", range(4))
def test_random_nested_data_reads_as_pytorch_reads_it(seed: int) -> None:
    mismatches = []
    for index in range(250):
        depth, kind = random.Random(seed * 1000 + index).randint(1, 4), index % 3
        dtype = [None, "float64", "int32"][kind]
        ours = outcome(lambda: T["tensor"](nested(random.Random(seed * 1000 + index), depth, T["tensor"]),
                                           dtype=None if dtype is None else T[dtype]))
        theirs = outcome(lambda: torch.tensor(nested(random.Random(seed * 1000 + index), depth, torch.tensor),
                                              dtype=None if dtype is None else getattr(torch, dtype)))
        if ours != theirs:
            mismatches.append((seed * 1000 + index, ours, theirs))
    assert not mismatches, mismatches[:5]


def test_the_comparison_notices_a_different_error() -> None:
    assert outcome(lambda: T["tensor"]([[1, 2], 3])) != outcome(lambda: torch.tensor([[1, 2], [3]]))
