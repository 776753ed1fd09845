"""float32 Box-Muller of PyTorch's AVX2 normal kernel (``normal_fill_16_AVX2``).

``normal_fill_16_AVX2`` does not call libm: it uses the Cephes-style
"avx_mathfun" ``log_ps`` and ``sincos_ps``, compiled with every product that
feeds an addition fused.  ``radius`` and ``sincos`` reproduce them bit for bit.

How a fused step ``fma32(a, b, c)`` is computed: ``float32(float64(a)*b + c)``.
The product of two floats is exact in double (24 + 24 <= 53 bits), so only
the double addition and the final rounding remain.  That is a single correct
rounding whenever the exact sum fits in 53 bits.  It does in the log's Horner
steps (``x`` is a multiple of 2**-24, every partial ``y`` exceeds 2**-5 and
the sum stays below 1, so the sum is a multiple of 2**-52 below 2**0) and in
the range reduction (multiples of 2**-48 below 1).  Elsewhere a product far
smaller than its addend (``y*z + e*Q1``, or ``c*z + C1`` for tiny ``z``) can
make the double sum inexact; rounding twice could then only go wrong if that
double sum fell exactly on a float32 midpoint.  Rather than rest on
arguments, ``tests/engine/test_random_fp.py`` proves the scheme by
exhaustion: the inputs are 24-bit uniforms, so there are only 2**24 radii
and 2**24 angles, and all of them match a plain transcription of ``log256_ps`` and
``sincos256_ps`` (ATen/native/cpu/avx_mathfun.h) that uses the correctly rounded ``exactfp.fma32`` at every fused site.

The code is written for speed (about 100 NumPy passes per 8 lanes): it works
on chunks with preallocated buffers, and selects and flips signs with
integer operations on the float bits instead of masked assignments.
"""

from __future__ import annotations

import numpy as np

F32 = np.float32
F64 = np.float64
I32 = np.int32


def _c(x: float) -> np.float32:
    return F32(x)


SQRTHF = _c(0.707106781186547524)
LOG_P = tuple(
    _c(v)
    for v in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
)
LOG_Q1 = _c(-2.12194440e-4)
LOG_Q2 = _c(0.693359375)

FOPI = _c(1.27323954473516)  # 4/pi
DP1 = _c(-0.78515625)
DP2 = _c(-2.4187564849853515625e-4)
DP3 = _c(-3.77489497744594108e-8)
COS_C = (_c(2.443315711809948e-5), _c(-1.388731625493765e-3), _c(4.166664568298827e-2))
SIN_S = (_c(-1.9515295891e-4), _c(8.3321608736e-3), _c(-1.6666654611e-1))
C2PI = _c(6.2831855)  # float32(2*pi), bits 0x40C90FDB

_ONE = F32(1.0)
_HALF = F32(0.5)
_SAME = "same_kind"


class Workspace:
    """Scratch arrays for up to ``lanes`` lanes (reused across chunks)."""

    def __init__(self, lanes: int) -> None:
        self.lanes = lanes
        self.f32 = [np.empty(lanes, F32) for _ in range(6)]
        self.f64 = [np.empty(lanes, F64) for _ in range(3)]
        self.i32 = [np.empty(lanes, I32) for _ in range(3)]

    def take(self, k: int) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
        return [a[:k] for a in self.f32], [a[:k] for a in self.f64], [a[:k] for a in self.i32]


def _horner_step(y32: np.ndarray, y64: np.ndarray, x64: np.ndarray, coef: np.float32) -> None:
    """``y32 = fma32(y32, x, coef)`` with ``x64`` the exact double of ``x``."""
    np.copyto(y64, y32)
    np.multiply(y64, x64, out=y64)
    np.add(y64, coef, out=y64)
    np.copyto(y32, y64, casting=_SAME)


def radius(a: np.ndarray, out: np.ndarray, ws: Workspace) -> None:
    """``out = sqrt(-2 * log_ps(1 - a))`` for float32 uniforms ``a`` in [0, 1).

    ``a`` may have any shape (a strided view is fine); ``out`` is 1-D with
    ``a.size <= ws.lanes`` elements, in ``a``'s C order.
    """
    (t, m, x, e, z, y), (x64, y64, _), (ei, _, _) = ws.take(a.size)
    np.subtract(_ONE, a, out=t.reshape(a.shape))  # exact: t in [2**-24, 1]
    np.frexp(t, out=(m, ei))  # t = m * 2**ei, m in [0.5, 1): ei is log256_ps's e
    small = np.less(m, SQRTHF, out=t)  # 0.0 / 1.0, reusing t
    np.subtract(m, _ONE, out=x)
    np.multiply(m, small, out=m)
    np.add(x, m, out=x)  # 2m - 1 below sqrt(1/2), else m - 1; both exact
    np.copyto(e, ei, casting="unsafe")
    np.subtract(e, small, out=e)
    np.copyto(x64, x)
    np.multiply(x, x, out=z)

    np.multiply(x64, LOG_P[0], out=y64)
    np.add(y64, LOG_P[1], out=y64)
    np.copyto(y, y64, casting=_SAME)
    for coef in LOG_P[2:]:
        _horner_step(y, y64, x64, coef)
    np.multiply(y, x, out=y)

    eq = m  # scratch
    np.multiply(e, LOG_Q1, out=eq)
    np.multiply(y, z, out=y64, dtype=F64)
    np.add(y64, eq, out=y64)
    np.copyto(y, y64, casting=_SAME)  # fma32(y, z, e*Q1)
    np.multiply(z, _HALF, out=eq)
    np.subtract(y, eq, out=y)
    np.add(x, y, out=y)
    np.multiply(e, LOG_Q2, out=e)  # exact
    np.add(y, e, out=y)
    np.multiply(y, F32(-2.0), out=y)
    np.sqrt(y, out=out)


def sincos(b: np.ndarray, sin_out: np.ndarray, cos_out: np.ndarray, ws: Workspace) -> None:
    """``sincos_ps(C2PI * b)`` for float32 uniforms ``b`` in [0, 1).

    The angle is ``fl(C2PI * b)`` with the float32 constant, as the kernel
    computes it.  Only non-negative angles occur, so the input sign handling
    of ``sincos_ps`` is left out.  Neither polynomial can yield -0.0 for
    them, so the kernel's ``+ 0.0`` in its blend is a no-op here too.
    ``b`` may have any shape; the outputs are 1-D, in ``b``'s C order.
    """
    (x, jf, tmp, z, c, s), (x64, z64, p64), (j, w, flip) = ws.take(b.size)
    np.multiply(b, C2PI, out=x.reshape(b.shape))
    np.multiply(x, FOPI, out=jf)
    np.copyto(j, jf, casting="unsafe")  # truncation, as cvttps2dq
    np.add(j, 1, out=j)
    np.bitwise_and(j, ~1, out=j)
    y = jf
    np.copyto(y, j, casting="unsafe")
    np.multiply(y, DP1, out=tmp)  # exact
    np.add(x, tmp, out=x)  # exact (Sterbenz)
    np.multiply(y, DP2, out=tmp)  # exact
    np.add(x, tmp, out=x)
    np.multiply(y, DP3, out=x64, dtype=F64)
    np.add(x64, x, out=x64)
    np.copyto(x, x64, casting=_SAME)  # fma32(y, DP3, x)
    np.copyto(x64, x)
    np.multiply(x, x, out=z)
    np.copyto(z64, z)
    np.multiply(z, _HALF, out=tmp)  # exact

    np.multiply(z64, COS_C[0], out=p64)
    np.add(p64, COS_C[1], out=p64)
    np.copyto(c, p64, casting=_SAME)
    _horner_step(c, p64, z64, COS_C[2])
    np.multiply(c, z, out=c)
    np.copyto(p64, c)
    np.multiply(p64, z64, out=p64)
    np.subtract(p64, tmp, out=p64)
    np.copyto(c, p64, casting=_SAME)  # fma32(c, z, -z/2)
    np.add(c, _ONE, out=c)

    np.multiply(z64, SIN_S[0], out=p64)
    np.add(p64, SIN_S[1], out=p64)
    np.copyto(s, p64, casting=_SAME)
    _horner_step(s, p64, z64, SIN_S[2])
    np.multiply(s, z, out=s)
    np.copyto(p64, s)
    np.multiply(p64, x64, out=p64)
    np.add(p64, x64, out=p64)
    np.copyto(s, p64, casting=_SAME)  # fma32(s, x, x)

    # Quadrants j = 2, 6 swap the polynomials; j = 4, 6 negate the sine and
    # j = 2, 4 the cosine (sincos256_ps's "bit 2 of j-2 clear").  Bit tricks on the
    # float32 patterns: a lane mask of all ones where swapping, and the sign
    # bit moved from bit 2 of j (or of j+2) to bit 31.
    si, ci, so, co = s.view(I32), c.view(I32), sin_out.view(I32), cos_out.view(I32)
    np.bitwise_and(j, 2, out=w)
    np.right_shift(w, 1, out=w)
    np.negative(w, out=w)
    np.bitwise_xor(si, ci, out=flip)
    np.bitwise_and(flip, w, out=flip)
    np.bitwise_xor(si, flip, out=so)
    np.bitwise_xor(ci, flip, out=co)
    np.bitwise_and(j, 4, out=w)
    np.left_shift(w, 29, out=w)
    np.bitwise_xor(so, w, out=so)
    np.add(j, 2, out=w)
    np.bitwise_and(w, 4, out=w)
    np.left_shift(w, 29, out=w)
    np.bitwise_xor(co, w, out=co)
