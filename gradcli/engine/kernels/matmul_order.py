"""Matrix products in the order PyTorch's BLAS (MKL) adds their terms, where the shape tells it.

For gemv-like shapes MKL adds the products one after another, each rounded
first: a single row (up to 256 terms), or a single column or ``mv`` with up to
4 terms.  Checked bit for bit against torch on random shapes; elsewhere
NumPy's BLAS agrees with MKL more often than this order does, so it is used.
"""

from __future__ import annotations

import numpy as np


def adds_in_order(rows: int, inner: int, cols: int, floating: bool) -> bool:
    """Whether a (rows x inner) @ (inner x cols) product is one of the shapes above."""
    if not floating or inner < 2:
        return False
    return (rows == 1 and inner <= 256) or (cols == 1 and inner <= 4)


def product_in_order(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b for 2-d arrays as a running sum over the inner dimension, without fused
    multiply-adds (the accumulator starts at +0, as gemv's does)."""
    acc = np.zeros((a.shape[0], b.shape[1]), dtype=np.result_type(a, b))
    for i in range(a.shape[1]):
        acc += a[:, i:i + 1] * b[i:i + 1, :]
    return acc
