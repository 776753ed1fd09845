"""The float32 softmax and log_softmax gradients over the last dim against live PyTorch, bit for bit
(kernels.sleef.softmax_backward_lastdim: PyTorch's vector kernel, SLEEF's exp and its lane sums).

Skipped unless torch is importable.  Random shapes across the vector width (16 lanes), both
functions, gradients from a weighted sum; the last test checks that a plainly composed gradient
would be caught."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gradcli.engine import api  # noqa: E402
from gradcli.engine.kernels import sleef  # noqa: E402
from cpu_kernels import only_avx512  # noqa: E402

T = api.TORCH
SHAPES = [(1, 1), (1, 2), (3, 5), (2, 15), (4, 16), (2, 17), (5, 31), (3, 40), (2, 3, 33), (1, 100)]


def cases(seed: int) -> list:
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(shape).astype(np.float32) * 3, rng.standard_normal(shape).astype(np.float32))
            for shape in SHAPES]


def gradients(lib: object, make: object, x: np.ndarray, w: np.ndarray, log: bool, dim: int) -> np.ndarray:
    t = make(x.copy()).requires_grad_()
    f = lib.log_softmax if log else lib.softmax
    (f(t, dim) * make(w.copy())).sum().backward()
    return t.grad.numpy()


@only_avx512(torch)
@pytest.mark.parametrize("log", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_last_dim_gradients_match_bit_for_bit(log: bool, seed: int) -> None:
    for x, w in cases(seed):
        for dim in (-1, x.ndim - 1):
            theirs = gradients(torch, torch.from_numpy, x, w, log, dim)
            ours = gradients(type("T", (), {"softmax": T["softmax"], "log_softmax": T["log_softmax"]}),
                             T["from_numpy"], x, w, log, dim)
            assert np.array_equal(ours, theirs), (x.shape, dim, log)


def test_a_composed_gradient_is_caught() -> None:
    misses = 0
    for x, w in cases(0):
        out = torch.log_softmax(torch.from_numpy(x), -1).numpy()
        composed = w - np.exp(out) * w.sum(-1, keepdims=True)
        misses += not np.array_equal(composed, sleef.softmax_backward_lastdim(w, out, log=True))
    assert misses > 0
