"""The arithmetic of PyTorch's CPU activation kernels, element for element.

ATen's activations are ``cpu_kernel_vec`` loops (Activation.cpp): whole blocks of
each contiguous run go through the ``Vectorized`` routine, the rest through the
scalar lambda (``kernels.sleef.vector_mask`` says which is which).  For float32
the vector routines are SLEEF's (``kernels.sleef``, ``kernels.sleef_f32``; erf is ATen's own,
``erf_vector``) and the scalar ones glibc's (``kernels.libm``); products that feed an addition in the
kernels' own expressions are fused, as GCC compiles them (``fma32``).  Two kernels
are no such loop:

- ``F.gelu`` (approximate='none') of a contiguous float32 tensor of two or more
  elements runs oneDNN's eltwise kernel (``use_mkldnn`` in Activation.cpp): a
  minimax polynomial in |x| per range of x, picked by its exponent and two
  mantissa bits (``_ONEDNN_GELU``, oneDNN's table);
- ``F.logsigmoid`` vectorises every element, the tail included (a partial vector).

float64 follows the same split with libm (Python's ``math``: glibc's) in the scalar
path; its vector path stays on NumPy, whose exp/log1p/tanh/erf are not SLEEF's
double routines (see the mismatch rates in the tests).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ..kernels import binary_loops, libm
from ..kernels.exactfp import fma32, fma64
from ..kernels.sleef import expf, vector_mask
from ..kernels.sleef_f32 import expm1f, log1pf, tanhf

F32 = np.float32
F64 = np.float64
Kernel = Callable[[np.ndarray], np.ndarray]


def by_path(a: np.ndarray, vector: Kernel, scalar: Kernel, layout: np.ndarray | None = None,
            step: int = 2) -> np.ndarray:
    """``vector`` of ``a`` where PyTorch's loop vectorises the element, ``scalar`` where it does not;
    the loop's layout is ``layout``'s (the op's input) when ``a`` was computed from it; ``step``
    is ``vector_mask``'s."""
    mask = vector_mask(a if layout is None else layout, step)
    if mask.all():
        return np.asarray(vector(a), dtype=a.dtype).reshape(a.shape)
    out = np.empty(a.shape, dtype=a.dtype)
    if (~mask).any():
        out[~mask] = scalar(a[~mask])
    if mask.any():
        out[mask] = vector(a[mask])
    return out


_ERF_P = F32(0.3275911)
_ERF_POLY = tuple(F32(c) for c in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592))


def erf_vector(x: np.ndarray) -> np.ndarray:
    """ATen's ``Vectorized<float>::erf()`` (AVX512): ``1 - r(t) * t * exp(-x*x)`` with the sign of x,
    ``t = 1 / (0.3275911 |x| + 1)`` and the Abramowitz-Stegun polynomial r, every step fused, with
    SLEEF's ``expf_u10``."""
    x = np.asarray(x, F32)
    one = F32(1)
    with np.errstate(all="ignore"):
        t = one / fma32(_ERF_P, np.abs(x), one)
        r = fma32(_ERF_POLY[0], t, _ERF_POLY[1])
        for c in _ERF_POLY[2:]:
            r = fma32(r, t, c)
        tmp = -expf(-(x * x)) * t
        out = fma32(tmp, r, one)
        return np.where(np.signbit(x), -out, out).astype(F32, copy=False)


def _double(fn: Callable[[float], float]) -> Kernel:
    return lambda x: libm.call_double(fn, x)


# float32 routines of the two paths; float64: NumPy in the vector path, libm in the scalar one.
_EXP = {F32: (expf, lambda x: libm.call("expf", x)), F64: (np.exp, _double(math.exp))}
_EXPM1 = {F32: (expm1f, lambda x: libm.call("expm1f", x)), F64: (np.expm1, _double(math.expm1))}
_LOG1P = {F32: (log1pf, lambda x: libm.call("log1pf", x)), F64: (np.log1p, _double(math.log1p))}
_TANH = {F32: (tanhf, lambda x: libm.call("tanhf", x)), F64: (np.tanh, _double(math.tanh))}
_ERF = {F32: (erf_vector, lambda x: libm.call("erff", x)), F64: (_double(math.erf), _double(math.erf))}


def _pair(table: dict, a: np.ndarray) -> tuple[Kernel, Kernel]:
    return table[a.dtype.type]


def _fma(dtype: type) -> Callable:
    return fma32 if dtype is F32 else fma64


# -- the activations -----------------------------------------------------------------------------

def elu(a: np.ndarray, negcoef: float, poscoef: float, negiptcoef: float) -> np.ndarray:
    """``a <= 0 ? expm1(a * input_scale) * alpha*scale : a * scale`` (ATen uses expm1)."""
    t = a.dtype.type
    vec, sca = _pair(_EXPM1, a)
    neg, pos, ipt = t(negcoef), t(poscoef), t(negiptcoef)
    m = by_path(a, lambda x: vec(x * ipt), lambda x: sca(x * ipt)) * neg
    return np.where(a <= 0, m, a * pos)


def gelu(a: np.ndarray, contiguous: bool) -> np.ndarray:
    """``x * 0.5 * (1 + erf(x / sqrt 2))``; contiguous float32 goes through oneDNN's kernel."""
    t = a.dtype.type
    if t is F32 and contiguous and a.size > 1:
        return onednn_gelu(a)
    vec, sca = _pair(_ERF, a)
    alpha = t(math.sqrt(0.5))
    erf = by_path(a, lambda x: vec(x * alpha), lambda x: sca(x * alpha))
    return a * t(0.5) * (t(1) + erf)


def gelu_tanh(a: np.ndarray) -> np.ndarray:
    """``0.5 * x * (1 + tanh(beta * (x + kappa * x**3)))`` with the inner sum fused."""
    t = a.dtype.type
    beta = t(math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5)
    inner = beta * _fma(t)(t(0.044715), a * a * a, a)
    vec, sca = _pair(_TANH, a)
    return t(0.5) * a * (t(1) + by_path(inner, vec, sca, layout=a))


def silu(a: np.ndarray) -> np.ndarray:
    t = a.dtype.type
    vec, sca = _pair(_EXP, a)
    return a / (t(1) + by_path(-a, vec, sca, layout=a))


def silu_backward(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
    """ATen's fused ``silu_backward`` (the gradient when no graph of it is built):
    ``dy * s * (1 + x * (1 - s))`` with ``s = 1 / (1 + exp(-x))`` and the inner sum fused, each
    path's own exp (dy and x of one float dtype)."""
    t = x.dtype.type
    one, fma = t(1), _fma(t)
    vec_exp, scalar_exp = _pair(_EXP, x)

    def routine(exp: Kernel) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        def value(g: np.ndarray, v: np.ndarray) -> np.ndarray:
            with np.errstate(all="ignore"):
                s = one / (one + exp(-v))
                return g * s * fma(v, one - s, np.full(v.shape, one, t))
        return value
    return binary_loops.cpu_kernel_vec(dy, x, routine(vec_exp), routine(scalar_exp))


def mish(a: np.ndarray) -> np.ndarray:
    """``x * tanh(log1p(exp(x)))``, each function the path's own."""
    ve, se = _pair(_EXP, a)
    vl, sl = _pair(_LOG1P, a)
    vt, st = _pair(_TANH, a)
    return a * by_path(a, lambda x: vt(vl(ve(x))), lambda x: st(sl(se(x))))


def softplus(a: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    t = a.dtype.type
    b = t(beta)
    scaled = a * b
    ve, se = _pair(_EXP, a)
    vl, sl = _pair(_LOG1P, a)
    soft = by_path(scaled, lambda x: vl(ve(x)), lambda x: sl(se(x)), layout=a) / b
    return np.where(scaled > t(threshold), a, soft)


def log_sigmoid(a: np.ndarray) -> np.ndarray:
    """``min(x, 0) - log1p(exp(-|x|))``, every element through the vector routines."""
    t = a.dtype.type
    ve, _ = _pair(_EXP, a)
    vl, _ = _pair(_LOG1P, a)
    return np.minimum(a, t(0)) - vl(ve(-np.abs(a)))


def softshrink_inside(a: np.ndarray) -> np.ndarray:
    """What softshrink gives inside the band: the vector kernel a masked +0, the scalar one
    ``x * 0`` (-0.0 for a negative x).  Its loop vectorises every whole vector (measured:
    24 floats are 16 vector lanes and 8 scalar ones, where cpu_kernel_vec's are 0 and 24)."""
    zero = a.dtype.type(0)
    return by_path(a, lambda x: np.full(x.shape, zero, x.dtype), lambda x: x * zero, step=1)


# -- oneDNN's GELU -----------------------------------------------------------------------------

# jit_uni_eltwise_injector's gelu_erf_minimax_pol: 25 polynomials of degree 5 in |x|, by
# degree (the float32 bit patterns of oneDNN's table).
_ONEDNN_GELU_HEX = (
    "a6f2cb94 32827792 3381cc0c 34523d4a 351ac44d 35f36d88 36ee8229 37b8a3bb 3867a213 3940033b 3a2a5a1d 3ae35863 "
    "3b7828f2 3c08b14b 3c515ed3 bb503236 bd8d8e5e be8abcd9 bf0c19a2 beccb328 3e176ced 3f470d99 3f7abb28 3f800000 "
    "00000000",
    "3f4c422a 3f4c421f 3f4c4207 3f4c41cb 3f4c413b 3f4c3fad 3f4c3a2f 3f4c2d40 3f4c146a 3f4bc341 3f4ad08c 3f48f8cf "
    "3f45fac7 3f404e07 3f3b980f 3f48dff3 3f78b21b 3fbb0704 40019c32 3fe536d6 3f81331e 3e6c8684 3c98f936 00000000 "
    "3f800000",
    "b62173f4 3735e4cf 37f2ff89 388c23be 3917535c 39ab2ab0 3a60fadb 3af9b960 3b6e5491 3c0a4ec5 3ca5aa8c 3d2138d9 "
    "3d8737d4 3ddfb660 3e0f27ab 3d94004b be0efdeb bf1d96c3 bf89db58 bf6d9897 bef69fb8 bdc4f8a8 bbde6422 00000000 "
    "00000000",
    "be081a19 be084570 be08639b be089837 be08f409 be09ab95 be0b66d0 be0e400a be124df8 be1bde02 be2f19c9 be4931bf "
    "be685fbc be89c95f be96cbca be8044aa be0550f2 3dcfd6a1 3e94c826 3e79345f 3decec91 3ca46568 3aa1e00a 00000000 "
    "00000000",
    "ba3d61db 39f097a3 3a5845dc 3ab1fa35 3b0cefb8 3b653ab6 3bcae527 3c221712 3c6c5840 3cc0a703 3d1dcc19 3d63656d "
    "3d955907 3dbf9910 3dd53f69 3db7dcef 3d639ebe ba6ede48 bd22be69 bd041cf1 bc64f5ab bb097a32 b8ebf380 00000000 "
    "00000000",
    "3cb7d80c 3c9b6050 3c978d11 3c92e850 3c8d058b 3c848454 3c6cd623 3c4c824b 3c2a7935 3be0b390 3b0651ac bb232f53 "
    "bbd42fa0 bc2c5366 bc492c9e bc2a7aa6 bbd55d04 ba823a76 3b102aa8 3ae25a7e 3a31f792 38b84375 3689bb5a 00000000 "
    "00000000",
)
_ONEDNN_GELU: tuple[np.ndarray, ...] = tuple(
    np.array([int(h, 16) for h in row.split()], dtype=np.uint32).view(F32) for row in _ONEDNN_GELU_HEX)
_IDX_BIAS = 0xC21FFFFF  # added to |x|'s bits; >> 21 keeps the exponent and two mantissa bits
_RBOUND = np.uint32(0x40B15CEE).view(F32)  # beyond it erf is 1 (polynomial 23)


def onednn_gelu(s: np.ndarray) -> np.ndarray:
    """oneDNN's AVX512 ``gelu_erf``: ``(x * (1 + sign(x) P_i(|x|))) * 0.5``, P_i by Horner (fused)."""
    s = np.asarray(s, F32)
    pos = np.abs(s)
    idx = ((pos.view(np.uint32).astype(np.int64) + _IDX_BIAS) & 0xFFFFFFFF).astype(np.uint32).view(np.int32) >> 21
    idx = np.minimum(np.maximum(idx, 1), 24)
    idx = np.where(_RBOUND < pos, 23, idx)
    pol = _ONEDNN_GELU[5][idx]
    for degree in range(4, -1, -1):
        pol = fma32(pol, pos, _ONEDNN_GELU[degree][idx])
    pol = np.where(np.signbit(s), -pol, pol)
    return ((s * (pol + F32(1))) * F32(0.5)).astype(F32, copy=False)
