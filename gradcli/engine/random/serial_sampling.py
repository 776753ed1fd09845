"""The samplers ATen runs as serial CPU kernels: exponential_, cauchy_, geometric_, log_normal_, poisson.

Each element, in memory order, transforms fresh draws computed in double with
libm (``math``: NumPy's log/log1p/tan differ from glibc in the last bit), then
rounds to the tensor's dtype:

- ``exponential_(lambd)``: ``(-1 / lambd) * log1p(-u)``, one float64 uniform ``u``
  (2 draws).  This build draws from the MT engine, not from MKL's VSL streams.
- ``cauchy_(median, sigma)``: ``fma(sigma, tan(pi * (u - 0.5)), median)``.
- ``geometric_(p)``: ``ceil(log(u) / log1p(-p))``.
- ``log_normal_(mean, std)``: ``exp`` of the per-element normal (it reads and
  leaves the generator's normal cache as ``normal_`` does).
- ``poisson(rates)``: PyTorch's ``sample_poisson``: for a rate of 10 or more
  Hoermann's transformed rejection (two uniforms per try), below it the product
  of uniforms until it drops to ``exp(-rate)``.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import TorchRuntimeError
from ..kernels.exactfp import fma64
from . import draw_order
from .generator import Generator, resolve
from .normal_sampling import per_element_normals

_INT64_MIN = -(2 ** 63)


def exponential_values(n: int, lambd: float, gen: Generator) -> np.ndarray:
    """``n`` exponential variates in draw order, as float64."""
    scale = -1.0 / lambd  # (-1.0 / lambda) * log1p(-u), the kernel's own grouping
    log1p = math.log1p
    return np.array([scale * log1p(-u) for u in gen.uniform_f64(n).tolist()], dtype=np.float64)


def exponential_(out: np.ndarray, lambd: float = 1.0, *, generator: Generator | None = None) -> None:
    """Fill float32/float64 ``out`` like ``Tensor.exponential_(lambd)``.

    The caller checks, as torch does: ``RuntimeError: exponential_ expects lambda > 0.0,
    but found lambda=0`` (NaN too) and for integer dtypes ``RuntimeError: Exponential
    distribution is a continuous probability distribution. dtype must be a floating point
    but you specified Long``.  ``lambd = inf`` gives zeros.
    """
    if out.size:
        draw_order.fill(out, exponential_values(out.size, float(lambd), resolve(generator)))


def cauchy_(out: np.ndarray, median: float = 0.0, sigma: float = 1.0, *,
            generator: Generator | None = None) -> None:
    """``Tensor.cauchy_(median, sigma)``; the caller checks ``sigma > 0`` (``cauchy_ expects
    sigma > 0.0, but found sigma=0``) and the dtype (``Cauchy distribution is a continuous
    probability distribution. dtype must be a floating point but you specified long int``)."""
    if not out.size:
        return
    u = resolve(generator).uniform_f64(out.size)
    tan, pi = math.tan, math.pi
    t = np.array([tan(pi * (x - 0.5)) for x in u.tolist()], dtype=np.float64)
    draw_order.fill(out, fma64(np.float64(sigma), t, np.float64(median)))


def geometric_(out: np.ndarray, p: float, *, generator: Generator | None = None) -> None:
    """``Tensor.geometric_(p)`` (any real dtype); the caller checks ``0 < p < 1``
    (``geometric_ expects p to be in (0, 1), but got p=1.5``)."""
    if not out.size:
        return
    u = resolve(generator).uniform_f64(out.size)
    log, denominator = math.log, math.log1p(-p)
    draw_order.fill(out, np.array([math.ceil(log(x) / denominator) for x in u.tolist()], dtype=np.float64))


def log_normal_(out: np.ndarray, mean: float = 1.0, std: float = 2.0, *,
                generator: Generator | None = None) -> None:
    """``Tensor.log_normal_(mean, std)`` on float32/float64; the caller checks ``std > 0``
    (``log_normal_ expects std > 0.0, but found std=0``)."""
    if not out.size:
        return
    g = per_element_normals(out.size, mean, std, resolve(generator))
    draw_order.fill(out, np.array([_exp(v) for v in g.tolist()], dtype=np.float64))


def _exp(v: float) -> float:
    """C's exp: inf past the largest double (Python's math.exp raises there)."""
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf


def poisson(rates: np.ndarray, *, generator: Generator | None = None) -> np.ndarray:
    """``torch.poisson(rates)``: a new C-contiguous array of rates' shape and dtype.

    Raises torch's ``RuntimeError: invalid Poisson rate, expected rate to be non-negative``
    at the first negative (or NaN) rate, after the earlier elements have drawn.
    """
    out = np.zeros(rates.shape, dtype=rates.dtype)
    if not out.size:
        return out
    gen = resolve(generator)
    flat = out.reshape(-1)
    for i, rate in enumerate(np.ascontiguousarray(rates).reshape(-1).tolist()):
        flat[i] = _sample_poisson(rate, gen)
    return out


def _c_floor_to_int64(x: float) -> int:
    """``(int64_t)std::floor(x)`` as x86 computes it (NaN and overflow give INT64_MIN)."""
    if not math.isfinite(x):
        return _INT64_MIN
    k = math.floor(x)
    return k if _INT64_MIN <= k < 2 ** 63 else _INT64_MIN


def _sample_poisson(rate: float, gen: Generator) -> int:
    if not rate >= 0:
        raise TorchRuntimeError("invalid Poisson rate, expected rate to be non-negative")
    uniform = gen.uniform_f64
    if rate >= 10:  # transformed rejection (Hoermann, 1993)
        slam, loglam = math.sqrt(rate), math.log(rate)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u_v = uniform(2)
            u, v = float(u_v[0]) - 0.5, float(u_v[1])
            us = 0.5 - abs(u)
            k = _c_floor_to_int64((2 * a / us + b) * u + rate + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -rate + k * loglam - math.lgamma(float(k) + 1)):
                return k
    if rate == 0:
        return 0
    enlam = math.exp(-rate)
    x, prod = 0, 1.0
    while True:
        prod *= float(uniform(1)[0])
        if prod > enlam:
            x += 1
        else:
            return x
