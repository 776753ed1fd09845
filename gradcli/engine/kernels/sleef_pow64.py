"""SLEEF's float64 ``pow_u10``, ``atan2_u10`` and ``hypot_u05`` (AVX512F build), bit for bit.

``Vectorized<double>::pow``, ``::atan2`` and ``::hypot`` are ``Sleef_powd8_u10``,
``Sleef_atan2d8_u10`` and ``Sleef_hypotd8_u05``: the float32 algorithms of ``sleef_pow`` in
double-double arithmetic, with longer polynomials (evaluated by Estrin's scheme, SLEEF's
``POLY`` macros).  Double additions, multiplications, divisions and square roots are NumPy's;
fused multiply-adds are ``exactfp.fma64`` (one rounding), and the error of a product
(``fma(a, b, -a*b)``) is Dekker's exact two-product where no operand is extreme.
"""

from __future__ import annotations

from typing import Sequence, Tuple

import numpy as np

from .exactfp import fma64
from .double_word import (
    Products,
    add2_ff as _add2_ff,
    add_f_w as _add_f_dd,
    add2_w_f as _add2_dd_f,
    add_w_w as _add_dd_dd,
    add2_w_w as _add2_dd_dd,
    normalize as _normalize,
)

F64 = np.float64
I32 = np.int32
I64 = np.int64

DD = Tuple[np.ndarray, np.ndarray]

_ONE = F64(1.0)
_ZERO = F64(0.0)
_INF = F64(np.inf)
_SIGN = I64(-(1 << 63))
_INT_MIN = I32(-2147483648)


# -- fused multiply-add ------------------------------------------------------------------------

_SPLIT = F64(134217729.0)  # 2**27 + 1
_SAFE_HI = F64(2.0 ** 480)
_SAFE_LO = F64(2.0 ** -480)


_C_LO = F64(2.0 ** -900)
_C_HI = F64(2.0 ** 960)


def _in_range(ax: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return (ax == 0) | ((ax >= lo) & (ax <= hi))


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``fma(a, b, c)`` with one rounding: ``exactfp.fma64`` where its error-free transformations
    are exact, ``_fma_extreme`` on the lanes with operands of extreme magnitude."""
    a, b, c = np.broadcast_arrays(np.asarray(a, F64), np.asarray(b, F64), np.asarray(c, F64))
    with np.errstate(all="ignore"):
        safe = _in_range(np.abs(a), _SAFE_LO, _SAFE_HI) & _in_range(np.abs(b), _SAFE_LO, _SAFE_HI)
        safe &= _in_range(np.abs(c), _C_LO, _C_HI)
    if safe.all():
        return np.asarray(fma64(a, b, c))
    out = np.empty(a.shape, F64)
    out[safe] = fma64(a[safe], b[safe], c[safe])
    rest = ~safe
    out[rest] = _fma_extreme(a[rest], b[rest], c[rest])
    return out


def _fma_extreme(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """fma of 1-D lanes with tiny, huge or non-finite operands, mostly without rational arithmetic:

    * a non-finite operand or a zero factor: the IEEE ``a*b + c`` (a finite product against an
      infinite c is c);
    * c = 0: the product rounded once (IEEE multiplication, sign included);
    * a product below 2**-56 |c| cannot move c by half an ulp: c;
    * otherwise a and b are scaled into [0.5, 1) and c with them (exact), and the result scaled
      back where it is a normal number; what is left goes to ``exactfp.fma64``'s exact path."""
    with np.errstate(all="ignore"):
        p = a * b
        out = np.full(a.shape, np.nan)
        finite = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
        zero = (a == 0) | (b == 0)
        done = ~finite | zero
        out[done] = np.where(np.isinf(c) & np.isfinite(a) & np.isfinite(b), c, p + c)[done]
        only_product = ~done & (c == 0)
        out[only_product] = p[only_product]
        done |= only_product
        small = ~done & (p != 0) & np.isfinite(p) & (np.abs(p) < np.abs(c) * F64(2.0 ** -56))
        out[small] = c[small]
        done |= small
        left = ~done
        if left.any():
            al, bl, cl = a[left], b[left], c[left]
            ma, ea = np.frexp(al)
            mb, eb = np.frexp(bl)
            k = ea + eb
            cs = np.ldexp(cl, -k)
            ok = _in_range(np.abs(cs), _C_LO, _C_HI) & (np.abs(cl) >= np.finfo(F64).tiny)
            r = np.full(al.shape, np.nan)
            if ok.any():
                r[ok] = np.ldexp(np.asarray(fma64(ma[ok], mb[ok], cs[ok])), k[ok])
            ar = np.abs(r)
            ok &= (ar == 0) | ((ar >= np.finfo(F64).tiny) & (ar <= F64(2.0 ** 1020)))
            if not ok.all():
                r[~ok] = fma64(al[~ok], bl[~ok], cl[~ok])
            out[left] = r
    return out


def _split(x: np.ndarray) -> DD:
    c = _SPLIT * x
    hi = c - (c - x)
    return hi, x - hi


def _fma_err(a: np.ndarray, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``fma(a, b, -s)`` where ``s = a * b``: Dekker's exact error of the product; lanes with an
    operand outside [2**-480, 2**480] (or zero products) go through ``fma64``."""
    with np.errstate(all="ignore"):
        ah, al = _split(a)
        bh, bl = _split(b)
        err = ((ah * bh - s) + ah * bl + al * bh) + al * bl
        aa, ab = np.abs(a), np.abs(b)
        ok = (aa >= _SAFE_LO) & (aa <= _SAFE_HI) & (ab >= _SAFE_LO) & (ab <= _SAFE_HI)
    if not ok.all():
        a_, b_, s_ = np.broadcast_arrays(a, b, s)
        err = np.array(err, copy=True)
        err[~ok] = _fma(a_[~ok], b_[~ok], -s_[~ok])
    return err


# -- double-double arithmetic (SLEEF's dd.h, FMA variants) ----------------------------------------

def _scale(d: DD, s: float) -> DD:
    return d[0] * s, d[1] * s


_PRODUCTS = Products(_fma, _fma_err)
_mul_ff = _PRODUCTS.mul_ff
_mul_dd_f = _PRODUCTS.mul_w_f
_mul_dd_dd = _PRODUCTS.mul_w_w
_squ = _PRODUCTS.squ


def _div(n: DD, d: DD) -> DD:
    t = _ONE / d[0]
    s = n[0] * t
    u = _fma_err(t, n[0], s)
    v = _fma(-d[1], t, _fma(-d[0], t, _ONE))
    return s, _fma(s, v, _fma(n[1], t, u))


def _rec_f(d: np.ndarray) -> DD:
    s = _ONE / d
    return s, s * _fma(-d, s, _ONE)


def _sqrt_dd(d: DD) -> DD:
    t = np.sqrt(d[0] + d[1])
    return _scale(_mul_dd_dd(_add2_dd_dd(d, _mul_ff(t, t)), _rec_f(t)), 0.5)


def _const(x: np.ndarray, hi: float, lo: float) -> DD:
    return np.full_like(x, hi), np.full_like(x, lo)


# -- Estrin polynomials (SLEEF's estrin.h; MLA is a fused multiply-add) -------------------------------

def _poly4(x: np.ndarray, x2: np.ndarray, c: Sequence[float]) -> np.ndarray:
    """c[0]*x**3 + ... + c[3], coefficients highest first."""
    return _fma(x2, _fma(x, c[0], c[1]), _fma(x, c[2], c[3]))


def _poly8(x: np.ndarray, x2: np.ndarray, x4: np.ndarray, c: Sequence[float]) -> np.ndarray:
    return _fma(x4, _poly4(x, x2, c[:4]), _poly4(x, x2, c[4:]))


# -- bit-level helpers --------------------------------------------------------------------------

def _mulsign(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return (x.view(I64) ^ (y.view(I64) & _SIGN)).view(F64)


def _all_ones(mask: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.where(mask, I64(-1), x.view(I64)).astype(I64).view(F64)


def _rint_i32(x: np.ndarray) -> np.ndarray:
    """``cvtpd2dq``: round half to even; NaN and out-of-range values give INT_MIN."""
    r = np.rint(x)
    ok = np.abs(r) < F64(2147483648.0)
    return np.where(ok, r, _ZERO).astype(I32) | np.where(ok, I32(0), _INT_MIN)


def _getexp(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        _, e = np.frexp(x)
        r = (e - 1).astype(F64)
    r = np.where(x == 0, -_INF, r)
    r = np.where(np.isinf(x), _INF, r)
    return np.where(np.isnan(x), x, r)


def _getmant(x: np.ndarray) -> np.ndarray:
    f, _ = np.frexp(x)
    twice = f * 2.0
    return np.where(twice < 1.5, twice, f)


def _pow2i(q: np.ndarray) -> np.ndarray:
    """``vpow2i_vd_vi``: 2**q by writing the exponent field (32-bit integer arithmetic wraps)."""
    hi = ((q.astype(I64) + 0x3FF) << 20).astype(I32).view(np.uint32).astype(I64)
    return (hi << 32).view(F64)


def _ldexp2(d: np.ndarray, e: np.ndarray) -> np.ndarray:
    h = e >> 1
    return (d * _pow2i(h)) * _pow2i((e.astype(I64) - h).astype(I32))


# -- logarithm and exponential in double-double ------------------------------------------------------

_LN2 = (0.693147180559945286226764, 2.319046813846299558417771e-17)
_R_LN2 = F64(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = F64(.69314718055966295651160180568695068359375)
_L2L = F64(.28235290563031577122588448175013436025525412068e-12)
_LOG_POLY = (0.116255524079935043668677, 0.103239680901072952701192, 0.117754809412463995466069,
             0.13332981086846273921509, 0.153846227114512262845736, 0.181818180850050775676507,
             0.222222222230083560345903, 0.285714285714249172087875, 0.400000000000000077715612)
_LOG_C = (0.666666666666666629659233, 3.80554962542412056336616e-17)
_EXP_POLY = (2.51069683420950419527139e-08, 2.76286166770270649116855e-07, 2.75572496725023574143864e-06,
             2.48014973989819794114153e-05, 0.000198412698809069797676111, 0.0013888888939977128960529,
             0.00833333333332371417601081, 0.0416666666665409524128449, 0.166666666666666740681535,
             0.500000000000000999200722)


def _logk(d: np.ndarray) -> DD:
    """SLEEF's ``logk`` (AVX512: getexp/getmant) of d >= 0."""
    e = _getexp(d * (1.0 / 0.75))
    e = np.where(e == _INF, F64(1024.0), e)
    m = _getmant(d)
    x = _div(_add2_ff(np.full_like(m, -1.0), m), _add2_ff(np.full_like(m, 1.0), m))
    x2 = _squ(x)
    x4 = x2[0] * x2[0]
    x8 = x4 * x4
    x16 = x8 * x8
    t = _fma(x16, _LOG_POLY[0], _poly8(x2[0], x4, x8, _LOG_POLY[1:]))
    s = _mul_dd_f(_const(e, *_LN2), e)
    s = _add_dd_dd(s, _scale(x, 2.0))
    x = _mul_dd_dd(x2, x)
    s = _add_dd_dd(s, _mul_dd_dd(x, _const(e, *_LOG_C)))
    x = _mul_dd_dd(x2, x)
    return _add_dd_dd(s, _mul_dd_f(x, t))


def _expk(d: DD) -> np.ndarray:
    """SLEEF's ``expk``: exp of a double-double, as a double."""
    dq = np.rint((d[0] + d[1]) * _R_LN2)
    q = _rint_i32(dq)
    s = _add2_dd_f(d, dq * -_L2U)
    s = _add2_dd_f(s, dq * -_L2L)
    s = _normalize(s)
    s2 = s[0] * s[0]
    s4 = s2 * s2
    s8 = s4 * s4
    u = _fma(s8, _fma(s[0], _EXP_POLY[0], _EXP_POLY[1]), _poly8(s[0], s2, s4, _EXP_POLY[2:]))
    t = _add_f_dd(np.full_like(u, _ONE), s)
    t = _add_dd_dd(t, _mul_dd_f(_squ(s), u))
    r = _ldexp2(t[0] + t[1], q)
    return np.where(d[0] < -1000.0, _ZERO, r)


def pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:  # noqa: A001 - SLEEF's name
    """``Sleef_powd8_u10(x, y)`` elementwise (x and y of one shape)."""
    x = np.asarray(x, F64)
    y = np.asarray(y, F64)
    with np.errstate(all="ignore"):
        ay = np.abs(y)
        yisint = (np.trunc(y) == y) | (ay > F64(1 << 53))
        half = np.trunc(y * 0.5)
        yisodd = yisint & (half != y * 0.5) & (ay < F64(1 << 53))
        d = _mul_dd_f(_logk(np.abs(x)), y)
        r = _expk(d)
        r = np.where(d[0] > 709.78271114955742909217217426, _INF, r)
        sign = np.where(yisint, np.where(yisodd, -_ONE, _ONE), F64(np.nan))
        r = r * np.where(x > 0, _ONE, sign)
        efx = _mulsign(np.abs(x) - _ONE, y)
        r = np.where(np.isinf(y), np.where(efx < 0, _ZERO, np.where(efx == 0, _ONE, _INF)), r)
        zero_x = x == 0
        edge = np.where(np.signbit(y) ^ zero_x, _ZERO, _INF)
        r = np.where(np.isinf(x) | zero_x, _mulsign(edge, np.where(yisodd, x, _ONE)), r)
        r = _all_ones(np.isnan(x) | np.isnan(y), r)
        r = np.where((y == 0) | (x == 1), _ONE, r)
    return r


# -- atan2 ---------------------------------------------------------------------------------------

_ATAN_POLY = (1.06298484191448746607415e-05, -0.000125620649967286867384336, 0.00070557664296393412389774,
              -0.00251865614498713360352999, 0.00646262899036991172313504, -0.0128281333663399031014274,
              0.0208024799924145797902497, -0.0289002344784740315686289, 0.0359785005035104590853656,
              -0.041848579703592507506027, 0.0470843011653283988193763, -0.0524914210588448421068719,
              0.0587946590969581003860434, -0.0666620884778795497194182, 0.0769225330296203768654095,
              -0.0909090442773387574781907)
_ATAN_TAIL = (0.111111108376896236538123, -0.142857142756268568062339, 0.199999999997977351284817,
              -0.333333333333317605173818)
_PI_HALF_DD = (1.570796326794896557998982, 6.12323399573676603586882e-17)


def _atan2k(y: DD, x: DD) -> DD:
    neg = x[0] < 0
    q = np.where(neg, I32(-2), I32(0))
    x = (np.where(neg, -x[0], x[0]), np.where(neg, -x[1], x[1]))
    swap = x[0] < y[0]
    q = np.where(swap, q + 1, q)
    s = (np.where(swap, -x[0], y[0]), np.where(swap, -x[1], y[1]))
    t = (np.where(swap, y[0], x[0]), np.where(swap, y[1], x[1]))
    s = _div(s, t)
    t = _normalize(_squ(s))
    t2 = t[0] * t[0]
    t4 = t2 * t2
    t8 = t4 * t4
    u = _fma(t8, _poly8(t[0], t2, t4, _ATAN_POLY[:8]), _poly8(t[0], t2, t4, _ATAN_POLY[8:]))
    for c in _ATAN_TAIL:
        u = _fma(u, t[0], c)
    t = _add_dd_dd(s, _mul_dd_f(_mul_dd_dd(s, t), u))
    qf = q.astype(F64)
    return _add_dd_dd(_mul_dd_f(_const(qf, *_PI_HALF_DD), qf), t)


def _isinf2(d: np.ndarray, m: np.ndarray) -> np.ndarray:
    bits = m.view(I64) | (d.view(I64) & _SIGN)
    return np.where(np.isinf(d), bits, I64(0)).astype(I64).view(F64)


def atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``Sleef_atan2d8_u10(y, x)`` elementwise."""
    y = np.asarray(y, F64)
    x = np.asarray(x, F64)
    with np.errstate(all="ignore"):
        tiny = np.abs(x) < 5.5626846462680083984e-309
        x = np.where(tiny, x * F64(1 << 53), x)
        y = np.where(tiny, y * F64(1 << 53), y)
        zeros = np.zeros_like(x)
        d = _atan2k((np.abs(y), zeros), (x, zeros))
        r = _mulsign(d[0] + d[1], x)
        half_pi = np.full_like(x, np.pi / 2)
        r = np.where(np.isinf(x) | (x == 0), np.pi / 2 - _isinf2(x, _mulsign(half_pi, x)), r)
        r = np.where(np.isinf(y), np.pi / 2 - _isinf2(x, _mulsign(np.full_like(x, np.pi / 4), x)), r)
        r = np.where(y == 0, np.where(np.signbit(x), F64(np.pi), _ZERO), r)
        return _all_ones(np.isnan(x) | np.isnan(y), _mulsign(r, y))


# -- hypot ---------------------------------------------------------------------------------------

def hypot(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``Sleef_hypotd8_u05(x, y)`` elementwise."""
    x = np.abs(np.asarray(x, F64))
    y = np.abs(np.asarray(y, F64))
    with np.errstate(all="ignore"):
        lo = np.where(x < y, x, y)
        hi = np.where(x > y, x, y)
        small = hi < np.finfo(F64).tiny
        n = np.where(small, lo * F64(1 << 54), lo)
        d = np.where(small, hi * F64(1 << 54), hi)
        zeros = np.zeros_like(n)
        t = _div((n, zeros), (d, zeros))
        t = _mul_dd_f(_sqrt_dd(_add2_dd_f(_squ(t), np.full_like(n, _ONE))), hi)
        r = t[0] + t[1]
        r = np.where(np.isnan(r), _INF, r)
        r = np.where(lo == 0, hi, r)
        r = np.where(np.isnan(x) | np.isnan(y), F64(np.nan), r)
        return np.where((x == _INF) | (y == _INF), _INF, r)
