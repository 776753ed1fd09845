"""float32 products whose summation order is known: a single row, and a column or mv of up to
four terms, add their terms one after another as PyTorch's BLAS does (values from torch 2.13)."""

from __future__ import annotations

import math

from gradcli.engine import api

T = api.TORCH

ROW = ['0x1.43f1700000000p+0', '0x1.e17f520000000p+2', '0x1.4346360000000p+2', '-0x1.5c4fca0000000p+1',
       '-0x1.618e720000000p+2']
MV = ['0x1.02ccee0000000p-1', '0x1.2752b80000000p+0', '-0x1.e80fe40000000p+0', '-0x1.0588840000000p+0',
      '0x1.706acc0000000p-2', '0x1.43ebf80000000p-2']
COL = ['-0x1.407c900000000p-2', '-0x1.4583e00000000p-2', '-0x1.4a87000000000p-2', '-0x1.4f85c00000000p-2',
       '-0x1.5480600000000p-2', '-0x1.5976b00000000p-2', '-0x1.5e68d00000000p-2', '-0x1.6356d00000000p-2']


def hexes(values: list) -> list[str]:
    return [float(v).hex() for v in values]


def test_a_row_times_a_matrix_and_mv_add_in_order() -> None:
    api.reset_global_state(seed=0)
    T["manual_seed"](0)
    row, m, a, v = T["randn"](1, 37), T["randn"](37, 5), T["randn"](6, 3), T["randn"](3)
    assert hexes(T["matmul"](row, m)[0].tolist()) == [float.fromhex(h).hex() for h in ROW]
    assert hexes(T["mv"](a, v).tolist()) == [float.fromhex(h).hex() for h in MV]


def test_the_polynomial_tutorials_column_product_adds_in_order() -> None:
    x = T["linspace"](-math.pi, math.pi, 2000)
    xx = x.unsqueeze(-1).pow(T["tensor"]([1, 2, 3]))
    w = T["tensor"]([[0.8571], [-0.0476], [-0.0919]])
    assert hexes(T["matmul"](xx, w)[:8, 0].tolist()) == [float.fromhex(h).hex() for h in COL]
