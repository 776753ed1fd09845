"""Matrix products in the order PyTorch's BLAS (MKL, on its path without fused multiply-adds)
adds their terms, where the shape and layout tell it.

What was measured against torch 2.13 (tests/oracle/test_matmul_order_oracle.py keeps it so):

* When the inner dimension is strided in either operand -- ``a @ b`` with ``b`` row-major,
  ``a.t() @ g`` as in every gradient, ``bmm`` batch by batch -- MKL's kernels broadcast one
  term at a time into the output: each element is a running sum over the inner dimension,
  each product rounded first, from +0.  That holds up to 112 terms (256 for a single row);
  longer sums are cut into blocks whose boundaries depend on the shape, and NumPy's BLAS is
  used for them.
* When the inner dimension is contiguous in both operands (``x @ w.t()``, a dot product, an
  ``mv`` of a row-major matrix) MKL uses dot-product kernels with several partial sums; only
  their shortest case is known: a single column of up to 4 terms, still one after another.
* Both operands column-major (``a.t() @ b.t()``) go to another kernel, not worked out.

Elsewhere the result is NumPy's BLAS, which can differ from PyTorch's in the last bit.

What is known of the dot-product case, for whoever takes it further: MKL splits the rows of
the output between its threads (60 rows on 2 threads: 0-29, 30-59); inside a thread's block
the main tiles add in order (all of a 256 x 64 output, rows 0-27 of a 30-row block), while
the leftover rows and small outputs (4 x 4, 2 x 2, 32 x 3) use kernels with four or eight
partial sums combined as SSE halves ((p0 + p2) + (p1 + p3)), the choice depending on the
shape and the length of the sum.
"""

from __future__ import annotations

import numpy as np

# The longest running sum measured to be one block (113 already splits for some shapes).
LONGEST_RUNNING_SUM = 112
# A single row (gemv) is not cut into blocks this far.
LONGEST_SINGLE_ROW = 256
# The dot-product kernels add this many terms in order.
LONGEST_ORDERED_DOT = 4
# Outputs up to this many elements are summed through one 3-d array of products (faster there
# than a Python loop over the inner dimension; NumPy's accumulate is sequential by definition).
SMALL_OUTPUT = 512


def _row_major(array: np.ndarray) -> bool:
    """Whether BLAS sees ``array`` untransposed, as PyTorch passes it: row-major, or neither
    layout (PyTorch copies such a matrix into a contiguous, row-major one first)."""
    rows, cols = array.shape
    size = array.itemsize
    if array.strides[1] == size and (rows == 1 or array.strides[0] >= cols * size):
        return True
    return not (array.strides[0] == size and (cols == 1 or array.strides[1] >= rows * size))


def adds_in_order(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a @ b`` (2-d arrays, as stored) is one of the products above."""
    if a.dtype.kind != "f" or b.dtype.kind != "f":
        return False
    rows, inner, cols = a.shape[0], a.shape[1], b.shape[1]
    if inner < 2:
        return False
    # the inner dimension is contiguous in a single row of a and a single column of b
    a_inner_contiguous = rows == 1 or _row_major(a)
    b_inner_contiguous = cols == 1 or not _row_major(b)
    if a_inner_contiguous and b_inner_contiguous:  # dot-product kernels
        return cols == 1 and inner <= LONGEST_ORDERED_DOT
    if not a_inner_contiguous and cols > 1 and not _row_major(b):
        return False  # both column-major: MKL's kernel for the transposed problem, not worked out
    return inner <= (LONGEST_SINGLE_ROW if rows == 1 else LONGEST_RUNNING_SUM)


def product_in_order(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for 2-d arrays as a running sum over the inner dimension, each product rounded
    to the result's dtype before it is added, starting from +0."""
    rows, cols = a.shape[0], b.shape[1]
    dtype = np.result_type(a, b)
    if rows * cols <= SMALL_OUTPUT:
        products = a[:, :, None] * b[None, :, :]
        total = np.add.accumulate(products, axis=1, dtype=dtype)[:, -1, :]
        return total + dtype.type(0)  # +0 first, so an all -0 sum is +0 as in the kernel
    acc = np.zeros((rows, cols), dtype=dtype)
    for i in range(a.shape[1]):
        acc += a[:, i:i + 1] * b[i:i + 1, :]
    return acc


def matrix_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for 2-d arrays, in MKL's order where known, else NumPy's."""
    return product_in_order(a, b) if adds_in_order(a, b) else a @ b


def batched_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``bmm`` of two 3-d arrays: MKL multiplies batch by batch."""
    if a.shape[0] == 0 or not adds_in_order(a[0], b[0]):
        return np.matmul(a, b)
    return np.stack([product_in_order(x, y) for x, y in zip(a, b)])
