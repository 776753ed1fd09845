"""matmul_order.product_in_order (einsum) against the running sum written out, bit for bit.

The reference is the code the kernel replaced: ``acc = 0; acc += a[:, k] * b[k, :]`` for each k
in order (one ``add.accumulate`` for outputs of up to 512 elements).  Random shapes (odd sizes, single rows and columns, up to 112 terms), both layouts of
each operand, float32 and float64, values over many magnitudes with -0, +-inf, nan, denormals
and values that overflow when multiplied; the bits of every element are compared, a nan's sign
included (a result with a nan is the loop's own).
"""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine.kernels import matmul_order

SPECIALS = (0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -3e-39, 1e30, -2e25, 5e-324)


def running_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The kernel before einsum: small outputs by one accumulate, others by a loop over k."""
    dtype = np.result_type(a, b)
    with np.errstate(all="ignore"):
        if a.shape[0] * b.shape[1] <= 512:
            products = a[:, :, None] * b[None, :, :]
            return np.add.accumulate(products, axis=1, dtype=dtype)[:, -1, :] + dtype.type(0)
        acc = np.zeros((a.shape[0], b.shape[1]), dtype)
        for k in range(a.shape[1]):
            acc += a[:, k:k + 1] * b[k:k + 1, :]
    return acc


def random_matrix(rng: np.random.Generator, shape: tuple, dtype: str, special: float) -> np.ndarray:
    values = rng.standard_normal(shape) * np.exp(rng.standard_normal(shape) * 4)
    spots = rng.random(shape) < special
    values[spots] = rng.choice(np.array(SPECIALS), size=int(spots.sum()))
    with np.errstate(all="ignore"):
        values = values.astype(dtype)
    if rng.random() < 0.5:  # stored as the transpose of a row-major matrix
        values = values.T.copy().T
    return values


@pytest.mark.parametrize("seed", range(8))
def test_einsum_running_sums_match_the_loop(seed: int) -> None:
    assert matmul_order._einsum_adds_in_order()
    rng = np.random.default_rng(seed)
    for _ in range(150):
        m = int(rng.choice([1, 2, 3, 5, 8, 17, 64, 256])) if rng.random() < 0.6 else int(rng.integers(1, 90))
        n = int(rng.choice([1, 2, 3, 4, 7, 64])) if rng.random() < 0.6 else int(rng.integers(1, 90))
        k = int(rng.integers(1, 113))
        dtype = str(rng.choice(["float32", "float64"]))
        special = float(rng.choice([0.0, 0.02, 0.3]))
        a, b = random_matrix(rng, (m, k), dtype, special), random_matrix(rng, (k, n), dtype, special)
        with np.errstate(all="ignore"):
            got = matmul_order.product_in_order(a, b)
        want = running_sum(a, b)
        assert got.dtype == want.dtype and got.shape == want.shape
        # a fresh row-major result, as PyTorch's mm gives (the old accumulate gave two column-major
        # operands a column-major one; matrix_product never sent it those)
        assert got.strides == np.zeros(want.shape, want.dtype).strides
        assert got.tobytes() == np.ascontiguousarray(want).tobytes(), (m, k, n, dtype, a.strides, b.strides)


def test_negative_zero_products_sum_to_positive_zero() -> None:
    a = np.full((3, 4), -0.0, np.float32)
    b = np.ones((4, 5), np.float32)
    for x, y in ((a, b), (a.T.copy().T, b.T.copy().T), (b.T, a.T), (a[:1], b), (a, b[:, :1])):
        got = matmul_order.product_in_order(x, y)
        assert not np.signbit(got).any()


def test_the_check_rejects_a_fused_multiply_add(monkeypatch: pytest.MonkeyPatch) -> None:
    # einsum replaced by a product that rounds once per term (as a fused multiply-add does)
    def fused(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        wide = np.zeros((a.shape[0], b.shape[1]), np.longdouble)
        for k in range(a.shape[1]):
            wide = (wide + a[:, k:k + 1].astype(np.longdouble) * b[k:k + 1, :]).astype(a.dtype).astype(np.longdouble)
        return wide.astype(a.dtype)

    monkeypatch.setattr(matmul_order, "_einsum_product", fused)
    matmul_order._einsum_adds_in_order.cache_clear()
    try:
        assert not matmul_order._einsum_adds_in_order()
    finally:
        matmul_order._einsum_adds_in_order.cache_clear()
