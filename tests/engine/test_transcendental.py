"""SLEEF-exact float32 sigmoid / softmax / log_softmax: hard-coded PyTorch 2.13 values.

The values were computed once with torch 2.13 (CPU, AVX512 dispatch, 2 threads) and are
stored as float hex strings; no torch needed here.  The inputs include values where
SLEEF's ``expf_u10`` differs from the correctly rounded exp.
"""

import numpy as np

from gradcli.engine.ops import pointwise_unary  # noqa: E402
from gradcli.engine.kernels import sleef


def _f32(hexes):
    return np.array([float.fromhex(h) for h in hexes], np.float32)


X = [
    '-0x1.d9999a0000000p+1', '-0x1.06516e0000000p-1', '0x0.0p+0', '0x1.62eb1c0000000p-2',
    '0x1.0000000000000p+0', '0x1.4000000000000p+1', '0x1.c800000000000p+2', '-0x1.8000000000000p+3',
    '0x1.62e42a0000000p-1', '0x1.3800000000000p+4', '-0x1.5c00000000000p+6', '0x1.6200000000000p+6',
    '0x1.ee086a0000000p-3', '-0x1.10e9ba0000000p+3', '-0x1.7ff6340000000p+2', '-0x1.2609760000000p+4',
    '0x1.f304a20000000p+3', '0x1.29d8c20000000p+4', '-0x1.518e6a0000000p+3', '0x1.e0d9200000000p+2',
    '0x1.176ffe0000000p+3', '-0x1.27ba340000000p+4', '0x1.1ccf540000000p+3', '0x1.b5f9f60000000p+3',
    '0x1.ae52ae0000000p-2', '-0x1.ecd3800000000p+3', '0x1.3fccc40000000p+4', '0x1.14aa080000000p+0',
    '0x1.d6e88c0000000p+3', '0x1.2559840000000p+4', '-0x1.39027a0000000p+3', '-0x1.1b72cc0000000p+4',
]

SIG = [
    '0x1.8b4c0e0000000p-6', '0x1.7fa2fa0000000p-2', '0x1.0000000000000p-1', '0x1.2bed0a0000000p-1',
    '0x1.764d500000000p-1', '0x1.d9291e0000000p-1', '0x1.ff969a0000000p-1', '0x1.9c541c0000000p-18',
    '0x1.5555560000000p-1', '0x1.0000000000000p+0', '0x1.666d100000000p-126', '0x1.0000000000000p+0',
    '0x1.1eba6a0000000p-1', '0x1.9e9eac0000000p-13', '0x1.4448f80000000p-9', '0x1.66d3d00000000p-27',
    '0x1.fffffc0000000p-1', '0x1.0000000000000p+0', '0x1.b80ae80000000p-16', '0x1.ffb87e0000000p-1',
    '0x1.ffeadc0000000p-1', '0x1.42d9ea0000000p-27', '0x1.ffee200000000p-1', '0x1.ffffd80000000p-1',
    '0x1.3503340000000p-1', '0x1.b7fc9a0000000p-23', '0x1.0000000000000p+0', '0x1.7e464e0000000p-1',
    '0x1.fffff40000000p-1', '0x1.0000000000000p+0', '0x1.d9cbb80000000p-15', '0x1.5bbf720000000p-26',
]

SOFTMAX = [
    '0x1.490bf60000000p-16', '0x1.f255880000000p-12', '0x1.9fe8680000000p-11', '0x1.26195a0000000p-10',
    '0x1.1aa3800000000p-9', '0x1.3cacb60000000p-7', '0x1.f8b6c60000000p-1', '0x1.4ef1de0000000p-28',
    '0x1.3fe6f00000000p-127', '0x1.5eb0000000000p-100', '0x0.0p+0', '0x1.0000000000000p+0',
    '0x1.972cc00000000p-128', '0x1.0300000000000p-140', '0x1.9640000000000p-137', '0x0.0p+0',
    '0x1.7a1f420000000p-5', '0x1.e4cc480000000p-1', '0x1.cc4a820000000p-43', '0x1.df1ae80000000p-17',
    '0x1.955e1c0000000p-15', '0x1.51b2ac0000000p-54', '0x1.df78660000000p-15', '0x1.c1098c0000000p-8',
    '0x1.6cef6e0000000p-29', '0x1.9c02e40000000p-52', '0x1.abe2820000000p-1', '0x1.6135140000000p-28',
    '0x1.1942920000000p-8', '0x1.47abde0000000p-3', '0x1.bbb2300000000p-44', '0x1.45a31a0000000p-55',
]

LOGSOFTMAX = [
    '-0x1.5adbd00000000p+3', '-0x1.e9b5020000000p+2', '-0x1.c8ead40000000p+2', '-0x1.b2bc220000000p+2',
    '-0x1.88ead40000000p+2', '-0x1.28ead40000000p+2', '-0x1.d5a83c0000000p-7', '-0x1.323ab60000000p+4',
    '-0x1.5f3a380000000p+6', '-0x1.1400000000000p+6', '-0x1.5f00000000000p+7', '0x0.0p+0',
    '-0x1.6108fc0000000p+6', '-0x1.841d380000000p+6', '-0x1.79ff640000000p+6', '-0x1.ab825e0000000p+6',
    '-0x1.89b06a0000000p+1', '-0x1.bf38800000000p-5', '-0x1.d37f940000000p+4', '-0x1.65042c0000000p+3',
    '-0x1.3e00be0000000p+3', '-0x1.29394a0000000p+5', '-0x1.38a1680000000p+3', '-0x1.3eed8c0000000p+2',
    '-0x1.3bf2960000000p+4', '-0x1.1c8ad00000000p+5', '-0x1.6f8e4a0000000p-3', '-0x1.3161400000000p+4',
    '-0x1.5cde6a0000000p+2', '-0x1.d525ca0000000p+0', '-0x1.df2d1c0000000p+4', '-0x1.2f0f560000000p+5',
]

TAILSIG = [
    '0x1.8b4c0e0000000p-6', '0x1.7fa2fa0000000p-2', '0x1.0000000000000p-1', '0x1.2bed0a0000000p-1',
    '0x1.764d500000000p-1', '0x1.d9291e0000000p-1', '0x1.ff969a0000000p-1',
]


def test_sigmoid_vector_block():
    assert np.array_equal(pointwise_unary.sigmoid_kernel(_f32(X)), _f32(SIG))


def test_sigmoid_scalar_tail():
    # 7 elements: no full block of 32, every element through glibc's expf
    assert np.array_equal(pointwise_unary.sigmoid_kernel(_f32(X)[:7]), _f32(TAILSIG))


def test_softmax_lastdim():
    x = _f32(X).reshape(4, 8)
    assert np.array_equal(sleef.softmax_lastdim(x, False).ravel(), _f32(SOFTMAX))
    assert np.array_equal(sleef.softmax_lastdim(x, True).ravel(), _f32(LOGSOFTMAX))


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
