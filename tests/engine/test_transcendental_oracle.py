"""float32 sigmoid / softmax / log_softmax / cross_entropy against torch (skipped without it).

PyTorch's vectorised kernels use SLEEF's expf_u10 / logf_u10 (see gradcli/engine/kernels/sleef.py);
gradcli reproduces them, including the scalar tails of elementwise kernels.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gradcli.engine.ops import pointwise_unary  # noqa: E402
from gradcli.engine.kernels import sleef, summation  # noqa: E402
from cpu_kernels import only_avx512  # noqa: E402


@pytest.fixture(autouse=True)
def _threads():
    old = torch.get_num_threads()
    torch.set_num_threads(summation.NUM_THREADS)  # the thread split decides the tails
    yield
    torch.set_num_threads(old)


def _mismatches(a, b):
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return int(((a.view(np.int32) != b.view(np.int32)) & ~(np.isnan(a) & np.isnan(b))).sum())


def test_expf_matches_torch_sigmoid_in_bulk():
    rng = np.random.default_rng(1)
    x = rng.uniform(-30, 30, 1 << 16).astype(np.float32)
    assert _mismatches(torch.sigmoid(torch.from_numpy(x)).numpy(), sleef.sigmoid(x)) == 0


@only_avx512(torch)
@pytest.mark.parametrize("n", list(range(1, 66)) + [100, 1000, 32768, 32769, 40001, 65537])
def test_sigmoid_sizes(n):
    x = (np.random.default_rng(n).standard_normal(n) * 6).astype(np.float32)
    assert _mismatches(torch.sigmoid(torch.from_numpy(x)).numpy(), pointwise_unary.sigmoid_kernel(x)) == 0


@only_avx512(torch)
@pytest.mark.parametrize("shape", [(7, 50), (33, 40), (3, 4, 45), (300, 301)])
def test_sigmoid_layouts(shape):
    x = (np.random.default_rng(3).standard_normal(shape) * 6).astype(np.float32)
    t = torch.from_numpy(x)
    for tv, xv in ((t, x), (t.transpose(0, 1), x.swapaxes(0, 1)), (t[:, 1:], x[:, 1:]), (t[:, ::2], x[:, ::2])):
        assert _mismatches(torch.sigmoid(tv).numpy(), pointwise_unary.sigmoid_kernel(xv)) == 0


@only_avx512(torch)
@pytest.mark.parametrize("shape", [(1,), (5,), (2, 3), (64, 10), (10, 17), (8, 33), (4, 100), (3, 1000), (2, 5, 7)])
@pytest.mark.parametrize("scale", [1.0, 30.0])
def test_softmax_family(shape, scale):
    x = (np.random.default_rng(len(shape) * 100 + shape[-1]).standard_normal(shape) * scale).astype(np.float32)
    t = torch.from_numpy(x)
    assert _mismatches(torch.softmax(t, -1).numpy(), sleef.softmax_lastdim(x, False)) == 0
    assert _mismatches(torch.log_softmax(t, -1).numpy(), sleef.softmax_lastdim(x, True)) == 0


def test_logf_matches_sleef_on_sums():
    # softmax sums lie in [1, n]: log_softmax of [0, y] probes log(1 + exp(y)) for many y
    rng = np.random.default_rng(5)
    x = np.zeros((4096, 2), np.float32)
    x[:, 1] = rng.uniform(-20, 0, 4096).astype(np.float32)
    t = torch.log_softmax(torch.from_numpy(x), -1).numpy()
    assert _mismatches(t, sleef.softmax_lastdim(x, True)) == 0
