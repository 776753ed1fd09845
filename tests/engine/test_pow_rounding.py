"""pow, atan2 and hypot rounded as PyTorch 2.13's CPU kernels round them (no torch needed).

Replays tests/data/pow_bits.json (written by tests/tools/make_pow_bits.py from real PyTorch)
through gradcli: SLEEF's routines on the vector blocks, glibc's on the scalar tails, the
special-cased exponents, float32 and float64, in the layouts of pow_cases.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gradcli.engine import api
from gradcli.engine.kernels import binary_loops

from pow_cases import bits, cases, inputs  # tests/engine is on sys.path

DATA = json.loads((Path(__file__).parents[1] / "data" / "pow_bits.json").read_text())
CASES = cases()


class _Torch:
    from_numpy = staticmethod(api.TORCH["from_numpy"])
    atan2 = staticmethod(api.TORCH["atan2"])
    hypot = staticmethod(api.TORCH["hypot"])


@pytest.mark.parametrize("key", sorted(DATA["outputs"]))
def test_pow_bits_match_pytorch(key: str) -> None:
    name, dtype, kind = key.split("/")
    x, y = inputs(dtype)
    assert [bits(x), bits(y)] == DATA["inputs"][dtype]
    out = np.ascontiguousarray(CASES[name](_Torch, x, y, kind).numpy())
    got = ["nan" if np.isnan(v) else b for v, b in zip(out.reshape(-1), bits(out))]
    wrong = [i for i, (a, b) in enumerate(zip(got, DATA["outputs"][key])) if a != b]
    assert len(got) == len(DATA["outputs"][key])
    assert not wrong, f"{len(wrong)} of {len(got)} differ, first at {wrong[:5]}"


def test_binary_vector_mask_follows_cpu_kernel_vec() -> None:
    f32, f64 = 4, 8
    a = np.zeros(600, np.float32)
    assert binary_loops.vector_mask((600,), [a, a], f32).sum() == 576  # 18 blocks, a tail of 24
    assert binary_loops.vector_mask((600,), [a, np.zeros(())], f32).sum() == 576  # a broadcast scalar
    d = np.zeros(24)
    assert binary_loops.vector_mask((24,), [d, d], f64).sum() == 16
    assert not binary_loops.vector_mask((300,), [a[::2], a[:300]], f32).any()  # strided: all scalar
    col, row = np.zeros((200, 1), np.float32), np.zeros(3, np.float32)
    assert not binary_loops.vector_mask((200, 3), [col, row], f32).any()  # rows of 3
    wide = np.zeros((8, 64), np.float32)[:, :56]
    mask = binary_loops.vector_mask((8, 56), [wide, wide], f32)
    assert mask[:, :32].all() and not mask[:, 32:].any()
    assert mask.T.shape == binary_loops.vector_mask((56, 8), [wide.T, wide.T], f32).shape
    assert binary_loops.vector_mask((56, 8), [wide.T, wide.T], f32).T.tolist() == mask.tolist()
    # two broadcast inputs along the run: not vectorised (only one scalar operand is)
    assert not binary_loops.vector_mask((5, 64), [np.zeros((5, 1)), np.zeros((5, 1))], f64).any()
