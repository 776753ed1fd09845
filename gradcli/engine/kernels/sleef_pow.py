"""SLEEF's float32 ``powf_u10``, ``atan2f_u10`` and ``hypotf_u05`` (AVX512F build), bit for bit.

PyTorch 2.13's ``Vectorized<float>::pow``, ``::atan2`` and ``::hypot`` are ``Sleef_powf16_u10``,
``Sleef_atan2f16_u10`` and ``Sleef_hypotf16_u05``.  SLEEF builds them with FMA and without
contraction, so every operation below is one machine operation: float32 additions,
multiplications, divisions and square roots are NumPy's (IEEE, round to nearest even), and a
fused multiply-add is computed with one rounding (``_fma``).  The algorithms are Naoki
Shibata's: logarithm and exponential in double-float arithmetic (a value is an unevaluated sum
``hi + lo`` of two floats), the arctangent of a double-float quotient, hypot as
``max * sqrt(1 + (min/max)**2)`` in double-float.

Each function takes float32 arrays of one shape and returns a new float32 array.
"""

from __future__ import annotations

from typing import Tuple

import numpy as np

from .exactfp import fma32
from .double_word import (
    Products,
    add_ff as _add_ff,
    add2_ff as _add2_ff,
    add_f_w as _add_f_df,
    add2_w_f as _add2_df_f,
    add_w_w as _add_df_df,
    add2_w_w as _add2_df_df,
    normalize as _normalize,
)

F32 = np.float32
F64 = np.float64
I32 = np.int32
I64 = np.int64

DF = Tuple[np.ndarray, np.ndarray]

_ONE = F32(1.0)
_ZERO = F32(0.0)
_INF = F32(np.inf)
_SIGN = I32(-2147483648)
_INT_MIN = I32(-2147483648)


# -- fused multiply-add ------------------------------------------------------------------------

_LOW29 = I64((1 << 29) - 1)
_HALF29 = I64(1 << 28)
_NORMAL = F64(2.0 ** -126)


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``fmaf(a, b, c)``.  The product is exact in double; the double sum rounds to float32 the
    way the exact sum does unless it is a float32 midpoint (its low 29 bits 100...0) or lies in
    float32's subnormal range: those few lanes go through ``exactfp.fma32``."""
    s = np.multiply(a, b, dtype=F64)
    s += c
    risky = (s.view(I64) & _LOW29) == _HALF29
    risky |= np.abs(s) < _NORMAL
    out = s.astype(F32)
    if risky.any():
        a_, b_, c_ = (np.broadcast_to(np.asarray(v, F32), s.shape) for v in (a, b, c))
        out[risky] = fma32(a_[risky], b_[risky], c_[risky])
    return out


def _fma_err(a: np.ndarray, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``fmaf(a, b, -s)`` where ``s`` is the float32 product ``a * b``: the rounding error of
    the product, exact in double (the difference has at most 24 significant bits), so one
    rounding to float32 is the fused operation's."""
    return (np.multiply(a, b, dtype=F64) - s).astype(F32)


def _one_minus(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``fmaf(-a, b, 1)`` where ``b = 1 / a``: the product is within an ulp of 1, so
    ``1 - a*b`` is exact in double (Sterbenz) and rounds once."""
    return (F64(1.0) - np.multiply(a, b, dtype=F64)).astype(F32)


# -- double-float arithmetic (SLEEF's df.h, FMA variants) -----------------------------------------

def _scale(d: DF, s: np.ndarray) -> DF:
    return d[0] * s, d[1] * s


_PRODUCTS = Products(_fma, _fma_err)
_mul_ff = _PRODUCTS.mul_ff
_mul_df_f = _PRODUCTS.mul_w_f
_mul_df_df = _PRODUCTS.mul_w_w
_squ = _PRODUCTS.squ


def _div(n: DF, d: DF) -> DF:
    """dfdiv_vf2_vf2_vf2."""
    t = _ONE / d[0]
    s = n[0] * t
    u = _fma_err(t, n[0], s)
    v = _fma(-d[1], t, _one_minus(d[0], t))
    return s, _fma(s, v, _fma(n[1], t, u))


def _rec_f(d: np.ndarray) -> DF:
    """dfrec_vf2_vf."""
    s = _ONE / d
    return s, s * _one_minus(d, s)


def _sqrt_df(d: DF) -> DF:
    """dfsqrt_vf2_vf2 (the build without a reciprocal square root estimate)."""
    t = np.sqrt(d[0] + d[1])
    return _scale(_mul_df_df(_add2_df_df(d, _mul_ff(t, t)), _rec_f(t)), F32(0.5))


# -- bit-level helpers (AVX512 instructions) ---------------------------------------------------------

def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(I32)


def _mulsign(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x with its sign flipped where y's sign bit is set."""
    return (_bits(x) ^ (_bits(y) & _SIGN)).view(F32)


def _all_ones(mask: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``vor_vm_vo32_vm``: every bit set (a NaN) where ``mask``."""
    return np.where(mask, I32(-1), _bits(x)).astype(I32).view(F32)


def _cvt_i32(r: np.ndarray) -> np.ndarray:
    """A float32 array of integral values to int32 as ``cvtps2dq``/``cvttps2dq`` store them:
    NaN and values outside the int32 range give INT_MIN."""
    ok = np.abs(r) < F32(2147483648.0)
    return np.where(ok, r, _ZERO).astype(I32) | np.where(ok, I32(0), _INT_MIN)


def _rint_i32(x: np.ndarray) -> np.ndarray:
    return _cvt_i32(np.rint(x))


def _trunc_i32(x: np.ndarray) -> np.ndarray:
    return _cvt_i32(np.trunc(x))


def _getexp(x: np.ndarray) -> np.ndarray:
    """``getexp``: floor(log2|x|) as a float, subnormals included; 0 -> -inf, inf -> inf."""
    with np.errstate(all="ignore"):
        _, e = np.frexp(x)
        r = (e - 1).astype(F32)
    r = np.where(x == 0, F32(-np.inf), r)
    r = np.where(np.isinf(x), _INF, r)
    return np.where(np.isnan(x), x, r)


def _getmant(x: np.ndarray) -> np.ndarray:
    """``getmant(x, [0.75, 1.5), sign from x)`` for x >= 0: the significand scaled into [0.75, 1.5)."""
    f, _ = np.frexp(x)  # f in [0.5, 1)
    twice = f * F32(2)
    return np.where(twice < F32(1.5), twice, f).astype(F32)


def _ldexp(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``vldexp_vf_vf_vi2``: x * 2**q in five exact-when-possible steps (int32 arithmetic wraps)."""
    q = q.astype(I64)
    m = q >> 31
    m = ((((m + q).astype(I32).astype(I64)) >> 6) - m) << 4
    q = (q - (m << 2)).astype(I32).astype(I64)
    m = (m + 0x7F).astype(I32).astype(I64)
    m = np.where(m > 0, m, 0)
    m = np.where(m > 0xFF, 0xFF, m)
    u = (m << 23).astype(I32).view(F32)
    x = (((x * u) * u) * u) * u
    u = ((q + 0x7F) << 23).astype(I32).view(F32)
    return x * u


# -- logarithm and exponential in double-float ---------------------------------------------------

_LN2 = (F32(0.69314718246459960938), F32(-1.904654323148236017e-09))
_R_LN2 = F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = F32(0.693145751953125)
_L2L = F32(1.428606765330187045e-06)
_LOG_POLY = tuple(F32(c) for c in (0.240320354700088500976562, 0.285112679004669189453125,
                                   0.400007992982864379882812))
_LOG_C = (F32(0.66666662693023681640625), F32(3.69183861259614332084311e-09))
_EXP_POLY = tuple(F32(c) for c in (0.00136324646882712841033936, 0.00836596917361021041870117,
                                   0.0416710823774337768554688, 0.166665524244308471679688,
                                   0.499999850988388061523438))


def _logk(d: np.ndarray) -> DF:
    """SLEEF's ``logkf`` (AVX512: getexp/getmant) of d >= 0, as a double-float."""
    e = _getexp(d * F32(1.0 / 0.75))
    e = np.where(e == _INF, F32(128.0), e)
    m = _getmant(d)
    x = _div(_add2_ff(np.full_like(m, -1), m), _add2_ff(np.full_like(m, 1), m))
    x2 = _squ(x)
    t = _fma(_LOG_POLY[0], x2[0], _LOG_POLY[1])
    t = _fma(t, x2[0], _LOG_POLY[2])
    s = _mul_df_f((np.full_like(e, _LN2[0]), np.full_like(e, _LN2[1])), e)
    s = _add_df_df(s, _scale(x, F32(2)))
    c = (np.full_like(t, _LOG_C[0]), np.full_like(t, _LOG_C[1]))
    return _add_df_df(s, _mul_df_df(_mul_df_df(x2, x), _add2_df_df(_mul_df_f(x2, t), c)))


def _expk(d: DF) -> np.ndarray:
    """SLEEF's ``expkf``: exp of a double-float, as a float."""
    q = _rint_i32((d[0] + d[1]) * _R_LN2)
    qf = q.astype(F32)
    s = _add2_df_f(d, qf * -_L2U)
    s = _add2_df_f(s, qf * -_L2L)
    s = _normalize(s)
    u = _fma(_EXP_POLY[0], s[0], _EXP_POLY[1])
    for c in _EXP_POLY[2:]:
        u = _fma(u, s[0], c)
    t = _add_df_df(s, _mul_df_f(_squ(s), u))
    t = _add_f_df(np.full_like(u, _ONE), t)
    r = _ldexp(t[0] + t[1], q)
    return np.where(d[0] < F32(-104), _ZERO, r)


def powf(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``Sleef_powf16_u10(x, y)`` elementwise (x and y of one shape)."""
    x = np.asarray(x, F32)
    y = np.asarray(y, F32)
    with np.errstate(all="ignore"):
        ay = np.abs(y)
        ty = _trunc_i32(y)
        yisint = (ty.astype(F32) == y) | (ay > F32(1 << 24))
        yisodd = ((ty & 1) == 1) & yisint & (ay < F32(1 << 24))
        l = _logk(np.abs(x))
        r = _expk(_mul_df_f(l, y))
        r = np.where(np.isnan(r), _INF, r)
        sign = np.where(yisint, np.where(yisodd, F32(-1), _ONE), F32(np.nan))
        r = r * np.where(x > 0, _ONE, sign)
        efx = _mulsign(np.abs(x) - _ONE, y)
        at_inf = np.where(efx == 0, _ONE, _INF)
        r = np.where(np.isinf(y), np.where(efx < 0, _ZERO, at_inf), r)
        zero_x = x == 0
        edge = np.where(np.signbit(y) ^ zero_x, _ZERO, _INF)
        r = np.where(np.isinf(x) | zero_x, _mulsign(edge, np.where(yisodd, x, _ONE)), r)
        r = _all_ones(np.isnan(x) | np.isnan(y), r)
        r = np.where((y == 0) | (x == 1), _ONE, r)
    return r.astype(F32, copy=False)


# -- atan2 ---------------------------------------------------------------------------------------

_ATAN_POLY = tuple(F32(c) for c in (-0.00176397908944636583328247, 0.0107900900766253471374512,
                                    -0.0309564601629972457885742, 0.0577365085482597351074219,
                                    -0.0838950723409652709960938, 0.109463557600975036621094,
                                    -0.142626821994781494140625, 0.199983194470405578613281))
_ATAN_THIRD = F32(-0.333332866430282592773438)
_PI_HALF_DF = (F32(1.5707963705062866211), F32(-4.3711388286737928865e-08))
_PI = F32(np.pi)
_PI_2 = F32(np.pi / 2)
_PI_4 = F32(np.pi / 4)


def _atan2k(y: DF, x: DF) -> DF:
    """SLEEF's ``atan2kf_u1`` for y >= 0: the angle as a double-float."""
    neg = x[0] < 0
    q = np.where(neg, I32(-2), I32(0))
    x = (np.where(neg, -x[0], x[0]), np.where(neg, -x[1], x[1]))
    swap = x[0] < y[0]
    q = np.where(swap, q + 1, q)
    s = (np.where(swap, -x[0], y[0]), np.where(swap, -x[1], y[1]))
    t = (np.where(swap, y[0], x[0]), np.where(swap, y[1], x[1]))
    s = _div(s, t)
    t = _normalize(_squ(s))
    u = _fma(_ATAN_POLY[0], t[0], _ATAN_POLY[1])
    for c in _ATAN_POLY[2:]:
        u = _fma(u, t[0], c)
    t = _mul_df_df(t, _add_ff(np.full_like(u, _ATAN_THIRD), u * t[0]))
    t = _mul_df_df(s, _add_f_df(np.full_like(u, _ONE), t))
    qf = q.astype(F32)
    return _add_df_df(_mul_df_f((np.full_like(qf, _PI_HALF_DF[0]), np.full_like(qf, _PI_HALF_DF[1])), qf), t)


def _isinf2(d: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``visinf2_vf_vf_vf``: m with d's sign bit or-ed in where d is infinite, else +0."""
    bits = _bits(m) | (_bits(d) & _SIGN)
    return np.where(np.isinf(d), bits, I32(0)).astype(I32).view(F32)


def atan2f(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``Sleef_atan2f16_u10(y, x)`` elementwise."""
    y = np.asarray(y, F32)
    x = np.asarray(x, F32)
    with np.errstate(all="ignore"):
        tiny = np.abs(x) < F32(2.9387372783541830947e-39)
        x = np.where(tiny, x * F32(1 << 24), x)
        y = np.where(tiny, y * F32(1 << 24), y)
        zeros = np.zeros_like(x)
        d = _atan2k((np.abs(y), zeros), (x, zeros))
        r = _mulsign(d[0] + d[1], x)
        r = np.where(np.isinf(x) | (x == 0), _PI_2 - _isinf2(x, _mulsign(np.full_like(x, _PI_2), x)), r)
        r = np.where(np.isinf(y), _PI_2 - _isinf2(x, _mulsign(np.full_like(x, _PI_4), x)), r)
        r = np.where(y == 0, np.where(np.signbit(x), _PI, _ZERO), r)
        r = _all_ones(np.isnan(x) | np.isnan(y), _mulsign(r.astype(F32), y))
    return r


# -- hypot ---------------------------------------------------------------------------------------

def hypotf(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``Sleef_hypotf16_u05(x, y)`` elementwise."""
    x = np.abs(np.asarray(x, F32))
    y = np.abs(np.asarray(y, F32))
    with np.errstate(all="ignore"):
        # _mm512_min_ps / max_ps return the second operand when either is NaN
        lo = np.where(x < y, x, y)
        hi = np.where(x > y, x, y)
        small = hi < F32(np.finfo(F32).tiny)
        n = np.where(small, lo * F32(1 << 24), lo)
        d = np.where(small, hi * F32(1 << 24), hi)
        zeros = np.zeros_like(n)
        t = _div((n, zeros), (d, zeros))
        t = _mul_df_f(_sqrt_df(_add2_df_f(_squ(t), np.full_like(n, _ONE))), hi)
        r = t[0] + t[1]
        r = np.where(np.isnan(r), _INF, r)
        r = np.where(lo == 0, hi, r)
        r = np.where(np.isnan(x) | np.isnan(y), F32(np.nan), r)
        r = np.where((x == _INF) | (y == _INF), _INF, r)
    return r.astype(F32, copy=False)
