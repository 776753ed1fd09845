"""Inputs for the MKL sqrt tests (test_vml_sqrt.py, test_vml_sqrt_oracle.py) and their generator
(tests/tools/make_vml_sqrt_bits.py): special values, deterministic bulk samples, a digest of results,
and a plausible but wrong kernel the tests must tell apart from MKL's.
"""

from __future__ import annotations

import hashlib

import numpy as np

F32, F64, U32, U64 = np.float32, np.float64, np.uint32, np.uint64

SPECIALS32 = np.array([
    0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xBF800000,
    0x80000001, 0x00000001, 0x00000002, 0x007FFFFF, 0x00800000, 0x00800001, 0x7F7FEFFF, 0x7F7FF000,
    0x7F7FF001, 0x7F7FFFFF, 0x3F800000, 0x40000000, 0x40800000, 0x3E800000, 0x3F000000, 0x3FFFFFFF,
], U32).view(F32)
SPECIALS64 = np.array([
    0x0000000000000000, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
    0xFFF8000000000000, 0xBFF0000000000000, 0x8000000000000001, 0x0000000000000001, 0x000FFFFFFFFFFFFF,
    0x0010000000000000, 0x0010000000000001, 0x7FCFFFFFFFFFFFFF, 0x7FD0000000000000, 0x7FEFFFFFFFFFFFFF,
    0x3FF0000000000000, 0x4000000000000000, 0x4010000000000000, 0x3FD0000000000000, 0x3FE0000000000000,
], U64).view(F64)


def every_float32_mantissa() -> np.ndarray:
    """All 2**24 floats of [0.5, 2): every mantissa with both exponent parities."""
    return np.arange(0x3F000000, 0x40000000, dtype=U32).view(F32)


def float64_sample(n: int = 1 << 20) -> np.ndarray:
    """``n`` deterministic doubles: a quarter in [0.5, 2), the rest positive bit patterns of every
    exponent (subnormals, infinities and NaNs among them).  A Weyl sequence, so no generator version
    can change it."""
    k = np.arange(n, dtype=U64)
    with np.errstate(over="ignore"):
        bits = (k * U64(0x9E3779B97F4A7C15) + U64(0x632BE59BD9B4E019)) >> U64(1)
    mantissa = bits & U64((1 << 52) - 1)
    unit = (U64(0x3FE0000000000000) + (((bits >> U64(62)) & U64(1)) << U64(52))) | mantissa
    return np.where(k % U64(4) == 0, unit, bits).view(F64)


def digest(a: np.ndarray) -> str:
    """sha256 of an array's bytes (little-endian, C order)."""
    return hashlib.sha256(np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes()).hexdigest()


def compatible_library_sqrt32(x: np.ndarray) -> np.ndarray:
    """The standalone MKL's ``MKL_CBWR=COMPATIBLE`` kernel (libmkl_vml_cmpt): the same Newton step from
    ``1 / sqrtps(x)`` cut to 12 bits instead of ``rsqrtps``.  Not what PyTorch runs (8% of the
    results in [0.5, 2) differ); kept as the wrong kernel a test must notice."""
    x = np.ascontiguousarray(x, F32)
    with np.errstate(all="ignore"):
        y = ((F32(1) / np.sqrt(x)).view(U32) & U32(0xFFFFF800)).view(F32)
        g, h = x * y, y * F32(0.5)
        e = F32(0.5) - g * h
        g, h = g + g * e, h + h * e
        r = g + (x - g * g) * h
        fast = (x.view(U32) - U32(0x00800000)) < U32(0x7F7FF001 - 0x00800000)
        return np.where(fast, r, np.where(x < 0, F32(np.nan), np.sqrt(x)))
