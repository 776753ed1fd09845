"""Integer draws: ``randint``, ``random_``, ``randint_like``, ``randperm`` (ATen's random_from_to and randperm_cpu)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import draw_order
from ..errors import TorchRuntimeError
from .generator import Generator, resolve

_U64 = np.uint64
#: Ranges from 2**28 up draw random64() (2 words) per element, smaller ones 1.
RANDOM64_THRESHOLD = 1 << 28
#: randperm switches to an inside-out shuffle with random64() at this n.
RANDPERM_SMALL_LIMIT = (2**32 - 1) // 20

# Tensor.random_() with no bounds: the modulus per dtype (torch's
# uniform_int_distribution), and whether it draws random64().
_FULL_RANGE = {
    np.dtype(np.int64): (2**63, True),
    np.dtype(np.float64): (2**53 + 1, True),
    np.dtype(np.float32): (2**24 + 1, False),
    np.dtype(np.float16): (2**11 + 1, False),
    np.dtype(np.int32): (2**31, False),
    np.dtype(np.int16): (2**15, False),
    np.dtype(np.int8): (2**7, False),
    np.dtype(np.uint8): (2**8, False),
    np.dtype(np.bool_): (2, False),  # val & 1
}


_FLOAT_DIGITS = {np.dtype(np.float16): 11, np.dtype(np.float32): 24, np.dtype(np.float64): 53}


def _to_float_int(v: int, digits: int, max_finite: float) -> int:
    """``(int64_t)(scalar_t)v``: v rounded to ``digits`` bits, ties to even.

    A float at or beyond 2**63, or infinite, converts on x86 to INT64_MIN
    (the "integer indefinite" of cvttss2si; UB in C++, but what torch does).
    """
    mag = abs(v)
    shift = mag.bit_length() - digits
    if shift <= 0:
        return v
    q, r = divmod(mag, 1 << shift)
    half = 1 << (shift - 1)
    if r > half or (r == half and q & 1):
        q += 1
    out = (q << shift) if v >= 0 else -(q << shift)
    return out if -(2**63) <= out < 2**63 and abs(out) <= max_finite else -(2**63)


def adjust_float_bounds(low: int, high: int, dtype: Any) -> tuple[int, int]:
    """torch's ``update_from`` / ``update_to`` for floating ``random_(low, high)``.

    When ``low + 1`` would round below ``low`` (or ``high - 1`` round up to
    ``high``) in the dtype, torch moves the bound inward by one float spacing.
    A no-op within +-2**24 (float32) / 2**53 (float64) / 2**11 (float16); for
    integer dtypes it returns the bounds unchanged.
    """
    dt = np.dtype(dtype)
    digits = _FLOAT_DIGITS.get(dt)
    if digits is None:
        return low, high
    top = float(np.finfo(dt).max)
    up = _to_float_int(low + 1, digits, top)
    if up < low:
        low = _wrap64(up + (1 << ((abs(low + 1).bit_length() - 1) - digits + 1)))
    down = _to_float_int(high - 1, digits, top)
    if down >= high:
        high = _wrap64(down - (1 << ((abs(high - 1).bit_length() - 1) - digits + 1)))
    return low, high


def _wrap64(v: int) -> int:
    """int64 arithmetic as the compiled code does it (two's complement wrap)."""
    return (v + 2**63) % 2**64 - 2**63


def randint_values(n: int, low: int, high: int, gen: Generator) -> np.ndarray:
    """``n`` draws of ``random_(low, high)`` as int64 (wrapped), in draw order.

    ``v = random() % R`` for ``R = high - low < 2**28``, else
    ``random64() % R``, then ``low + v`` modulo 2**64.
    """
    span = (high - low) % 2**64
    if span == 0:
        raise ValueError("empty range")
    if span >= RANDOM64_THRESHOLD:
        raw = gen.random_u64(n)
    else:
        raw = gen.random_u32(n)
    raw %= _U64(span)
    raw += _U64(low % 2**64)  # uint64 wraps like torch's unsigned add
    return raw.view(np.int64)


def randint(
    low: int,
    high: int,
    shape: tuple[int, ...],
    dtype: Any = np.int64,
    *,
    generator: Generator | None = None,
) -> np.ndarray:
    """``torch.randint(low, high, size, dtype=)``: a new C-contiguous array.

    torch's default dtype is int64 and ``randint(high, size)`` means
    ``low = 0``.  Any NumPy integer/bool/float dtype works: values are
    computed in int64 and cast as C++ ``static_cast`` does (integers wrap,
    floats round to nearest).

    The caller validates first, in this order; torch's messages:

    - a bound outside int64: ``ValueError: Overflow when unpacking long long``
      (torch's argument parser; high=2**63 is already out)
    - ``low >= high``: ``RuntimeError: random_ expects 'from' to be less than
      'to', but got from=5 >= to=5``
    - float dtypes only: ``low, high = adjust_float_bounds(low, high, dtype)``;
      if they now cross, ``RuntimeError: random_ expects 'from' casted to
      dtype to be less than 'to' casted to dtype, but got from=.. >= to=..``
      (``randint_`` also raises it).  The checks below use these bounds.
    - ``low`` outside the dtype: ``RuntimeError: from is out of bounds for
      {ctype}``, then ``high - 1`` outside: ``RuntimeError: to - 1 is out of
      bounds for {ctype}``, where {ctype} is ``bool``, ``unsigned char``
      (uint8), ``signed char`` (int8), ``short int``, ``int`` or ``c10::Half``.
      int64 never fails here; float32/float64 only warn beyond 2**24/2**53:
      ``UserWarning: to - 1 is out of bounds [-(2^24), 2^24]. Due to
      precision limitations float can support discrete uniform distribution
      only within this range. This warning will become an error in version
      1.7 release, please fix the code in advance`` (``from is out of bounds
      [...]`` for the low bound; ``2^53`` and ``double`` for float64).
    """
    out = np.empty(shape, dtype=dtype)
    randint_(out, low, high, generator=generator)
    return out


def randint_(out: np.ndarray, low: int, high: int, *, generator: Generator | None = None) -> None:
    """Fill ``out`` like ``Tensor.random_(low, high)``, in memory order.

    Backs ``randint_like(x, low, high)`` (``out`` allocated like ``x``) and
    ``Tensor.random_(from, to)`` / ``random_(to)``.  Requires ``low < high``.
    For float dtypes the bounds first go through ``adjust_float_bounds``; if
    they cross, this raises torch's ``RuntimeError: random_ expects 'from'
    casted to dtype to be less than 'to' casted to dtype, but got from=.. >= to=..``
    (before the emptiness check, as torch does).
    """
    low, high = adjust_float_bounds(low, high, out.dtype)
    if low >= high:
        raise TorchRuntimeError(
            "random_ expects 'from' casted to dtype to be less than 'to' casted to "
            f"dtype, but got from={low} >= to={high}"
        )
    if out.size == 0:
        return
    draw_order.fill(out, randint_values(out.size, low, high, resolve(generator)))


def random_(out: np.ndarray, *, generator: Generator | None = None) -> None:
    """``Tensor.random_()`` with no bounds, in memory order.

    int64: ``random64() % 2**63``; float64: ``random64() % (2**53 + 1)``;
    float32: ``random() % (2**24 + 1)``; int32/16/8, uint8: ``random() %
    (max + 1)``; float16: ``random() % 2049``; bool: ``random() & 1``.
    """
    if out.size == 0:
        return
    mod, wide = _FULL_RANGE[np.dtype(out.dtype)]
    gen = resolve(generator)
    raw = gen.random_u64(out.size) if wide else gen.random_u32(out.size)
    raw %= _U64(mod)
    draw_order.fill(out, raw.view(np.int64))


def randperm(n: int, dtype: Any = np.int64, *, generator: Generator | None = None) -> np.ndarray:
    """``torch.randperm(n, dtype=)`` (default int64).  n <= 1 draws nothing.

    For ``n < 214748364``: ``a = arange(n)``, then for ``i = 0..n-2`` swap
    ``a[i]`` with ``a[i + random() % (n - i)]`` (n - 1 draws).  Larger n use
    torch's inside-out shuffle with ``random64()`` (from source, unverified).

    The caller validates; torch's messages: ``n < 0``: ``RuntimeError: Trying
    to create tensor with negative dimension -1: [-1]``; float32 beyond 2**24+1:
    ``RuntimeError: n cannot be greater than 2^24+1 for Float type.`` (float64:
    ``2^53+1 for Double``, float16: ``2049 for Half``); bool:
    ``NotImplementedError: "randperm" not implemented for 'Bool'``; uint8 with
    n > 256: ``RuntimeError: value cannot be converted to type uint8_t
    without overflow``.
    """
    gen = resolve(generator)
    if n < RANDPERM_SMALL_LIMIT:
        perm = _swap_shuffle(n, gen)
    else:
        perm = _inside_out_shuffle(n, gen)
    return np.asarray(perm, dtype=np.int64).astype(dtype, copy=False)


def _swap_shuffle(n: int, gen: Generator) -> list[int]:
    perm = list(range(n))
    if n < 2:
        return perm
    spans = np.arange(n, 1, -1, dtype=np.uint64)  # n - i for i = 0..n-2
    targets = (gen.random_u32(n - 1) % spans).astype(np.int64)
    targets += np.arange(n - 1)
    for i, k in enumerate(targets.tolist()):  # sequential by nature
        perm[i], perm[k] = perm[k], perm[i]
    return perm


def _inside_out_shuffle(n: int, gen: Generator) -> list[int]:
    perm = [0] * n
    step = 1 << 20
    for base in range(0, n, step):
        count = min(step, n - base)
        spans = np.arange(base + 1, base + count + 1, dtype=np.uint64)
        picks = (gen.random_u64(count) % spans).tolist()
        for i, z in enumerate(picks, start=base):
            perm[i] = perm[z]
            perm[z] = i
    return perm
