"""SLEEF-exact float32 sigmoid / softmax / log_softmax: PyTorch 2.13's values.

The inputs and PyTorch's results (CPU, AVX512 dispatch, 2 threads) are float hex strings
in tests/data/float32_bits.json, written by tests/tools/make_float32_bits.py; no torch
needed here.  The inputs include values where SLEEF's ``expf_u10`` differs from the
correctly rounded exp.
"""

import json
from pathlib import Path

import numpy as np

from gradcli.engine.ops import pointwise_unary
from gradcli.engine.kernels import sleef


def _f32(hexes):
    return np.array([float.fromhex(h) for h in hexes], np.float32)


BITS = json.loads((Path(__file__).parents[1] / "data" / "float32_bits.json").read_text())["sleef"]
X = BITS["inputs"]


def test_sigmoid_vector_block():
    assert np.array_equal(pointwise_unary.sigmoid_kernel(_f32(X)), _f32(BITS["sigmoid"]))


def test_sigmoid_scalar_tail():
    # 7 elements: no full block of 32, every element through glibc's expf
    assert np.array_equal(pointwise_unary.sigmoid_kernel(_f32(X)[:7]), _f32(BITS["sigmoid_of_first_7"]))


def test_softmax_lastdim():
    x = _f32(X).reshape(4, 8)
    assert np.array_equal(sleef.softmax_lastdim(x, False).ravel(), _f32(BITS["softmax_4x8"]))
    assert np.array_equal(sleef.softmax_lastdim(x, True).ravel(), _f32(BITS["log_softmax_4x8"]))


def test_vector_mask_blocks_and_tails():
    m = sleef.vector_mask(np.zeros(70, np.float32))
    assert m[:64].all() and not m[64:].any()
    m = sleef.vector_mask(np.zeros((3, 40), np.float32)[:, :35])  # rows of 35: 32 + 3
    assert m[:, :32].all() and not m[:, 32:].any()
    assert not sleef.vector_mask(np.zeros((4, 80), np.float32)[:, ::2]).any()  # strided: scalar


def test_expf_specials():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 100.5, -104.5, -90.0, 88.7], np.float32)
    r = sleef.expf(x)
    assert np.isnan(r[0]) and r[1] == np.inf and r[2] == 0 and r[3] == 1 and r[4] == 1
    assert r[5] == np.inf and r[6] == 0 and 0 < r[7] < 1e-38 and np.isfinite(r[8])


def test_logf_of_sums():
    x = np.array([1.0, 1.5, 2.0, 10.0, 1000.0], np.float32)
    assert np.allclose(sleef.logf(x), np.log(x.astype(np.float64)), rtol=1e-6, atol=1e-7)
    assert sleef.logf(np.array([1.0], np.float32))[0] == 0
