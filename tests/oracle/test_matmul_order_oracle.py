"""gradcli's matrix products against live PyTorch, bit for bit where kernels/matmul_order.py says
MKL's order is known.

Skipped unless torch is importable (torch runs on MKL's reference path: tests/conftest.py).
Random shapes around the measured limits (112 terms, 256 for a single row; the dot-product
kernels' running sums and 4 or 8 lanes), both layouts of each operand, float32 and float64, through mm, mv, bmm, matmul and
the gradient of a matrix product.  The last test checks that the comparison notices a product
in the wrong order.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gradcli.engine import api  # noqa: E402
from gradcli.engine.kernels import matmul_order  # noqa: E402

T = api.TORCH
INNER = (2, 3, 4, 5, 6, 7, 8, 9, 11, 16, 17, 40, 64, 100, 111, 112)
ROWS = (1, 2, 3, 7, 15, 16, 40, 128)
COLS = (1, 2, 3, 4, 5, 7, 8, 12, 33, 64)


def layouts(rng: np.random.Generator, shape: tuple, transposed: bool, dtype: str) -> np.ndarray:
    """A random matrix of ``shape``, stored row-major or as the transpose of a row-major one, with
    the strides a tensor of it gets (a matrix that is both is row-major)."""
    if transposed:
        array = rng.standard_normal(shape[::-1]).astype(dtype).T
        return array.copy() if array.flags.c_contiguous else array.T.copy().T
    return rng.standard_normal(shape).astype(dtype)


def both(array: np.ndarray) -> tuple:
    """The same values (and strides) as a torch tensor and a gradcli tensor."""
    theirs = torch.from_numpy(array.T.copy()).t() if not array.flags.c_contiguous else torch.from_numpy(array.copy())
    ours = T["from_numpy"](array.T.copy()).t() if not array.flags.c_contiguous else T["from_numpy"](array.copy())
    return theirs, ours


def known_cases(seed: int, count: int) -> list:
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        m, k, n = (int(rng.choice(ROWS)), int(rng.choice(INNER + (200, 256))), int(rng.choice(COLS)))
        ta, tb = bool(rng.integers(2)), bool(rng.integers(2))
        dtype = str(rng.choice(["float32", "float64"]))
        a, b = layouts(rng, (m, k), ta, dtype), layouts(rng, (k, n), tb, dtype)
        if matmul_order.adds_in_order(a, b):
            cases.append((a, b))
    return cases


@pytest.mark.parametrize("seed", range(4))
def test_mm_and_mv_add_in_mkls_order(seed: int) -> None:
    checked = 0
    for a, b in known_cases(seed, 60):
        (ta, ga), (tb, gb) = both(a), both(b)
        expected = (ta @ tb).numpy()
        assert np.array_equal(T["mm"](ga, gb).numpy(), expected), (a.shape, a.strides, b.shape, b.strides)
        if b.shape[1] == 1:
            vt, vg = tb[:, 0].contiguous(), gb[:, 0].contiguous()
            assert np.array_equal(T["mv"](ga, vg).numpy(), torch.mv(ta, vt).numpy()), (a.shape, a.strides)
        checked += 1
    assert checked == 60


def test_bmm_and_batched_matmul_add_batch_by_batch() -> None:
    rng = np.random.default_rng(10)
    for _ in range(40):
        batch, m, k, n = int(rng.integers(1, 5)), int(rng.choice(ROWS[:6])), int(rng.choice(INNER)), \
            int(rng.choice(COLS))
        a = rng.standard_normal((batch, m, k)).astype(np.float32)
        b = rng.standard_normal((batch, k, n)).astype(np.float32)
        expected = torch.bmm(torch.from_numpy(a), torch.from_numpy(b)).numpy()
        got = T["bmm"](T["from_numpy"](a), T["from_numpy"](b)).numpy()
        if matmul_order.adds_in_order(a[0], b[0]):
            assert np.array_equal(got, expected), (a.shape, b.shape)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_the_gradients_of_a_product_match_bit_for_bit() -> None:
    # x @ w with w row-major: both gradients where their order is known (x.t() @ g is a running
    # sum over the batch, g @ w.t() a dot kernel) -- the shapes of a small network's layers.
    rng = np.random.default_rng(3)
    for m, k, n in ((40, 3, 1), (64, 16, 8), (256, 4, 3), (7, 100, 2)):
        x, w = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
        g = rng.standard_normal((m, n)).astype(np.float32)
        tx, tw = torch.from_numpy(x).requires_grad_(), torch.from_numpy(w).requires_grad_()
        (tx @ tw).backward(torch.from_numpy(g))
        gx, gw = T["from_numpy"](x).requires_grad_(), T["from_numpy"](w).requires_grad_()
        (gx @ gw).backward(T["from_numpy"](g))
        assert matmul_order.adds_in_order(x.T, g) == (m <= matmul_order.LONGEST_RUNNING_SUM)
        if matmul_order.adds_in_order(x.T, g):
            assert np.array_equal(gw.grad.numpy(), tw.grad.numpy()), (m, k, n)
        if matmul_order.adds_in_order(g, w.T):
            assert np.array_equal(gx.grad.numpy(), tx.grad.numpy()), (m, k, n)


def test_special_values_match_bit_for_bit() -> None:
    # -0, infinities, nans, denormals and overflowing products in the running sums (the einsum
    # kernel and its loop fallback); a nan's sign and payload are MKL's own and not compared
    rng = np.random.default_rng(21)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-41, -2e-39, 3e38, -1e30])
    for a, b in known_cases(7, 80):
        for x in (a, b):
            spots = rng.random(x.shape) < 0.08
            x[spots] = rng.choice(specials, size=int(spots.sum())).astype(x.dtype)
        (ta, ga), (tb, gb) = both(a), both(b)
        expected = (ta @ tb).numpy()
        with np.errstate(all="ignore"):
            got = T["mm"](ga, gb).numpy()
        nan = np.isnan(expected)
        assert np.array_equal(np.isnan(got), nan), (a.shape, a.strides, b.shape, b.strides)
        assert got[~nan].tobytes() == expected[~nan].tobytes(), (a.shape, a.strides, b.shape, b.strides)


def test_a_product_in_numpys_order_is_noticed() -> None:
    # The same comparison with NumPy's BLAS in place of the running sum must fail somewhere.
    mismatches = 0
    for a, b in known_cases(0, 60):
        (ta, _), (tb, _) = both(a), both(b)
        mismatches += not np.array_equal(a @ b, (ta @ tb).numpy())
    assert mismatches > 0
