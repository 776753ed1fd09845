"""pow, atan2 and hypot (float32 and float64) against live PyTorch, bit for bit (skipped without torch).

PyTorch 2.13 computes them in ``cpu_kernel_vec`` with SLEEF on the vector blocks and glibc on
the scalar tails (kernels/binary_float.py); ``x ** 2``, ``x ** 3``, ``x ** -2``, ``x ** 0.5``,
``x ** -0.5`` and ``x ** -1`` are special-cased.  The cases compare bit patterns (NaNs equal).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gradcli.engine import api  # noqa: E402
from gradcli.engine.kernels import binary_loops, sleef_pow, sleef_pow64, summation  # noqa: E402
from gradcli.engine.tensor import Tensor  # noqa: E402

F32, F64 = np.float32, np.float64
DTYPES = [F32, F64]
OPS = ["pow", "atan2", "hypot"]
VECTOR = {("pow", F32): sleef_pow.powf, ("atan2", F32): sleef_pow.atan2f, ("hypot", F32): sleef_pow.hypotf,
          ("pow", F64): sleef_pow64.pow, ("atan2", F64): sleef_pow64.atan2, ("hypot", F64): sleef_pow64.hypot}
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, 3e-39, 1.2e-38, 0.5, -0.5, 1.0, -1.0,
            0.99999994, 1.0000001, -1.0000001, 2.0, -2.0, 3.0, -3.0, 2.5, -2.5, 7.0, -7.0, 88.0, 89.0, -150.0,
            8388609.0, 16777217.0, 16777218.0, 2.0 ** 31, -(2.0 ** 31), 1e10, 1e38, -3.4e38, 1e-300, 1e300,
            2.0 ** 53 + 2, 710.0, -745.0, 1e-310]

avx512 = pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() != "AVX512",
                            reason="the tails' positions are those of PyTorch's AVX512 kernels")


@pytest.fixture(autouse=True)
def _threads():
    old = torch.get_num_threads()
    torch.set_num_threads(summation.NUM_THREADS)  # the thread split decides where the tails are
    yield
    torch.set_num_threads(old)


def _mismatches(a, b) -> int:
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    it = np.int32 if a.dtype == F32 else np.int64
    return int(((a.view(it) != b.view(it)) & ~(np.isnan(a) & np.isnan(b))).sum())


def _torch_op(name: str, x, y):
    return getattr(torch, name)(x, y)


def _gradcli(name: str, x, y) -> np.ndarray:
    tx = x if not isinstance(x, np.ndarray) else Tensor._make(x)
    ty = y if not isinstance(y, np.ndarray) else Tensor._make(y)
    return api.TORCH[name](tx, ty)._data


def _values(rng: np.random.Generator, n: int, dt) -> np.ndarray:
    """Uniform on [-12, 12], log-uniform magnitudes, random bit patterns."""
    k = n // 3
    top = 88 if dt == F32 else 270
    wide = np.exp(rng.uniform(-top, top, k)) * rng.choice([-1.0, 1.0], k)
    if dt == F32:
        bits = rng.integers(0, 1 << 32, n - 2 * k, dtype=np.uint64).astype(np.uint32).view(F32)
    else:
        # random significands at exponents within 2**+-400 (more extreme float64 lanes take exactfp's
        # rational fallback, slow in bulk; the specials test has them)
        m = rng.integers(0, 1 << 52, n - 2 * k, dtype=np.int64)
        e = rng.integers(1023 - 400, 1023 + 400, n - 2 * k, dtype=np.int64)
        bits = ((e << 52) | m).view(F64) * rng.choice([-1.0, 1.0], n - 2 * k)
    return np.concatenate([rng.uniform(-12, 12, k).astype(dt), wide.astype(dt), bits.astype(dt)])


def _pow_inputs(rng: np.random.Generator, n: int, dt) -> tuple[np.ndarray, np.ndarray]:
    """Bases of every kind with exponents that keep most results finite, integral exponents too."""
    x = _values(rng, n, dt)
    y = np.where(rng.random(n) < 0.3, np.round(rng.uniform(-40, 40, n)),
                 rng.uniform(-6, 6, n) * 10.0 ** rng.uniform(-3, 1, n)).astype(dt)
    lo = rng.random(n) < 0.2  # near 1, large exponents: the double-float product's accuracy shows
    x = np.where(lo, (1 + rng.uniform(-1e-3, 1e-3, n)).astype(dt), x)
    y = np.where(lo, rng.uniform(-3e4, 3e4, n).astype(dt), y)
    return x, y


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", OPS)
def test_bulk_vector_routines(name, dt):
    # a million float32 inputs per function (a quarter of that in float64), all in vector blocks
    rng = np.random.default_rng(sum(map(ord, name)) + dt(0).itemsize)
    n, rounds = (1 << 18, 4) if dt == F32 else (1 << 16, 4)
    for _ in range(rounds):
        x, y = _pow_inputs(rng, n, dt) if name == "pow" else (_values(rng, n, dt), _values(rng, n, dt))
        expected = _torch_op(name, torch.from_numpy(x), torch.from_numpy(y)).numpy()
        assert _mismatches(expected, VECTOR[name, dt](x, y)) == 0


@avx512
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", OPS)
def test_every_size_to_70_and_odd_sizes(name, dt):
    rng = np.random.default_rng(5)
    sizes = list(range(1, 71)) + [97, 129, 1000, 4099, 32767, 32769, 40001]
    for n in sizes:
        x = (rng.standard_normal(n) * 3).astype(dt)
        y = (rng.standard_normal(n) * 3).astype(dt)
        if name == "pow":
            x = np.abs(x)
        expected = _torch_op(name, torch.from_numpy(x), torch.from_numpy(y)).numpy()
        assert _mismatches(expected, _gradcli(name, x, y)) == 0, n


def _layouts(rng: np.random.Generator, dt):
    """(x, y) pairs of many layouts: transposed, sliced, strided, broadcast rows/columns/scalars, 0-dim."""
    for shape in [(7, 50), (33, 40), (3, 4, 45), (70, 70)]:
        a = np.abs(rng.standard_normal(shape) * 3).astype(dt)
        b = (rng.standard_normal(shape) * 3).astype(dt)
        yield a, b
        yield a.swapaxes(0, 1), b.swapaxes(0, 1)
        yield a.swapaxes(0, 1), np.ascontiguousarray(b.swapaxes(0, 1))
        yield a[:, 1:], b[:, 1:]
        yield a[:, ::2], b[:, ::2]
        yield a, b[:1]
        yield a[..., :1], b
        yield a[..., :1], b[:1]
        yield a, b.reshape(-1)[:1].reshape(())
        yield a.reshape(-1)[:1].reshape(()), b
        if len(shape) == 3:
            yield a.transpose(2, 0, 1), b.transpose(2, 0, 1)
            yield a.transpose(1, 0, 2), np.ascontiguousarray(b.transpose(1, 0, 2))
    x = np.abs(rng.standard_normal(2000)).astype(dt)
    yield x[:, None], np.array([1, 2, 3], dt)  # the tutorials' x.unsqueeze(-1).pow(p)
    yield np.array(1.5, dt), np.array(-0.25, dt)


@avx512
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", OPS)
def test_layouts_and_broadcasts(name, dt):
    rng = np.random.default_rng(11)
    for x, y in _layouts(rng, dt):
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)  # the same strides
        expected = _torch_op(name, tx, ty).numpy()
        assert _mismatches(expected, _gradcli(name, x, y)) == 0, (x.shape, x.strides, y.shape, y.strides)


EXPONENTS = [0, 1, 2, 3, -1, -2, 0.5, -0.5, 4, 5, 1.5, -1.5, 2.5, 0.25, 1 / 3, -3, 7, 1e-3, 100, 1e10, -1e10,
             2 ** 24 + 1, 1e40, True, False, 1.7]


@avx512
@pytest.mark.parametrize("dt", DTYPES)
def test_tensor_to_a_python_number(dt):
    # special-cased exponents (0, 1, 2, 3, -1, -2, 0.5, -0.5), the others through SLEEF with
    # float(e) in the vector blocks and glibc's double pow(x, e) in the tails
    rng = np.random.default_rng(2)
    x = np.concatenate([(rng.standard_normal(1000) * 3), rng.uniform(0.5, 2, 1000), SPECIALS]).astype(dt)
    for n in (len(x), 31, 33, 95):
        for e in EXPONENTS:
            got = (Tensor._make(x[:n].copy()) ** e)._data
            if e == 0.5:  # PyTorch's sqrt kernel (MKL's VML): whatever gradcli's sqrt computes
                assert _mismatches(api.TORCH["sqrt"](Tensor._make(x[:n].copy()))._data, got) == 0
                continue
            expected = (torch.from_numpy(x[:n]) ** e).numpy()
            assert _mismatches(expected, got) == 0, (n, e)
    t = x.reshape(-1)[:1998].reshape(54, 37)
    for e in (1.5, 4, -0.5):
        expected = (torch.from_numpy(t).t() ** e).numpy()
        assert _mismatches(expected, (Tensor._make(t).t() ** e)._data) == 0, e
        expected = torch.from_numpy(t[:, 3:].copy()).pow_(e).numpy()
        assert _mismatches(expected, Tensor._make(t[:, 3:].copy()).pow_(e)._data) == 0, e


@avx512
@pytest.mark.parametrize("dt", DTYPES)
def test_a_python_number_to_a_tensor_and_mixed_dtypes(dt):
    rng = np.random.default_rng(4)
    y = np.concatenate([rng.standard_normal(1000) * 4, SPECIALS]).astype(dt)
    for base in (2, 2.5, 0.5, -2, 1, 0, 10.0, np.e):
        for n in (len(y), 40, 7):
            expected = (base ** torch.from_numpy(y[:n])).numpy()
            assert _mismatches(expected, (base ** Tensor._make(y[:n].copy()))._data) == 0, (base, n)
    x = np.abs(rng.standard_normal((2000, 1))).astype(dt)
    p = np.array([1, 2, 3])  # int64 exponents are converted to the base's dtype
    expected = torch.from_numpy(x).pow(torch.from_numpy(p)).numpy()
    assert _mismatches(expected, api.TORCH["pow"](Tensor._make(x), Tensor._make(p))._data) == 0
    expected = (torch.from_numpy(p) ** torch.from_numpy(x.reshape(-1)[:3].copy())).numpy()
    got = (Tensor._make(p) ** Tensor._make(x.reshape(-1)[:3].copy()))._data
    assert _mismatches(expected, got) == 0


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", OPS)
def test_specials_in_blocks_tails_and_zero_dim(name, dt):
    s = np.array(SPECIALS, dt)
    x, y = (a.reshape(-1) for a in np.meshgrid(s, s))
    expected = _torch_op(name, torch.from_numpy(x), torch.from_numpy(y)).numpy()
    assert _mismatches(expected, _gradcli(name, x, y)) == 0
    for i in range(0, len(x), 97):  # 0-dim operands take the scalar loop
        a, b = np.array(x[i]), np.array(y[i])
        assert _mismatches(_torch_op(name, torch.from_numpy(a), torch.from_numpy(b)).numpy(),
                           _gradcli(name, a, b)) == 0, (x[i], y[i])


def test_the_comparison_notices_a_wrong_kernel():
    rng = np.random.default_rng(3)
    x = np.abs(rng.standard_normal(1 << 15) * 4).astype(F32)
    y = (rng.standard_normal(1 << 15) * 4).astype(F32)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    # NumPy in double (the old path) differs from SLEEF's u10 routines in some last bits
    assert _mismatches(tx.pow(ty).numpy(), np.power(x.astype(F64), y.astype(F64)).astype(F32)) > 0
    assert _mismatches(torch.atan2(tx, ty).numpy(), np.arctan2(x.astype(F64), y.astype(F64)).astype(F32)) > 0
    # SLEEF on every element is wrong: the tails are glibc's
    rows = [(a, b) for a, b in zip(x[:64 * 31].reshape(64, 31), y[:64 * 31].reshape(64, 31))]
    assert sum(_mismatches(torch.from_numpy(a).pow(torch.from_numpy(b)).numpy(), sleef_pow.powf(a, b))
               for a, b in rows) > 0
    # and glibc on every element is wrong for the vector blocks
    glibc = binary_loops.scalar2("powf", x[:4096], y[:4096], np.power)
    assert _mismatches(tx[:4096].pow(ty[:4096]).numpy(), glibc) > 0
    # the scalar exponent is rounded to float in the vector blocks only: 1.7 is not 1.7f
    assert _mismatches((tx ** 1.7).numpy(), sleef_pow.powf(x, np.full_like(x, 1.7))) == 0
    assert _mismatches((tx[:31] ** 1.7).numpy(), sleef_pow.powf(x[:31], np.full(31, 1.7, F32))) > 0
