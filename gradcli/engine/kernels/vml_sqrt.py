"""``torch.sqrt`` of float32 and float64 as PyTorch 2.13 computes it: MKL VML's high-accuracy
``vsSqrt``/``vdSqrt`` (``at::vml``, mode HA | FTZDAZ_OFF | ERRMODE_IGNORE), bit for bit.

Which MKL code path: the reference CPU's.  The corpus's outputs were made on an AMD EPYC; there
PyTorch's bundled MKL 2024.2 runs the same square root kernel under every ``MKL_CBWR`` setting
(on an Intel CPU, ``MKL_CBWR=COMPATIBLE`` selects it: ``mkl_vml_kernel_[sd]Sqrt_H8HAynn``, the SSE4.2
kernels).  They are not correctly rounded: 17% of float32 and 1.4% of float64 results are one unit
in the last place off.

The kernels start from ``rsqrtps``, the CPU's reciprocal square root estimate, and that is where
CPUs differ.  The reference CPU's is a table of 8192 floats with 12 fraction bits, one per
interval of 2**11 floats of [0.5, 2) -- the interval given by the exponent's parity and the top 12
mantissa bits -- scaled by the rest of the exponent.  It has no formula we know of, so it ships as
measured (``rsqrtps_table.bin``, written by tests/tools/check_rsqrtps.py, which also checks that
it serves every positive normal float).  Intel's ``rsqrtps`` is a different table (the float with
12 fraction bits nearest to 1/sqrt of the midpoint of each interval of 2**13 floats): on an Intel
CPU PyTorch's square roots differ from these in the last bit for about 7% of float32s.

* float32, every operation rounded to float32, no fused multiply-add::

      y = rsqrtps(x);  g = x*y;  h = y*0.5             # g ~ sqrt(x), h ~ 1/(2 sqrt(x))
      e = 0.5 - g*h;  g = g + g*e;  h = h + h*e       # one coupled Newton step
      result = g + (x - g*g)*h                        # the final correction

* float64: ``s`` is ``rsqrtps`` of ``x``'s mantissa truncated to float32, scaled by a power of
  two (``x``'s ``1/sqrt`` to about 12 bits); then, in double::

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

import os

import numpy as np

F32 = np.float32
F64 = np.float64
U32 = np.uint32
U64 = np.uint64
I64 = np.int64

_CHUNK = 1 << 15  # elements per pass: the temporaries stay in cache


TABLE_FILE = "rsqrtps_table.bin"
TABLE_SIZE = 8192


def rsqrtps_table() -> np.ndarray:
    """The reference CPU's ``rsqrtps`` of the floats ``0x3f000000 + (i << 11)``, i < 8192 (all of
    [0.5, 2) by steps of 2**11 floats), as float32 bits (little-endian uint32 in the file)."""
    # os.path, not pathlib or importlib.resources: a plain run imports neither (5 ms of start-up)
    with open(os.path.join(os.path.dirname(__file__), TABLE_FILE), "rb") as file:
        data = file.read()
    table = np.frombuffer(data, "<u4").astype(U32)
    if table.size != TABLE_SIZE:
        raise RuntimeError(f"{TABLE_FILE} holds {table.size} entries, not {TABLE_SIZE}: a damaged install")
    return table


_RSQRT = rsqrtps_table()
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
    y = _RSQRT32[((b >> U32(11)) & U32(0x1FFF)).astype(np.intp)]
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
    s = _RSQRT64[((b >> U64(40)) & U64(0x1FFF)).view(I64)]
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
