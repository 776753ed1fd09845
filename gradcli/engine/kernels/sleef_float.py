"""float32 ``tanh``, ``log1p``, ``expm1`` and ``erf`` as PyTorch's AVX512 vector kernels compute them.

``Vectorized<float>::tanh()``, ``::log1p()`` and ``::expm1()`` are SLEEF's ``tanhf_u10``,
``log1pf_u10`` and ``expm1f_u10`` (its AVX512F build: fused multiply-adds, ``getexp``), transcribed
here op for op from SLEEF 3's sleefsimdsp.c and df.h: every float32 operation is
a NumPy float32 operation, every fused one ``exactfp.fma32``.  (SLEEF itself is
compiled without contraction, so the source's operations are the machine's.)
``Vectorized<float>::erf()`` is ATen's own: the Abramowitz-Stegun polynomial with
SLEEF's ``expf_u10`` (``sleef.expf``).

The "df" helpers are SLEEF's double-float arithmetic: a value is a pair
``(x, y)`` of float32 arrays whose sum is the number.
"""

from __future__ import annotations

import numpy as np

from .exactfp import fma32
from .sleef import expf

F32 = np.float32
_ONE = F32(1)


def _f(v: float) -> np.float32:
    return F32(v)


# -- SLEEF's primitive operations (AVX512F with FMA) ----------------------------------------------

def _fma(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    return fma32(x, y, z)


def _fmapn(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    return fma32(x, y, -np.asarray(z, F32))  # x*y - z


def _fmanp(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    return fma32(-np.asarray(x, F32), y, z)  # z - x*y


def _pow2i(q: np.ndarray) -> np.ndarray:
    return ((q.astype(np.int32) + np.int32(0x7F)) << np.int32(23)).view(F32)


def _ldexp2(d: np.ndarray, e: np.ndarray) -> np.ndarray:
    h = e >> 1
    return d * _pow2i(h) * _pow2i(e - h)


def _rint_i32(v: np.ndarray) -> np.ndarray:
    """``vrint_vi2_vf`` (cvtps2dq): round half to even; out of range and NaN give INT_MIN."""
    r = np.rint(v)
    ok = np.isfinite(r) & (np.abs(r) < 2.0**31)
    return np.where(ok, r, -(2.0**31)).astype(np.int64).astype(np.int32)


# -- double-float arithmetic (df.h) -------------------------------------------------------------

def _add2_ff(x: np.ndarray, y: np.ndarray) -> tuple:
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _add_ff(x: np.ndarray, y: np.ndarray) -> tuple:
    s = x + y
    return s, (x - s) + y


def _add_f_df(x: np.ndarray, y: tuple) -> tuple:
    s = x + y[0]
    return s, ((x - s) + y[0]) + y[1]


def _add2_df_f(x: tuple, y: np.ndarray) -> tuple:
    s = x[0] + y
    v = s - x[0]
    t = (x[0] - (s - v)) + (y - v)
    return s, t + x[1]


def _add_df_f(x: tuple, y: np.ndarray) -> tuple:
    s = x[0] + y
    return s, ((x[0] - s) + y) + x[1]


def _add_df_df(x: tuple, y: tuple) -> tuple:
    s = x[0] + y[0]
    return s, (((x[0] - s) + y[0]) + x[1]) + y[1]


def _add2_df_df(x: tuple, y: tuple) -> tuple:
    s = x[0] + y[0]
    v = s - x[0]
    t = (x[0] - (s - v)) + (y[0] - v)
    return s, t + (x[1] + y[1])


def _mul_df_f(x: tuple, y: np.ndarray) -> tuple:
    s = x[0] * y
    return s, _fma(x[1], y, _fmapn(x[0], y, s))


def _mul_df_df(x: tuple, y: tuple) -> tuple:
    s = x[0] * y[0]
    return s, _fma(x[0], y[1], _fma(x[1], y[0], _fmapn(x[0], y[0], s)))


def _squ_df(x: tuple) -> tuple:
    s = x[0] * x[0]
    return s, _fma(x[0] + x[0], x[1], _fmapn(x[0], x[0], s))


def _div_df_df(n: tuple, d: tuple) -> tuple:
    t = _ONE / d[0]
    s = n[0] * t
    u = _fmapn(t, n[0], s)
    v = _fmanp(d[1], t, _fmanp(d[0], t, _ONE))
    return s, _fma(s, v, _fma(n[1], t, u))


def _rec_df(d: tuple) -> tuple:
    s = _ONE / d[0]
    return s, s * _fmanp(d[1], s, _fmanp(d[0], s, _ONE))


def _neg_df(x: tuple) -> tuple:
    return -x[0], -x[1]


# -- SLEEF functions -------------------------------------------------------------------------------

_R_LN2F = _f(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2UF = _f(0.693145751953125)
_L2LF = _f(1.428606765330187045e-06)


def _expk2f(d: tuple) -> tuple:
    """SLEEF's ``expk2f``: exp of a double-float, as a double-float."""
    q = _rint_i32((d[0] + d[1]) * _R_LN2F)
    qf = q.astype(F32)
    s = _add2_df_f(d, qf * -_L2UF)
    s = _add2_df_f(s, qf * -_L2LF)
    u = np.full_like(s[0], _f(+0.1980960224e-3))
    for c in (+0.1394256484e-2, +0.8333456703e-2, +0.4166637361e-1):
        u = _fma(u, s[0], _f(c))
    t = _add2_df_f(_mul_df_f(s, u), _f(+0.166666659414234244790680580464e+0))
    t = _add2_df_f(_mul_df_df(s, t), _f(0.5))
    t = _add2_df_df(s, _mul_df_df(_squ_df(s), t))
    t = _add_f_df(_ONE, t)
    tx, ty = _ldexp2(t[0], q), _ldexp2(t[1], q)
    low = d[0] < _f(-104)
    return np.where(low, F32(0), tx), np.where(low, F32(0), ty)


def tanhf(x: np.ndarray) -> np.ndarray:
    """SLEEF ``tanhf_u10`` of a float32 array, elementwise (a new array)."""
    x = np.asarray(x, F32)
    with np.errstate(all="ignore"):
        y = np.abs(x)
        d = _expk2f((y, np.zeros_like(y)))
        e = _rec_df(d)
        d = _div_df_df(_add_df_df(d, _neg_df(e)), _add_df_df(d, e))
        y = d[0] + d[1]
        y = np.where((np.abs(x) > _f(8.664339742)) | np.isnan(y), _ONE, y)
        y = np.where(np.signbit(x), -y, y)  # vmulsign: y's sign flipped where x is negative
        y = np.where(np.isnan(x), x, y)
    return y.astype(F32, copy=False)


def expm1f(a: np.ndarray) -> np.ndarray:
    """SLEEF ``expm1f_u10`` of a float32 array, elementwise."""
    a = np.asarray(a, F32)
    with np.errstate(all="ignore"):
        d = _add2_df_f(_expk2f((a, np.zeros_like(a))), _f(-1.0))
        r = d[0] + d[1]
        r = np.where(a > _f(88.72283172607421875), F32(np.inf), r)
        r = np.where(a < _f(-16.635532333438687426013570), _f(-1), r)
        r = np.where((a == 0) & np.signbit(a), F32(-0.0), r)
        r = np.where(np.isnan(a), a, r)
    return r.astype(F32, copy=False)


def _getexp(v: np.ndarray) -> np.ndarray:
    """``_mm512_getexp_ps``: floor(log2|v|) as a float (subnormals included); 0 -> -inf, inf -> inf."""
    with np.errstate(all="ignore"):
        _, e = np.frexp(v)
        out = (e - 1).astype(F32)
        out = np.where(v == 0, F32(-np.inf), out)
        out = np.where(np.isinf(v), F32(np.inf), out)
        return np.where(np.isnan(v), v, out).astype(F32)


def log1pf(d: np.ndarray) -> np.ndarray:
    """SLEEF ``log1pf_u10`` of a float32 array (AVX512F build), elementwise."""
    d = np.asarray(d, F32)
    with np.errstate(all="ignore"):
        dp1 = d + _ONE
        e = _getexp(dp1 * _f(1.0 / 0.75))
        e = np.where(np.isposinf(e), _f(128.0), e)
        q = _rint_i32(e)
        t = ((np.int32(0x3F800000) + (-q << np.int32(23))).astype(np.int32)).view(F32)  # vldexp3(1, -e)
        m = _fma(d, t, t - _ONE)
        s = _mul_df_f((np.full_like(d, _f(0.69314718246459960938)), np.full_like(d, _f(-1.904654323148236017e-09))), e)
        x = _div_df_df((m, np.zeros_like(m)), _add_ff(np.full_like(m, _f(2)), m))
        x2 = x[0] * x[0]
        t = np.full_like(x2, _f(+0.3027294874))
        t = _fma(t, x2, _f(+0.3996108174))
        t = _fma(t, x2, _f(+0.6666694880))
        s = _add_df_df(s, (x[0] * _f(2), x[1] * _f(2)))
        s = _add_df_f(s, (x2 * x[0]) * t)
        r = s[0] + s[1]
        r = np.where(d > _f(1e38), F32(np.inf), r)
        r = np.where(_f(-1) > d, F32(np.nan), r)
        r = np.where(d == _f(-1), F32(-np.inf), r)
        r = np.where((d == 0) & np.signbit(d), F32(-0.0), r)
        r = np.where(np.isnan(d), d, r)
    return r.astype(F32, copy=False)


_ERF_P = _f(0.3275911)
_ERF_POLY = tuple(_f(c) for c in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592))


def erf_vector(x: np.ndarray) -> np.ndarray:
    """ATen's ``Vectorized<float>::erf()`` (AVX512): ``1 - r(t) * t * exp(-x*x)`` with the sign of x,
    ``t = 1 / (0.3275911 |x| + 1)`` and the Abramowitz-Stegun polynomial r, every step fused."""
    x = np.asarray(x, F32)
    with np.errstate(all="ignore"):
        t = _ONE / _fma(_ERF_P, np.abs(x), _ONE)
        r = _fma(_ERF_POLY[0], t, _ERF_POLY[1])
        for c in _ERF_POLY[2:]:
            r = _fma(r, t, c)
        tmp = -expf(-(x * x)) * t
        out = _fma(tmp, r, _ONE)
        return np.where(np.signbit(x), -out, out).astype(F32, copy=False)

