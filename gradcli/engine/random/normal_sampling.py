"""Normal samples: ``randn``, ``normal``, ``normal_``, ``randn_like`` (ATen's normal kernels).

Two unrelated algorithms, chosen per call:

- block path: ``numel >= 16`` and the output is contiguous.  All uniforms are
  drawn first, then transformed 16 at a time (Box-Muller on the pairs
  ``(d[j], d[j+8])``); a ragged tail redraws 16 fresh uniforms over the last
  16 slots.  float32 uses the AVX2 kernel's own log/sincos
  (``avx_mathfun``), float64 uses libm through ``math``.
- per-element path: everything else (small or non-contiguous outputs).  Each
  pair of float64 uniforms yields two normals; the second waits in the
  generator's ``cached_normal`` for the next element, even across calls.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import draw_order
from . import avx_mathfun
from ..kernels.exactfp import fma32, fma64
from .generator import Generator, resolve
from .uniform_sampling import float_dtype

F32 = np.float32
F64 = np.float64
BLOCK = 16
_TWO_PI = 2.0 * math.pi  # exact double product, as torch's 2.0 * pi<double>
_CHUNK = 1 << 15  # block-path lanes per NumPy pass: keeps temporaries in cache


def _is_identity(mean: float, std: float) -> bool:
    """Whether ``fma(v, std, mean)`` is just ``v + 0.0`` (-0.0 turns +0.0).

    A mean of -0.0 is not: ``-0.0 + -0.0`` stays -0.0.
    """
    return std == 1 and mean == 0 and not math.copysign(1.0, mean) < 0


# -- block path ----------------------------------------------------------------
def _fill16_f32(u: np.ndarray, mean: float, std: float, dest: np.ndarray | None = None) -> np.ndarray:
    """``normal_fill_16_AVX2`` over consecutive 16-blocks of float32 uniforms, into ``dest``
    (1-D, ``u``'s size; a new array when None), which is returned."""
    if dest is None:
        dest = np.empty(u.size, F32)
    blocks = u.reshape(-1, BLOCK)
    out = dest.reshape(-1, BLOCK)
    std32, mean32 = F32(std), F32(mean)
    plain = _is_identity(mean32, std32)
    rows = max(1, min(len(blocks), _CHUNK // 8))
    lanes = rows * 8
    ws = avx_mathfun.Workspace(lanes)
    rad, sin_v, cos_v = (np.empty(lanes, F32) for _ in range(3))
    for start in range(0, len(blocks), rows):
        part = blocks[start : start + rows]
        shape = (len(part), 8)
        k = part.shape[0] * 8
        avx_mathfun.radius(part[:, :8], rad[:k], ws)
        avx_mathfun.sincos(part[:, 8:], sin_v[:k], cos_v[:k], ws)
        chunk = out[start : start + len(part)]
        np.multiply(rad[:k].reshape(shape), cos_v[:k].reshape(shape), out=chunk[:, :8])
        np.multiply(rad[:k].reshape(shape), sin_v[:k].reshape(shape), out=chunk[:, 8:])
        if plain and not rad[:k].all():
            # fma(v, 1, 0) turns -0.0 into +0.0; a product is -0.0 only where the radius is
            # zero (neither polynomial yields -0.0), so only such chunks need the pass
            chunk += F32(0.0)
    if not plain:
        dest[...] = fma32(dest, std32, mean32)
    return dest


def _map(fn: Any, x: np.ndarray) -> np.ndarray:
    """libm ``fn`` (via ``math``) over a float64 array, one call per element.

    NumPy's own log/log1p (and, on some builds, sin/cos) are SIMD versions
    that differ from glibc in the last bit; torch calls libm.
    """
    flat = np.ascontiguousarray(x, dtype=F64).reshape(-1)
    return np.fromiter(map(fn, memoryview(flat)), dtype=F64, count=flat.size).reshape(x.shape)


def _fill16_f64(u: np.ndarray, mean: float, std: float, dest: np.ndarray | None = None) -> np.ndarray:
    """``normal_fill_16<double>`` over consecutive 16-blocks of uniforms, into ``dest`` (a new
    array when None), which is returned."""
    if dest is None:
        dest = np.empty(u.size, F64)
    blocks = u.reshape(-1, BLOCK)
    radius = np.sqrt(-2.0 * _map(math.log, 1.0 - blocks[:, :8]))
    theta = _TWO_PI * blocks[:, 8:]
    out = dest.reshape(-1, BLOCK)
    np.multiply(radius, _map(math.cos, theta), out=out[:, :8])
    np.multiply(radius, _map(math.sin, theta), out=out[:, 8:])
    if _is_identity(mean, std):
        dest += 0.0  # fma(v, 1, 0): -0.0 becomes +0.0
    else:
        dest[...] = fma64(dest, std, mean)
    return dest


def _block_values(dest: np.ndarray, mean: float, std: float, gen: Generator) -> None:
    """torch's ``normal_fill`` into ``dest``: 1-D, contiguous, float32 or float64, at least 16
    elements."""
    n = dest.size
    if dest.dtype == F32:
        draw, fill16 = gen.uniform_f32, _fill16_f32
    else:
        draw, fill16 = gen.uniform_f64, _fill16_f64
    u = draw(n)
    full = n - n % BLOCK
    fill16(u[:full], mean, std, dest[:full])
    if full != n:
        # The tail's first uniforms are wasted: 16 fresh ones overwrite the
        # last 16 slots, including already transformed ones.
        fill16(draw(BLOCK), mean, std, dest[n - BLOCK :])


# -- per-element path ------------------------------------------------------------
def per_element_normals(n: int, mean: float, std: float, gen: Generator) -> np.ndarray:
    """``n`` float64 values of ``at::normal_distribution<double>``, in order."""
    g = np.empty(n, dtype=F64)
    start = 0
    if gen.cached_normal is not None:
        g[0] = gen.cached_normal
        gen.cached_normal = None
        start = 1
    pairs = (n - start + 1) // 2
    if pairs:
        u = gen.uniform_f64(2 * pairs)
        x1, x2 = u[0::2], u[1::2]  # the first uniform is the angle
        r = np.sqrt(-2.0 * _map(math.log1p, -x2))
        theta = _TWO_PI * x1
        both = np.empty(2 * pairs, dtype=F64)
        both[0::2] = r * _map(math.cos, theta)
        both[1::2] = r * _map(math.sin, theta)
        g[start:] = both[: n - start]
        if n - start < 2 * pairs:
            gen.cached_normal = float(both[-1])
    if _is_identity(mean, std):
        return g + 0.0
    return fma64(g, std, mean)


# -- public ----------------------------------------------------------------------
def normal(
    shape: tuple[int, ...],
    dtype: Any = np.float32,
    mean: float = 0.0,
    std: float = 1.0,
    *,
    generator: Generator | None = None,
) -> np.ndarray:
    """A new C-contiguous array of ``normal_(mean, std)`` values.

    Backs ``torch.randn(size, dtype=)`` (mean 0, std 1) and
    ``torch.normal(mean: float, std: float, size, dtype=)``.  ``dtype`` is
    float32 or float64.  16 or more elements take the block path, fewer the
    per-element path (which may use or leave ``cached_normal``).

    The caller checks ``std``: ``RuntimeError: normal expects std >= 0.0,
    but found std -1`` (torch formats the double as ``%g``-like, e.g. ``-1``,
    ``-0.5``).  Integer dtypes: ``NotImplementedError: "normal_kernel_cpu"
    not implemented for 'Long'``.
    """
    out = np.empty(shape, dtype=float_dtype(dtype))
    normal_(out, mean, std, generator=generator)
    return out


def normal_(
    out: np.ndarray, mean: float = 0.0, std: float = 1.0, *, generator: Generator | None = None
) -> None:
    """Fill ``out`` in place like ``Tensor.normal_(mean, std)``.

    The path depends on ``out`` itself: contiguous with >= 16 elements takes
    the block path; anything else (a transposed or strided view, or what
    ``randn_like`` allocates for a non-contiguous input) takes the
    per-element path, filling in memory order.
    """
    n = out.size
    if n == 0:
        return
    dt = float_dtype(out.dtype)
    gen = resolve(generator)
    if n >= BLOCK and draw_order.is_contiguous(out):
        _block_values(out.reshape(-1), mean, std, gen)  # a view: the values go straight into out
    else:
        draw_order.fill(out, per_element_normals(n, mean, std, gen).astype(dt))


def _torch_inplace(op: Any, out: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``out.op_(other)`` with torch's promotion: a 0-dim float operand does
    not widen a dimensioned float output; otherwise compute in the promoted
    dtype and cast back to ``out``'s."""
    if other.ndim == 0 and out.ndim > 0:
        common = out.dtype
    else:
        common = np.result_type(out.dtype, other.dtype)
    return op(out.astype(common, copy=False), other.astype(common, copy=False)).astype(out.dtype)


def normal_tensor(
    mean: float | np.ndarray,
    std: float | np.ndarray,
    *,
    generator: Generator | None = None,
) -> np.ndarray:
    """``torch.normal`` with a tensor mean and/or std (pass at least one array).

    - ``normal(mean_arr, std_float)``: shape and dtype of ``mean``; draws
      ``normal_(0, std)``, then adds ``mean``.
    - ``normal(mean_float, std_arr)``: shape and dtype of ``std``; draws
      ``normal_(0, 1)``, multiplies by ``std``, adds ``mean`` (as a 0-dim
      value of the output dtype).
    - ``normal(mean_arr, std_arr)``: broadcast shape, ``mean``'s dtype; draws
      ``normal_(0, 1)``, multiplies by ``std``, adds ``mean``.

    The draw fills a fresh contiguous array, so 16+ elements take the block
    path.  The products and sums are separate roundings, promoted as torch
    promotes (a float64 std with a float32 mean computes the product in
    float64).  Arrays must be float32/float64.  The caller validates; torch's
    messages: ``RuntimeError: normal expects std >= 0.0, but found std -1``
    (float std), ``RuntimeError: normal expects all elements of std >= 0.0``
    (array std), and for unbroadcastable shapes ``RuntimeError: The size of
    tensor a (3) must match the size of tensor b (2) at non-singleton
    dimension 0``.
    """
    mean_is_arr = isinstance(mean, np.ndarray)
    std_is_arr = isinstance(std, np.ndarray)
    if mean_is_arr and not std_is_arr:
        out = normal(mean.shape, mean.dtype, 0.0, float(std), generator=generator)
        return _torch_inplace(np.add, out, mean)
    if std_is_arr and not mean_is_arr:
        out = normal(std.shape, std.dtype, generator=generator)
        out = _torch_inplace(np.multiply, out, std)
        return _torch_inplace(np.add, out, np.asarray(mean, dtype=out.dtype))
    if not (mean_is_arr and std_is_arr):
        raise TypeError("normal_tensor needs an array mean or std; use normal()")
    shape = np.broadcast_shapes(mean.shape, std.shape)
    out = normal(shape, mean.dtype, generator=generator)
    out = _torch_inplace(np.multiply, out, std)
    return _torch_inplace(np.add, out, mean)
