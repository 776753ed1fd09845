"""``torch.sqrt`` of float32 and float64 as PyTorch 2.13 computes it: MKL VML's high-accuracy
``vsSqrt``/``vdSqrt`` (``at::vml``, mode HA | FTZDAZ_OFF | ERRMODE_IGNORE), bit for bit.

Which MKL code path: the reference configuration's.  The reference outputs were made with
``MKL_CBWR=COMPATIBLE`` (tests/tools/reference_torch.py); under it PyTorch's bundled MKL 2024.2
runs its SSE4.2 kernels (``mkl_vml_kernel_[sd]Sqrt_H8HAynn``, the standalone MKL's "mc3" library,
which it also picks under ``MKL_CBWR=SSE4_2``).  Those are not correctly rounded: 17% of float32
and 1.3% of float64 results are one unit in the last place off.  Without the variable PyTorch
takes MKL's AVX512 path on this machine and about 0.7% of results differ again; gradcli follows
the reference.

The SSE4.2 kernels start from ``rsqrtps``, the CPU's 12-bit reciprocal square root estimate.  On
this project's Intel CPU (the corpus's reference outputs agree) it is the float with 12 fraction
bits nearest to ``1/sqrt(m)``, ``m`` the midpoint of the input's interval of 2**13 floats -- the interval given by
the exponent's parity and the top 10 mantissa bits -- scaled by the rest of the exponent: 2048
values, measured for every positive normal float by tests/tools/check_rsqrtps.py.  Other CPUs'
``rsqrtps`` (AMD's) differ, and so would PyTorch's square roots there.

* float32, every operation rounded to float32, no fused multiply-add::

      y = rsqrtps(x);  g = x*y;  h = y*0.5             # g ~ sqrt(x), h ~ 1/(2 sqrt(x))
      e = 0.5 - g*h;  g = g + g*e;  h = h + h*e       # one coupled Newton step
      result = g + (x - g*g)*h                        # the final correction

* float64: ``s`` is ``rsqrtps`` of ``x``'s mantissa truncated to float32, scaled by a power of
  two (exactly ``x``'s ``1/sqrt`` to 12 bits); then, in double::

      xh = x with its low 27 bits cleared;  xl = x - xh
      e = (1 - xh*(s*s)) - xl*(s*s)                    # 1 - x s^2, one rounding
      p = (((e*C0 + C1)*e + C2)*e + C3)*e              # (1-e)**-0.5 - 1 ~ e/2 + 3e^2/8 + ...
      result = xh*s + (xl*s + (p*s)*x)

Inputs outside the fast path -- zeros, subnormals, the largest floats (float32 bits above
0x7f7ff000, float64 from 2**1022), infinities, NaNs and negatives -- go to MKL's scalar
``cout_rare`` routine, which is correctly rounded (every float32 checked) and gives a positive
default NaN for negative inputs (NumPy gives a negative one); NaN inputs pass through.
"""

from __future__ import annotations

import numpy as np

F32 = np.float32
F64 = np.float64
U32 = np.uint32
U64 = np.uint64
I64 = np.int64

_CHUNK = 1 << 15  # elements per pass: the temporaries stay in cache


def rsqrtps_estimates() -> np.ndarray:
    """``rsqrtps`` of the floats ``0x3f000000 + (i << 13)``, i < 2048 (all of [0.5, 2) by steps of
    2**13 floats), as float32 bits: 1/sqrt of each step's midpoint rounded to 12 fraction bits.
    No midpoint is within 1e-4 of a unit of a tie, so evaluating it in double is exact."""
    mid = (U32(0x3F000000 + (1 << 12)) + (np.arange(2048, dtype=U32) << U32(13))).view(F32)
    estimate = 1 / np.sqrt(mid.astype(F64))  # in (2**-0.5, 2**0.5)
    unit = np.where(estimate >= 1, 2.0 ** -12, 2.0 ** -13)
    return (np.rint(estimate / unit) * unit).astype(F32).view(U32)


_RSQRT = rsqrtps_estimates()
# float32: rsqrtps(x) = _RSQRT[i] scaled by 2**-k, x = x0 * 4**k with x0 in [0.5, 2); stored with
# 2**63 folded in, so that the bits are _RSQRT32[i] - ((bits >> 24) << 23)
_RSQRT32 = _RSQRT + U32(63 << 23)
# float64: the same estimates as doubles, to be scaled by 2**((1023 - biased exponent) >> 1)
_RSQRT64 = _RSQRT.view(F32).astype(F64).view(I64)
_POLY = tuple(np.array([v], U64).view(F64)[0]
              for v in (0x3FD1800032338CBB, 0x3FD40000B13001D9, 0x3FD80000000000F6, 0x3FDFFFFFFFFFFE71))
_HALF32 = F32(0.5)


def sqrt(a: np.ndarray) -> np.ndarray:
    """PyTorch's ``sqrt`` of an array (any shape), as a new array: MKL's HA square root for float32
    and float64, NumPy's for other dtypes (float16 is rounded from a correctly rounded float32
    square root there as in PyTorch; MKL does not serve them)."""
    if a.dtype == F32:
        return _map(a, _sqrt32_fast, _FAST32, U32)
    if a.dtype == F64:
        return _map(a, _sqrt64_fast, _FAST64, U64)
    return np.sqrt(a)


def _map(a: np.ndarray, fast, bounds: tuple, bits_type) -> np.ndarray:
    flat = np.ascontiguousarray(a).reshape(-1)
    out = np.empty_like(flat)
    bits = flat.view(bits_type)
    low, span = bounds
    with np.errstate(all="ignore"):
        for start in range(0, flat.size, _CHUNK):
            stop = min(flat.size, start + _CHUNK)
            fast(flat[start:stop], out[start:stop])
        # the fast path covers low <= bits(x) < low + span (a positive normal, not too large)
        rare = (bits - bits_type(low)) >= bits_type(span)
        if rare.any():
            out[rare] = _rare(flat[rare])
    return out.reshape(a.shape)


def _rare(x: np.ndarray) -> np.ndarray:
    """MKL's ``cout_rare``: the correctly rounded square root; +NaN for a negative input."""
    r = np.sqrt(x)
    return np.where(x < 0, x.dtype.type(np.nan), r)


_FAST32 = (0x00800000, 0x7F7FF001 - 0x00800000)
_FAST64 = (0x0010000000000000, 0x7FD0000000000000 - 0x0010000000000000)


def _sqrt32_fast(x: np.ndarray, out: np.ndarray) -> None:
    b = x.view(U32)
    # (indexing with intp is four times faster than with uint32)
    y = _RSQRT32[((b >> U32(13)) & U32(0x7FF)).astype(np.intp)]
    y -= (b >> U32(24)) << U32(23)
    y = y.view(F32)
    g = x * y
    h = y * _HALF32
    e = g * h
    np.subtract(_HALF32, e, out=e)
    t = g * e
    g += t
    np.multiply(h, e, out=e)
    h += e
    np.multiply(g, g, out=t)
    np.subtract(x, t, out=t)
    t *= h
    np.add(g, t, out=out)


def _sqrt64_fast(x: np.ndarray, out: np.ndarray) -> None:
    b = x.view(U64)
    s = _RSQRT64[((b >> U64(42)) & U64(0x7FF)).view(I64)]
    scale = (I64(1023) - (b >> U64(52)).view(I64)) >> I64(1)
    scale <<= I64(52)
    s += scale
    s = s.view(F64)
    t = s * s
    xh = (b & U64(0xFFFFFFFFF8000000)).view(F64)
    xl = x - xh
    e = xh * t
    np.subtract(F64(1), e, out=e)
    t *= xl
    e -= t
    p = e * _POLY[0]
    for c in _POLY[1:]:
        p += c
        p *= e
    p *= s
    p *= x
    np.multiply(xl, s, out=t)
    t += p
    np.multiply(xh, s, out=p)
    np.add(p, t, out=out)
