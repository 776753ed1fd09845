"""SLEEF 3.8's float32 u10 routines: ``sinhf``, ``coshf``, ``tanhf``, ``expm1f``, ``log1pf``, ``exp2f``.

PyTorch 2.13's ``Vectorized<float>`` calls these (its AVX512 build, with FMA: ``sinh()``, ``cosh()``,
``exp2()`` in ``cpu_kernel_vec``, ``expm1()``/``log1p()`` through ``at::vml``, and ``tanh()``,
``log1p()``, ``expm1()`` in the activation kernels), and they are open source, so gradcli
reproduces them bit for bit, transcribed op for op from sleefsimdsp.c and df.h.  The algorithms
are SLEEF's (Naoki Shibata's double-float arithmetic: a value is an unevaluated sum ``hi + lo``
of two floats); the code here is written for NumPy, a float32 array per operand.  (``expf_u10``
and ``logf_u10`` are in ``sleef``.)

Every float32 addition and multiplication is NumPy's (IEEE, round to nearest even), and every
fused multiply-add ``exactfp.fma32`` (one rounding of the exact value).  SLEEF itself is
compiled without contraction, so the source's operations are the machine's.  Pure NumPy, no
Python loop over elements; an array keeps its shape (0-dim included).
"""

from __future__ import annotations

from typing import Tuple

import numpy as np

from .exactfp import fma32
from .double_word import (
    add_f_w as df_add,
    add_ff as df_add_ff,
    add2_w_f as df_add2_df_f,
    add_w_w as df_add_df_df,
    add2_w_w as df_add2_df_df,
    add_w_f as df_add_df_f,
    sub_w_w as df_sub_df_df,
    neg as df_neg,
)

F32 = np.float32
F64 = np.float64
I32 = np.int32
I64 = np.int64

DF = Tuple[np.ndarray, np.ndarray]  # a double-float: (hi, lo)

_R_LN2 = F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = F32(0.693145751953125)
_L2L = F32(1.428606765330187045e-06)
_LN2_HI = F32(0.69314718246459960938)
_LN2_LO = F32(-1.904654323148236017e-09)
_ONE = F32(1.0)
_INF = F32(np.inf)


def _c(v: float) -> np.float32:
    return F32(v)


# -- fused multiply-add ---------------------------------------------------------------------------

def fmapn(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a*b - c`` with one rounding."""
    return fma32(a, b, -c)


def fmanp(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``c - a*b`` with one rounding."""
    return fma32(-a, b, c)


# -- double-float arithmetic (the FMA variants) --------------------------------------------------

def df_mul_ff(x: np.ndarray, y: np.ndarray) -> DF:
    s = x * y
    return s, fmapn(x, y, s)


def df_mul_df_f(x: DF, y: np.ndarray) -> DF:
    s = x[0] * y
    return s, fma32(x[1], y, fmapn(x[0], y, s))


def df_mul_df_df(x: DF, y: DF) -> DF:
    s = x[0] * y[0]
    return s, fma32(x[0], y[1], fma32(x[1], y[0], fmapn(x[0], y[0], s)))


def df_squ(x: DF) -> DF:
    s = x[0] * x[0]
    return s, fma32(x[0] + x[0], x[1], fmapn(x[0], x[0], s))


def df_rec(d: DF) -> DF:
    """``dfrec_vf2_vf2``: 1 / d."""
    s = _ONE / d[0]
    return s, s * fmanp(d[1], s, fmanp(d[0], s, _ONE))


def df_div(n: DF, d: DF) -> DF:
    t = _ONE / d[0]
    s = n[0] * t
    u = fmapn(t, n[0], s)
    v = fmanp(d[1], t, fmanp(d[0], t, _ONE))
    return s, fma32(s, v, fma32(n[1], t, u))


def df_scale(d: DF, s: np.ndarray) -> DF:
    return d[0] * s, d[1] * s


# -- integer helpers ---------------------------------------------------------------------------

def rint_i32(x: np.ndarray) -> np.ndarray:
    """``cvtps2dq``: round half to even; NaN and out-of-range lanes give INT_MIN."""
    r = np.rint(x)
    ok = np.abs(r) < F32(2147483648.0)
    return np.where(ok, r, F32(0)).astype(I32) | np.where(ok, I32(0), I32(-2147483648))


def pow2i(q: np.ndarray) -> np.ndarray:
    """``2.0f ** q`` by writing the exponent field (wraps as the SIMD integer ops do)."""
    return ((q.astype(I32) + I32(0x7F)) << I32(23)).view(F32)


def ldexp2(d: np.ndarray, e: np.ndarray) -> np.ndarray:
    """``vldexp2_vf_vf_vi2``: two power-of-two scalings, so 2**e may leave the normal range."""
    h = e >> I32(1)
    return (d * pow2i(h)) * pow2i(e - h)


def getexp(x: np.ndarray) -> np.ndarray:
    """AVX512's ``getexp``: floor(log2|x|) as a float (subnormals exactly; 0 -> -inf, inf -> inf)."""
    ax = np.abs(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        _, e = np.frexp(ax)
        r = (e - 1).astype(F32)
    r = np.where(ax == 0, F32(-np.inf), r)
    r = np.where(np.isinf(ax), _INF, r)
    return np.where(np.isnan(x), x, r).astype(F32)


def mulsign(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x with its sign flipped where y's sign bit is set."""
    return (x.view(I32) ^ (y.view(I32) & I32(-2147483648))).view(F32)


# -- the kernels -------------------------------------------------------------------------------

def expk2f(x: np.ndarray) -> DF:
    """``expk2f`` of the double-float ``(x, 0)``: e**x as a double-float."""
    q = rint_i32(x * _R_LN2)
    qf = q.astype(F32)
    s = df_add2_df_f((x, np.zeros_like(x)), qf * -_L2U)
    s = df_add2_df_f(s, qf * -_L2L)
    u = fma32(_c(0.1980960224e-3), s[0], _c(0.1394256484e-2))
    u = fma32(u, s[0], _c(0.8333456703e-2))
    u = fma32(u, s[0], _c(0.4166637361e-1))
    t = df_add2_df_f(df_mul_df_f(s, u), _c(0.166666659414234244790680580464))
    t = df_add2_df_f(df_mul_df_df(s, t), _c(0.5))
    t = df_add2_df_df(s, df_mul_df_df(df_squ(s), t))
    t = df_add(_ONE, t)
    hi, lo = ldexp2(t[0], q), ldexp2(t[1], q)
    under = x < F32(-104)
    return np.where(under, F32(0), hi), np.where(under, F32(0), lo)


def _prepare(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, F32)


def sinhf(x: np.ndarray) -> np.ndarray:
    """``Sleef_sinhf_u10`` of a float32 array."""
    x = _prepare(x)
    with np.errstate(all="ignore"):
        d = expk2f(np.abs(x))
        d = df_sub_df_df(d, df_rec(d))
        y = (d[0] + d[1]) * F32(0.5)
        y = np.where((np.abs(x) > F32(89)) | np.isnan(y), _INF, y)
        y = mulsign(y, x)
        return np.where(np.isnan(x), x, y)


def coshf(x: np.ndarray) -> np.ndarray:
    """``Sleef_coshf_u10`` of a float32 array."""
    x = _prepare(x)
    with np.errstate(all="ignore"):
        d = expk2f(np.abs(x))
        d = df_add_df_df(d, df_rec(d))
        y = (d[0] + d[1]) * F32(0.5)
        y = np.where((np.abs(x) > F32(89)) | np.isnan(y), _INF, y)
        return np.where(np.isnan(x), x, y)


def tanhf(x: np.ndarray) -> np.ndarray:
    """``Sleef_tanhf_u10`` of a float32 array."""
    x = _prepare(x)
    with np.errstate(all="ignore"):
        d = expk2f(np.abs(x))
        e = df_rec(d)
        d = df_div(df_add_df_df(d, df_neg(e)), df_add_df_df(d, e))
        y = d[0] + d[1]
        y = np.where((np.abs(x) > F32(8.664339742)) | np.isnan(y), _ONE, y)
        y = mulsign(y, x)
        return np.where(np.isnan(x), x, y)


def expm1f(a: np.ndarray) -> np.ndarray:
    """``Sleef_expm1f_u10`` of a float32 array."""
    a = _prepare(a)
    with np.errstate(all="ignore"):
        d = df_add2_df_f(expk2f(a), F32(-1.0))
        x = d[0] + d[1]
        x = np.where(a > F32(88.72283172607421875), _INF, x)
        x = np.where(a < F32(-16.635532333438687426013570), F32(-1), x)
        x = np.where((a == 0) & np.signbit(a), F32(-0.0), x)
        return np.where(np.isnan(a), a, x)


def log1pf(d: np.ndarray) -> np.ndarray:
    """``Sleef_log1pf_u10`` (AVX512 build: getexp) of a float32 array."""
    d = _prepare(d)
    with np.errstate(all="ignore"):
        dp1 = d + _ONE
        e = getexp(dp1 * F32(1.0 / 0.75))
        e = np.where(e == _INF, F32(128.0), e)
        # 2**-e exactly, a subnormal for e = 127 (d near FLT_MAX)
        t = ldexp2(np.ones_like(e), -rint_i32(e))
        m = fma32(d, t, t - _ONE)
        s = df_mul_df_f((np.full_like(d, _LN2_HI), np.full_like(d, _LN2_LO)), e)
        x = df_div((m, np.zeros_like(m)), df_add_ff(np.full_like(m, F32(2)), m))
        x2 = x[0] * x[0]
        t = fma32(_c(0.3027294874), x2, _c(0.3996108174))
        t = fma32(t, x2, _c(0.6666694880))
        s = df_add_df_df(s, df_scale(x, F32(2)))
        s = df_add_df_f(s, (x2 * x[0]) * t)
        r = s[0] + s[1]
        r = np.where(d == _INF, _INF, r)
        r = np.where(F32(-1) > d, F32(np.nan), r)
        r = np.where(d == F32(-1), F32(-np.inf), r)
        r = np.where((d == 0) & np.signbit(d), F32(-0.0), r)
        return np.where(np.isnan(d), d, r)


_EXP2_POLY = tuple(F32(v) for v in (0.1535920892e-3, 0.1339262701e-2, 0.9618384764e-2, 0.5550347269e-1,
                                    0.2402264476e+0, 0.6931471825e+0))


def exp2f(d: np.ndarray) -> np.ndarray:
    """``Sleef_exp2f_u10`` (FMA build) of a float32 array."""
    d = _prepare(d)
    with np.errstate(all="ignore"):
        u = np.rint(d)
        q = rint_i32(u)
        s = d - u
        r = fma32(_EXP2_POLY[0], s, _EXP2_POLY[1])
        for c in _EXP2_POLY[2:]:
            r = fma32(r, s, c)
        r = fma32(r, s, _ONE)
        r = ldexp2(r, q)
        r = np.where(d >= F32(128), _INF, r)
        r = np.where(d < F32(-150), F32(0), r)
        return np.where(np.isnan(d), d, r)
