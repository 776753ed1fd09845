"""sum and mean against live PyTorch, bit for bit (kernels/summation.py).

Skipped unless torch is importable (the project never depends on it).  Random
shapes (0-d to 4-d, some over PyTorch's 32768-element parallel threshold),
sliced, permuted and expanded inputs, random dims and keepdim, float32 and
float64, values spread over many magnitudes so that any change in the order of
additions shows in the last bit.  The big cases assume PyTorch runs on two
threads, as on the reference machine (see summation.NUM_THREADS).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gradcli.engine import api  # noqa: E402
from gradcli.engine.kernels import summation  # noqa: E402
from gradcli.engine.tensor import Tensor  # noqa: E402

T = api.TORCH

pytestmark = pytest.mark.skipif(
    torch.get_num_threads() != summation.NUM_THREADS,
    reason="sums over 32768 elements depend on PyTorch's thread count")


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def _random_case(rng: np.random.Generator, big: bool):
    if big:
        nd = int(rng.integers(1, 4))
        total = int(rng.integers(33000, 120000))
        if nd == 1:
            shape = [total]
        elif nd == 2:
            r = int(rng.integers(2, 400))
            shape = [r, total // r]
        else:
            r, c = int(rng.integers(2, 40)), int(rng.integers(2, 60))
            shape = [r, c, total // (r * c)]
    else:
        nd = int(rng.integers(0, 5))
        shape = [int(rng.integers(1, 40)) if rng.random() < 0.8 else int(rng.integers(1, 300)) for _ in range(nd)]
        while np.prod(shape) > 20000:
            shape[int(np.argmax(shape))] //= 2
    steps = [2 if rng.random() < 0.25 else 1 for _ in shape]
    base = tuple(s * k for s, k in zip(shape, steps))
    dtype = np.float32 if rng.random() < 0.6 else np.float64
    data = (rng.standard_normal(base) * np.exp(rng.standard_normal(base) * 3)).astype(dtype)
    ops = []
    if shape:
        ops.append(("slice", tuple(slice(None, None, k) for k in steps)))
        if rng.random() < 0.4:
            ops.append(("permute", tuple(int(p) for p in rng.permutation(len(shape)))))
        if rng.random() < 0.1:
            ops.append(("expand", int(rng.integers(2, 4))))
    ndim = len(shape) + (1 if ops and ops[-1][0] == "expand" else 0)
    if ndim == 0 or rng.random() < 0.35:
        dims = None
    else:
        dims = tuple(int(d) for d in rng.choice(ndim, size=int(rng.integers(1, ndim + 1)), replace=False))
    return np.asarray(data), ops, dims, bool(dims is not None and rng.random() < 0.3)


def _apply(x, ops):
    for name, arg in ops:
        if name == "slice":
            x = x[arg]
        elif name == "permute":
            x = x.permute(*arg)
        else:
            x = x.unsqueeze(0).expand(arg, *x.shape)
    return x


@pytest.mark.parametrize("seed", range(6))
def test_sum_and_mean_match_torch(seed):
    rng = np.random.default_rng(seed)
    for i in range(60):
        data, ops, dims, keep = _random_case(rng, big=(i % 30 == 29))
        ref_in = _apply(torch.from_numpy(data.copy()), ops)
        ours_in = _apply(Tensor._make(data.copy()), ops)
        assert ours_in.stride() == ref_in.stride()
        for name in ("sum", "mean"):
            if dims is None:
                ref, ours = getattr(ref_in, name)(), getattr(ours_in, name)()
            else:
                ref, ours = getattr(ref_in, name)(dims, keepdim=keep), getattr(ours_in, name)(dims, keepdim=keep)
            assert tuple(ours.shape) == tuple(ref.shape)
            assert _bits(ours._data) == _bits(ref.numpy()), (name, data.shape, ops, dims, keep)


def test_broadcast_gradients_match_torch():
    rng = np.random.default_rng(11)
    for shape, bshape in [((37, 29), (29,)), ((5, 300), (1, 300)), ((64, 3, 40), (3, 1)), ((200, 170), (170,))]:
        x = rng.standard_normal(shape).astype(np.float32)
        b = rng.standard_normal(bshape).astype(np.float32)
        g = (rng.standard_normal(shape) * np.exp(rng.standard_normal(shape) * 3)).astype(np.float32)
        rb = torch.from_numpy(b).requires_grad_()
        (torch.from_numpy(x) + rb).backward(torch.from_numpy(g))
        ob = Tensor._make(b.copy()).requires_grad_()
        (Tensor._make(x) + ob).backward(Tensor._make(g))
        assert _bits(ob.grad._data) == _bits(rb.grad.numpy()), shape


def test_nll_loss_and_var_match_torch():
    F = api.SUBMODULES["nn.functional"]
    rng = np.random.default_rng(5)
    for i in range(40):
        n, c = int(rng.integers(1, 700)), int(rng.integers(2, 9))
        dtype = np.float32 if i % 3 else np.float64
        x = (rng.standard_normal((n, c)) * np.exp(rng.standard_normal((n, c)))).astype(dtype)
        target = np.where(rng.random(n) < 0.2, -100, rng.integers(0, c, n))
        weight = (rng.random(c) * 2).astype(dtype) if i % 2 else None
        for reduction in ("mean", "sum"):
            ref = torch.nn.functional.nll_loss(torch.from_numpy(x), torch.from_numpy(target), reduction=reduction,
                                               weight=None if weight is None else torch.from_numpy(weight))
            ours = F["nll_loss"](Tensor._make(x), Tensor._make(target), reduction=reduction,
                                 weight=None if weight is None else Tensor._make(weight))
            assert _bits(ours._data) == _bits(ref.numpy()), (n, c, reduction)
        big = x if i % 4 else np.repeat(x, 40000 // x.size + 1, axis=0)[::-1].copy()
        for correction in (0, 1):
            assert _bits(Tensor._make(big).var(correction=correction)._data) == \
                _bits(torch.from_numpy(big.copy()).var(correction=correction).numpy())
            assert _bits(Tensor._make(x).std(0, correction=correction)._data) == \
                _bits(torch.from_numpy(x).std(0, correction=correction).numpy()) or dtype == np.float64


SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-41, -2e-39, 3e38, -1e30])


@pytest.mark.parametrize("seed", range(3))
def test_short_rows_and_special_values_match_torch(seed):
    # Reductions of a few rows or columns (NumPy's reduce keeps whole rows in order only where
    # another axis is inner), (n, 1) columns, a thread split of one dense run, and -0, +-inf,
    # nan, denormals: every bit but a nan's sign and payload, which are left to chance
    rng = np.random.default_rng(100 + seed)
    shapes = [((256, 1), (0,)), ((1, 300), (1,)), ((5, 2), (0,)), ((3, 7), (1,)), ((40, 3), (0,)),
              ((9, 33), (0,)), ((17, 8), (1,)), ((2, 64, 3), (1,)), ((70000,), None), ((300, 256), (0,)),
              ((1000, 2), (0,)), ((2, 1000), (1,)), ((4, 5, 6), (0, 2)), ((16, 16), None)]
    for shape, dims in shapes:
        for dtype in (np.float32, np.float64):
            data = rng.standard_normal(shape) * np.exp(rng.standard_normal(shape) * 3)
            spots = rng.random(shape) < (0.0 if rng.random() < 0.3 else 0.05)
            data[spots] = rng.choice(SPECIALS, size=int(spots.sum()))
            data = data.astype(dtype)
            for view in (lambda x: x, lambda x: x.t() if x.ndim == 2 else x):
                ref_in, ours_in = view(torch.from_numpy(data.copy())), view(Tensor._make(data.copy()))
                for name in ("sum", "mean"):
                    args = () if dims is None else (dims,)
                    ref = getattr(ref_in, name)(*args).numpy().reshape(-1)
                    ours = np.asarray(getattr(ours_in, name)(*args)._data).reshape(-1)
                    nan = np.isnan(ref)
                    assert np.array_equal(np.isnan(ours), nan), (shape, dims, name)
                    assert ours[~nan].tobytes() == ref[~nan].tobytes(), (shape, dims, dtype, name)
