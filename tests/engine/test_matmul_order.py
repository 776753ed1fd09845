"""float32 products whose summation order is known: a single row, and a column or mv of up to
four terms, add their terms one after another as PyTorch's BLAS does without fused multiply-add.

PyTorch 2.13's values are in tests/data/float32_bits.json, written by
tests/tools/make_float32_bits.py (with MKL on its path without fused multiply-adds, as the
reference outputs were made)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from gradcli.engine import api

T = api.TORCH

# PyTorch's results for the same tensors, from tests/tools/make_float32_bits.py.
BITS = json.loads((Path(__file__).parents[1] / "data" / "float32_bits.json").read_text())["matmul_order"]


def hexes(values: list) -> list[str]:
    return [float(v).hex() for v in values]


def test_a_row_times_a_matrix_and_mv_add_in_order() -> None:
    api.reset_global_state(seed=0)
    T["manual_seed"](0)
    row, m, a, v = T["randn"](1, 37), T["randn"](37, 5), T["randn"](6, 3), T["randn"](3)
    assert hexes(T["matmul"](row, m)[0].tolist()) == [float.fromhex(h).hex() for h in BITS["row_times_matrix"]]
    assert hexes(T["mv"](a, v).tolist()) == [float.fromhex(h).hex() for h in BITS["mv"]]


def test_the_polynomial_tutorials_column_product_adds_in_order() -> None:
    x = T["linspace"](-math.pi, math.pi, 2000)
    xx = x.unsqueeze(-1).pow(T["tensor"]([1, 2, 3]))
    w = T["tensor"]([[0.8571], [-0.0476], [-0.0919]])
    assert hexes(T["matmul"](xx, w)[:8, 0].tolist()) == [float.fromhex(h).hex() for h in BITS["polynomial_column"]]
