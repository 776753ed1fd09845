"""Exact floating point under the random engine.

- ``exactfp.fma32`` / ``fma64`` against exact rational arithmetic, including
  cases built so that the naive ``a*b + c`` rounds wrongly.
- The float32 normal kernel (``avx_mathfun``), exhaustively: every one of the
  2**24 possible radius inputs and 2**24 angle inputs against a plain
  transcription of PyTorch's AVX2 normal kernel -- ``normal_fill_16_AVX2``,
  Box-Muller with the Cephes-derived ``log256_ps`` and ``sincos256_ps`` of
  ATen/native/cpu/avx_mathfun.h, compiled with its multiply-adds fused -- that
  uses the correctly rounded ``fma32`` at each fused site.  This is the proof
  that its cheaper double-precision fma scheme is exact.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from gradcli.engine.random import avx_mathfun
from gradcli.engine.kernels.exactfp import fma32, fma64, fma_scalar

F32 = np.float32


def exact_fma(a: float, b: float, c: float) -> float:
    """fma in binary64: ``float(Fraction)`` rounds once (int true division)."""
    value = Fraction(a) * Fraction(b) + Fraction(c)
    return float(value) if value else 0.0


def exact_fma32(a: float, b: float, c: float) -> float:
    """fma rounded once to float32, by integer arithmetic (no double rounding)."""
    value = Fraction(a) * Fraction(b) + Fraction(c)
    if value == 0:
        return 0.0
    e = max(math.floor(math.log2(abs(value))) - 23, -149)
    while abs(value) >= Fraction(2) ** (e + 24):  # fix log2's float rounding
        e += 1
    while e > -149 and abs(value) < Fraction(2) ** (e + 23):
        e -= 1
    return float(round(value / Fraction(2) ** e) * Fraction(2) ** e)  # ties to even


def _bits(x: np.ndarray) -> list[int]:
    return np.ascontiguousarray(x).view(np.uint32 if x.dtype == F32 else np.uint64).tolist()


# -- fma32 -------------------------------------------------------------------------
def _midpoint_cases32(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    """a*b lands exactly on a float32 midpoint (or next to one) and c nudges it.

    ``(1 + u)(1 + v)`` with ``u, v`` multiples of 2**-12 has its bits down to
    2**-24, so half of these products sit on midpoints; ``c`` is tiny, well
    below double precision of the product, so ``fl64(a*b + c)`` drops it.
    """
    u = rng.integers(1, 2**11, n) * 2.0**-12
    v = rng.integers(1, 2**11, n) * 2.0**-12
    scale = np.exp2(rng.integers(-20, 20, n))
    a = ((1 + u) * scale).astype(F32)
    b = (1 + v).astype(F32)
    tiny = np.exp2(rng.integers(-70, -56, n).astype(float)) * rng.choice([-1.0, 1.0], n)
    c = (a.astype(float) * b * tiny).astype(F32)
    return a, b, c


def test_fma32_is_correctly_rounded() -> None:
    rng = np.random.default_rng(5)
    a, b, c = _midpoint_cases32(rng, 4000)
    ra = rng.standard_normal(4000).astype(F32)
    rb = (rng.standard_normal(4000) * 1e3).astype(F32)
    rc = (-(ra.astype(float) * rb) * (1 + rng.integers(-3, 4, 4000) * 2.0**-24)).astype(F32)
    a, b, c = np.concatenate([a, ra]), np.concatenate([b, rb]), np.concatenate([c, rc])
    triples = zip(a.tolist(), b.tolist(), c.tolist())
    expected32 = np.array([exact_fma32(x, y, z) for x, y, z in triples]).astype(F32)
    assert _bits(fma32(a, b, c)) == _bits(expected32)
    naive = (a.astype(float) * b + c).astype(F32)
    assert _bits(naive) != _bits(expected32)  # the cases do catch double rounding


def test_fma32_special_values() -> None:
    inf, nan = math.inf, math.nan
    a = np.array([inf, 0.0, -0.0, 3e38, 1.0, -0.0], F32)
    b = np.array([0.0, 5.0, 1.0, 10.0, 1.0, 2.0], F32)
    c = np.array([1.0, -0.0, -0.0, 0.0, nan, 0.0], F32)
    out = fma32(a, b, c)
    assert math.isnan(out[0]) and math.isnan(out[4])
    assert _bits(out[[1, 2, 5]]) == _bits(np.array([0.0, -0.0, 0.0], F32))
    assert out[3] == inf


# -- fma64 -------------------------------------------------------------------------
def test_fma64_is_correctly_rounded() -> None:
    rng = np.random.default_rng(6)
    n = 4000
    u = rng.integers(1, 2**26, n) * 2.0**-27
    v = rng.integers(1, 2**26, n) * 2.0**-27
    a = (1 + u) * np.exp2(rng.integers(-300, 300, n))
    b = 1 + v
    c = a * b * np.exp2(rng.integers(-140, -110, n).astype(float)) * rng.choice([-1.0, 1.0], n)
    ra = rng.standard_normal(n) * np.exp2(rng.integers(-50, 50, n))
    rb = rng.standard_normal(n)
    rc = -(ra * rb) * (1 + rng.integers(-3, 4, n) * 2.0**-52)
    a, b, c = np.concatenate([a, ra]), np.concatenate([b, rb]), np.concatenate([c, rc])
    expected = [exact_fma(x, y, z) for x, y, z in zip(a.tolist(), b.tolist(), c.tolist())]
    assert fma64(a, b, c).tolist() == expected
    assert (a * b + c).tolist() != expected  # the naive way fails on some


def test_fma64_extremes_and_specials() -> None:
    # lanes outside the fast path's safe range, and IEEE special cases
    a = np.array([1e300, 1e-300, 2.0**-1074, -0.0, math.inf, 1e308, 3.0, -0.0, 1e300])
    b = np.array([1e-10, 1e-30, 0.75, 1.0, 0.0, 10.0, 5.0, 2.0, 1e300])
    c = np.array([-1e280, 1e-320, 2.0**-1074, -0.0, 1.0, -math.inf, 1e-310, 0.0, 1.0])
    out = fma64(a, b, c).tolist()
    for i in (0, 1, 2, 6):
        assert out[i] == exact_fma(a[i], b[i], c[i])
    assert math.copysign(1, out[3]) == -1.0 and out[3] == 0  # -0*1 + -0
    assert math.copysign(1, out[7]) == 1.0 and out[7] == 0  # -0*2 + 0
    assert math.isnan(out[4]) and out[5] == -math.inf and out[8] == math.inf
    assert fma_scalar(1e308, 10.0, -1e308) == math.inf  # exact 9e308 overflows


# -- the float32 normal kernel, exhaustively ---------------------------------------------
# The Cephes constants of avx_mathfun.h's log256_ps and sincos256_ps, typed here independently of the
# engine's module.
P = [7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
     -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1]  # fmt: skip
Q1, Q2, SQRTHF = -2.12194440e-4, 0.693359375, 0.707106781186547524
FOPI, DP1, DP2, DP3 = 1.27323954473516, -0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8
COS = [2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2]
SIN = [-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1]


def _constant_like(x: float, like: np.ndarray) -> np.ndarray:
    return np.full(like.shape, x, F32)


def ref_log(t: np.ndarray) -> np.ndarray:
    """``log256_ps``, step by step: float32 arithmetic, and exact fma32 where the compiled kernel fuses."""
    bits = t.view(np.uint32)
    e = ((bits >> 23).astype(np.int32) - 127).astype(F32) + F32(1)
    m = ((bits & 0x807FFFFF) | 0x3F000000).view(F32)
    small = m < F32(SQRTHF)
    x = np.where(small, (m - F32(1)) + m, m - F32(1))
    e = np.where(small, e - F32(1), e)
    z = x * x
    y = _constant_like(P[0], x)
    for p in P[1:]:
        y = fma32(y, x, _constant_like(p, x))
    y = y * x
    y = fma32(y, z, e * F32(Q1))
    y = y - z * F32(0.5)
    return (x + y) + e * F32(Q2)


def ref_sincos(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sincos256_ps`` of ``theta``, step by step, likewise."""
    sgn = np.signbit(theta)
    x = np.abs(theta)
    j = (x * F32(FOPI)).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(F32)
    x = x + y * F32(DP1)
    x = x + y * F32(DP2)
    x = fma32(y, _constant_like(DP3, y), x)
    z = x * x
    c = fma32(_constant_like(COS[0], z), z, _constant_like(COS[1], z))
    c = fma32(c, z, _constant_like(COS[2], z))
    c = c * z
    c = fma32(c, z, -(z * F32(0.5)))
    c = c + F32(1)
    s = fma32(_constant_like(SIN[0], z), z, _constant_like(SIN[1], z))
    s = fma32(s, z, _constant_like(SIN[2], z))
    s = s * z
    s = fma32(s, x, x)
    swap = (j & 2) != 0
    sin_v = np.where(swap, c, s) + F32(0)
    cos_v = np.where(swap, s, c) + F32(0)
    sin_v = np.where(sgn ^ ((j & 4) != 0), -sin_v, sin_v)
    cos_v = np.where(((~(j - 2)) & 4) != 0, -cos_v, cos_v)
    return sin_v, cos_v


CHUNK = 1 << 13  # small temporaries: no mmap churn
QUARTER = 1 << 22


@pytest.mark.parametrize("start", range(0, 1 << 24, QUARTER), ids=lambda s: f"q{s // QUARTER}")
def test_kernel_exhaustive(start: int) -> None:
    """All 2**24 uniforms k * 2**-24, as radius and as angle inputs."""
    ws = avx_mathfun.Workspace(CHUNK)
    rad, sin_v, cos_v = (np.empty(CHUNK, F32) for _ in range(3))
    for lo in range(start, start + QUARTER, CHUNK):
        u = (np.arange(lo, lo + CHUNK, dtype=np.int64).astype(F32)) * F32(2.0**-24)
        avx_mathfun.radius(u, rad, ws)
        expected = np.sqrt(F32(-2) * ref_log(F32(1) - u))
        assert np.array_equal(rad.view(np.uint32), expected.view(np.uint32))
        avx_mathfun.sincos(u, sin_v, cos_v, ws)
        ref_s, ref_c = ref_sincos(u * F32(6.2831855))
        assert np.array_equal(sin_v.view(np.uint32), ref_s.view(np.uint32))
        assert np.array_equal(cos_v.view(np.uint32), ref_c.view(np.uint32))
