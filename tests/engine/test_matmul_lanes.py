"""matmul_order.product_in_lanes (MKL's dot-product kernels with 4 or 8 partial sums) against the
order written out element by element with float32 scalars, and where the rule applies."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine.kernels import matmul_order

F32 = np.float32


def lanes_written_out(a: np.ndarray, b: np.ndarray, lanes: int) -> np.ndarray:
    rows, inner, cols = a.shape[0], a.shape[1], b.shape[1]
    full = inner - inner % lanes
    out = np.empty((rows, cols), F32)
    pairs = {8: (((0, 4), (2, 6)), ((1, 5), (3, 7))), 4: (((0, 2),), ((1, 3),))}[lanes]
    for i in range(rows):
        for j in range(cols):
            lane = [F32(0)] * lanes
            for k in range(full):
                lane[k % lanes] = F32(lane[k % lanes] + F32(a[i, k] * b[k, j]))
            halves = []
            for half in pairs:
                sums = [F32(lane[p] + lane[q]) for p, q in half]
                halves.append(sums[0] if len(sums) == 1 else F32(sums[0] + sums[1]))
            total = F32(halves[0] + halves[1])
            for k in range(full, inner):
                total = F32(total + F32(a[i, k] * b[k, j]))
            out[i, j] = total
    return out


@pytest.mark.parametrize("lanes", [4, 8])
def test_lanes_match_the_order_written_out(lanes: int) -> None:
    rng = np.random.default_rng(lanes)
    for inner in (4, 7, 8, 9, 12, 15, 16, 17, 31, 40):
        a = (rng.standard_normal((3, inner)) * np.exp(rng.standard_normal((3, inner)) * 3)).astype(F32)
        b = (rng.standard_normal((inner, 2)) * np.exp(rng.standard_normal((inner, 2)) * 3)).astype(F32)
        got = matmul_order.product_in_lanes(a, b, lanes)
        assert got.flags.c_contiguous
        assert got.tobytes() == lanes_written_out(a, b, lanes).tobytes(), inner


def test_an_all_negative_zero_sum_is_positive_zero() -> None:
    a, b = np.full((2, 16), -0.0, F32), np.ones((16, 3), F32)
    assert not np.signbit(matmul_order.product_in_lanes(a, b, 8)).any()


def test_lanes_differ_from_running_sums() -> None:
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((60, 24)).astype(F32), rng.standard_normal((24, 3)).astype(F32)
    assert not np.array_equal(matmul_order.product_in_lanes(a, b, 8), matmul_order.product_in_order(a, b))


def test_which_products_take_lanes() -> None:
    rng = np.random.default_rng(6)

    def kernel(rows: int, inner: int, cols: int, dtype: str = "float32") -> str | None:
        x = rng.standard_normal((rows, inner)).astype(dtype)
        w = rng.standard_normal((cols, inner)).astype(dtype)
        return matmul_order.ordered_kernel(x, w.T)  # a Linear's x @ w.t()

    assert kernel(60, 8, 3) == "lanes8" and kernel(2, 600, 2) == "lanes8"
    assert kernel(60, 7, 3) == "dot"  # short sums add in order
    assert kernel(5, 16, 4) == "lanes4" and kernel(5, 17, 4) is None
    assert kernel(5, 9, 6) == "lanes4" and kernel(5, 12, 6) is None
    assert kernel(5, 6, 64) == "lanes4" and kernel(5, 8, 64) is None
    assert kernel(1, 8, 3) is None  # a single row is a gemv
    assert kernel(60, 8, 3, "float64") is None  # float64's lanes are not worked out
    x = rng.standard_normal((60, 8)).astype(F32)
    assert matmul_order.ordered_kernel(x, rng.standard_normal((8, 3)).astype(F32)) == "sum"  # w row-major
