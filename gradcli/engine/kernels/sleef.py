"""float32 ``exp`` and ``log`` as PyTorch's vectorised CPU kernels compute them.

Which routine PyTorch 2.13 (x86, MKL build, AVX512 dispatch) uses, as measured
against it:

* ``torch.exp``, ``torch.log``, ``torch.tanh`` go through MKL's VML (``vmsExp``
  ... in high-accuracy mode), closed source and nearly correctly rounded; they
  stay on NumPy in double (``float32_math.wide``), which agrees for ~99%.
* ``Vectorized<float>::exp()`` and ``::log()`` are SLEEF's ``expf_u10`` and
  ``logf_u10`` (the FMA builds; AVX2 and AVX512 give the same values).  They
  serve ``sigmoid`` and the softmax kernels, and are reproduced here bit for bit.
* Elementwise kernels (``cpu_kernel_vec``) run the vector routine on blocks of
  two vectors (32 floats, 16 doubles under AVX512) of each contiguous run of the
  iteration; the leftover elements of a run take the scalar lambda, i.e. glibc's
  ``expf`` (called through ctypes: it is not always correctly rounded).

Fused multiply-adds: ``expf`` emulates ``fma(a, b, c)`` as
``float32(float64(a) * b + c)``.  The product is exact in double; the range
reduction sums are exact too (multiples of 2**-44 below 2**7), so only the
Horner steps round twice, and a double rounding can only change the result
when the double sum lands exactly on a float32 midpoint.  The tests compare
millions of inputs with PyTorch.  ``logf`` is only used on one value per row
(softmax sums), so it uses the correctly rounded ``exactfp.fma32`` throughout.
"""

from __future__ import annotations

import numpy as np

from . import libm
from .exactfp import fma32
from .summation import reorder_dimensions, vectorised_elements

F32 = np.float32
F64 = np.float64

# Arrays up to this many elements take the SLEEF paths; larger ones stay on NumPy in
# double (correctly rounded, ~5x faster than this emulation at 10**6 elements).
EXACT_LIMIT = 1 << 17

LANES = 16  # floats per AVX512 vector

_R_LN2 = F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = F32(0.693145751953125)
_L2L = F32(1.428606765330187045e-06)
_EXP_POLY = tuple(F32(v) for v in (
    0.000198527617612853646278381, 0.00139304355252534151077271, 0.00833336077630519866943359,
    0.0416664853692054748535156, 0.166666671633720397949219, 0.5))
_LOG_POLY = tuple(F32(v) for v in (0.3027294874, 0.3996108174, 0.6666694880))
_LN2_HI = F32(0.69314718246459960938)
_LN2_LO = F32(-1.904654323148236017e-09)
_ONE = F32(1.0)


_CHUNK = 32768
_P64 = tuple(F64(c) for c in _EXP_POLY)
_SAME = "same_kind"


def expf(x: np.ndarray) -> np.ndarray:
    """SLEEF ``expf_u10`` of a float32 array (any shape), as a new float32 array.

    Works on chunks with preallocated buffers; the power-of-two scaling adds ``q``
    to the exponent field, valid while the result is a normal float.  Lanes
    outside ``[-87, 88]`` (and NaN) are redone by ``_expf_general``."""
    d = np.ascontiguousarray(x, F32)
    flat = d.reshape(-1)
    out = np.empty_like(flat)
    n = flat.size
    k = min(n, _CHUNK)
    qf, s, u = np.empty(k, F32), np.empty(k, F32), np.empty(k, F32)
    s64, u64, qi = np.empty(k, F64), np.empty(k, F64), np.empty(k, np.int32)
    with np.errstate(all="ignore"):
        for b in range(0, n, _CHUNK):
            e = min(n, b + _CHUNK)
            m = e - b
            dc = flat[b:e]
            q_, s_, u_, s64_, u64_, qi_ = qf[:m], s[:m], u[:m], s64[:m], u64[:m], qi[:m]
            np.multiply(dc, _R_LN2, out=q_)
            np.rint(q_, out=q_)
            np.multiply(q_, _L2U, out=s_)  # exact (q has <= 8 bits, L2U 16)
            np.subtract(dc, s_, out=s_)  # exact: |s| < 0.5 on d's grid
            np.multiply(q_, F64(_L2L), out=u64_)
            np.subtract(s_, u64_, out=u64_)  # exact in double
            np.copyto(s_, u64_, casting=_SAME)
            np.copyto(s64_, s_)
            np.multiply(s64_, _P64[0], out=u64_)
            np.add(u64_, _P64[1], out=u64_)
            np.copyto(u_, u64_, casting=_SAME)
            for c in _P64[2:]:
                np.multiply(u_, s64_, out=u64_)
                np.add(u64_, c, out=u64_)
                np.copyto(u_, u64_, casting=_SAME)
            np.multiply(s_, s_, out=s_)
            np.multiply(s_, u_, out=u64_, dtype=F64)
            np.add(u64_, s64_, out=u64_)
            np.copyto(u_, u64_, casting=_SAME)
            np.add(u_, _ONE, out=u_)
            np.copyto(qi_, q_, casting="unsafe")
            np.left_shift(qi_, 23, out=qi_)
            np.add(u_.view(np.int32), qi_, out=out[b:e].view(np.int32))
        if n:
            odd = ~((flat >= F32(-87.0)) & (flat <= F32(88.0)))
            if odd.any():
                out[odd] = _expf_general(flat[odd])
    return out.reshape(np.shape(x))  # (ascontiguousarray makes a 0-dim input 1-dim)


def _expf_general(x: np.ndarray) -> np.ndarray:
    """``expf`` for any float32 input, subnormal and overflowing results included."""
    d = np.asarray(x, F32)
    with np.errstate(all="ignore"):
        qf = np.rint(d * _R_LN2)  # cvtps2dq: round half to even
        d64 = d.astype(F64)
        q64 = qf.astype(F64)
        s = (d64 - q64 * F64(_L2U)).astype(F32)  # exact in double, one rounding
        s64 = s.astype(F64)
        s = (s64 - q64 * F64(_L2L)).astype(F32)
        s64 = s.astype(F64)
        u = (s64 * F64(_EXP_POLY[0]) + F64(_EXP_POLY[1])).astype(F32)
        for c in _EXP_POLY[2:]:
            u = (u.astype(F64) * s64 + F64(c)).astype(F32)
        ss = s * s
        u = (ss.astype(F64) * u + s64).astype(F32)
        u = _ONE + u
        # vldexp2: two power-of-two scalings, q>>1 then q - (q>>1)
        q = np.where(np.isfinite(qf), qf, F32(0)).astype(np.int32)
        h = q >> 1
        u = u * _pow2(h) * _pow2(q - h)
        u = np.where(d < F32(-104), F32(0), u)
        u = np.where(d > F32(100), F32(np.inf), u)
        u = np.where(np.isnan(d), d, u)
    return u.astype(F32, copy=False)


def _pow2(e: np.ndarray) -> np.ndarray:
    """``2.0f**e`` for integer ``e`` in float32's normal exponent range."""
    return ((np.clip(e, -126, 127) + 127).astype(np.int32) << 23).view(F32)


def logf(x: np.ndarray) -> np.ndarray:
    """SLEEF ``logf_u10`` (AVX512 build: getexp/getmant) of a float32 array."""
    d = np.asarray(x, F32)
    with np.errstate(all="ignore"):
        fin = np.isfinite(d) & (d > 0)
        dd = np.where(fin, d, _ONE)
        # e = getexp(d * (1/0.75)), m = getmant(d) normalised to [0.75, 1.5)
        _, ex = np.frexp(dd * F32(1.0 / 0.75))
        e = (ex - 1).astype(F32)
        f, k = np.frexp(dd)
        sig = f * F32(2)
        m = np.where(sig < F32(1.5), sig, f).astype(F32)
        # s = dfmul((ln2_hi, ln2_lo), e)
        sx = _LN2_HI * e
        sy = fma32(_LN2_LO, e, fma32(_LN2_HI, e, -sx))
        # x = dfdiv(dfadd2(-1, m), dfadd2(1, m))
        nx, ny = _two_sum(F32(-1), m)
        dx, dy = _two_sum(_ONE, m)
        t = _ONE / dx
        qx = nx * t
        uu = fma32(t, nx, -qx)
        v = fma32(-dy, t, fma32(-dx, t, _ONE))
        qy = fma32(qx, v, fma32(ny, t, uu))
        x2 = qx * qx
        p = fma32(fma32(_LOG_POLY[0], x2, _LOG_POLY[1]), x2, _LOG_POLY[2])
        # s = dfadd(s, dfscale(x, 2)); s = dfadd(s, x2 * x * p)
        ax, ay = qx * F32(2), qy * F32(2)
        nsx = sx + ax
        sy = (((sx - nsx) + ax) + sy) + ay
        sx = nsx
        w = (x2 * qx) * p
        nsx = sx + w
        sy = ((sx - nsx) + w) + sy
        r = (nsx + sy).astype(F32)
        # specials, as vfixup: +inf -> +inf, 0 -> -inf, negative or NaN -> NaN
        r = np.where(fin, r, np.log(d))
    return r.astype(F32, copy=False)


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """SLEEF's ``dfadd2_vf2_vf_vf`` in float32."""
    a = np.asarray(a, F32)
    b = np.asarray(b, F32)
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


# -- where cpu_kernel_vec uses the vector routine -------------------------------------------------

def _iteration(a: np.ndarray) -> tuple[list, int, bool]:
    """TensorIterator's iteration of a unary op over ``a``: the dimensions slowest first, the
    length of the contiguous runs after coalescing, and whether the runs are vectorised
    (the input's innermost stride is one element, or 0: a broadcast scalar)."""
    nd = a.ndim
    strides = [abs(s) for s in a.strides]
    shape = list(a.shape)
    # (the output is not allocated yet: the input alone orders the dimensions)
    perm = reorder_dimensions(shape, (strides,), list(range(nd - 1, -1, -1)))  # fastest first
    # coalesce from the fastest dimension (the output, allocated in this order, always allows it)
    run_shape, run_stride = shape[perm[0]], strides[perm[0]]
    for d in perm[1:]:
        if shape[d] == 1:
            continue
        if run_shape == 1:
            run_shape, run_stride = shape[d], strides[d]
        elif run_stride * run_shape == strides[d]:
            run_shape *= shape[d]
        else:
            break
    vectorised = run_stride in (0, a.itemsize) or run_shape == 1
    return perm[::-1], run_shape, vectorised


def vector_mask(a: np.ndarray, vectors: int = 2) -> np.ndarray:
    """Boolean array of ``a``'s shape: True where a unary ``cpu_kernel_vec`` op (output
    allocated by TensorIterator) evaluates the element with the vector routine, False
    where the scalar tail loop does.  The vector loop steps by ``vectors`` AVX512 vectors
    of ``a``'s dtype (two: 32 floats or 16 doubles; lerp's kernel steps by one)."""
    block = vectors * (64 // a.itemsize)
    n = a.size
    if n == 0:
        return np.zeros(a.shape, bool)
    if a.ndim == 0:
        return np.zeros((), bool)
    order, inner, vectorised = _iteration(a)
    it_shape = tuple(a.shape[d] for d in order)
    # an inner dimension that is strided is all scalar
    mask = vectorised_elements(n, inner, block) if vectorised else np.zeros(n, bool)
    return np.transpose(mask.reshape(it_shape), np.argsort(order))


def sigmoid(a: np.ndarray) -> np.ndarray:
    """PyTorch's float32 sigmoid: ``1 / (1 + exp(-x))`` with SLEEF's exp in the vector
    blocks and glibc's (correctly rounded) exp in the tails."""
    neg = -a
    mask = vector_mask(a)
    if mask.all():
        e = expf(neg)
    else:
        e = np.empty(a.shape, F32)
        e[~mask] = libm.call("expf", neg[~mask], np.exp)
        if mask.any():
            e[mask] = expf(neg[mask])
    return (_ONE / (_ONE + e)).astype(F32, copy=False)


# -- softmax / log_softmax over the last dimension -------------------------------------------------

def _reduce_all_sum(e: np.ndarray) -> np.ndarray:
    """``vec::reduce_all`` with ``+`` over the last axis of a 2-D float32 array: one
    vector accumulator over whole vectors, the partial last vector added into the
    first lanes, then the lanes folded in halves (16 -> 8 -> 4 -> 2 -> 1).  Rows
    shorter than a vector are summed left to right."""
    rows, n = e.shape
    if n < LANES:
        acc = e[:, 0].copy()
        for i in range(1, n):
            acc += e[:, i]
        return acc
    acc = e[:, :LANES].copy()
    full = n - n % LANES
    for d in range(LANES, full, LANES):
        acc += e[:, d:d + LANES]
    r = n % LANES
    if r:
        acc[:, :r] += e[:, full:]
    h = LANES
    while h > 1:
        h //= 2
        acc = acc[:, :h] + acc[:, h:2 * h]
    return acc[:, 0]


def softmax_lastdim(x: np.ndarray, log: bool) -> np.ndarray:
    """``_vec_softmax_lastdim`` / ``_vec_log_softmax_lastdim`` for float32 ``x`` (ndim >= 1,
    no zero-size dimension): every element through the vector exp (``vec::map`` and
    ``map_reduce_all`` handle partial vectors with the vector routine too)."""
    shape = x.shape
    a = np.ascontiguousarray(x).reshape(-1, shape[-1])
    with np.errstate(all="ignore"):
        m = np.max(a, axis=1, keepdims=True)
        shifted = a - m
        e = expf(shifted)
        total = _reduce_all_sum(e)
        if log:
            out = shifted - logf(total)[:, None]  # x - max - log(sum), in that order
        else:
            out = e * (_ONE / total)[:, None]
    return out.reshape(shape).astype(F32, copy=False)


def softmax_backward_lastdim(grad: np.ndarray, output: np.ndarray, log: bool) -> np.ndarray:
    """``_vec_softmax_backward`` over the last dimension for float32 (same shapes): for log
    softmax ``grad - exp(output) * reduce_all(grad)`` (one fused multiply-add, as the compiler
    contracts it), else ``(grad - map2_reduce_all(grad * output)) * output``, every element
    through the vector routines."""
    shape = grad.shape
    g = np.ascontiguousarray(grad, dtype=F32).reshape(-1, shape[-1])
    out = np.ascontiguousarray(output, dtype=F32).reshape(-1, shape[-1])
    with np.errstate(all="ignore"):
        if log:
            total = np.broadcast_to(_reduce_all_sum(g)[:, None], g.shape)
            result = fma32(-expf(out), total, g)
        else:
            result = (g - _reduce_all_sum(g * out)[:, None]) * out
    return result.reshape(shape).astype(F32, copy=False)
