"""float32 sinh, cosh, exp2, expm1, log1p against live PyTorch, bit for bit (skipped without torch).

PyTorch 2.13 computes them with SLEEF's u10 routines (kernels/sleef_f32.py): sinh, cosh and
exp2 in ``cpu_kernel_vec`` (vector blocks, glibc's scalar functions on the tails), expm1 and
log1p through ``at::vml`` (SLEEF on every element).  MKL is not involved, so MKL_CBWR does not
change these values (measured); the cases compare bit patterns, NaNs being equal to NaNs.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gradcli.engine import api  # noqa: E402
from gradcli.engine.kernels import elementwise, libm, sleef_f32, summation  # noqa: E402
from gradcli.engine.tensor import Tensor  # noqa: E402

F32 = np.float32

# name -> gradcli's kernel of a float32 array (what pointwise_unary calls)
KERNELS = {
    "sinh": lambda a: elementwise.cpu_kernel_vec(a, sleef_f32.sinhf, "sinhf", np.sinh),
    "cosh": lambda a: elementwise.cpu_kernel_vec(a, sleef_f32.coshf, "coshf", np.cosh),
    "exp2": lambda a: elementwise.cpu_kernel_vec(a, sleef_f32.exp2f, "exp2f", np.exp2),
    "expm1": lambda a: elementwise.vml_map(a, sleef_f32.expm1f, np.expm1),
    "log1p": lambda a: elementwise.vml_map(a, sleef_f32.log1pf, np.log1p),
}
NAMES = sorted(KERNELS)
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1.17e-38, -1.17e-38, 1e-30, 0.5,
                     -0.5, 1.0, -1.0, -0.99999994, -1.0000001, 2.0, 10.0, -16.6355, -16.6356, 88.0, 88.7228,
                     88.7229, 89.0, 89.01, -89.01, 100.0, -100.0, -103.9, -104.0, -104.1, -126.0, 127.99, 128.0,
                     -149.0, -150.0, -150.1, 1e38, 1.3e38, 3.4e38, -3.4e38], F32)


# Which elements take the scalar tail depends on the vector width: gradcli models PyTorch's
# AVX512 kernels (blocks of 32 floats); under AVX2 (ATEN_CPU_CAPABILITY=avx2) the blocks are 16.
avx512 = pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() != "AVX512",
                            reason="the tails' positions are those of PyTorch's AVX512 kernels")


@pytest.fixture(autouse=True)
def _threads():
    old = torch.get_num_threads()
    torch.set_num_threads(summation.NUM_THREADS)  # the thread split decides where the tails are
    yield
    torch.set_num_threads(old)


def _mismatches(a: np.ndarray, b: np.ndarray) -> int:
    a, b = np.asarray(a, F32), np.asarray(b, F32)
    assert a.shape == b.shape
    return int(((a.view(np.int32) != b.view(np.int32)) & ~(np.isnan(a) & np.isnan(b))).sum())


def _torch(name: str, x: np.ndarray) -> np.ndarray:
    return getattr(torch, name)(torch.from_numpy(x)).numpy()


def _values(rng: np.random.Generator, n: int) -> np.ndarray:
    """Uniform on [-12, 12], log-uniform magnitudes up to 1e38, and random bit patterns."""
    k = n // 3
    wide = np.exp(rng.uniform(-90, 88, k)) * rng.choice([-1.0, 1.0], k)
    bits = rng.integers(0, 1 << 32, n - 2 * k, dtype=np.uint64).astype(np.uint32).view(F32)
    return np.concatenate([rng.uniform(-12, 12, k).astype(F32), wide.astype(F32), bits])


@pytest.mark.parametrize("name", NAMES)
def test_bulk(name):
    # a million inputs per function, in arrays at the exact path's size limit
    rng = np.random.default_rng(sum(map(ord, name)))
    n = elementwise.EXACT_LIMIT
    for _ in range(4):
        x = _values(rng, n)
        assert _mismatches(_torch(name, x), KERNELS[name](x)) == 0


@avx512
@pytest.mark.parametrize("name", NAMES)
def test_every_size_to_70_and_odd_sizes(name):
    rng = np.random.default_rng(7)
    for n in list(range(1, 71)) + [97, 127, 129, 1000, 4099, 32767, 32769, 40001, 65537]:
        x = (rng.standard_normal(n) * 4).astype(F32)
        assert _mismatches(_torch(name, x), KERNELS[name](x)) == 0, n


@avx512
@pytest.mark.parametrize("name", NAMES)
def test_layouts(name):
    rng = np.random.default_rng(11)
    for shape in [(7, 50), (33, 40), (3, 4, 45), (300, 301)]:
        x = (rng.standard_normal(shape) * 4).astype(F32)
        t = torch.from_numpy(x)
        views = [(t, x), (t.transpose(0, 1), x.swapaxes(0, 1)), (t[:, 1:], x[:, 1:]), (t[:, ::2], x[:, ::2]),
                 (t[:1].expand(shape), np.broadcast_to(x[:1], shape)),
                 (t[..., :1].expand(shape), np.broadcast_to(x[..., :1], shape))]
        if len(shape) == 3:
            views += [(t.permute(2, 0, 1), x.transpose(2, 0, 1)), (t.permute(1, 0, 2), x.transpose(1, 0, 2)),
                      (t.permute(0, 2, 1)[:, 1:], x.transpose(0, 2, 1)[:, 1:])]
        one = t.reshape(-1)[:1].reshape([1] * len(shape))
        views.append((one.expand(shape), np.broadcast_to(x.reshape(-1)[:1].reshape([1] * len(shape)), shape)))
        for tv, xv in views:
            assert _mismatches(getattr(torch, name)(tv).numpy(), KERNELS[name](xv)) == 0, (shape, xv.strides)


@avx512
@pytest.mark.parametrize("name", NAMES)
def test_specials_zero_dim_and_api(name):
    for v in SPECIALS:
        t = getattr(torch, name)(torch.tensor(v)).numpy()
        assert _mismatches(t, KERNELS[name](np.array(v))) == 0, v
        assert _mismatches(t, api.TORCH[name](Tensor._make(np.array(v)))._data) == 0, v
    x = np.tile(SPECIALS, 3)  # in vector blocks and in tails
    assert _mismatches(_torch(name, x), KERNELS[name](x)) == 0
    assert _mismatches(_torch(name, x), api.TORCH[name](Tensor._make(x.copy()))._data) == 0


def test_the_comparison_notices_a_wrong_kernel():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(1 << 16) * 4).astype(F32)
    # NumPy in double (the old path) differs from SLEEF's u10 in some last bits
    assert _mismatches(_torch("sinh", x), np.sinh(x.astype(np.float64)).astype(F32)) > 0
    # SLEEF on every element is wrong for cpu_kernel_vec ops: the tails are glibc's
    tails = [_mismatches(_torch("cosh", y), sleef_f32.coshf(y)) for y in x[:64 * 31].reshape(64, 31)]
    assert sum(tails) > 0
    # and glibc on every element is wrong for the vml ops
    assert _mismatches(_torch("expm1", x[:4096]), libm.call("expm1f", x[:4096], np.expm1)) > 0
