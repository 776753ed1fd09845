"""torch.nn.functional's activations rounded as PyTorch 2.13's CPU kernels round them.

Replays tests/data/activation_bits.json (written by tests/tools/make_activation_bits.py
from real PyTorch) through gradcli: every float32 activation in the three layouts of
activation_cases.py, bit for bit, and float64 in the scalar path.  No torch needed.
(The float64 vector path is SLEEF's double routines, which gradcli does not reproduce;
tests/engine/test_activation_rounding_oracle.py measures what is left.)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gradcli.engine import api
from gradcli.engine.kernels.sleef import vector_mask

from activation_cases import ACTIVATIONS, bits, inputs, layout, view  # tests/engine is on sys.path

DATA = json.loads((Path(__file__).parents[1] / "data" / "activation_bits.json").read_text())
F = api.SUBMODULES["nn.functional"]


class _Torch:
    from_numpy = staticmethod(api.TORCH["from_numpy"])


@pytest.mark.parametrize("key", sorted(DATA["outputs"]))
def test_activation_bits_match_pytorch(key: str) -> None:
    name, dtype, kind = key.split("/")
    x = inputs(dtype)
    assert bits(x) == DATA["inputs"][dtype]
    fn, kw = ACTIVATIONS[name]
    y = F[fn](view(_Torch, layout(x, kind), kind), **kw)
    got = bits(np.ascontiguousarray(y.numpy()))
    wrong = [i for i, (a, b) in enumerate(zip(got, DATA["outputs"][key])) if a != b]
    assert not wrong, f"{len(wrong)} of {len(got)} differ, first at {wrong[:5]}"


def test_vector_mask_follows_cpu_kernel_vec() -> None:
    # pairs of 512-bit vectors, the rest scalar; vectors=1 for a loop over whole vectors
    for dtype, n, vector in [(np.float32, 24, 0), (np.float32, 47, 32), (np.float32, 64, 64), (np.float64, 24, 16),
                             (np.float64, 15, 0), (np.float64, 33, 32)]:
        assert vector_mask(np.zeros(n, dtype)).sum() == vector
    assert vector_mask(np.zeros(24, np.float32), vectors=1).sum() == 16
    assert not vector_mask(np.zeros(100, np.float32)[::2]).any()  # strided: all scalar
